package notifier_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

const suffix = ". This is only reported, nothing was changed. Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."

// acme is the owner of the clusters of the texts' tests.
var acme = notifier.ClusterRef{ID: "10000000-0000-4000-8000-000000000001", Name: "prod", Account: "acme"}

// identity is what follows a message about acme's cluster in its alert.
const identity = ". Cluster 10000000-0000-4000-8000-000000000001 of account acme"

// TestTextsCarryNoUnsafeCharacters: names come from CloudStack and node names from kubectl's
// output, so a text for CloudStack may hold an escape sequence, a line break, a bidirectional
// override or invalid UTF-8; what CloudStack gets is one printable line (safetext.Line).
func TestTextsCarryNoUnsafeCharacters(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "VM w1 is not a node", "VM w1 is not a node"},
		{"clear screen", "VM \x1b[2J\x1b[Hw1 is not a node", "VM \uFFFD[2J\uFFFD[Hw1 is not a node"},
		{"forged line", "VM w1\r\n[INFO] all is well", "VM w1 [INFO] all is well"},
		{"NUL, tab, DEL and C1", "a\x00b\tc\x7fd\u0085e\u009bf", "a\uFFFDb c\uFFFDd e\uFFFDf"},
		{"bidi override and colour", "VM prod\u202e\x1b[31mdoc is not a node", "VM prod\uFFFD\uFFFD[31mdoc is not a node"},
		{"isolates and marks", "a\u2066b\u2069c\u200fd", "a\uFFFDb\uFFFDc\uFFFDd"},
		{"invalid UTF-8", "VM w\xff1", "VM w\uFFFD1"},
		{"not unsafe: accents and symbols", "nœud-é ✓", "nœud-é ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hostile := notifier.ClusterRef{ID: acme.ID, Name: tt.in, Account: tt.in, Project: tt.in}
			texts := map[string]string{
				"WarnAnnotation": notifier.WarnAnnotation(tt.in),
				"FindingAnnotation": notifier.FindingAnnotation(tt.in, collector.Cause{EventID: "e1", Type: tt.in, Username: tt.in, Account: tt.in,
					Created: time.Date(2026, 12, 3, 9, 41, 7, 0, time.UTC)}),
				"InfoAnnotation":   notifier.InfoAnnotation(notifier.Resolution(collector.SideVM, tt.in)),
				"AlertDescription": notifier.AlertDescription(collector.KindVMNotANode, tt.in, hostile),
			}
			for fn, got := range texts {
				if i := strings.IndexFunc(got, safetext.Unsafe); i >= 0 || !utf8Valid(got) {
					t.Errorf("%s(%q) = %q: unsafe character at %d", fn, tt.in, got, i)
				}
			}
			if got := notifier.WarnAnnotation(tt.in); got != "[WARN] "+tt.want {
				t.Errorf("WarnAnnotation(%q) = %q, want %q", tt.in, got, "[WARN] "+tt.want)
			}
			if got := notifier.AlertDescription(collector.KindVMNotANode, tt.in, acme); got != tt.want+identity+suffix {
				t.Errorf("AlertDescription(%q) = %q, want %q", tt.in, got, tt.want+identity+suffix)
			}
		})
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// TestAlertDescriptionIdentifiesTheCluster: the alert names the cluster by uuid and owner, since
// names are unique per account only.
func TestAlertDescriptionIdentifiesTheCluster(t *testing.T) {
	const msg = "Kubernetes node ghost of cluster prod has no VM in CloudStack"
	const id = "10000000-0000-4000-8000-000000000001"
	tests := []struct {
		name string
		ref  notifier.ClusterRef
		want string
	}{
		{"account", notifier.ClusterRef{ID: id, Name: "prod", Account: "acme"}, msg + ". Cluster " + id + " of account acme" + suffix},
		{"account and project", notifier.ClusterRef{ID: id, Name: "prod", Account: "acme", Project: "web"}, msg + ". Cluster " + id + " of account acme, project web" + suffix},
		// CloudStack names no account for a project's cluster, only the project.
		{"project only", notifier.ClusterRef{ID: id, Name: "prod", Project: "web"}, msg + ". Cluster " + id + " of project web" + suffix},
		{"hostile account", notifier.ClusterRef{ID: id, Name: "prod", Account: "ac\u202eme\n"}, msg + ". Cluster " + id + " of account ac\uFFFDme" + suffix},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notifier.AlertDescription(collector.KindNodeWithoutVM, msg, tt.ref); got != tt.want {
				t.Errorf("AlertDescription = %q\nwant              %q", got, tt.want)
			}
		})
	}
}

// TestLongMessageKeepsTheIdentity: a message past generateAlert's limit (999 UTF-16 code units,
// the length CloudStack checks) is cut, the cluster's identity and the suffix are not, also when
// the message is made of characters outside the BMP (two code units each).
func TestLongMessageKeepsTheIdentity(t *testing.T) {
	for _, long := range []string{strings.Repeat("x", 2000), strings.Repeat("\U0001F600", 800)} {
		got := notifier.AlertDescription(collector.KindNodeWithoutVM, "Kubernetes node "+long, acme)
		if n := len(utf16.Encode([]rune(got))); n > 999 {
			t.Errorf("description of %d UTF-16 code units, want at most 999", n)
		}
		if !strings.HasSuffix(got, identity+suffix) {
			t.Errorf("description %q does not end with the identity and the suffix", got)
		}
	}
}

// TestAnnouncedTextsAreClean sends a finding whose node name holds an escape sequence, a line
// break and a right-to-left override through the notifier to CloudStack: the stored annotation
// and alert hold none of them.
func TestAnnouncedTextsAreClean(t *testing.T) {
	e := newNotifierEnv(t, notifier.Options{})
	st := e.status(nodeFinding("prod", "evil\x1b[31m\u202e\n"))
	st[0].Cluster.Account = "acme"
	e.notify(st)
	var texts []string
	texts = append(texts, e.annotations()...)
	for _, a := range e.alerts() {
		texts = append(texts, a.Description)
	}
	if len(texts) != 2 {
		t.Fatalf("stored %q, want an annotation and an alert", texts)
	}
	for _, s := range texts {
		if strings.IndexFunc(s, safetext.Unsafe) >= 0 {
			t.Errorf("CloudStack got %q", s)
		}
	}
	if want := "Kubernetes node evil\uFFFD[31m\uFFFD of cluster prod has no VM in CloudStack. Cluster " + e.cluster.ID + " of account acme" + suffix; texts[1] != want {
		t.Errorf("alert description %q, want %q", texts[1], want)
	}
}

// TestFindingAnnotationNamesTheLastChange: the annotation of a finding with a cause ends with
// "Last change: <type> by <username> at <created>" (UTC, RFC 3339), the account where the event
// names no user; one without a cause is the message alone.
func TestFindingAnnotationNamesTheLastChange(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 41, 7, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name    string
		message string
		cause   collector.Cause
		want    string
	}{
		{"no cause", "VM w1 is gone", collector.Cause{}, "[WARN] VM w1 is gone"},
		{"by a user", "VM w1 is gone", collector.Cause{EventID: "e1", Type: "VM.EXPUNGE", Username: "bob", Account: "acme", Created: at},
			"[WARN] VM w1 is gone. Last change: VM.EXPUNGE by bob at 2026-12-03T09:41:07Z"},
		{"no user", "VM w1 is gone.", collector.Cause{EventID: "e1", Type: "VM.STOP", Account: "acme", Created: at},
			"[WARN] VM w1 is gone. Last change: VM.STOP by acme at 2026-12-03T09:41:07Z"},
		{"a forged line in the user", "VM w1 is gone", collector.Cause{EventID: "e1", Type: "VM.STOP", Username: "bob\n[INFO] fine", Created: at},
			"[WARN] VM w1 is gone. Last change: VM.STOP by bob [INFO] fine at 2026-12-03T09:41:07Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notifier.FindingAnnotation(tt.message, tt.cause); got != tt.want {
				t.Errorf("FindingAnnotation = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzAlertDescription: whatever a tenant chooses as names and whatever its nodes print, the
// alert is one safe line within generateAlert's limit that ends with the cluster's identity.
func FuzzAlertDescription(f *testing.F) {
	f.Add("Kubernetes node ghost of cluster prod has no VM in CloudStack", "prod\u202e\x1b[31m", "acme", "")
	f.Add(strings.Repeat("\U0001F600", 600), "p", "a\xff", "web\u2066")
	f.Fuzz(func(t *testing.T, message, name, account, project string) {
		ref := notifier.ClusterRef{ID: acme.ID, Name: name, Account: account, Project: project}
		got := notifier.AlertDescription(collector.KindNodeWithoutVM, message, ref)
		if !utf8Valid(got) || strings.IndexFunc(got, safetext.Unsafe) >= 0 {
			t.Fatalf("AlertDescription = %q: not one safe line", got)
		}
		if n := len(utf16.Encode([]rune(got))); n > 999 {
			t.Fatalf("AlertDescription is %d UTF-16 code units", n)
		}
		if !strings.HasSuffix(got, ". "+ref.Identity()+suffix) {
			t.Fatalf("AlertDescription = %q does not end with the identity", got)
		}
	})
}

// TestAlertAdviceByKind: each kind's alert ends with its own advice (collector.Declarations): a
// version mismatch or a stuck cluster is not told to check the VM map.
func TestAlertAdviceByKind(t *testing.T) {
	const vmMap = "Check the VMs of the Kubernetes cluster in CloudStack against its VMs and its Kubernetes nodes."
	for _, d := range collector.Declarations {
		got := notifier.AlertDescription(d.Kind, "a message", acme)
		if want := "a message" + identity + ". This is only reported, nothing was changed. " + d.Advice; got != want {
			t.Errorf("%s: %q, want %q", d.Kind, got, want)
		}
	}
	for _, k := range []collector.Kind{collector.KindNodeVersionMismatch, collector.KindStuckInOperation} {
		if got := notifier.AlertDescription(k, "a message", acme); strings.HasSuffix(got, vmMap) {
			t.Errorf("%s: ends with the VM map's advice: %q", k, got)
		}
	}
}
