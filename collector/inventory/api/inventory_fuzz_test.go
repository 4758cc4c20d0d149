package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// FuzzInventoryResponse serves the fuzzed body as the first page of listVirtualMachines (a page
// past it is the empty answer CloudStack gives) and the fake's sane answers to every other call.
// Inventory must fail or return exactly the VMs the body lists: as many as its count says, each
// with an id written in the body, and the cluster the fake holds. Its error must never show the
// keys or the signed query.
func FuzzInventoryResponse(f *testing.F) {
	fake := cloudstacktest.NewUnstarted()
	f.Cleanup(fake.Close)
	fake.Update(func(w *cloudstacktest.World) {
		c := accountCluster("prod")
		c.IPAddress, c.IPAddressID = "203.0.113.1", "ip-prod"
		k := addCKS(w, c, 1, 2, 0)
		w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: c.IPAddressID, PublicPort: 2222,
			PrivatePort: 22, VirtualMachineID: k.vms[0].ID, Account: c.Account})
	})
	// One server for every input of a worker: the body is swapped, not the server.
	var body atomic.Pointer[[]byte]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("command") != "listVirtualMachines" {
			fake.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if page := r.FormValue("page"); page != "" && page != "1" {
			_, _ = w.Write([]byte(`{"listvirtualmachinesresponse":{}}`))
			return
		}
		_, _ = w.Write(*body.Load())
	}))
	f.Cleanup(ts.Close)
	src, err := api.New(withConfigDefaults(api.Options{API: cloudstackapi.Options{Endpoint: ts.URL + "/client/api", APIKey: fake.APIKey(), SecretKey: fake.SecretKey(), Timeout: 2 * time.Second}}))
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, b []byte) {
		body.Store(&b)
		fake.ResetCalls() // the call log would grow with every input
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		inv, err := src.Inventory(ctx)
		if err != nil {
			msg := err.Error()
			for _, secret := range []string{fake.APIKey(), fake.SecretKey(), "signature=", "apiKey="} {
				if strings.Contains(msg, secret) && !bytes.Contains(b, []byte(secret)) {
					t.Fatalf("the error shows %q: %s", secret, msg)
				}
			}
			return
		}
		if len(inv.Clusters) != 1 || inv.Clusters[0].Name != "prod" {
			t.Errorf("Inventory() clusters = %+v, want the fake's one cluster", inv.Clusters)
		}
		texts := stringsIn(b)
		for _, vm := range inv.VMs {
			if vm.ID == "" || !texts[vm.ID] {
				t.Errorf("Inventory() holds VM %q, which the body does not list", vm.ID)
			}
		}
		if counts := bodyCounts(b); !counts[len(inv.VMs)] {
			t.Errorf("Inventory() = %d VMs, but the body's count is one of %v", len(inv.VMs), counts)
		}
	})
}

// bodyCounts returns the counts the inventory may read in a list answer. Like cloudstack-go's
// getRawValue, it takes the envelope's value (any one of them, as the SDK ranges over a map),
// or the first element of the value of a key other than "count" when the envelope has "count";
// its count may be a number or a numeric string, and reads as 0 when absent or of another type.
func bodyCounts(b []byte) map[int]bool {
	var envelope map[string]json.RawMessage
	if json.Unmarshal(b, &envelope) != nil {
		return nil
	}
	_, array := envelope["count"]
	counts := make(map[int]bool)
	for k, v := range envelope {
		if array {
			var list []json.RawMessage
			if k == "count" || json.Unmarshal(v, &list) != nil || len(list) == 0 {
				continue
			}
			v = list[0]
		}
		var r map[string]json.RawMessage
		if json.Unmarshal(v, &r) != nil {
			continue
		}
		counts[0] = true // no count, or one that is not a number
		for k, c := range r {
			var n json.Number
			if strings.EqualFold(k, "count") && json.Unmarshal(bytes.Trim(c, `"`), &n) == nil {
				if i, err := n.Int64(); err == nil {
					counts[int(i)] = true
				}
			}
		}
	}
	return counts
}
