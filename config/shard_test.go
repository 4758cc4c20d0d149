package config

import (
	"strings"
	"testing"
)

func TestOrdinalFromHostname(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host string
		want int
		err  string // a part of the error; empty: no error
	}{
		{host: "cks-drift-exporter-0", want: 0},
		{host: "cks-drift-exporter-2", want: 2},
		{host: "release-cks-drift-exporter-1023", want: 1023},
		{host: "x-007", want: 7},
		{host: "cks-drift-exporter-1024", err: "is not below 1024"},
		{host: "cks-drift-exporter-99999", err: "does not end in -<ordinal>"},
		{host: "cks-drift-exporter", err: "does not end in -<ordinal>"},
		{host: "cks-drift-exporter-", err: "does not end in -<ordinal>"},
		{host: "cks-drift-exporter-2a", err: "does not end in -<ordinal>"},
		{host: "cks-drift-exporter--1", want: 1}, // "-1" is not a negative number: the digits after the last dash
		{host: "cks-drift-exporter-+1", err: "does not end in -<ordinal>"},
		{host: "", err: "does not end in -<ordinal>"},
		{host: "node-1.example.com", err: "does not end in -<ordinal>"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			got, err := OrdinalFromHostname(tc.host)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("OrdinalFromHostname(%q) = %d, %v; want an error with %q", tc.host, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("OrdinalFromHostname(%q) = %d, %v; want %d", tc.host, got, err, tc.want)
			}
		})
	}
}

func TestSetShard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		total, shard int
		wantErr      bool
	}{
		{"first of three", 3, 0, false},
		{"last of three", 3, 2, false},
		{"beyond the total", 3, 3, true},
		{"one replica, ordinal 1", 1, 1, true},
		{"negative", 3, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaults()
			c.Check.TotalShards, c.Check.Shard = tc.total, 0
			err := c.SetShard(tc.shard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("SetShard(%d) with total_shards %d: %v, want error %v", tc.shard, tc.total, err, tc.wantErr)
			}
			want := tc.shard
			if tc.wantErr {
				want = 0 // unchanged
			}
			if c.Check.Shard != want {
				t.Errorf("check.shard = %d, want %d", c.Check.Shard, want)
			}
		})
	}
}
