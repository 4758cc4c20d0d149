// Package exporter is the runtime: configuration and reload, the check cycle's schedule, the
// cached snapshot and the HTTP endpoints.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/kube"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// Options are what the command line gives the runtime.
type Options struct {
	ConfigFile string
	Logger     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Exporter checks the clouds' CKS clusters on a schedule and serves the last result.
type Exporter struct {
	logger     *slog.Logger
	configFile string
	now        func() time.Time
	store      *state.Store
	notifier   *notifier.Notifier
	// notifierMetrics are the notifier's counters, registered in live.
	notifierMetrics *notifier.Metrics

	mu      sync.Mutex // guards cfg, src and retired, swapped together by a reload
	cfg     *config.Config
	src     sources
	retired []sources // replaced by a reload; closed by the loop once no cycle uses them

	snapshot atomic.Pointer[collector.Snapshot]
	ready    atomic.Bool
	running  atomic.Bool
	trigger  chan struct{}
	announce chan struct{} // a notification pass asked for by the Alertmanager bridge

	live         *prometheus.Registry
	exposition   *exposition
	reloadOK     prometheus.Gauge
	reloadTime   prometheus.Gauge
	reloadsTotal *prometheus.CounterVec
	webhooks     *prometheus.CounterVec
}

// New loads the configuration, opens the state file and builds the back ends. Any failure here
// stops start-up with an error that says what to fix.
func New(opts Options) (*Exporter, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg, err := config.Load(opts.ConfigFile)
	if err != nil {
		return nil, err
	}
	store, err := state.Open(cfg.Storage.Path, false)
	if err != nil {
		return nil, err
	}
	src, err := newSources(cfg, store, opts.Logger)
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	e := &Exporter{
		logger:     opts.Logger,
		configFile: opts.ConfigFile,
		now:        opts.Now,
		store:      store,
		cfg:        cfg,
		src:        src,
		trigger:    make(chan struct{}, 1),
		announce:   make(chan struct{}, 1),
	}
	// Every failure reason is exported from the start, at zero, so that increase() over it has
	// data in a healthy cloud too.
	failures := make(map[string]uint64)
	for _, r := range kube.Reasons() {
		failures[r] = 0
	}
	e.live = e.newLiveRegistry()
	n, err := notifier.New(src.cloud, store, notifierOptions(cfg), e.notifierMetrics, opts.Logger, opts.Now)
	if err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("state file %s: %w; to start fresh, stop the exporter and move the file away: every open finding will then be announced again", cfg.Storage.Path, err)
	}
	e.notifier = n
	e.exposition = &exposition{live: e.live, logger: e.logger}
	e.publish(&collector.Snapshot{Enabled: cfg.Check.Enabled, KubectlFailures: failures})
	e.reloadOK.Set(1)
	e.reloadTime.Set(float64(e.now().Unix()))
	if cfg.SSH.HostKeyPolicy == config.HostKeyInsecure {
		e.logger.Warn("ssh.host_key_policy is insecure: control nodes' host keys are not verified")
	}
	e.warnInsecureTLS(cfg)
	return e, nil
}

// warnInsecureTLS warns, at start and on every reload, while the API's certificate is not checked.
func (e *Exporter) warnInsecureTLS(cfg *config.Config) {
	if cfg.CloudStack.InsecureSkipVerify {
		e.logger.Warn("cloudstack.insecure_skip_verify is true: the CloudStack API's TLS certificate is not verified", "endpoint", cfg.CloudStack.Endpoint)
	}
}

// Close releases the back ends and the state file.
func (e *Exporter) Close() error {
	e.closeRetired()
	_, src := e.current()
	if src.close != nil {
		_ = src.close()
	}
	return e.store.Close()
}

// closeRetired closes the back ends a reload replaced; the loop calls it between cycles.
func (e *Exporter) closeRetired() {
	e.mu.Lock()
	retired := e.retired
	e.retired = nil
	e.mu.Unlock()
	for _, s := range retired {
		if s.close != nil {
			_ = s.close()
		}
	}
}

func (e *Exporter) current() (*config.Config, sources) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg, e.src
}

// Snapshot returns the result of the last completed cycle.
func (e *Exporter) Snapshot() *collector.Snapshot {
	return e.snapshot.Load()
}

// Reload reads the configuration file again. A file that does not load, or whose back ends
// cannot be built, leaves the running configuration in place.
func (e *Exporter) Reload() error {
	err := e.reload()
	if err != nil {
		e.reloadOK.Set(0)
		e.reloadsTotal.WithLabelValues("failure").Inc()
		e.logger.Error("Could not reload the configuration, keeping the running one", "file", e.configFile, "err", err)
		return err
	}
	e.reloadOK.Set(1)
	e.reloadTime.Set(float64(e.now().Unix()))
	e.reloadsTotal.WithLabelValues("success").Inc()
	return nil
}

func (e *Exporter) reload() error {
	cfg, err := config.Load(e.configFile)
	if err != nil {
		return err
	}
	if cfg.Storage.Path != e.store.Path() {
		return fmt.Errorf("%s: storage.path: cannot change while running (restart the exporter to use %s)", e.configFile, cfg.Storage.Path)
	}
	src, err := newSources(cfg, e.store, e.logger)
	if err != nil {
		return fmt.Errorf("%s: %w", e.configFile, err)
	}
	e.mu.Lock()
	wasEnabled := e.cfg.Check.Enabled
	e.retired = append(e.retired, e.src)
	e.cfg, e.src = cfg, src
	e.mu.Unlock()
	e.notifier.Configure(src.cloud, notifierOptions(cfg))
	e.logger.Info("Configuration reloaded", "file", e.configFile, "check_enabled", cfg.Check.Enabled)
	e.warnInsecureTLS(cfg)
	if cfg.Check.Enabled != wasEnabled {
		e.wake() // turned on: check at once; turned off: publish it at once
	}
	return nil
}

// Trigger asks for a cycle now. It reports false when a cycle is already running or already
// asked for: cycles are never doubled.
func (e *Exporter) Trigger() bool {
	if e.running.Load() {
		return false
	}
	return e.wake()
}

// wake makes the loop run now, or right after the cycle under way.
func (e *Exporter) wake() bool {
	select {
	case e.trigger <- struct{}{}:
		return true
	default:
		return false
	}
}

// Loop runs a cycle at once and then every check.interval until ctx ends.
func (e *Exporter) Loop(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.announce:
			e.announcePass(ctx)
			continue
		case <-timer.C:
		case <-e.trigger:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
		cfg := e.runOnce(ctx)
		timer.Reset(cfg.Check.Interval)
	}
}

// runOnce runs one cycle with the current configuration, or records that checking is off.
func (e *Exporter) runOnce(ctx context.Context) *config.Config {
	e.closeRetired()
	cfg, src := e.current()
	if !cfg.Check.Enabled {
		e.markDisabled()
		return cfg
	}
	e.running.Store(true)
	defer e.running.Store(false)
	next := cycle(ctx, e.snapshot.Load(), cfg, src, e.notifier, e.logger, e.now)
	if errors.Is(ctx.Err(), context.Canceled) {
		return cfg // shutting down: a cut cycle is not published
	}
	e.publish(next)
	e.ready.Store(true)
	if next.Success {
		e.forgetPins(next.Clusters)
	}
	return cfg
}

// forgetPins drops the pinned host keys of clusters that no longer exist: a new cluster may get
// the same address and must not be refused for another cluster's key.
func (e *Exporter) forgetPins(clusters []collector.ClusterStatus) {
	present := make(map[string]bool, len(clusters))
	for _, c := range clusters {
		present[c.Cluster.ID] = true
	}
	err := e.store.ForgetHostKeys(func(id string) bool {
		return present[kube.PinCluster(id)]
	})
	if err != nil {
		e.logger.Error("Could not update the state file", "file", e.store.Path(), "err", err)
	}
}

// publish makes next the snapshot that /metrics and /findings serve. Only the loop (and New)
// publish, so snapshots are never written concurrently.
func (e *Exporter) publish(next *collector.Snapshot) {
	e.snapshot.Store(next)
	e.exposition.update(next)
}

// markDisabled, called by the loop only (the one writer of snapshots), publishes that checking is off; the last findings are kept as they were (nothing
// is read, so nothing can be said to have cleared).
func (e *Exporter) markDisabled() {
	prev := e.snapshot.Load()
	if !prev.Enabled && e.ready.Load() {
		return
	}
	next := carry(prev)
	next.Enabled = false
	e.publish(next)
	e.ready.Store(true)
}
