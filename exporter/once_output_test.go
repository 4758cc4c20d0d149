package exporter

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// A 56-character cluster name once pushed every row of the table past 380 columns.
const longName = "platform-engineering-shared-services-production-eu-west1"

func TestOnceTableCapsWidths(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: longName}, simulator.ClusterSpec{Name: "short"})
	e.writeConfig("", "")
	for _, c := range cs {
		if _, err := e.sim.DeleteMapRow(c.ID, c.VMs[2]); err != nil {
			t.Fatal(err)
		}
	}
	code, out := e.once(t, report.FormatTable)
	if code != ExitDrift {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	const widest = report.MaxTableWidth
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > widest && !strings.HasPrefix(line, "  ") {
			t.Errorf("a line of %d columns, more than %d:\n%s", n, widest, line)
		}
		if strings.Contains(line, "is named as a node") {
			t.Errorf("the table repeats the message: %s", line)
		}
	}
	for _, want := range []string{
		report.CapWidth(longName, report.MaxClusterColumn),
		"2 findings in 2 clusters of 2: unmapped_vm 2; 2 checked, 0 skipped, 0 with kubectl unreachable",
		"--once.format=wide",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}

	_, wide := e.once(t, report.FormatWide)
	for _, want := range []string{longName, cs[0].ID, "is named as a node of Kubernetes cluster " + longName} {
		if !strings.Contains(wide, want) {
			t.Errorf("the wide table lacks %q:\n%s", want, wide)
		}
	}
}

func TestOnceNoDrift(t *testing.T) {
	e, _ := newEnv(t, simulator.ClusterSpec{Name: "a"}, simulator.ClusterSpec{Name: "b"}, simulator.ClusterSpec{Name: "c", State: "Upgrading"})
	e.writeConfig("", "")
	code, out := e.once(t, report.FormatTable)
	want := "No drift found in 2 clusters; 1 skipped, 0 with kubectl unreachable (3 clusters in all)\n  skipped: c ("
	if code != ExitClean || !strings.HasPrefix(out, want) || strings.Contains(out, "CLUSTER") {
		t.Fatalf("exit %d, output:\n%s\nwant it to start with:\n%s", code, out, want)
	}
}

// hostileControls is a name with an ESC sequence that clears the screen, a newline that forges
// a table row, an 8-bit CSI, DEL, a right-to-left override, and invisible format characters the
// old escaping let through: a zero-width space, an Arabic letter mark and a tag character.
const hostileControls = "evil\x1b[2J\nforged  unmapped_vm  x\u009b31m\x7f\u202eredro\u200b\u061c\U000e0041"

func TestOnceEscapesControlCharacters(t *testing.T) {
	e, cs := newEnv(t, simulator.ClusterSpec{Name: hostileControls})
	e.writeConfig("", "")
	if _, err := e.sim.DeleteMapRow(cs[0].ID, cs[0].VMs[2]); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{report.FormatTable, report.FormatWide, report.FormatJSON} {
		t.Run(format, func(t *testing.T) {
			code, out := e.once(t, format)
			if code != ExitDrift {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			for _, r := range out {
				if r != '\n' && safetext.Unsafe(r) {
					t.Fatalf("the output carries %U raw:\n%q", r, out)
				}
			}
			if format == report.FormatJSON {
				var r report.Report
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(hostileControls, r.Clusters[0].Name); diff != "" {
					t.Errorf("the JSON does not decode to the name (-want +got):\n%s", diff)
				}
				return
			}
			if strings.Contains(out, "\nforged") {
				t.Errorf("the newline in the name forged a row:\n%s", out)
			}
			if !strings.Contains(out, `evil\x1b[2J\x0aforged`) || format == report.FormatWide && !strings.Contains(out, `\u009b31m\x7f\u202eredro\u200b\u061c\U000e0041`) {
				t.Errorf("the escapes are not shown:\n%s", out)
			}
		})
	}
}
