package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

const (
	// pageLimit is the page size asked for, kubectl's default chunk size.
	pageLimit = 500
	// maxPageBytes bounds one answer. A kubeadm node object is 3-6 KiB, up to about 40 KiB with
	// a long image list in its status: 500 of those fit with room to spare.
	maxPageBytes = 32 << 20
)

// Node is one Kubernetes node as the check reads it.
type Node struct {
	Name string
	// SystemUUID is status.nodeInfo.systemUUID, the SMBIOS system UUID the kubelet reads from
	// the machine.
	SystemUUID string
}

var errPageTooLarge = fmt.Errorf("an answer of the API server is over %d bytes", maxPageBytes)

// list pages through the node list with limit and continue. The typed list is used rather than
// the metadata-only one because systemUUID sits in the node's status, which a metadata list
// leaves out. Names are checked as the API server itself checks them, duplicates dropped; no
// node at all, or more than maxNodes, is an error.
func list(ctx context.Context, nodes corev1client.NodeInterface, maxNodes int) ([]Node, error) {
	var out []Node
	seen := make(map[string]bool)
	opts := metav1.ListOptions{Limit: min(pageLimit, int64(maxNodes)+1)}
	for pages := 0; ; pages++ {
		if pages > maxNodes {
			// Every real page has a node; a server that pages on and on is not a real one.
			return nil, withReason(reasonBadAnswer, fmt.Errorf("the node list did not end after %d pages", pages))
		}
		page, err := nodes.List(ctx, opts)
		if err != nil {
			return nil, classify(ctx, err)
		}
		for _, n := range page.Items {
			if msgs := validation.IsDNS1123Subdomain(n.Name); len(msgs) > 0 {
				return nil, withReason(reasonBadAnswer, fmt.Errorf("node name %.80q is not valid: %s", n.Name, msgs[0]))
			}
			if !seen[n.Name] {
				seen[n.Name] = true
				out = append(out, Node{Name: n.Name, SystemUUID: n.Status.NodeInfo.SystemUUID})
			}
		}
		if len(out) > maxNodes {
			return nil, withReason(reasonTooMany, fmt.Errorf("more than %d nodes", maxNodes))
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if len(out) == 0 {
		// A working cluster always lists at least its control node.
		return nil, withReason(reasonBadAnswer, errors.New("the API server listed no nodes"))
	}
	return out, nil
}

// capBodies stops reading an answer past maxPageBytes.
func capBodies(rt http.RoundTripper) http.RoundTripper { return capTransport{rt} }

type capTransport struct{ base http.RoundTripper }

func (t capTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxPageBytes + 1}
	}
	return resp, err
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left <= 0 {
		return n, errPageTooLarge
	}
	return n, err
}
