package api_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// FuzzClusterAnswer serves the fuzzed body as the answer of listKubernetesClusters (seeded with the
// recorded answer of every release line) and the fake's sane answers to every other call.
// Inventory must fail or return only clusters whose id the body holds, each with a map of VMs the
// body or the VM list names: never a panic, never an invented cluster or VM.
func FuzzClusterAnswer(f *testing.F) {
	for _, line := range []string{"4.14", "4.22"} { // the other lines only repeat their fields
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "releases", line, "listKubernetesClusters.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"listkubernetesclustersresponse":{"count":"1","kubernetescluster":[{"id":"c","virtualmachines":{"id":"x"}}]}}`))
	fake := cloudstacktest.NewServer()
	f.Cleanup(fake.Close)
	fake.Update(func(w *cloudstacktest.World) {
		addCKS(w, accountCluster("prod"), 1, 1, 0)
	})
	src, err := api.New(withConfigDefaults(api.Options{API: cloudstackapi.Options{Endpoint: fake.Endpoint(), APIKey: fake.APIKey(),
		SecretKey: fake.SecretKey(), Timeout: 2 * time.Second}}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fake.Replay("listKubernetesClusters", b)
		fake.ResetCalls()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		inv, err := src.Inventory(ctx)
		if err != nil {
			return
		}
		texts := stringsIn(b)
		listed := make(map[string]bool)
		for _, v := range inv.VMs {
			listed[v.ID] = true
		}
		for _, c := range inv.Clusters {
			if !texts[c.ID] {
				t.Errorf("cluster %q is not in the body", c.ID)
			}
			for _, m := range c.Mapped {
				if !texts[m.ID] && !listed[m.ID] {
					t.Errorf("cluster %q maps VM %q, which neither the body nor the VM list names", c.ID, m.ID)
				}
			}
		}
	})
}

// stringsIn returns every string value in a JSON document, at any depth (none if it is not JSON).
func stringsIn(b []byte) map[string]bool {
	texts := make(map[string]bool)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts[v] = true
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	var doc any
	_ = json.Unmarshal(b, &doc)
	walk(doc)
	return texts
}
