package collector

import (
	"strings"
	"testing"
)

// TestDeclarations: every kind is declared once and completely, on a declared side, so that what
// is made from the declarations (guides, alert texts, rules, docs) never has a hole.
func TestDeclarations(t *testing.T) {
	seen := map[Kind]bool{}
	for _, d := range Declarations {
		if d.Kind == "" || seen[d.Kind] {
			t.Errorf("kind %q: empty or declared twice", d.Kind)
		}
		seen[d.Kind] = true
		if d.Side.Declaration().Resolution == nil {
			t.Errorf("%s: side %q is not in SideDeclarations", d.Kind, d.Side)
		}
		switch d.Subject {
		case SubjectVM, SubjectNode, SubjectCluster, SubjectVMOrCluster:
		default:
			t.Errorf("%s: subject %q is none of VM, node, cluster", d.Kind, d.Subject)
		}
		for field, v := range map[string]string{"When": d.When, "Meaning": d.Meaning, "Action": d.Action, "Advice": d.Advice,
			"Anchor": d.Anchor, "Alert": d.Alert, "Severity": d.Severity, "Rule": d.Rule} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: %s is empty", d.Kind, field)
			}
		}
		for field, v := range map[string]string{"Meaning": d.Meaning, "Action": d.Action, "Advice": d.Advice} {
			if !strings.HasSuffix(v, ".") {
				t.Errorf("%s: %s is not a sentence ending with a full stop: %q", d.Kind, field, v)
			}
		}
		if got, _ := d.Kind.Declaration(); got.Kind != d.Kind || d.Kind.Side() != d.Side || d.Kind.PerCluster() != (d.Subject == SubjectCluster) {
			t.Errorf("%s: Declaration, Side or PerCluster disagree with the declaration", d.Kind)
		}
	}
	if len(Kinds) != len(Declarations) {
		t.Errorf("Kinds has %d kinds, Declarations %d", len(Kinds), len(Declarations))
	}
	for _, s := range SideDeclarations {
		if s.Title == "" || s.Resolution == nil || !strings.Contains(s.Resolution("c1", "Scaling"), "c1") || s.Compared == nil {
			t.Errorf("side %s: no title, no Compared, or a resolution that does not name the cluster", s.Side)
		}
	}
	if _, ok := Kind("no_such_kind").Declaration(); ok {
		t.Error("an undeclared kind has a declaration")
	}
}
