package docs

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCheckCommandHasOneHome: the configuration check that runs on a package install has one home,
// the header of the packaged configuration (packaging/cks-drift-exporter.yml, which
// scripts/package-test.sh runs as written); install.md and the runbook of
// CKSDriftConfigReloadFailed give it word for word, and every documented check as the
// service's user is it.
func TestCheckCommandHasOneHome(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../packaging/cks-drift-exporter.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#   (sudo sh -c .*--config\.check .*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("packaging/cks-drift-exporter.yml's header has no check command")
	}
	home := string(m[1])
	given := map[string]bool{}
	for _, c := range documentedCommands(t) {
		if !strings.Contains(c.text, "--config.check") || !strings.Contains(c.text, "runuser -u ") {
			continue
		}
		given[c.file] = true
		if c.text != home {
			t.Errorf("%s: the check command differs from the packaged configuration's header:\n got %s\nwant %s", c, c.text, home)
		}
	}
	for _, f := range []string{"install.md", "runbooks.md"} {
		if !given[f] {
			t.Errorf("%s does not give the packaged configuration's check command (%s)", f, home)
		}
	}
}
