package ssh

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDetail is the most characters Detail returns: one line of a log or a JSON field, not a
// transcript.
const MaxDetail = 240

// Detail returns one short printable line that says why the node list could not be read, for
// the WARN line and /findings: the first line kubectl or sudo wrote to stderr, the offered and
// expected host keys, the offending output line. It tells "sudo needs a password" from "API
// server down" where the reason says exit_status for both. It is "" for nil. Control characters
// and invalid UTF-8 from the node are replaced, and the text is cut to MaxDetail characters.
func Detail(err error) string {
	if err == nil {
		return ""
	}
	var re *reasonError
	if errors.As(err, &re) && re.detail != "" {
		return clean(re.detail, MaxDetail)
	}
	return clean(err.Error(), MaxDetail)
}

// clean turns text from a node into one printable line of at most n characters.
func clean(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, strings.ToValidUTF8(s, "?"))
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "..."
	}
	return s
}

// firstLine returns the first line of stderr that says something, cleaned and cut to n
// characters: kubectl and sudo put their message there; what follows is usually detail of it.
func firstLine(stderr []byte, n int) string {
	for line := range strings.Lines(string(stderr)) {
		if l := clean(line, n); l != "" {
			return l
		}
	}
	return "no message on stderr"
}
