package kubeapi

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestStatusMessage: a refusal carries the API server's message from its Status (who may not
// list what), not client-go's "unknown" of an answer it cannot decode.
func TestStatusMessage(t *testing.T) {
	r := newRig(t, threeNodes...)
	r.serve(t, r.api.NewToken(false))
	_, err := r.lister(t).Nodes(t.Context(), r.cluster)
	want := "kubernetes API " + r.api.URL() + `: nodes is forbidden: User "system:serviceaccount:kube-system:cks-drift-exporter" cannot list resource "nodes" in API group "" at the cluster scope`
	if Reason(err) != reasonAuth || err.Error() != want {
		t.Fatalf("Nodes: %v (reason %q), want %q", err, Reason(err), want)
	}
}

// TestStatusMessageBounded: the tenant's API server cannot put a page of text into the error
// (and so into the debug log) through a Status message.
func TestStatusMessageBounded(t *testing.T) {
	long := apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New(strings.Repeat("é", 100000)))
	err := boundStatus(long)
	if len(err.Error()) > maxStatusMessage+100 || !utf8.ValidString(err.Error()) {
		t.Errorf("bounded error of %d bytes (valid UTF-8: %v), want at most about %d", len(err.Error()), utf8.ValidString(err.Error()), maxStatusMessage)
	}
	if !strings.HasPrefix(err.Error(), "nodes is forbidden: ") || !strings.Contains(err.Error(), "status 403") {
		t.Errorf("bounded error %.120q..., want the message's start and its code", err)
	}
	if short := apierrors.NewUnauthorized("Unauthorized"); boundStatus(short) != error(short) {
		t.Error("a short Status message was changed")
	}
}
