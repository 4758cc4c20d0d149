package database

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// TestOperationStarted reads when the operation of a cluster in an operation state started from
// the event table, on every schema: the newest Scheduled event of the state's command naming the
// cluster (by uuid; the create by internal id; 4.21's node commands as their resource); another
// cluster's, another command's, an archived one and the end of an operation do not count; a
// Running cluster has none. The statement count stays the same: it is a column of the cluster
// query.
func TestOperationStarted(t *testing.T) {
	at := created.Add(-2 * time.Hour).UTC().Truncate(time.Second)
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			spec := func(name, state string) *cloudstacktest.Cluster {
				s := w.BuildCluster(cloudstacktest.ClusterSpec{Name: name, Account: "alice", Control: 1, Workers: 1, Created: created})
				s.Cluster.State = state
				return s.Cluster
			}
			event := func(c *cloudstacktest.Cluster, eventType string, at time.Time) *cloudstacktest.Event {
				return w.AddEvent(w.OperationEvent(c, eventType, at))
			}
			scaling, starting, running, removing := spec("scaling", "Scaling"), spec("starting", "Starting"), spec("running", "Running"), spec("removing", "RemovingNodes")
			event(scaling, "KUBERNETES.CLUSTER.SCALE", at.Add(-24*time.Hour))
			event(scaling, "KUBERNETES.CLUSTER.SCALE", at)
			event(scaling, "KUBERNETES.CLUSTER.SCALE", at.Add(time.Hour)).Archived = true
			event(scaling, "KUBERNETES.CLUSTER.SCALE", at.Add(2*time.Hour)).State = "Completed"
			event(scaling, "KUBERNETES.CLUSTER.UPGRADE", at.Add(3*time.Hour))
			event(running, "KUBERNETES.CLUSTER.SCALE", at.Add(4*time.Hour))
			event(starting, "KUBERNETES.CLUSTER.CREATE", at.Add(-time.Minute))
			event(removing, "KUBERNETES.CLUSTER.NODES.REMOVE", at.Add(-2*time.Minute))
			// Another tenant scales its own cluster, named like scaling's uuid: its event's
			// description ends in that uuid, but it is mallory's, not scaling's.
			mallory := spec("hostile", "Running")
			mallory.Account = "mallory"
			hostile := event(mallory, "KUBERNETES.CLUSTER.SCALE", at.Add(30*time.Minute))
			hostile.Description = "Scaling Kubernetes cluster ID: " + scaling.ID
			src, _ := load(t, w, v, Options{IncludeProjects: true})
			got := map[string]time.Time{}
			for _, c := range inventory(t, src).Clusters {
				got[c.Name] = c.OperationStarted
			}
			want := map[string]time.Time{"scaling": at, "starting": at.Add(-time.Minute), "running": {}, "removing": {}}
			if v >= mariadbtest.V4_17 { // the schema that has event.resource_id
				want["removing"] = at.Add(-2 * time.Minute)
			}
			for name, w := range want {
				if !got[name].Equal(w) {
					t.Errorf("%s: OperationStarted = %s, want %s", name, got[name], w)
				}
			}
		})
	}
}

// TestOperationStartedWhateverTheCollation finds the create's event of a Starting cluster in both
// of its texts, "Creating Kubernetes cluster. Cluster Id: <id>" (up to 4.19.0.0) and "Creating
// Kubernetes cluster Id: <id>" (from 4.19.1.0), on every schema, with event.description in
// utf8 (CloudStack's charset up to 4.19) and utf8mb4 (from schema-41910to42000.sql, 4.20) under
// the charset's default, case-insensitive collation and under its _bin one, where a LIKE compares
// case: the match lower-cases the description itself, whatever the column's collation.
func TestOperationStartedWhateverTheCollation(t *testing.T) {
	at := created.Add(-2 * time.Hour).UTC().Truncate(time.Second)
	type schema struct {
		version   mariadbtest.Version
		collation string
	}
	var schemas []schema
	for _, v := range []mariadbtest.Version{mariadbtest.V4_14, mariadbtest.V4_16, mariadbtest.V4_17, mariadbtest.V4_19, mariadbtest.V4_21} {
		for _, collation := range []string{"utf8mb3_general_ci", "utf8mb3_bin", "utf8mb4_general_ci", "utf8mb4_bin"} {
			schemas = append(schemas, schema{v, collation})
		}
	}
	for _, sc := range schemas {
		collation := sc.collation
		t.Run(sc.version.String()+" "+collation, func(t *testing.T) {
			w := &cloudstacktest.World{}
			var want []*cloudstacktest.Cluster
			for i, text := range []string{"Creating Kubernetes cluster. Cluster Id: %d", "Creating Kubernetes cluster Id: %d"} {
				s := w.BuildCluster(cloudstacktest.ClusterSpec{Name: fmt.Sprintf("new%d", i), Account: "alice", Control: 1, Workers: 1, Created: created})
				s.Cluster.State = "Starting"
				e := w.AddEvent(w.OperationEvent(s.Cluster, "KUBERNETES.CLUSTER.CREATE", at))
				e.Description = fmt.Sprintf(text, s.Cluster.InternalID)
				want = append(want, s.Cluster)
			}
			src, d := load(t, w, sc.version, Options{})
			charset, _, _ := strings.Cut(collation, "_")
			if _, err := d.Admin.Exec("ALTER TABLE event MODIFY COLUMN description varchar(1024) CHARACTER SET " + charset + " COLLATE " + collation + " NOT NULL"); err != nil {
				t.Fatal(err)
			}
			got := map[string]time.Time{}
			for _, c := range inventory(t, src).Clusters {
				got[c.Name] = c.OperationStarted
			}
			for _, c := range want {
				if !got[c.Name].Equal(at) {
					t.Errorf("%s: OperationStarted = %s, want %s", c.Name, got[c.Name], at)
				}
			}
		})
	}
}

// TestOperationStartedByResource: from 4.19.1.0 a cluster command's Started and Completed events
// name the cluster as their resource (apache/cloudstack#9070), whatever their description says:
// an upgrade's Started event that names no uuid times the Upgrading state where the schema has
// event.resource_id, as the API source does; another tenant's event recorded against the same
// cluster (a command the access check refused) does not count.
func TestOperationStartedByResource(t *testing.T) {
	at := created.Add(-2 * time.Hour).UTC().Truncate(time.Second)
	for _, v := range []mariadbtest.Version{mariadbtest.V4_16, mariadbtest.V4_19, mariadbtest.V4_21} {
		t.Run(v.String(), func(t *testing.T) {
			w := &cloudstacktest.World{}
			c := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "upgrading", Account: "alice", Control: 1, Workers: 1, Created: created}).Cluster
			c.State = "Upgrading"
			started := cloudstacktest.Event{Type: "KUBERNETES.CLUSTER.UPGRADE", State: "Started", Description: "Upgrading Kubernetes cluster",
				ResourceID: c.ID, ResourceType: "KubernetesCluster", Created: at}.Of(c)
			w.AddEvent(started)
			hostile := started
			hostile.Account, hostile.Created = "mallory", at.Add(time.Hour)
			w.AddEvent(hostile)
			src, _ := load(t, w, v, Options{})
			got := inventory(t, src).Clusters[0].OperationStarted
			want := at
			if v < mariadbtest.V4_17 { // no event.resource_id: the first sighting counts
				want = time.Time{}
			}
			if !got.Equal(want) {
				t.Errorf("OperationStarted = %s, want %s", got, want)
			}
		})
	}
}
