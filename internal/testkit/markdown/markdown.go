// Package markdown reads the sections of the repository's Markdown documents for the tests that
// check links into them (runbook_url of the alerts, the status page's guides).
package markdown

import (
	"fmt"
	"regexp"
	"strings"
)

// Anchor is the fragment a forge gives a heading: lower-cased, spaces to hyphens, and nothing
// but letters, digits, hyphens and underscores kept (GitHub's rule).
func Anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Sections returns the text of each section of doc by its anchor: the headings of level 2 up to
// deepest (2: "##" only; 3: "##" and "###"), each section running to the next such heading.
func Sections(doc string, deepest int) map[string]string {
	heading := regexp.MustCompile(fmt.Sprintf(`(?m)^#{2,%d} (.+)$`, deepest))
	out := map[string]string{}
	idx := heading.FindAllStringSubmatchIndex(doc, -1)
	for i, m := range idx {
		end := len(doc)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out[Anchor(doc[m[2]:m[3]])] = doc[m[1]:end]
	}
	return out
}
