package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
)

// TestShardFromHostname: the flag off leaves check.shard to the file; on, a StatefulSet pod's
// name gives the shard, and a name without an ordinal or a failing hostname stops start-up.
func TestShardFromHostname(t *testing.T) {
	host := func(name string, err error) func() (string, error) {
		return func() (string, error) { return name, err }
	}
	for _, tc := range []struct {
		name     string
		on       bool
		hostname func() (string, error)
		want     int // -1: nil
		err      string
	}{
		{"off", false, host("cks-drift-exporter-2", nil), -1, ""},
		{"pod 2", true, host("cks-drift-exporter-2", nil), 2, ""},
		{"no ordinal", true, host("mgmt1.example.com", nil), -1, "does not end in -<ordinal>"},
		{"hostname fails", true, host("", errors.New("uname failed")), -1, "uname failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := shardFromHostname(tc.on, tc.hostname)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--check.shard-from-hostname") {
					t.Fatalf("err = %v, want one naming the flag and %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want < 0) || got != nil && *got != tc.want {
				t.Fatalf("shard = %v, want %d (-1: none)", got, tc.want)
			}
		})
	}
}

// TestLoadConfigShard: the shard given to the exporter replaces the file's check.shard, and one
// that total_shards does not cover is refused with the file's name.
func TestLoadConfigShard(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cks.yml")
	yml := "cloudstack: {endpoint: https://cloud.example.com/client/api, api_key: k, secret_key: s}\n" +
		"check: {shard: 0, total_shards: 3}\nstorage: {path: " + filepath.Join(dir, "state.db") + "}\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	two, three := 2, 3
	c, err := exporter.LoadConfig(cfg, &two)
	if err != nil || c.Check.Shard != 2 {
		t.Fatalf("LoadConfig with shard 2: %v, %v", c, err)
	}
	c, err = exporter.LoadConfig(cfg, nil)
	if err != nil || c.Check.Shard != 0 {
		t.Fatalf("LoadConfig without a shard: %v, %v", c, err)
	}
	if _, err := exporter.LoadConfig(cfg, &three); err == nil || !strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), "below check.total_shards 3") {
		t.Fatalf("LoadConfig with shard 3 of 3: %v, want an error naming the file and the total", err)
	}
}
