// Package notifier announces drift inside CloudStack (annotations and alerts) once per new
// finding, remembers what it announced across restarts and caps the alerts of a cycle.
package notifier

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// CloudStack is what the notifier needs from CloudStack.
type CloudStack interface {
	AddAnnotation(ctx context.Context, clusterID, text string) error
	// HasAnnotation reports whether the cluster carries the text in an annotation created since.
	HasAnnotation(ctx context.Context, clusterID, text string, since time.Time) (bool, error)
	GenerateAlert(ctx context.Context, alertType int, zoneID, description string) error
	// AlertStored reports whether an un-archived alert of the type with the description exists.
	AlertStored(ctx context.Context, alertType int, description string) (bool, error)
	ArchiveAlerts(ctx context.Context, alertType int) error
}

// Store keeps the notifier's state as one document, written atomically.
type Store interface {
	LoadNotifierState() ([]byte, error)
	SaveNotifierState([]byte) error
}

// ErrInvalidOptions is wrapped by the errors of New and Configure about Options: they take the
// configuration's validated values and choose no defaults of their own.
var ErrInvalidOptions = errors.New("invalid notifier options")

// Options are the notifier's settings, validated values from the configuration; Configure changes
// them on reload.
type Options struct {
	Enabled bool
	// FromAlertmanager announces the drift alerts Alertmanager reports firing (see Receive)
	// instead of every finding of the cycle.
	FromAlertmanager  bool
	Annotations       bool
	Alerts            bool
	MaxAlertsPerCycle int
	// MaxAnnotationsPerCluster caps the annotations (and the WARN lines) of one cluster per pass,
	// per Interval in alertmanager mode; past it one summary annotation counts the rest.
	MaxAnnotationsPerCluster int
	// Interval is the check interval: in alertmanager mode the window of the caps, and how long
	// a firing alert that matches no finding is remembered (twice that).
	Interval    time.Duration
	Types       TypeRange
	FindingsURL string // named in the summary alert; empty: "/findings on the exporter"
	// MaxPerClusterPerDay bounds the annotations and alerts about one cluster over a rolling 24
	// hours, at least 1; past it one summary annotation says so (daybudget.go).
	MaxPerClusterPerDay int
	// Concurrency bounds the CloudStack calls of a pass in flight at once, at least 1: the
	// clusters' calls run in parallel, one cluster's in their planned order.
	Concurrency int
}

// check refuses options the notifier cannot run with.
func (o Options) check() error {
	if o.Concurrency < 1 {
		return fmt.Errorf("%w: concurrency %d, want at least 1", ErrInvalidOptions, o.Concurrency)
	}
	if err := o.Types.check(); err != nil {
		return err
	}
	if o.MaxPerClusterPerDay < 1 {
		return fmt.Errorf("%w: %d announcements per cluster and day, want at least 1", ErrInvalidOptions, o.MaxPerClusterPerDay)
	}
	return nil
}

// Notifier announces findings. One Notify runs at a time.
type Notifier struct {
	cs     CloudStack
	store  Store
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	work    sync.Mutex // see locked; taken inside mu by the workers of a pass
	opts    Options
	state   state
	metrics *Metrics
	failing map[string]string    // operation -> last reason logged, so a reason is logged once
	paused  map[string]time.Time // operation -> when to try again after a permission error
	saved   []byte               // the document the store holds, so an unchanged state is not written again
	summary map[string]int       // capped findings by cluster uuid in the cycle under way
	window  budget               // what the caps have used in the current window
	turns   *collector.Turns     // the order of the alert cap's turns, new every pass
	view    atomic.Pointer[View] // see View
}

// New loads the state. A state that cannot be decoded stops start-up: resetting it would
// announce every open finding again. The notifier counts into metrics.
func New(cs CloudStack, store Store, opts Options, metrics *Metrics, logger *slog.Logger, now func() time.Time) (*Notifier, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	n := &Notifier{cs: cs, store: store, logger: logger, now: now, opts: opts, failing: make(map[string]string), paused: make(map[string]time.Time), metrics: metrics,
		turns: collector.NewTurns()}
	raw, err := store.LoadNotifierState()
	if err != nil {
		return nil, err
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &n.state); err != nil {
			return nil, fmt.Errorf("notifier state cannot be decoded: %w", err)
		}
		if sm := n.state.Summary; sm != nil && sm.Capped == nil {
			n.state.Summary = nil // counted by cluster name, by an older release (see alertSummary)
		}
	}
	n.saved = raw
	n.publish()
	return n, nil
}

// Configure applies a reloaded configuration from the next cycle on. Options New would refuse
// change nothing and are returned as an error.
func (n *Notifier) Configure(cs CloudStack, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cs, n.opts = cs, o
	clear(n.paused) // a new key or role may allow what the old one did not
	return nil
}

// FirstSeen returns the first-seen time remembered for a finding of a cluster, across restarts.
func (n *Notifier) FirstSeen(clusterID string, side collector.Side, key string) (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	a := n.state.announced(clusterID, side, key)
	if a == nil || a.FirstSeen.IsZero() {
		return time.Time{}, false
	}
	return a.FirstSeen, true
}

// Cause returns the cause remembered for a finding of a cluster, across restarts.
func (n *Notifier) Cause(clusterID string, side collector.Side, key string) (collector.Cause, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	a := n.state.announced(clusterID, side, key)
	if a == nil || a.Cause.IsZero() {
		return collector.Cause{}, false
	}
	return a.Cause, true
}

// Notify takes one cycle's statuses (from a cycle that read the inventory, read only): it logs
// and announces new findings and resolutions, and retries what CloudStack did not accept before.
func (n *Notifier) Notify(ctx context.Context, statuses []collector.ClusterStatus) {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer n.publish()
	announce := statuses
	if n.opts.FromAlertmanager {
		announce = n.state.firingOnly(statuses)
	}
	n.logEvents(n.state.update(announce))
	n.state.pruneDays(n.now(), statuses)
	n.turns.Next()
	if n.opts.FromAlertmanager {
		n.pruneFiring(statuses)
	}
	if !n.opts.Enabled {
		n.state.settle(n.opts, true)
		n.save()
		return
	}
	start := time.Now()
	defer func() { n.metrics.duration.Set(time.Since(start).Seconds()) }()
	n.state.settle(n.opts, false)
	n.summary = make(map[string]int)
	n.checkSummary(ctx)
	n.checkAnnotationSummaries(ctx)
	work := n.plan()
	if len(work) > 0 || n.state.Summary != nil {
		n.send(ctx, work)
	}
	n.save()
}

// logEvents logs the events of a pass, at most MaxAnnotationsPerCluster new findings of a
// cluster one by one and then one line with how many more, so that one cluster cannot flood the
// log.
func (n *Notifier) logEvents(events []event) {
	type unlogged struct {
		cluster string
		count   int
	}
	logged := make(map[string]int)
	more := make(map[string]*unlogged)
	var order []string
	for _, e := range events {
		if !e.Resolved {
			if logged[e.ClusterID] >= n.opts.MaxAnnotationsPerCluster {
				if more[e.ClusterID] == nil {
					more[e.ClusterID] = &unlogged{cluster: e.Cluster}
					order = append(order, e.ClusterID)
				}
				more[e.ClusterID].count++
				continue
			}
			logged[e.ClusterID]++
		}
		n.logEvent(e)
	}
	for _, id := range order {
		n.logger.Warn("More new findings of VM map drift on the cluster than are logged one by one; /findings lists them all",
			"cluster", more[id].cluster, "cluster_id", id, "more", more[id].count)
	}
}

func (n *Notifier) logEvent(e event) {
	if e.Resolved {
		n.logger.Info(resolution(e.Side, e.Cluster, e.State), "cluster", e.Cluster, "cluster_id", e.ClusterID, "side", string(e.Side))
		return
	}
	f := e.Finding
	attrs := []any{"cluster", e.Cluster, "cluster_id", e.ClusterID, "kind", string(f.Kind), "vm_id", f.VMID, "vm_name", f.VMName}
	if !f.Cause.IsZero() {
		attrs = append(attrs, "cause_event_id", f.Cause.EventID, "cause_type", f.Cause.Type, "cause_username", f.Cause.Username,
			"cause_account", f.Cause.Account, "cause_created", f.Cause.Created)
	}
	n.logger.Warn(f.Message, attrs...)
}

// settle marks as done the parts that are not to be sent: all of them when the notifier is
// disabled (so that turning it on later does not flood), else those switched off.
func (s *state) settle(o Options, all bool) {
	for _, cs := range s.Clusters {
		for _, ss := range cs.Sides {
			if ss.Resolution != nil && (all || !o.Annotations) {
				ss.Resolution.settle()
			}
			for _, a := range ss.Findings {
				if all || !o.Annotations {
					a.Annotation.settle()
				}
				if all || !o.Alerts {
					a.Alert.settle()
				}
			}
		}
		if cs.Summary != nil && (all || !o.Annotations || cs.Summary.Part.Done) {
			cs.Summary = nil
		}
		for side, ss := range cs.Sides {
			if ss.Resolution != nil && ss.Resolution.Done {
				ss.Resolution = nil
				if len(ss.Findings) == 0 {
					delete(cs.Sides, side)
				}
			}
		}
	}
	for id, cs := range s.Clusters {
		if len(cs.Sides) == 0 {
			delete(s.Clusters, id)
		}
	}
	if all {
		s.Archive = nil
		s.Summary = nil
	}
}

// settle marks a part done without a call.
func (p *part) settle() {
	if !p.Done {
		p.Done, p.Off = true, true
	}
}

// save writes the state and reports whether it could.
func (n *Notifier) save() bool {
	raw, err := json.Marshal(&n.state)
	if err == nil && bytes.Equal(raw, n.saved) {
		return true // the file holds this already: no write, no fsync, in the cycles where nothing changes
	}
	if err == nil {
		err = n.store.SaveNotifierState(raw)
	}
	if err != nil {
		n.metrics.failures.Inc()
		n.fail("save state", err)
		return false
	}
	n.saved = raw
	n.ok("save state")
	return true
}

// sortedClusters returns the cluster ids in a stable order: by name, then id.
func (s *state) sortedClusters() []string {
	ids := make([]string, 0, len(s.Clusters))
	for id := range s.Clusters {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := s.Clusters[ids[i]], s.Clusters[ids[j]]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return ids[i] < ids[j]
	})
	return ids
}
