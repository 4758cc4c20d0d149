package docs

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestGoVersionNamed: the install guide and the README name the Go release the build uses, as
// .go-version pins it, and a minimum for the go command that go.mod's go line allows.
func TestGoVersionNamed(t *testing.T) {
	t.Parallel()
	pinned, err := os.ReadFile("../.go-version")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	minimum := "Go " + string(m[1]) + " or "
	for _, doc := range []string{"install.md", "../README.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		if !strings.Contains(text, strings.TrimSpace(string(pinned))) {
			t.Errorf("%s does not name %s, the Go release .go-version pins", doc, strings.TrimSpace(string(pinned)))
		}
		if !strings.Contains(text, minimum) {
			t.Errorf("%s does not name go.mod's minimum as %q", doc, minimum+"later/newer")
		}
	}
}
