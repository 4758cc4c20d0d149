package markdown

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestAnchor(t *testing.T) {
	for title, want := range map[string]string{
		"CKSClusterStuckInOperation": "cksclusterstuckinoperation",
		" Mapped VM missing ":        "mapped-vm-missing",
		"stuck_in_operation (v2)":    "stuck_in_operation-v2",
		"Ünïcode & more":             "ncode--more",
	} {
		if got := Anchor(title); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestSections(t *testing.T) {
	doc := "# Title\n\nintro\n\n## A b\n\ntext a\n\n### C\n\ntext c\n\n## D\n\ntext d\n"
	two := Sections(doc, 2)
	if got := slices.Sorted(maps.Keys(two)); !slices.Equal(got, []string{"a-b", "d"}) {
		t.Fatalf("Sections(doc, 2) has %q", got)
	}
	if !strings.Contains(two["a-b"], "text c") || strings.Contains(two["a-b"], "text d") {
		t.Errorf("a level-2 section holds its subsections and ends at the next: %q", two["a-b"])
	}
	three := Sections(doc, 3)
	if got := slices.Sorted(maps.Keys(three)); !slices.Equal(got, []string{"a-b", "c", "d"}) {
		t.Fatalf("Sections(doc, 3) has %q", got)
	}
	if strings.Contains(three["a-b"], "text c") {
		t.Errorf("with level 3, a section ends at the next level-3 heading: %q", three["a-b"])
	}
}
