// Package changelog reads the upgrade notes of CHANGELOG.md between two versions of the
// exporter, for the log lines of the first start after an upgrade.
package changelog

import (
	"regexp"
	"strings"
)

// Note is one upgrade note: the version whose section holds it ("Unreleased" or a release) and
// its text on one line, Markdown as written.
type Note struct {
	Version string
	Text    string
}

var (
	versionHeading = regexp.MustCompile(`^## \[([^\]]+)\]`)
	// inlineNote marks a bullet of Changed, Added or Fixed that carries an upgrade note:
	// **Upgrading:** as CONTRIBUTING.md asks, or the spellings older entries use (**Upgrade:**,
	// Upgrade notes:).
	inlineNote = regexp.MustCompile(`Upgrad(e|ing)( notes?)?(:\*\*|\*\*:|:)`)
	spaces     = regexp.MustCompile(`\s+`)
)

// Parse returns the upgrade notes of a changelog in the form of Keep a Changelog, newest version
// first: every top-level bullet of a "### Upgrading" subsection (its lead-in text when it has no
// bullet), and every other top-level bullet that holds an upgrade note (inlineNote), whole
// (the change it is about included).
func Parse(text string) []Note {
	var p parser
	for _, line := range strings.Split(text, "\n") {
		p.line(line)
	}
	p.endSubsection()
	return p.notes
}

// parser is Parse's state between lines.
type parser struct {
	notes     []Note
	version   string   // the current ## [version], empty before the first
	sub       string   // the current ### subsection
	bullet    []string // the lines of the current top-level bullet
	bullets   int      // top-level bullets in the current subsection
	paragraph []string // the current subsection's text before its first bullet
}

func (p *parser) line(line string) {
	switch {
	case versionHeading.MatchString(line):
		p.endSubsection()
		p.version, p.sub = versionHeading.FindStringSubmatch(line)[1], ""
	case strings.HasPrefix(line, "### "):
		p.endSubsection()
		p.sub = strings.TrimSpace(strings.TrimPrefix(line, "### "))
	case strings.HasPrefix(line, "- "):
		p.endBullet()
		p.bullet = []string{strings.TrimPrefix(line, "- ")}
		p.bullets++
	case line == "" || strings.HasPrefix(line, " "):
		if len(p.bullet) > 0 {
			p.bullet = append(p.bullet, line)
		}
	default: // a paragraph, a link reference: the end of a bullet
		p.endBullet()
		if p.bullets == 0 {
			p.paragraph = append(p.paragraph, line)
		}
	}
}

func (p *parser) endBullet() {
	if len(p.bullet) == 0 {
		return
	}
	text := oneLine(p.bullet)
	p.bullet = nil
	if p.version != "" && (p.sub == "Upgrading" || inlineNote.MatchString(text)) {
		p.notes = append(p.notes, Note{Version: p.version, Text: text})
	}
}

func (p *parser) endSubsection() {
	p.endBullet()
	if p.version != "" && p.sub == "Upgrading" && p.bullets == 0 && len(p.paragraph) > 0 {
		p.notes = append(p.notes, Note{Version: p.version, Text: oneLine(p.paragraph)})
	}
	p.bullets, p.paragraph = 0, nil
}

// oneLine joins lines into one, each run of white space made one space.
func oneLine(lines []string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(strings.Join(lines, " "), " "))
}
