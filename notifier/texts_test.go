package notifier_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

const suffix = ". This is only reported, nothing was changed. Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."

// TestTextsCarryNoControlCharacters: names come from CloudStack and node names from kubectl's
// output, so a text for CloudStack may hold an escape sequence or a line break; what CloudStack
// gets holds none.
func TestTextsCarryNoControlCharacters(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "VM w1 is not a node", "VM w1 is not a node"},
		{"clear screen", "VM \x1b[2J\x1b[Hw1 is not a node", "VM [2J[Hw1 is not a node"},
		{"forged line", "VM w1\r\n[INFO] all is well", "VM w1[INFO] all is well"},
		{"NUL, tab, DEL and C1", "a\x00b\tc\x7fd\u0085e\u009bf", "abcdef"},
		{"not control: accents and symbols", "nœud-é ✓", "nœud-é ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			texts := map[string]string{
				"WarnAnnotation":   notifier.WarnAnnotation(tt.in),
				"InfoAnnotation":   notifier.InfoAnnotation(notifier.Resolution(collector.SideVM, tt.in)),
				"AlertDescription": notifier.AlertDescription(tt.in),
			}
			for fn, got := range texts {
				if i := strings.IndexFunc(got, unicode.IsControl); i >= 0 {
					t.Errorf("%s(%q) = %q: control character at %d", fn, tt.in, got, i)
				}
			}
			if got := notifier.WarnAnnotation(tt.in); got != "[WARN] "+tt.want {
				t.Errorf("WarnAnnotation(%q) = %q, want %q", tt.in, got, "[WARN] "+tt.want)
			}
			if got := notifier.AlertDescription(tt.in); got != tt.want+suffix {
				t.Errorf("AlertDescription(%q) = %q, want %q", tt.in, got, tt.want+suffix)
			}
		})
	}
}

// TestAnnouncedTextsAreClean sends a finding whose node name holds an escape sequence through
// the notifier to CloudStack: the stored annotation and alert hold none.
func TestAnnouncedTextsAreClean(t *testing.T) {
	e := newNotifierEnv(t, notifier.Options{})
	e.notify(e.status(nodeFinding("prod", "evil\x1b[2J\n")))
	var texts []string
	texts = append(texts, e.annotations()...)
	for _, a := range e.alerts() {
		texts = append(texts, a.Description)
	}
	if len(texts) != 2 {
		t.Fatalf("stored %q, want an annotation and an alert", texts)
	}
	for _, s := range texts {
		if strings.IndexFunc(s, unicode.IsControl) >= 0 {
			t.Errorf("CloudStack got %q", s)
		}
	}
	if want := "Kubernetes node evil[2J of cluster prod has no VM in CloudStack" + suffix; texts[1] != want {
		t.Errorf("alert description %q, want %q", texts[1], want)
	}
}
