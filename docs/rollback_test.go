package docs

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/markdown"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// TestRollingBack: docs/operations.md's "Rolling back" names the format this release writes,
// the exit code of a state file of a newer format, and the systemd units do not restart on it.
func TestRollingBack(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("operations.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := markdown.Sections(string(b), 2)
	section, ok := sections["rolling-back"]
	if !ok {
		t.Fatal(`operations.md has no "Rolling back" section`)
	}
	for _, want := range []string{
		fmt.Sprintf("it is in format %d", state.Format),
		fmt.Sprintf("reads formats up to %d", state.Format-1),
		fmt.Sprintf("exit with code %d", exporter.ExitNewerState),
		fmt.Sprintf("RestartPreventExitStatus=%d", exporter.ExitNewerState),
	} {
		if !strings.Contains(strings.Join(strings.Fields(section), " "), want) {
			t.Errorf("Rolling back does not say %q", want)
		}
	}
	if want := fmt.Sprintf("%d in this release", state.Format); !strings.Contains(sections["the-state-file"], want) {
		t.Errorf("The state file does not say %q", want)
	}
	for _, unit := range []string{"cks-drift-exporter.service", "cks-drift-exporter@.service"} {
		u, err := os.ReadFile("../examples/systemd/" + unit)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("\nRestartPreventExitStatus=%d\n", exporter.ExitNewerState); !strings.Contains(string(u), want) {
			t.Errorf("%s has no %q", unit, strings.TrimSpace(want))
		}
	}
}
