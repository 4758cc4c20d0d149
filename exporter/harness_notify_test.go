package exporter

// What the notifier left in CloudStack, in the log and in the state file, and the steps that open a
// finding and check one episode of it.

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

const (
	msgInventory  = "Could not read the inventory from CloudStack, keeping the previous findings"
	msgKubectl    = "Could not list the Kubernetes nodes of the cluster; comparing its VM map with the VMs in CloudStack only"
	msgNotifier   = "Notifier call failed, it is retried on the next cycle"
	vmSideAgain   = "matches the VMs of the cluster in CloudStack again"
	nodeSideAgain = "matches the Kubernetes nodes of the cluster again"
)

// annotations returns the texts of the annotations CloudStack holds.
func (e *env) annotations() []string {
	var out []string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Annotations {
			if a != nil && !a.Removed {
				out = append(out, a.Annotation)
			}
		}
	})
	return out
}

// alertRows returns the description of every alert CloudStack stored, archived or not.
func (e *env) alertRows() []string {
	var out []string
	e.sim.CloudStack.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			if a != nil {
				out = append(out, a.Description)
			}
		}
	})
	return out
}

// logged returns the lines at level or above logged since mark whose message is msg.
func (e *env) logged(mark int, level slog.Level, msg string) []logLine {
	var out []logLine
	for _, l := range e.logs.since(mark, level) {
		if l.Msg == msg {
			out = append(out, l)
		}
	}
	return out
}

// statePath is where the simulator's configuration keeps the state file.
func (e *env) statePath() string { return filepath.Join(e.dir, "state.db") }

// openVMFinding deletes the map row of the cluster's first worker and waits until the finding is
// announced (annotation and alert); it returns what restores the row.
func (e *env) openVMFinding(c simulator.Cluster) (restore func()) {
	e.t.Helper()
	restore, err := e.sim.DeleteMapRow(c.ID, c.VMs[1])
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("the VM-side finding announced", func() bool {
		return len(e.findings()) == 1 && len(e.storedAlerts()) == 1 && count(e.annotations(), "[WARN]") == 1
	})
	e.nextCycles(1)
	return restore
}

// openNodeFinding stops kubelet on the cluster's first worker and waits until the node-side
// finding is announced; it returns what starts kubelet again.
func (e *env) openNodeFinding(c simulator.Cluster) (restart func()) {
	e.t.Helper()
	restart, err := e.sim.StopKubelet(c.ID, c.VMs[1])
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("the node-side finding announced", func() bool {
		f := e.findings()
		return len(f) == 1 && strings.Contains(f[0], "vm_not_a_node") && len(e.storedAlerts()) == 1 &&
			count(e.annotations(), "[WARN]") == 1
	})
	e.nextCycles(1)
	return restart
}

// oneEpisode checks what CloudStack holds after one finding opened and cleared: one [WARN]
// annotation, one [INFO] annotation for its side, one alert, archived.
func (e *env) oneEpisode(resolution string) {
	e.t.Helper()
	ann := e.annotations()
	if count(ann, "[WARN]") != 1 || count(ann, "[INFO]", resolution) != 1 || len(ann) != 2 {
		e.t.Fatalf("annotations: %q, want one [WARN] and one [INFO] ... %s", ann, resolution)
	}
	if rows := e.alertRows(); len(rows) != 1 {
		e.t.Fatalf("alerts stored: %q, want one", rows)
	}
	if a := e.storedAlerts(); len(a) != 0 {
		e.t.Fatalf("the cleared finding's alert is not archived: %q", a)
	}
}

// savedNotifier is the notifier's document in the state file, as far as these tests read it. It
// is decoded the way an operator's tool would read the file, by the JSON names the notifier writes
// (the tags in notifier/state.go), not with the notifier's Go types: the file is an interface that
// outlives a release.
type savedNotifier struct {
	Clusters map[string]struct {
		Name  string `json:"name"`
		Sides map[collector.Side]struct {
			Findings   map[string]*savedAnnouncement `json:"findings"`
			Resolution *struct{}                     `json:"resolution"` // the side's [INFO] annotation, while owed
		} `json:"sides"`
	} `json:"clusters"`
	Archive []int     `json:"archive"` // alert types whose alerts are still to be archived
	Summary *struct{} `json:"summary"` // a summary alert, while owed
}

// savedAnnouncement is one finding's announcement in the state file.
type savedAnnouncement struct {
	Message    string    `json:"message"`
	Annotation savedPart `json:"annotation"`
	Alert      savedPart `json:"alert"`
	Capped     bool      `json:"capped"`
}

// savedPart is one CloudStack call of an announcement: done once CloudStack accepted it,
// attempted from the moment the call was about to be made.
type savedPart struct {
	Done      bool      `json:"done"`
	Attempted time.Time `json:"attempted"`
}

// announced reports whether CloudStack accepted every part, as the notifier reads it.
func (a *savedAnnouncement) announced() bool { return a.Annotation.Done && a.Alert.Done }

// checkStateFile reopens the state file the way the exporter does, runs bbolt's consistency
// check over every page and returns the notifier's document.
func checkStateFile(t *testing.T, path string) savedNotifier {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	_ = db.Close()
	if err != nil {
		t.Fatalf("the state file is inconsistent: %v", err)
	}
	st, err := state.Open(path, false)
	if err != nil {
		t.Fatalf("state.Open: %v", err)
	}
	defer st.Close()
	raw, err := st.LoadNotifierState()
	if err != nil {
		t.Fatal(err)
	}
	var s savedNotifier
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("the notifier's document: %v\n%s", err, raw)
	}
	return s
}

// onlyAnnouncement returns the one announcement of the state, failing the test otherwise.
func onlyAnnouncement(t *testing.T, s savedNotifier) *savedAnnouncement {
	t.Helper()
	var out []*savedAnnouncement
	for _, c := range s.Clusters {
		for _, side := range c.Sides {
			for _, a := range side.Findings {
				out = append(out, a)
			}
		}
	}
	if len(out) != 1 {
		t.Fatalf("the state holds %d announcements, want 1: %+v", len(out), s)
	}
	return out[0]
}
