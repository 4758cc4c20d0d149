package world

import (
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// TestDriftKindsAreDeclared: every piece of the world's drift is of a kind collector.Declarations
// declares, so a renamed kind cannot leave the benchmark expecting findings of a name no longer
// made.
func TestDriftKindsAreDeclared(t *testing.T) {
	for _, piece := range DriftKinds {
		if _, ok := collector.Kind(KindOf(piece)).Declaration(); !ok {
			t.Errorf("piece %q: kind %q is not declared", piece, KindOf(piece))
		}
	}
}
