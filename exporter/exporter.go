// Package exporter is the runtime: configuration and reload, the check cycle's schedule, the
// cached snapshot and the HTTP endpoints.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// Options are what the command line gives the runtime.
type Options struct {
	ConfigFile string
	Logger     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Shard, when set, replaces check.shard of the configuration file (a StatefulSet replica's
	// ordinal, see config.OrdinalFromHostname).
	Shard *int
	// EnableLifecycle serves POST /-/reload and POST /-/check (--web.enable-lifecycle); without
	// it both answer 403. SIGHUP reloads either way.
	EnableLifecycle bool
}

// Exporter checks the clouds' CKS clusters on a schedule and serves the last result.
type Exporter struct {
	logger     *slog.Logger
	configFile string
	shard      *int // Options.Shard
	now        func() time.Time
	store      *state.Store
	notifier   *notifier.Notifier
	// notifierMetrics are the notifier's counters, registered in live.
	notifierMetrics *notifier.Metrics
	// annotationGuard stops annotations where the release has none for clusters (before 4.16).
	annotationGuard *notifier.AnnotationGuard
	sshMetrics      *ssh.Metrics           // outlives reloads, like the node lister's retries it counts
	apiMetrics      *cloudstackapi.Metrics // the API's requests and bytes; outlives reloads

	// loaded is the configuration and its back ends, swapped whole by a reload and read
	// without a lock: CloudStack's webhook reads its secret on every delivery, and its answer
	// must not wait behind the readers of a busy cycle.
	loaded atomic.Pointer[loaded]

	snapshot atomic.Pointer[collector.Snapshot]
	owner    *owner // publishes the snapshots of cycles and re-checks, one at a time (commit)
	ready    atomic.Bool
	turns    *collector.Turns // the order in which the clusters of a cycle take their turns

	// Requests to the loop, the one goroutine that runs cycles and applies reloads.
	trigger  chan struct{}   // one slot: a cycle asked for; a second request while one waits is the same request
	announce chan struct{}   // one slot: a notification pass asked for by the Alertmanager bridge
	reloads  chan chan error // a reload, answered on the channel it sends
	stopped  chan struct{}   // closed when the loop has returned
	hook     atomic.Pointer[func(handoff)]

	lifecycle  *lifecycle
	refused    *prometheus.CounterVec // lifecycle requests refused
	httpLimits httpLimits
	conns      connMetrics
	reloadLog  *reloadLog // written by the loop only
	// pinsFailing says that the last write of the pinned host keys failed (written by the loop
	// only): the next one that works logs that the state file is written again.
	pinsFailing bool
	// historyFailing says the same of the history of resolved findings (saveResolved).
	historyFailing bool

	live         *prometheus.Registry
	exposition   *exposition
	reloadOK     prometheus.Gauge
	reloadTime   prometheus.Gauge
	reloadsTotal *prometheus.CounterVec
	webhooks     *prometheus.CounterVec

	// CloudStack's events: the webhook's and the event bus's, dispatched by dispatchEvents.
	eventMetrics *events.Metrics
	seen         *events.Seen
	eventCh      chan events.Event
	rechecks     *rechecks     // the clusters events asked to re-check, for the loop to take
	busChanged   chan struct{} // one slot: a reload may have changed events.amqp (runEventBus)
	busBackoff   time.Duration // the longest pause between tries to reach the bus; 0: a minute
}

// New loads the configuration, opens the state file and builds the back ends. Any failure here
// stops start-up with an error that says what to fix.
func New(opts Options) (*Exporter, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	// Log lines name clusters and VMs and carry what control nodes and API servers answered,
	// all chosen by tenants: every text is escaped before the operator's handler writes it.
	opts.Logger = slog.New(safetext.Handler(opts.Logger.Handler()))
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg, err := LoadConfig(opts.ConfigFile, opts.Shard)
	if err != nil {
		return nil, err
	}
	// Once, at start: a value an upgrade kept that turns a feature off (config.FeaturesOff).
	for _, f := range config.FeaturesOff(cfg) {
		opts.Logger.Warn("The configuration turns a feature off", "key", f.Key, "value", f.Value, "turns_off", f.Feature, "fix", f.Fix)
	}
	store, err := state.Open(cfg.Storage.Path, false)
	if err != nil {
		return nil, err
	}
	logVersionChange(opts.Logger, store.PreviousVersion())
	sshMetrics, apiMetrics := ssh.NewMetrics(), cloudstackapi.NewMetrics()
	src, err := newSources(cfg, store, sshMetrics, apiMetrics, opts.Logger)
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	e := &Exporter{
		logger:     opts.Logger,
		configFile: opts.ConfigFile,
		shard:      opts.Shard,
		now:        opts.Now,
		store:      store,
		sshMetrics: sshMetrics,
		turns:      collector.NewTurns(),
		apiMetrics: apiMetrics,
		trigger:    make(chan struct{}, 1),
		announce:   make(chan struct{}, 1),
		reloads:    make(chan chan error),
		stopped:    make(chan struct{}),
		reloadLog:  newReloadLog(opts.Logger, opts.Now),
		httpLimits: defaultHTTPLimits,
		seen:       events.NewSeen(seenEvents),
		eventCh:    make(chan events.Event, eventQueue),
		rechecks:   newRechecks(),
		owner:      newOwner(),
		busChanged: make(chan struct{}, 1),
	}
	e.loaded.Store(&loaded{cfg: cfg, src: src})
	// Every failure reason is exported from the start, at zero, so that increase() over it has
	// data in a healthy cloud too.
	failures := make(map[string]uint64)
	for _, r := range nodeFailureReasons() {
		failures[r] = 0
	}
	e.live = e.newLiveRegistry()
	e.lifecycle = newLifecycle(opts.EnableLifecycle, opts.Now, e.refused)
	n, err := notifier.New(e.annotationGuard.Wrap(src.cloud), store, notifierOptions(cfg), e.notifierMetrics, opts.Logger, opts.Now)
	if err != nil {
		_ = store.Close()
		closeSources(src)
		if errors.Is(err, notifier.ErrInvalidOptions) {
			return nil, err // the state file is not to blame
		}
		return nil, fmt.Errorf("state file %s: %w; to start fresh, stop the exporter and move the file away: every open finding will then be announced again", cfg.Storage.Path, err)
	}
	e.notifier = n
	e.exposition = &exposition{live: e.live, logger: e.logger}
	e.publish(&collector.Snapshot{Enabled: cfg.Check.Enabled, Interval: cfg.Check.Interval, NodeListFailures: failures,
		Resolved: e.loadResolved()})
	e.reloadOK.Set(1)
	e.reloadTime.Set(float64(e.now().Unix()))
	e.warnInsecureTLS(cfg)
	return e, nil
}

// insecureTLS is the warning, at start and with every reload, while the API's certificate is not
// checked.
const insecureTLS = "cloudstack.insecure_skip_verify is true: the CloudStack API's TLS certificate is not verified"

// warnInsecureTLS warns at start while the API's certificate is not checked.
func (e *Exporter) warnInsecureTLS(cfg *config.Config) {
	if cfg.CloudStack.InsecureSkipVerify {
		e.logger.Warn(insecureTLS, "endpoint", cfg.CloudStack.Endpoint)
	}
}

// Close releases the back ends and the state file; the loop has closed the ones it replaced.
func (e *Exporter) Close() error {
	_, src := e.current()
	closeSources(src)
	return e.store.Close()
}

// closeSources releases what the back ends of one configuration hold open.
func closeSources(srcs ...sources) {
	for _, s := range srcs {
		if s.close != nil {
			_ = s.close()
		}
	}
}

func (e *Exporter) current() (*config.Config, sources) {
	s := e.loaded.Load()
	return s.cfg, s.src
}

// loaded is a configuration with the back ends built from it.
type loaded struct {
	cfg *config.Config
	src sources
}

// lastSnapshot returns the result of the last completed cycle.
func (e *Exporter) lastSnapshot() *collector.Snapshot {
	return e.snapshot.Load()
}

// requestReload asks the loop to read the configuration file again and waits for the answer. A file
// that does not load, or whose back ends cannot be built, leaves the running configuration in
// place. It needs the loop (loop or Run) running, and gives up when ctx ends.
func (e *Exporter) requestReload(ctx context.Context) error {
	reply := make(chan error, 1) // the loop never waits for the asker
	select {
	case e.reloads <- reply:
	case <-e.stopped:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	e.at(handoffQueued)
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errStopped = errors.New("the exporter is stopping")

// applyReload is the loop's side of requestReload: it loads the file, swaps the configuration and its
// back ends, records the outcome and returns the back ends it replaced, for the loop to close
// once no cycle uses them, and whether checking was switched on or off.
func (e *Exporter) applyReload() (replaced sources, toggled bool, err error) {
	replaced, toggled, err = e.reload()
	if err != nil {
		e.reloadOK.Set(0)
		e.reloadsTotal.WithLabelValues("failure").Inc()
		e.reloadLog.log(slog.LevelError, "Could not reload the configuration, keeping the running one", "file", e.configFile, "err", err)
		return sources{}, false, err
	}
	e.reloadOK.Set(1)
	e.reloadTime.Set(float64(e.now().Unix()))
	e.reloadsTotal.WithLabelValues("success").Inc()
	e.busReloaded()
	cfg, _ := e.current()
	if cfg.CloudStack.InsecureSkipVerify {
		e.reloadLog.log(slog.LevelWarn, "Configuration reloaded; "+insecureTLS, "file", e.configFile, "check_enabled", cfg.Check.Enabled, "endpoint", cfg.CloudStack.Endpoint)
	} else {
		e.reloadLog.log(slog.LevelInfo, "Configuration reloaded", "file", e.configFile, "check_enabled", cfg.Check.Enabled)
	}
	return replaced, toggled, nil
}

func (e *Exporter) reload() (replaced sources, toggled bool, err error) {
	cfg, err := LoadConfig(e.configFile, e.shard)
	if err != nil {
		return sources{}, false, err
	}
	if cfg.Storage.Path != e.store.Path() {
		return sources{}, false, fmt.Errorf("%s: storage.path: cannot change while running (restart the exporter to use %s)", e.configFile, cfg.Storage.Path)
	}
	src, err := newSources(cfg, e.store, e.sshMetrics, e.apiMetrics, e.logger)
	if err != nil {
		return sources{}, false, fmt.Errorf("%s: %w", e.configFile, err)
	}
	if err := e.notifier.Configure(e.annotationGuard.Wrap(src.cloud), notifierOptions(cfg)); err != nil {
		closeSources(src)
		return sources{}, false, fmt.Errorf("%s: %w", e.configFile, err)
	}
	was := e.loaded.Swap(&loaded{cfg: cfg, src: src})
	old := was.cfg
	replaced = was.src
	// Checking switched on or off, or accept rules changed: a cycle at once applies it to what
	// the metrics, /findings and the notifier see.
	return replaced, cfg.Check.Enabled != old.Check.Enabled || !slices.Equal(cfg.Accept, old.Accept), nil
}

// requestCycle asks the loop for a cycle: now, or right after the one under way. Requests that arrive
// before the loop takes the first one are the same request: cycles are never doubled, and a
// request is never lost.
func (e *Exporter) requestCycle() {
	select {
	case e.trigger <- struct{}{}:
	default: // one is already waiting
	}
	e.at(handoffQueued)
}

// publish makes next the snapshot that /metrics and /findings serve. Its callers hold the
// owner's lock (commit, markDisabled, announcePass; New before any job runs), so snapshots are
// never written concurrently, and each is built from the one it replaces.
func (e *Exporter) publish(next *collector.Snapshot) {
	e.snapshot.Store(next)
	e.exposition.update(next)
}

// markDisabled publishes that checking is off; the last findings are kept as they were (nothing
// is read, so nothing can be said to have cleared).
func (e *Exporter) markDisabled() {
	e.owner.publishing.Lock()
	defer e.owner.publishing.Unlock()
	prev := e.snapshot.Load()
	if !prev.Enabled && e.ready.Load() {
		return
	}
	next := carry(prev)
	next.Enabled = false
	e.publish(next)
	e.ready.Store(true)
}
