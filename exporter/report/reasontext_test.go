package report

import (
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/kubeapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
)

// TestReasonTextPerSource: every reason each node source can give is explained in words (not
// its bare label), and the labels both sources share are explained in each one's own words:
// a Kubernetes API timeout never speaks of ssh.timeout.
func TestReasonTextPerSource(t *testing.T) {
	for source, reasons := range map[string][]string{"ssh": ssh.Reasons(), "kubernetes_api": kubeapi.Reasons()} {
		for _, r := range reasons {
			if r == "other" {
				continue // no words would say more than the detail
			}
			if got := ReasonText(source, r); got == r || got == "" {
				t.Errorf("ReasonText(%q, %q) = %q, want words", source, r, got)
			}
		}
	}
	for _, r := range kubeapi.Reasons() {
		api := ReasonText("kubernetes_api", r)
		if strings.Contains(api, "ssh.timeout") || strings.Contains(api, "control node") || strings.Contains(api, "kubectl") {
			t.Errorf("ReasonText(kubernetes_api, %q) = %q, in the SSH source's words", r, api)
		}
	}
	if got := ReasonText("kubernetes_api", "timeout"); !strings.Contains(got, "kubernetes_api.timeout") {
		t.Errorf("ReasonText(kubernetes_api, timeout) = %q, want kubernetes_api.timeout named", got)
	}
}
