package notifier_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier/cloudstack"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// notifierEnv is a notifier writing to a fake CloudStack (the real protocol on loopback) through
// the real writer, with its state in a real state file and a clock the test moves.
type notifierEnv struct {
	cs      *cloudstacktest.Server
	n       *notifier.Notifier
	store   *state.Store
	reg     *prometheus.Registry
	cluster *cloudstacktest.Cluster
	logs    *logtest.Buffer  // the notifier's log, as text
	opts    notifier.Options // as the notifier was made, defaults filled in

	mu  sync.Mutex
	now time.Time
}

// testInterval is the check interval of the tests' notifiers.
const testInterval = 5 * time.Minute

// newNotifierEnv starts the fake with one Running cluster and a notifier with opts; Types and the
// caps and Concurrency left at zero take the configuration's defaults, Interval testInterval.
func newNotifierEnv(tb testing.TB, opts notifier.Options) *notifierEnv {
	tb.Helper()
	e := &notifierEnv{cs: cloudstacktest.NewServer(), reg: prometheus.NewRegistry(), logs: &logtest.Buffer{}, now: time.Now()}
	tb.Cleanup(e.cs.Close)
	e.cs.Update(func(w *cloudstacktest.World) {
		e.cluster = w.AddCluster(cloudstacktest.Cluster{Name: "prod", State: "Running", ZoneID: "20000000-0000-4000-8000-000000000001", ZoneName: "zone1",
			Account: "acme", Domain: "ROOT", Created: time.Now()})
	})
	api, err := cloudstackapi.New(cloudstackapi.Options{Endpoint: e.cs.Endpoint(), APIKey: e.cs.APIKey(), SecretKey: e.cs.SecretKey(), Timeout: config.Defaults().CloudStack.Timeout})
	if err != nil {
		tb.Fatal(err)
	}
	e.store, err = state.Open(filepath.Join(tb.TempDir(), "state.db"), false)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.store.Close() })
	if opts.Interval == 0 {
		opts.Interval = testInterval
	}
	defaults := config.Defaults()
	if opts.MaxAnnotationsPerCluster == 0 {
		opts.MaxAnnotationsPerCluster = defaults.Notifier.MaxAnnotationsPerCluster
	}
	if opts.MaxAlertsPerCycle == 0 {
		opts.MaxAlertsPerCycle = defaults.Notifier.MaxAlertsPerCycle
	}
	if opts.MaxPerClusterPerDay == 0 {
		opts.MaxPerClusterPerDay = defaults.Notifier.MaxAnnouncementsPerClusterPerDay
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = defaults.Notifier.Concurrency
	}
	if opts.Types == (notifier.TypeRange{}) {
		opts.Types = notifier.TypeRange{Min: defaults.Notifier.AlertTypeMin, Max: defaults.Notifier.AlertTypeMax}
	}
	opts.Enabled, opts.Annotations, opts.Alerts = true, true, true
	e.opts = opts
	e.n, err = notifier.New(cloudstack.New(api, defaults.CloudStack.PageSize), e.store, opts, notifier.NewMetrics(e.reg), slog.New(slog.NewTextHandler(e.logs, nil)), e.clock)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func (e *notifierEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *notifierEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

// status is the cluster's status with findings, each on the side of its kind.
func (e *notifierEnv) status(findings ...collector.Finding) []collector.ClusterStatus {
	st := collector.ClusterStatus{Cluster: collector.Cluster{ID: e.cluster.ID, Name: e.cluster.Name, ZoneID: e.cluster.ZoneID},
		Checked: true, Nodes: collector.NodesRead(nil, nil), OfferingsRead: true}
	return []collector.ClusterStatus{st.With(findings...)}
}

func (e *notifierEnv) notify(statuses []collector.ClusterStatus) {
	e.n.Notify(context.Background(), statuses)
}

// annotations returns the texts of the annotations CloudStack holds, in order.
func (e *notifierEnv) annotations() []string {
	var out []string
	e.cs.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Annotations {
			out = append(out, a.Annotation)
		}
	})
	return out
}

// alerts returns the alerts CloudStack holds.
func (e *notifierEnv) alerts() []cloudstacktest.Alert {
	var out []cloudstacktest.Alert
	e.cs.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			out = append(out, *a)
		}
	})
	return out
}

// savedState is what the tests read of the notifier's state file, decoded by its JSON names as
// another release would read it: the file is an interface, not the notifier's Go types.
type savedState struct {
	Clusters map[string]struct {
		Sides map[collector.Side]struct {
			Findings map[string]savedAnnouncement `json:"findings"`
		} `json:"sides"`
	} `json:"clusters"`
	Firing map[string]struct{} `json:"firing"` // by fingerprint
	States map[string]struct {
		State string    `json:"state"`
		Since time.Time `json:"since"`
	} `json:"states"`
}

// savedAnnouncement is a finding's announcement in the state file.
type savedAnnouncement struct {
	VMID       string    `json:"vm_id"`
	VMName     string    `json:"vm_name"`
	Annotation savedPart `json:"annotation"`
	Alert      savedPart `json:"alert"`
	AlertType  int       `json:"alert_type"`
	Capped     bool      `json:"capped"`
}

// savedPart is one call of an announcement in the state file.
type savedPart struct {
	Done bool `json:"done"`
}

// saved decodes the state the notifier last saved.
func (e *notifierEnv) saved(tb testing.TB) savedState {
	tb.Helper()
	raw, err := e.store.LoadNotifierState()
	if err != nil {
		tb.Fatal(err)
	}
	var s savedState
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// counter returns the value of a counter the notifier registered, labels as name=value pairs.
func (e *notifierEnv) counter(tb testing.TB, name string, labels ...string) float64 {
	tb.Helper()
	return e.sample(tb, name, labels).GetCounter().GetValue()
}

// gauge returns the value of a gauge the notifier registered, labels as name=value pairs.
func (e *notifierEnv) gauge(tb testing.TB, name string, labels ...string) float64 {
	tb.Helper()
	return e.sample(tb, name, labels).GetGauge().GetValue()
}

func (e *notifierEnv) sample(tb testing.TB, name string, labels []string) *dto.Metric {
	tb.Helper()
	families, err := e.reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m, labels) {
				return m
			}
		}
	}
	tb.Fatalf("no metric %s%v", name, labels)
	return nil
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// nodeFinding is a node_without_vm finding for node name.
func nodeFinding(cluster, name string) collector.Finding {
	return collector.Finding{Kind: collector.KindNodeWithoutVM, VMName: name,
		Message: "Kubernetes node " + name + " of cluster " + cluster + " has no VM in CloudStack"}
}

// firing and resolved are Alertmanager's webhook payloads for one drift alert.
func firing(fingerprint, clusterID string, f collector.Finding, startsAt time.Time) notifier.Webhook {
	return payload("firing", fingerprint, clusterID, f, startsAt)
}

func resolved(fingerprint, clusterID string, f collector.Finding, startsAt time.Time) notifier.Webhook {
	return payload("resolved", fingerprint, clusterID, f, startsAt)
}

func payload(status, fingerprint, clusterID string, f collector.Finding, startsAt time.Time) notifier.Webhook {
	return notifier.Webhook{Version: "4", Status: status, Alerts: []notifier.WebhookAlert{{Status: status, StartsAt: startsAt, Fingerprint: fingerprint,
		Labels: map[string]string{"alertname": "CKSNodeDrift", "cluster_id": clusterID, "kind": string(f.Kind), "vm_id": f.VMID, "vm_name": f.VMName}}}}
}
