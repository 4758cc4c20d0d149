package database

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestCausesFromTheDatabase finds the event that explains a new finding in the event table, as
// the API source does through listEvents: the owner's VM.EXPUNGE of a mapped VM even where
// another tenant recorded a newer one against the same VM, the root admin's VM.STOP (account 2),
// a failed scale of the cluster, a project's own event; not a Scheduled event, not one older than
// the look-back, not one of a type that does not explain the kind, none before 4.17 (no
// event.resource_id). A thousand other events on a VM cost one statement.
func TestCausesFromTheDatabase(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, v := range []mariadbtest.Version{mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			s := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "alpha", Account: "alice", Control: 1, Workers: 4, Created: created})
			p := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "beta", ProjectID: "30000000-0000-4000-8000-0000000000b1", Project: "web", Control: 1, Workers: 1, Created: created})
			c := s.Cluster
			on := func(vm *cloudstacktest.VM, typ string, at time.Time) cloudstacktest.Event {
				return cloudstacktest.Event{Type: typ, State: "Completed", Description: typ + " " + vm.ID, ResourceID: vm.ID, ResourceType: "VirtualMachine", Created: at}.Of(c)
			}
			expunge := w.AddEvent(on(s.Workers[0], "VM.EXPUNGE", now.Add(-3*time.Minute)))
			hostile := on(s.Workers[0], "VM.EXPUNGE", now.Add(-time.Minute))
			hostile.Account, hostile.Description = "mallory", "forged\x1b[2J"
			w.AddEvent(hostile)
			admin := on(s.Workers[1], "VM.STOP", now.Add(-2*time.Minute))
			admin.Account, admin.DomainID, admin.Domain = cloudstacktest.AdminAccount, "", "ROOT"
			stop := w.AddEvent(admin)
			sched := on(s.Workers[1], "VM.STOP", now.Add(-time.Minute))
			sched.State = "Scheduled"
			w.AddEvent(sched)
			scale := w.AddEvent(cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.SCALE", State: "Completed", Level: "ERROR",
				Description: "Scaling Kubernetes cluster ID: " + c.ID, ResourceID: c.ID, ResourceType: "KubernetesCluster", Created: now.Add(-4 * time.Minute)}.Of(c))
			w.AddEvent(on(s.Workers[2], "VM.EXPUNGE", now.Add(-collector.CauseLookBack-time.Hour)))
			for i := range 1000 {
				w.AddEvent(on(s.Workers[2], "VM.START", now.Add(-time.Duration(i)*time.Second)))
			}
			projectStop := w.AddEvent(cloudstacktest.Event{Type: "VM.STOP", State: "Completed", Description: "Stopping", ResourceID: p.Workers[0].ID,
				ResourceType: "VirtualMachine", Created: now.Add(-time.Minute)}.Of(p.Cluster))
			src, _ := load(t, w, v, Options{IncludeProjects: true})
			var alpha, beta collector.Cluster
			for _, k := range inventory(t, src).Clusters {
				switch k.Name {
				case "alpha":
					alpha = k
				case "beta":
					beta = k
				}
			}
			since := now.Add(-collector.CauseLookBack)
			vmWant := func(k collector.Cluster, vm *cloudstacktest.VM, types ...string) collector.CauseWant {
				return collector.CauseWant{Cluster: k, ResourceID: vm.ID, On: collector.CauseOnVM, Types: types, Since: since}
			}
			wants := []collector.CauseWant{
				vmWant(alpha, s.Workers[0], "VM.EXPUNGE", "VM.DESTROY"),
				vmWant(alpha, s.Workers[1], "VM.STOP"),
				{Cluster: alpha, ResourceID: alpha.ID, On: collector.CauseOnCluster, Types: []string{"KUBERNETES.CLUSTER.SCALE", "KUBERNETES.CLUSTER.UPGRADE"}, Since: since},
				vmWant(alpha, s.Workers[2], "VM.EXPUNGE"),
				vmWant(beta, p.Workers[0], "VM.STOP"),
				vmWant(alpha, s.Workers[3], "VM.EXPUNGE"),
			}
			got, err := src.Causes(context.Background(), wants)
			if err != nil {
				t.Fatalf("Causes: %v", err)
			}
			if v < mariadbtest.V4_17 {
				for i, c := range got {
					if !c.IsZero() {
						t.Errorf("want %d: cause %+v without event.resource_id", i, c)
					}
				}
				return
			}
			check := func(i int, e *cloudstacktest.Event, account string) {
				t.Helper()
				want := collector.Cause{EventID: e.ID, Type: e.Type, Description: e.Description, Account: account, Created: e.Created.UTC()}
				if got[i] != want {
					t.Errorf("want %d: cause %+v, want %+v", i, got[i], want)
				}
			}
			check(0, expunge, "alice")
			check(1, stop, cloudstacktest.AdminAccount)
			check(2, scale, "alice")
			if !got[3].IsZero() || !got[5].IsZero() {
				t.Errorf("causes of an old event and of none: %+v, %+v", got[3], got[5])
			}
			if got[4].EventID != projectStop.ID || !strings.HasPrefix(got[4].Account, "PrjAcct-web") {
				t.Errorf("the project's cause: %+v", got[4])
			}
		})
	}
}
