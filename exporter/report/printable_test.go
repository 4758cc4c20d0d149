package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// hostile is a name with a colour escape, a right-to-left override, an isolate, a zero-width
// space, a tag character (above the BMP), DEL, a C1 control and invalid UTF-8.
const hostile = "prod\x1b[31m\u202e\u2066\u200b\U000e0041\x7f\u0085\xff"

// TestPrintable: every text of a report that a tenant chooses is escaped (safetext.Escape) for
// the --once table and the status page, and reads back to the original.
func TestPrintable(t *testing.T) {
	r := Report{Clusters: []ClusterReport{{ID: hostile, Name: hostile, Account: hostile, Project: hostile, NodesError: hostile,
		Findings: []FindingReport{{Finding: collector.Finding{VMName: hostile, Message: hostile}}}, SkipReason: hostile}}}
	p := r.Printable()
	c := p.Clusters[0]
	want := `prod\x1b[31m\u202e\u2066\u200b\U000e0041\x7f\u0085\xff`
	for _, got := range []string{c.ID, c.Name, c.Account, c.Project, c.NodesError, c.SkipReason, c.Findings[0].VMName, c.Findings[0].Message} {
		if got != want {
			t.Errorf("printable %q, want %q", got, want)
		}
	}
	if r.Clusters[0].Name != hostile {
		t.Error("Printable changed the report it copied")
	}
}

// TestWriteJSON: the JSON of --once -o json carries no unsafe character raw (encoding/json
// leaves DEL, C1 and format characters as they are) and decodes to the original text (invalid
// UTF-8 aside, which encoding/json replaces).
func TestWriteJSON(t *testing.T) {
	valid := strings.ToValidUTF8(hostile, "\uFFFD")
	var b bytes.Buffer
	if err := WriteJSON(&b, Report{Clusters: []ClusterReport{{Name: hostile}}}); err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexFunc(b.String(), func(r rune) bool { return r != '\n' && safetext.Unsafe(r) }); i >= 0 {
		t.Fatalf("unsafe character at %d of %q", i, b.String())
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(valid, back.Clusters[0].Name); diff != "" {
		t.Errorf("the JSON does not decode to the name (-want +got):\n%s", diff)
	}
}
