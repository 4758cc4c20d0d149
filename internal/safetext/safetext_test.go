package safetext

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are names a tenant can choose, each with what Line and Escape make of it.
var hostile = []struct {
	name, in, line, escaped string
}{
	{"plain", "prod-node-1", "prod-node-1", "prod-node-1"},
	{"accents and symbols stay", "nœud-é ✓ пр", "nœud-é ✓ пр", "nœud-é ✓ пр"},
	{"clear screen", "VM \x1b[2J\x1b[Hw1", "VM \uFFFD[2J\uFFFD[Hw1", `VM \x1b[2J\x1b[Hw1`},
	{"forged line", "w1\r\n[INFO] all is well", "w1 [INFO] all is well", `w1\x0d\x0a[INFO] all is well`},
	{"NUL, tab, DEL and C1", "a\x00b\tc\x7fd\u0085e\u009bf", "a\uFFFDb c\uFFFDd e\uFFFDf", `a\x00b\x09c\x7fd\u0085e\u009bf`},
	{"right-to-left override", "prod\u202eedoc", "prod\uFFFDedoc", `prod\u202eedoc`},
	{"every bidi embedding, override and isolate", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069x", "\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFDx",
		`\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069x`},
	{"marks and zero-width (Cf)", "p\u200er\u200fo\u061cd\u200b\ufeff\u00ad", "p\uFFFDr\uFFFDo\uFFFDd\uFFFD\uFFFD\uFFFD", `p\u200er\u200fo\u061cd\u200b\ufeff\u00ad`},
	{"tag characters (Cf, above the BMP)", "prod\U000e0001\U000e0070", "prod\uFFFD\uFFFD", `prod\U000e0001\U000e0070`},
	{"line and paragraph separators, no-break space", "a\u2028b\u2029c\u00a0d", "a b c d", `a\u2028b\u2029c\u00a0d`},
	{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD", `a\xffb\xc3`},
	{"a literal replacement character is text", "a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
	{"a backslash cannot forge an escape", `a\u202eb`, `a\u202eb`, `a\\u202eb`},
	{"private use and unassigned", "a\ue000b\U0010fffd", "a\uFFFDb\uFFFD", `a\ue000b\U0010fffd`},
	{"spaces collapse, ends trimmed", "  a \t\t b  ", "a b", `  a \x09\x09 b  `},
}

func TestLine(t *testing.T) {
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in, 0); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
		})
	}
}

func TestLineCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 3, "abc..."},
		{"éééé", 2, "éé..."},
		{"a\u202eb\u202ec", 3, "a\uFFFDb..."},
		{"a   b   c", 3, "a b..."},
	} {
		if got := Line(tc.in, tc.max); got != tc.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			got := Escape(tc.in)
			if got != tc.escaped {
				t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.escaped)
			}
			if back, err := strconv.Unquote(`"` + strings.ReplaceAll(got, `"`, `\"`) + `"`); err != nil || back != tc.in {
				t.Errorf("Escape(%q) = %q reads back as %q (%v)", tc.in, got, back, err)
			}
		})
	}
}

// FuzzSanitisers: whatever a tenant sends, Line gives one line of valid UTF-8 without an unsafe
// character, within its limit, and Escape gives such a text that reads back as the original.
func FuzzSanitisers(f *testing.F) {
	for _, tc := range hostile {
		f.Add(tc.in, 8)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 300
		line := Line(s, max)
		checkSafe(t, "Line", s, line)
		if max > 0 && utf8.RuneCountInString(line) > max+3 {
			t.Errorf("Line(%q, %d) = %q: longer than the limit", s, max, line)
		}
		if strings.TrimSpace(line) != line || strings.Contains(line, "  ") {
			t.Errorf("Line(%q) = %q: untrimmed or doubled space", s, line)
		}
		esc := Escape(s)
		checkSafe(t, "Escape", s, esc)
		if back, err := strconv.Unquote(`"` + strings.ReplaceAll(esc, `"`, `\"`) + `"`); err != nil || back != s {
			t.Errorf("Escape(%q) = %q reads back as %q (%v)", s, esc, back, err)
		}
	})
}

func checkSafe(t *testing.T, fn, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s(%q) = %q: invalid UTF-8", fn, in, out)
	}
	for _, r := range out {
		if Unsafe(r) {
			t.Errorf("%s(%q) = %q: holds %U", fn, in, out, r)
		}
	}
}
