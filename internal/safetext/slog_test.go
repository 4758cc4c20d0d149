package safetext

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHandlerEscapesEveryText logs a hostile cluster name (a right-to-left override and a colour
// escape) as the message, a string, an error, a grouped value and a preset attribute, through
// slog's text and JSON handlers: no line holds an unsafe character or invalid UTF-8, and the
// escapes show where they were. The JSON handler alone wrote U+202E and DEL raw.
func TestHandlerEscapesEveryText(t *testing.T) {
	const name = "prod\u202e\x1b[31mdoc\x7f\xff"
	for _, tc := range []struct {
		format string
		new    func(*bytes.Buffer) slog.Handler
	}{
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			l := slog.New(Handler(tc.new(&b))).With("preset", name)
			l.Warn("The VM map of Kubernetes cluster "+name+" matches again", "cluster", name,
				"err", errors.New("node "+name+" answered"), slog.Group("g", "name", name), "names", []string{name})
			out := b.String()
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 in %q", out)
			}
			if i := strings.IndexFunc(strings.TrimSuffix(out, "\n"), Unsafe); i >= 0 {
				t.Fatalf("unsafe character at %d of %q", i, out)
			}
			if n := strings.Count(out, `u202e`); n != 6 {
				t.Errorf("%d escaped overrides in %q, want 6 (message, preset, cluster, err, group, names)", n, out)
			}
		})
	}
}
