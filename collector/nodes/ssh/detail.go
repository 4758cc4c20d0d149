package ssh

import (
	"errors"
	"regexp"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// MaxDetail is the most characters Detail returns: one line of a log or a JSON field, not a
// transcript.
const MaxDetail = 240

// Detail returns one short printable line that says why the node list could not be read, for
// the WARN line and /findings: the first line kubectl or sudo wrote to stderr, the offered and
// expected host keys, the offending output line. It tells "sudo needs a password" from "API
// server down" where the reason says exit_status for both. It is "" for nil. What the node sent is
// made one printable line by safetext.Line (controls, bidirectional overrides and invalid UTF-8
// replaced) and cut to MaxDetail characters.
func Detail(err error) string {
	if err == nil {
		return ""
	}
	var re *reasonError
	if errors.As(err, &re) && re.detail != "" {
		return safetext.Line(re.detail, MaxDetail)
	}
	return safetext.Line(err.Error(), MaxDetail)
}

// klogHeader is the header klog writes before each of its log lines: severity, date, time,
// thread id and source file. Real kubectl logs such lines (five "couldn't get current server API
// group list" errors when its discovery cache is missing or stale) before its own message.
var klogHeader = regexp.MustCompile(`^[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} +[0-9]+ [^ \]]+:[0-9]+\] `)

// firstLine returns the first line of stderr that says something, cleaned and cut to n
// characters: kubectl and sudo put their message there; what follows is usually detail of it.
// kubectl's log lines are skipped, since its message follows them; when there is nothing else,
// the first log line's text stands in, without its header.
func firstLine(stderr []byte, n int) string {
	logged := ""
	for line := range strings.Lines(string(stderr)) {
		if h := klogHeader.FindString(line); h != "" {
			if logged == "" {
				logged = safetext.Line(line[len(h):], n)
			}
			continue
		}
		if l := safetext.Line(line, n); l != "" {
			return l
		}
	}
	if logged != "" {
		return logged
	}
	return "no message on stderr"
}
