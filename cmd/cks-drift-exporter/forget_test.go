package main

import (
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// TestForgetHostKeyNoMatch: a mistyped uuid removes nothing, says so with the clusters that do
// have pins, and exits 1; a correct uuid given beside it is still forgotten.
func TestForgetHostKeyNoMatch(t *testing.T) {
	const (
		c1 = "6f1d2c3b-0000-4000-8000-000000000001"
		c2 = "6f1d2c3b-0000-4000-8000-000000000002"
	)
	tests := []struct {
		name   string
		forget []string
		code   int
		stdout string
		stderr string
		keep1  bool
		keep2  bool
	}{
		{name: "mistyped", forget: []string{"6f1d2c3b-0000-4000-8000-00000000001"}, code: 1,
			stderr: "No pinned host key matched 6f1d2c3b-0000-4000-8000-00000000001 in ", keep1: true, keep2: true},
		{name: "one right one wrong", forget: []string{c1, "nope"}, code: 1,
			stdout: "Forgot the pinned host keys of " + c1, stderr: "No pinned host key matched nope", keep2: true},
		{name: "right", forget: []string{c2}, code: 0, stdout: "Forgot the pinned host keys of " + c2, keep1: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, db := pinnedState(t, c1+" 203.0.113.1:2222", c2+" 203.0.113.2:2222")

			var stdout, stderr strings.Builder
			if code := forgetHostKeys(cfg, tt.forget, &stdout, &stderr); code != tt.code {
				t.Errorf("exit %d, want %d; stdout %q, stderr %q", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdout) || (tt.stdout == "") != (stdout.Len() == 0) {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.stderr) || (tt.stderr == "") != (stderr.Len() == 0) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if tt.code != 0 && !strings.Contains(stderr.String(), "Clusters with pinned host keys: ") {
				t.Errorf("stderr %q does not name the pinned clusters", stderr.String())
			}

			s, err := state.Open(db, true)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, ok, _ := s.PinnedHostKey(c1 + " 203.0.113.1:2222"); ok != tt.keep1 {
				t.Errorf("pin of c1 kept %v, want %v", ok, tt.keep1)
			}
			if _, ok, _ := s.PinnedHostKey(c2 + " 203.0.113.2:2222"); ok != tt.keep2 {
				t.Errorf("pin of c2 kept %v, want %v", ok, tt.keep2)
			}
		})
	}
}
