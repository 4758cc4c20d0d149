package api_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestNewValidates checks that New refuses options it cannot work with, before any call.
func TestNewValidates(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("this is not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := withConfigDefaults(api.Options{API: cloudstackapi.Options{Endpoint: "https://cloud.example.com/client/api", APIKey: "k", SecretKey: "s"}})
	tests := []struct {
		name   string
		change func(o *api.Options)
		wantIn string // empty: no error
		wantIs error
	}{
		{name: "complete", change: func(*api.Options) {}},
		{name: "missing endpoint", change: func(o *api.Options) { o.API.Endpoint = "" }, wantIn: "endpoint, API key and secret key are required"},
		{name: "missing API key", change: func(o *api.Options) { o.API.APIKey = "" }, wantIn: "endpoint, API key and secret key are required"},
		{name: "missing secret key", change: func(o *api.Options) { o.API.SecretKey = "" }, wantIn: "endpoint, API key and secret key are required"},
		{name: "CA file that does not exist", change: func(o *api.Options) { o.API.CAFile = filepath.Join(dir, "missing.pem") },
			wantIn: "ca_file", wantIs: fs.ErrNotExist},
		{name: "zero page size", change: func(o *api.Options) { o.PageSize = 0 }, wantIn: "page size 0 is not positive"},
		{name: "negative page size", change: func(o *api.Options) { o.PageSize = -1 }, wantIn: "page size -1 is not positive"},
		{name: "zero timeout", change: func(o *api.Options) { o.API.Timeout = 0 }, wantIn: "timeout 0s is not positive"},
		{name: "CA file without PEM", change: func(o *api.Options) { o.API.CAFile = notPEM }, wantIn: "holds no PEM certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.change(&o)
			src, err := api.New(o)
			if tt.wantIn == "" {
				if err != nil || src == nil {
					t.Fatalf("New = %v, %v; want a source", src, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantIn) {
				t.Fatalf("New: error %v, want one containing %q", err, tt.wantIn)
			}
			if src != nil {
				t.Errorf("New returned a source with the error")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
		})
	}
}

// TestNewTLS serves the fake over TLS with a self-signed certificate and checks that only a
// client given that certificate as CAFile (or told to skip verification) reads the inventory.
func TestNewTLS(t *testing.T) {
	s := cloudstacktest.NewUnstarted()
	s.Update(faultWorld)
	ts := httptest.NewTLSServer(s.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(s.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		caFile    string
		insecure  bool
		wantError bool
	}{
		{name: "CA file holds the server's certificate", caFile: caFile},
		{name: "no CA file", wantError: true},
		{name: "verification skipped", insecure: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newSource(t, s, api.Options{API: cloudstackapi.Options{Endpoint: ts.URL + "/client/api", CAFile: tt.caFile, InsecureSkipVerify: tt.insecure}})
			inv, err := src.Inventory(context.Background())
			if !tt.wantError {
				if err != nil {
					t.Fatalf("Inventory: %v", err)
				}
				if len(inv.Clusters) != 2 || len(inv.VMs) != 12 {
					t.Errorf("got %d clusters, %d VMs, want 2 and 12", len(inv.Clusters), len(inv.VMs))
				}
				return
			}
			var unknown x509.UnknownAuthorityError
			if !errors.As(err, &unknown) {
				t.Fatalf("Inventory: error %v, want an unknown certificate authority", err)
			}
			if !strings.Contains(err.Error(), "list kubernetes clusters") {
				t.Errorf("error %q does not name what was being listed", err)
			}
		})
	}
}
