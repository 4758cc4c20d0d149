// Package safetext is the one place that decides how text chosen by tenants (cluster, VM and node names, what a control node prints) is made safe to show.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tenants choose cluster and VM names and everything their control node or API server sends.
// Shown raw, an escape sequence could clear an operator's terminal or forge a log or table row,
// a line break could forge a second annotation line, and a bidirectional override (U+202E) or
// another invisible format character could make one name read as another. Two ways out, with
// one policy of what is unsafe:
//
//   - Line, for texts that are read, not parsed back: CloudStack's annotations and alerts, the
//     detail of a failure in the log. Unsafe characters are replaced, visibly.
//   - Escape, where the original must stay recoverable: the --once table and the status page.

// Unsafe reports whether r must never reach CloudStack, a log or a terminal raw: everything
// that unicode.IsPrint refuses except the plain space. That is the C0 and C1 controls and DEL,
// every format character (category Cf: the bidirectional embeddings, overrides and isolates
// U+202A-U+202E and U+2066-U+2069, the marks U+200E, U+200F and U+061C, zero-width characters,
// U+FEFF, the tag characters), the line and paragraph separators, spaces other than U+0020,
// private-use and unassigned code points, and utf8.RuneError as decoding invalid UTF-8 returns
// it. A literal U+FFFD in valid UTF-8 is printable and safe.
func Unsafe(r rune) bool {
	return r != ' ' && !unicode.IsPrint(r)
}

// replacement marks where Line removed something, so that a reader sees that the name held more
// than is shown.
const replacement = '\uFFFD'

// Line returns s as one printable line of at most max characters (runes; max <= 0: no limit):
// white space of any kind (line breaks, tabs, U+2028, no-break spaces) becomes one plain space
// and the ends are trimmed, every other unsafe character and every byte of invalid UTF-8
// becomes U+FFFD, and a cut line ends in "...".
func Line(s string, max int) string {
	if !clean(s) || strings.Contains(s, "  ") || strings.TrimSpace(s) != s {
		var b strings.Builder
		b.Grow(len(s))
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1:
				r = replacement
			case unicode.IsSpace(r):
				r = ' '
			case Unsafe(r):
				r = replacement
			}
			b.WriteRune(r)
		}
		s = strings.Join(strings.Fields(b.String()), " ")
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "..."
	}
	return s
}

// Escape returns s with every unsafe character written as a Go escape: \x1b for a control
// below U+0080, \u202e or \U000e0001 above, \xff for a byte of invalid UTF-8. A backslash is
// doubled, so that an escape cannot be forged and the original can be read back (strconv.Unquote
// of the result in double quotes gives s, for valid UTF-8 and for invalid bytes alike).
func Escape(s string) string {
	if clean(s) && !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case !Unsafe(r):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 without an unsafe character, the common case that
// needs no copy.
func clean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return false
		}
		i += size
	}
	return true
}
