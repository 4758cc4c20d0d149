package api_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// faultWorld has two isolated clusters with a rule each and 12 VMs: three pages of 5 VMs.
func faultWorld(w *cloudstacktest.World) {
	for i, name := range []string{"prod", "dev"} {
		c := accountCluster(name)
		c.IPAddress, c.IPAddressID = fmt.Sprintf("203.0.113.%d", i+1), fmt.Sprintf("ip-%s", name)
		k := addCKS(w, c, 1, 2-i, 0)
		w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: c.IPAddressID, PublicPort: 2222,
			PrivatePort: 22, VirtualMachineID: k.vms[0].ID, Account: c.Account})
	}
	for i := range 7 {
		w.AddVM(cloudstacktest.VM{Name: fmt.Sprintf("lone-%d", i), State: "Running", Account: "acme"})
	}
}

// TestInventoryFaults checks that an answer CloudStack or a proxy in front of it gets wrong fails
// the whole read with an error naming what was being listed, never yields a short inventory.
func TestInventoryFaults(t *testing.T) {
	const html = "<html><body><h1>502 Bad Gateway</h1></body></html>"
	tests := []struct {
		name        string
		command     string
		fault       cloudstacktest.Fault
		secret      string
		timeout     time.Duration
		wantIn      []string
		wantTimeout bool
	}{
		{name: "530 envelope", command: "listKubernetesClusters", fault: cloudstacktest.Fault{Status: 530},
			wantIn: []string{"list kubernetes clusters", "530"}},
		{name: "429 with Retry-After", command: "listVirtualMachines",
			fault:  cloudstacktest.Fault{Status: 429, RetryAfter: "30"},
			wantIn: []string{"list virtual machines", "429"}},
		{name: "401 wrong secret key", secret: "not-the-secret",
			wantIn: []string{"list kubernetes clusters", "401"}},
		{name: "HTML body with 200", command: "listPortForwardingRules", fault: cloudstacktest.Fault{RawBody: html},
			wantIn: []string{"list port forwarding rules"}},
		{name: "error envelope with 200 (a proxy)", command: "listKubernetesClusters",
			fault:  cloudstacktest.Fault{RawBody: `{"listkubernetesclustersresponse":{"uuidList":[],"errorcode":530,"cserrorcode":9999,"errortext":"database busy"}}`},
			wantIn: []string{"list kubernetes clusters", "530", "database busy"}},
		{name: "HTML body with 502", command: "listVirtualMachines", fault: cloudstacktest.Fault{Status: 502, RawBody: html},
			wantIn: []string{"list virtual machines"}},
		{name: "count 5 above the items", command: "listVirtualMachines", fault: cloudstacktest.Fault{CountDelta: 5},
			wantIn: []string{"list virtual machines", "page 4 is empty after 12 of 17 items"}},
		{name: "count 5 below the items", command: "listVirtualMachines", fault: cloudstacktest.Fault{CountDelta: -5},
			wantIn: []string{"list virtual machines", "count is 7"}},
		{name: "count changes after the first page", command: "listVirtualMachines",
			fault:  cloudstacktest.Fault{CountDelta: 5, Times: 1},
			wantIn: []string{"list virtual machines", "count changed from 17 to 12"}},
		{name: "cluster count above the items", command: "listKubernetesClusters", fault: cloudstacktest.Fault{CountDelta: 5},
			wantIn: []string{"list kubernetes clusters", "ended at 2 items after page 1, but count is 7"}},
		{name: "rule count below the items", command: "listPortForwardingRules", fault: cloudstacktest.Fault{CountDelta: -1},
			wantIn: []string{"list port forwarding rules", "count is 1"}},
		{name: "delay past the timeout", command: "listVirtualMachines", fault: cloudstacktest.Fault{Delay: time.Minute},
			timeout: 200 * time.Millisecond, wantIn: []string{"list virtual machines"}, wantTimeout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, faultWorld)
			if tt.command != "" {
				s.SetFault(tt.command, tt.fault)
			}
			src := newSource(t, s, api.Options{API: cloudstackapi.Options{SecretKey: tt.secret, Timeout: tt.timeout}, PageSize: 5})

			inv, err := src.Inventory(context.Background())

			if err == nil {
				t.Fatalf("got no error and %d clusters, %d VMs", len(inv.Clusters), len(inv.VMs))
			}
			if inv.Clusters != nil || inv.VMs != nil {
				t.Errorf("got a partial inventory of %d clusters, %d VMs with the error", len(inv.Clusters), len(inv.VMs))
			}
			for _, want := range tt.wantIn {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if msg := err.Error(); strings.Contains(msg, s.APIKey()) || strings.Contains(msg, "signature=") {
				t.Errorf("error %q carries the API key or a signed request, which anyone reading the log could replay", msg)
			}
			var ne net.Error
			if timedOut := errors.As(err, &ne) && ne.Timeout(); timedOut != tt.wantTimeout {
				t.Errorf("error %q: timeout = %v, want %v", err, timedOut, tt.wantTimeout)
			}
		})
	}
}

// TestInventoryCancelled checks that a cancelled context, before or during a call, ends the read
// with an error that wraps context.Canceled and names what was being listed.
func TestInventoryCancelled(t *testing.T) {
	tests := []struct {
		name     string
		cancelOn string // command whose arrival cancels; "" cancels before Inventory
		wantIn   string
	}{
		{name: "before the first call", wantIn: "list kubernetes clusters"},
		{name: "while listing VMs", cancelOn: "listVirtualMachines", wantIn: "list virtual machines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := cloudstacktest.NewUnstarted()
			s.Update(faultWorld)
			// The answer waits a minute, so only the cancellation can end the call.
			s.SetFault("listVirtualMachines", cloudstacktest.Fault{Delay: time.Minute})
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.cancelOn != "" && r.FormValue("command") == tt.cancelOn {
					cancel()
				}
				s.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			t.Cleanup(s.Close) // runs first: delayed answers give up
			if tt.cancelOn == "" {
				cancel()
			}
			src := newSource(t, s, api.Options{API: cloudstackapi.Options{Endpoint: ts.URL + "/client/api"}})

			inv, err := src.Inventory(ctx)

			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got error %v, want one wrapping context.Canceled", err)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			if strings.Contains(err.Error(), s.APIKey()) {
				t.Errorf("error %q carries the API key", err)
			}
			if inv.Clusters != nil || inv.VMs != nil {
				t.Errorf("got a partial inventory %+v", inv)
			}
		})
	}
}

// TestInventoryEmpty checks that an empty cloud, answered with {} and no count, is an empty
// inventory and not an error.
func TestInventoryEmpty(t *testing.T) {
	s := startFake(t, nil)
	inv := mustInventory(t, newSource(t, s, api.Options{IncludeProjects: true}))
	if len(inv.Clusters) != 0 || len(inv.VMs) != 0 {
		t.Errorf("got %d clusters, %d VMs, want none", len(inv.Clusters), len(inv.VMs))
	}
}
