package report

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain-name", "plain-name"},
		{"ümlaut ✓", "ümlaut ✓"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"tab\there", `tab\x09here`},
		{"back\\slash", `back\\slash`},
		{`forged\x1b`, `forged\\x1b`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bidi\u202e\u2066\u200f", `bidi\u202e\u2066\u200f`},
		{"line\u2028sep", `line\u2028sep`},
		{"bad\xffutf8", `bad\xffutf8`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
