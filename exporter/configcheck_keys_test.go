package exporter

import (
	"bytes"
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// managementServer serves fake on /client/api and, on every other path, the HTML page the
// management server's UI answers, as a real management server does.
func managementServer(fake *cloudstacktest.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/client/api", fake.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!DOCTYPE html>\n<html><head><title>Apache CloudStack</title></head></html>\n"))
	})
	return mux
}

// TestCheckConfigOnline: --config.check makes one signed, read-only call and turns the answers an
// operator fixes in the configuration into an error with the fix; an unreachable CloudStack is
// said, not failed, and --config.check.offline calls nothing.
// databaseSource selects the database inventory source; --config.check only parses its DSN.
const databaseSource = "inventory:\n  source: database\ndatabase:\n  dsn: \"cks_drift:secret@tcp(127.0.0.1:3306)/cloud\"\n"

func TestCheckConfigOnline(t *testing.T) {
	e, _ := newEnv(t)
	e.writeConfig("", "")
	simEndpoint := e.sim.CloudStack.Endpoint()

	fake := cloudstacktest.NewUnstarted()
	t.Cleanup(fake.Close)
	plain := httptest.NewServer(managementServer(fake))
	t.Cleanup(plain.Close)
	tlsServer := httptest.NewTLSServer(managementServer(fake))
	t.Cleanup(tlsServer.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsServer.Certificate().Raw})
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/client/api"
	_ = l.Close() // nothing listens there now: connection refused

	base := e.config()
	tests := []struct {
		name     string
		endpoint string
		more     string // lines added to the cloudstack section
		secret   string // "" keeps the right one
		offline  bool
		top      string   // top-level sections added
		wantErr  []string // "" means valid
		wantOut  []string
		calls    int // calls the simulator's fake must have seen
	}{
		{name: "sound", endpoint: simEndpoint, wantOut: []string{"CloudStack accepted the API keys"}, calls: 1},
		{name: "wrong secret", endpoint: simEndpoint, secret: "wrong", calls: 1,
			wantErr: []string{"401", "cloudstack.api_key and cloudstack.secret_key", "clock"}},
		{name: "offline", endpoint: simEndpoint, secret: "wrong", offline: true, calls: 0},
		{name: "html answer", endpoint: plain.URL + "/client/",
			wantErr: []string{"HTML page", "ending in /client/api"}, wantOut: []string{"warning: cloudstack.endpoint " + plain.URL + "/client/ does not end in /client/api"}},
		{name: "self-signed", endpoint: tlsServer.URL + "/client/api", wantErr: []string{"set cloudstack.ca_file"}},
		{name: "self-signed with ca_file", endpoint: tlsServer.URL + "/client/api", more: "  ca_file: " + caFile + "\n",
			wantOut: []string{"CloudStack accepted the API keys"}},
		{name: "unreachable", endpoint: closed, wantOut: []string{"CloudStack could not be reached", "so the API keys were not checked"}},
		// With the database source the notifier still writes through the API: its keys are
		// checked too (they were not while the API inventory source lent the notifier its client).
		{name: "wrong secret, database source", endpoint: simEndpoint, secret: "wrong", calls: 1, top: databaseSource,
			wantErr: []string{"401", "cloudstack.api_key and cloudstack.secret_key"}},
		{name: "database source", endpoint: simEndpoint, calls: 1, top: databaseSource, wantOut: []string{"CloudStack accepted the API keys"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yml := replaceOnce(t, base, "endpoint: "+simEndpoint+"\n", "endpoint: "+tt.endpoint+"\n"+tt.more)
			if tt.secret != "" {
				yml = replaceOnce(t, yml, "secret_key: "+e.sim.CloudStack.SecretKey(), "secret_key: "+tt.secret)
			}
			e.setConfig(yml + tt.top)
			e.sim.CloudStack.ResetCalls()
			var out bytes.Buffer
			err := CheckConfig(context.Background(), e.cfg, nil, tt.offline, &out)
			t.Logf("out: %s err: %v", out.String(), err)
			if len(tt.wantErr) == 0 && err != nil {
				t.Fatalf("CheckConfig() = %v, want valid", err)
			}
			if len(tt.wantErr) > 0 && err == nil {
				t.Fatalf("CheckConfig() called it valid, want %q\n%s", tt.wantErr, out.String())
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("CheckConfig() = %q, want %q in it", err, want)
				}
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out.String(), want) {
					t.Errorf("CheckConfig() printed %q, want %q in it", out.String(), want)
				}
			}
			if n := len(e.sim.CloudStack.Calls()); tt.endpoint == simEndpoint && n != tt.calls {
				t.Errorf("the fake saw %d calls, want %d: %v", n, tt.calls, e.sim.CloudStack.Calls())
			}
		})
	}
}
