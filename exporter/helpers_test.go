package exporter

// Helpers shared by the tests of this package that need no running exporter.

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/promtext"
)

// replaceOnce replaces the one occurrence of old in s, failing the test when there is none, so that
// a change of the simulator's configuration cannot make an edit silently do nothing.
func replaceOnce(t *testing.T, s, old, repl string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q occurs %d times in:\n%s", old, strings.Count(s, old), s)
	}
	return strings.Replace(s, old, repl, 1)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// closedPort returns a loopback port nobody listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// postBody posts body to url as JSON and returns the status and the body.
func postBody(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// pemLines returns the base64 lines of the PEM blocks in b.
func pemLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

// parseMetrics reads an exposition into "name{labels}" -> value.
func parseMetrics(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out, err := promtext.Samples(body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// teeHandler sends every log record to each of its handlers.
type teeHandler []slog.Handler

func (m teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range m {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (m teeHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range m {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(teeHandler, len(m))
	for i, h := range m {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (m teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(m))
	for i, h := range m {
		out[i] = h.WithGroup(name)
	}
	return out
}

// count returns how many of list contain every one of parts.
func count(list []string, parts ...string) int {
	n := 0
	for _, s := range list {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(s, p)
		}
		if all {
			n++
		}
	}
	return n
}

// keyOf returns a key of m: the only one when m has one.
func keyOf(m map[string]float64) string {
	for k := range m {
		return k
	}
	return ""
}

// messages returns the messages of the log lines.
func messages(l []logLine) []string {
	var out []string
	for _, x := range l {
		out = append(out, x.Msg)
	}
	return out
}

// get fetches url and returns the status and the body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// matching returns the samples whose series matches the pattern.
func matching(m map[string]float64, pattern string) map[string]float64 {
	re := regexp.MustCompile(pattern)
	out := make(map[string]float64)
	for k, v := range m {
		if re.MatchString(k) {
			out[k] = v
		}
	}
	return out
}

// sorted returns a sorted copy of s.
func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// post posts nothing to url and returns the status.
func post(t *testing.T, url string) int {
	t.Helper()
	code, _ := postBody(t, url, "")
	return code
}
