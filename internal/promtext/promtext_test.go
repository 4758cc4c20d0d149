package promtext

import "testing"

func TestSamples(t *testing.T) {
	got, err := Samples("# HELP x y\n# TYPE x gauge\nx{a=\"b c\"} 1.5\n\ny 2\n")
	if err != nil || len(got) != 2 || got[`x{a="b c"}`] != 1.5 || got["y"] != 2 {
		t.Fatalf("Samples = %v, %v", got, err)
	}
	if _, err := Samples("garbage\n"); err == nil {
		t.Fatal("a line that is not a sample was accepted")
	}
}
