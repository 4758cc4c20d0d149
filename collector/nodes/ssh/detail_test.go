package ssh

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestDetail: the detail of each failure says what an operator needs (stderr's first line, the
// host keys, the offending line) in one short printable line.
func TestDetail(t *testing.T) {
	t.Run("exit status", func(t *testing.T) {
		f := newFixture(t)
		f.srv.SetMode(sshtest.FailCommand)
		_, err := f.nodes(t, f.lister(t, nil))
		want := "exit status 1: The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?"
		if got := Detail(err); got != want {
			t.Errorf("Detail() = %q, want %q", got, want)
		}
	})
	// What real kubectl prints when RBAC refuses it, and for an API server that never answers
	// (its klog lines skipped).
	for mode, want := range map[sshtest.Mode]string{
		sshtest.Forbidden:  `exit status 1: Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:default:norights" cannot list resource "nodes" in API group "" at the cluster scope`,
		sshtest.APITimeout: "exit status 1: Unable to connect to the server: context deadline exceeded",
	} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t)
			f.srv.SetMode(mode)
			nodes, err := f.nodes(t, f.lister(t, nil))
			wantReason(t, nodes, err, "exit_status")
			if got := Detail(err); got != want {
				t.Errorf("Detail() = %q, want %q", got, want)
			}
		})
	}
	t.Run("bad output", func(t *testing.T) {
		f := newFixture(t)
		f.srv.SetMode(sshtest.Garbage)
		_, err := f.nodes(t, f.lister(t, nil))
		if got := Detail(err); !strings.Contains(got, `line 1 is not <name> <version> or node/<name>: "NAME`) {
			t.Errorf("Detail() = %q, want the offending line", got)
		}
	})
	t.Run("host key changed", func(t *testing.T) {
		f := newFixture(t)
		l := f.lister(t, func(o *Options) { o.Policy, o.Pins = config.HostKeyPin, &MemoryPins{} })
		if _, err := f.nodes(t, l); err != nil {
			t.Fatal(err)
		}
		old := describeKey(f.srv.HostKey())
		f.srv.SetHostKey(newHostKey(t))
		_, err := f.nodes(t, l)
		want := "offered " + describeKey(f.srv.HostKey()) + ", pinned " + old
		if got := Detail(err); got != want {
			t.Errorf("Detail() = %q, want %q", got, want)
		}
	})
	t.Run("auth", func(t *testing.T) {
		f := newFixture(t)
		other := newHostKey(t)
		_, err := f.nodes(t, f.lister(t, func(o *Options) { o.Signer = other }))
		if got := Detail(err); !strings.Contains(got, "user cloud: key "+describeKey(other.PublicKey())+" refused") {
			t.Errorf("Detail() = %q, want the user and key named", got)
		}
	})
}

// TestDetailSanitised: text from a node cannot put control characters or a page of text into
// a log line or /findings.
func TestDetailSanitised(t *testing.T) {
	hostile := "\x1b[31mred\x1b[0m\u202e\u2066\r\nsecond line\x00\xff\u0085" + strings.Repeat("é", 1000)
	got := Detail(withDetail(reasonExitStatus, hostile, errors.New("x")))
	if strings.ContainsFunc(got, safetext.Unsafe) {
		t.Errorf("Detail() kept unsafe characters: %q", got)
	}
	if want := "\uFFFD[31mred\uFFFD[0m\uFFFD\uFFFD second line\uFFFD\uFFFD ééé"; !strings.HasPrefix(got, want) {
		t.Errorf("Detail() = %.80q, want it to start with %q", got, want)
	}
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) > MaxDetail+3 {
		t.Errorf("Detail() = %d runes (valid UTF-8: %v), want at most %d", utf8.RuneCountInString(got), utf8.ValidString(got), MaxDetail+3)
	}
	if Detail(nil) != "" {
		t.Error("Detail(nil) is not empty")
	}
	if got := firstLine([]byte("\n  \nsudo: a terminal is required to read the password\nsudo: a password is required\n"), MaxDetail); got != "sudo: a terminal is required to read the password" {
		t.Errorf("firstLine() = %q", got)
	}
}

// TestDetailSkipsKlog: real kubectl logs klog lines before its message when its discovery cache
// is missing or stale (the fake's FailCommand prints such a recording, see TestDetail); a stderr
// of klog lines only gives the first one's text without its header, and a line that only looks
// a little like klog is a message.
func TestDetailSkipsKlog(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"W1201 12:00:00.000000    4711 loader.go:223] Config not found: /root/.kube/config\n", "Config not found: /root/.kube/config"},
		{"E1201 18:47:24.031435   17748 memcache.go:265] \"Unhandled Error\" err=\"x\"\nerror: the server doesn't have a resource type \"nodes\"\n",
			`error: the server doesn't have a resource type "nodes"`},
		{"E1201 is not a klog line]\n", "E1201 is not a klog line]"},
	} {
		if got := firstLine([]byte(tc.stderr), MaxDetail); got != tc.want {
			t.Errorf("firstLine(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}
