package notifier

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Annotations on Kubernetes clusters arrive in CloudStack 4.16: up to 4.15, AnnotationService's
// EntityType holds HOST, DOMAIN and VM only, and AddAnnotationCmd refuses any other entity type
// with an internal error ("... is ot a valid EntityType to put annotations on", AddAnnotationCmd
// .execute at 4.14.0.0 and 4.15.0.0). Retrying that refusal every cycle would fail forever, so
// a refusal that names the entity type is checked with the probe: if the management server says
// annotations on clusters do not exist there, the notifier is told once, at WARN, and from then on annotations are skipped,
// counted, and only the alerts are sent.

// clusterAnnotationProbe is what a CloudStack writer answers when asked whether the release it
// talks to can annotate Kubernetes clusters (for the API: listApis).
type clusterAnnotationProbe interface {
	ClusterAnnotationsSupported(ctx context.Context) (bool, error)
}

// AnnotationGuard wraps the notifier's CloudStack writers; it owns the counter of skipped
// annotations, which lives as long as the exporter, across reloads.
type AnnotationGuard struct {
	skipped prometheus.Counter
	logger  *slog.Logger
}

// NewAnnotationGuard creates the counter, registered with reg (nil: not registered).
func NewAnnotationGuard(reg prometheus.Registerer, logger *slog.Logger) *AnnotationGuard {
	g := &AnnotationGuard{
		skipped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_annotations_skipped_total",
			Help: "Annotations not sent because the CloudStack release has no annotations on Kubernetes clusters (before 4.16), since the exporter started.",
		}),
		logger: logger,
	}
	if reg != nil {
		reg.MustRegister(g.skipped)
	}
	return g
}

// Wrap returns cs with the check; a writer that cannot be probed is returned as it is. Each
// wrapper learns on its own, so that a reload to another management server starts afresh.
func (g *AnnotationGuard) Wrap(cs CloudStack) CloudStack {
	probe, ok := cs.(clusterAnnotationProbe)
	if !ok {
		return cs
	}
	return &guarded{CloudStack: cs, probe: probe, g: g}
}

type guarded struct {
	CloudStack
	probe clusterAnnotationProbe
	g     *AnnotationGuard

	mu          sync.Mutex
	unsupported bool
}

func (c *guarded) isUnsupported() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unsupported
}

// AddAnnotation sends the annotation, unless the release is known to have none for clusters; a
// skipped annotation counts as done, so it is not tried again.
func (c *guarded) AddAnnotation(ctx context.Context, clusterID, text string) error {
	if c.isUnsupported() {
		c.g.skipped.Inc()
		return nil
	}
	err := c.CloudStack.AddAnnotation(ctx, clusterID, text)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "entitytype") {
		return err // success, or a failure of another kind: tried again next cycle, as any failed call
	}
	supported, perr := c.probe.ClusterAnnotationsSupported(ctx)
	if perr != nil || supported {
		return err // a refusal of another kind: tried again next cycle, as any failed call
	}
	c.mu.Lock()
	first := !c.unsupported
	c.unsupported = true
	c.mu.Unlock()
	if first {
		c.g.logger.Warn("This CloudStack release has no annotations on Kubernetes clusters (they arrive in 4.16): only alerts are sent from now on, and skipped annotations are counted in cks_drift_annotations_skipped_total",
			"refusal", err.Error())
	}
	c.g.skipped.Inc()
	return nil
}

// HasAnnotation reports an annotation as present where none can exist, so that an attempt made
// before the release was known is not looked up (listAnnotations refuses clusters as well).
func (c *guarded) HasAnnotation(ctx context.Context, clusterID, text string, since time.Time) (bool, error) {
	if c.isUnsupported() {
		return true, nil
	}
	return c.CloudStack.HasAnnotation(ctx, clusterID, text, since)
}
