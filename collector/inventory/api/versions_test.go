package api_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
)

// versionsOf returns each cluster's Kubernetes version by name.
func versionsOf(t *testing.T, src *api.Source) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range mustInventory(t, src).Clusters {
		out[c.Name] = c.KubernetesVersion
	}
	return out
}

// TestInventoryKubernetesVersions reads each cluster's semantic version from every release
// line's answers, with more versions than fit a page: 4.14.0.0 answers the whole list whatever
// the page (listAll), later lines page it, with count = the page's length up to 4.19.0.0 and the
// total from 4.19.1.0 (the fake's 4.20 line).
func TestInventoryKubernetesVersions(t *testing.T) {
	for _, tt := range []struct {
		release   string
		wantCalls int
	}{
		{cloudstacktest.Release414, 1},
		{cloudstacktest.Release415, 3},
		{cloudstacktest.Release416, 3},
		{cloudstacktest.Release418, 3},
		{cloudstacktest.Release420, 3},
		{cloudstacktest.Release422, 3},
	} {
		t.Run(tt.release, func(t *testing.T) {
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				for i := range 6 { // 1.20.0 ... 1.25.0, over pages of 3
					w.AddKubernetesVersion(cloudstacktest.KubernetesVersion{SemanticVersion: fmt.Sprintf("1.%d.0", 20+i)})
				}
				old := accountCluster("old")
				old.KubernetesVersionID = w.KubernetesVersionOf("1.21.0").ID
				addCKS(w, old, 1, 1, 0)
				upgraded := accountCluster("upgraded")
				upgraded.KubernetesVersionID = w.KubernetesVersionOf("1.25.0").ID
				addCKS(w, upgraded, 1, 1, 0)
				addCKS(w, accountCluster("unversioned"), 1, 1, 0) // imported (4.19 on): no version
			})
			src := newSource(t, s, api.Options{PageSize: 3})
			want := map[string]string{"old": "1.21.0", "upgraded": "1.25.0", "unversioned": ""}
			if diff := cmp.Diff(want, versionsOf(t, src)); diff != "" {
				t.Errorf("versions (-want +got):\n%s", diff)
			}
			calls := listCalls(s, "listKubernetesSupportedVersions")
			if len(calls) != tt.wantCalls {
				t.Fatalf("%d listKubernetesSupportedVersions calls, want %d", len(calls), tt.wantCalls)
			}
			for i, p := range calls {
				if p.Get("page") != fmt.Sprint(i+1) || p.Get("pagesize") != "3" || p.Has("listall") {
					t.Errorf("call %d: %v, want page %d, pagesize 3, no listall", i+1, p, i+1)
				}
			}
		})
	}
}

// TestInventoryVersionsCached: the versions are listed at the first cycle; later cycles ask again
// only for a version the cache does not know (at most once per 15 minutes) and once a day.
func TestInventoryVersionsCached(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	var c *cloudstacktest.Cluster
	s := startFake(t, func(w *cloudstacktest.World) {
		k := accountCluster("prod")
		k.KubernetesVersionID = w.KubernetesVersionOf("1.24.0").ID
		c = addCKS(w, k, 1, 1, 0).cluster
	})
	src := newSource(t, s, api.Options{Now: clock})
	calls := func() int { return s.CallCount("listKubernetesSupportedVersions") }

	steps := []struct {
		name      string
		do        func()
		want      string
		wantCalls int
	}{
		{"first cycle lists", func() {}, "1.24.0", 1},
		{"next cycle from the cache", func() { advance(5 * time.Minute) }, "1.24.0", 1},
		{"a new version, a cluster upgraded to it: not before 15 minutes", func() {
			s.Update(func(w *cloudstacktest.World) { c.KubernetesVersionID = w.KubernetesVersionOf("1.25.0").ID })
			advance(5 * time.Minute)
		}, "", 1},
		{"then listed again", func() { advance(5 * time.Minute) }, "1.25.0", 2},
		{"cached again", func() { advance(20 * time.Minute) }, "1.25.0", 2},
		{"after a day, listed again", func() { advance(24 * time.Hour) }, "1.25.0", 3},
	}
	for _, st := range steps {
		st.do()
		if got := versionsOf(t, src)["prod"]; got != st.want || calls() != st.wantCalls {
			t.Fatalf("%s: version %q after %d listings, want %q after %d", st.name, got, calls(), st.want, st.wantCalls)
		}
	}
}

// TestInventoryVersionsFailing: a key that may not list the versions (or a failing listing)
// does not fail the inventory; the versions are unknown, one WARN line says so, the listing is
// retried after 15 minutes, and one INFO line says when it works again.
func TestInventoryVersionsFailing(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := startFake(t, func(w *cloudstacktest.World) {
		k := accountCluster("prod")
		k.KubernetesVersionID = w.KubernetesVersionOf("1.24.0").ID
		addCKS(w, k, 1, 1, 0)
	})
	s.SetFault("listKubernetesSupportedVersions", cloudstacktest.Fault{Status: cloudstacktest.ErrUnknownCmd})
	var logs logtest.Buffer
	src := newSource(t, s, api.Options{Now: clock, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for i := range 3 {
		if got := versionsOf(t, src)["prod"]; got != "" {
			t.Fatalf("cycle %d: version %q while the listing fails, want unknown", i+1, got)
		}
		mu.Lock()
		now = now.Add(10 * time.Minute)
		mu.Unlock()
	}
	if n := s.CallCount("listKubernetesSupportedVersions"); n != 2 {
		t.Errorf("%d listings in 3 cycles 10 minutes apart, want 2 (retried after 15 minutes)", n)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d WARN lines, want 1:\n%s", n, logs.String())
	}
	s.ClearFaults()
	mu.Lock()
	now = now.Add(15 * time.Minute)
	mu.Unlock()
	if got := versionsOf(t, src)["prod"]; got != "1.24.0" {
		t.Errorf("after the fault: version %q, want 1.24.0", got)
	}
	if !strings.Contains(logs.String(), "level=INFO msg=\"Listed the Kubernetes versions again") {
		t.Errorf("no recovery line:\n%s", logs.String())
	}
}

// TestInventoryVersionRemoved: a cluster whose version row is removed has no kubernetesversionid
// in its answer (findById skips removed rows) and no version; no listing is needed for it.
func TestInventoryVersionRemoved(t *testing.T) {
	s := startFake(t, func(w *cloudstacktest.World) {
		v := w.KubernetesVersionOf("1.24.0")
		k := accountCluster("prod")
		k.KubernetesVersionID = v.ID
		addCKS(w, k, 1, 1, 0)
		v.Removed = true
	})
	if got := versionsOf(t, newSource(t, s, api.Options{}))["prod"]; got != "" {
		t.Errorf("version %q, want unknown", got)
	}
	if n := s.CallCount("listKubernetesSupportedVersions"); n != 0 {
		t.Errorf("%d listings for clusters without a version id, want none", n)
	}
}

// TestInventoryNodeVersions reads each VM's own Kubernetes version from the cluster's VM entries
// of the 4.21 line on (KubernetesUserVmResponse); older lines have none.
func TestInventoryNodeVersions(t *testing.T) {
	for _, tt := range []struct {
		release string
		want    []string
	}{
		{cloudstacktest.Release420, []string{"", ""}},
		{cloudstacktest.Release422, []string{"1.24.0", "1.23.3"}},
	} {
		t.Run(tt.release, func(t *testing.T) {
			s := startFake(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				k := accountCluster("held")
				k.KubernetesVersionID = w.KubernetesVersionOf("1.24.0").ID
				set := addCKS(w, k, 1, 1, 0)
				set.vms[0].KubernetesNodeVersion, set.vms[1].KubernetesNodeVersion = "1.24.0", "1.23.3"
			})
			var got []string
			for _, m := range mustInventory(t, newSource(t, s, api.Options{})).Clusters[0].Mapped {
				got = append(got, m.KubernetesVersion)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("node versions (-want +got):\n%s", diff)
			}
		})
	}
}
