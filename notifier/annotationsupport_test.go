package notifier

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// refusingCloudStack refuses every annotation with err and answers the probe with supported; the
// methods it does not define are never called here.
type refusingCloudStack struct {
	CloudStack
	err         error
	supported   bool
	adds, probe int
}

func (c *refusingCloudStack) AddAnnotation(context.Context, string, string) error {
	c.adds++
	return c.err
}

func (c *refusingCloudStack) HasAnnotation(context.Context, string, string, time.Time) (bool, error) {
	return false, nil
}

func (c *refusingCloudStack) ClusterAnnotationsSupported(context.Context) (bool, error) {
	c.probe++
	return c.supported, nil
}

// TestAnnotationGuard: a refusal naming the entity type on a release without annotations on
// clusters is probed once and then every annotation is skipped and counted without a call; any
// other failure, or the same refusal where the release has them, is returned as it is.
func TestAnnotationGuard(t *testing.T) {
	entityErr := errors.New("addAnnotation on cluster c: CloudStack API error 530 (CSExceptionErrorCode: 9999): 'KUBERNETES_CLUSTER' is ot a valid EntityType to put annotations on")
	tests := []struct {
		name              string
		err               error
		supported         bool
		wantErrs          int
		wantAdds, wantPrb int
		wantSkipped       float64
	}{
		{name: "4.14 refusal: skipped from then on", err: entityErr, wantAdds: 1, wantPrb: 1, wantSkipped: 3},
		{name: "the same text where annotations exist: an error each time", err: entityErr, supported: true,
			wantErrs: 3, wantAdds: 3, wantPrb: 3},
		{name: "another failure: an error each time, no probe", err: errors.New("CloudStack API error 530: database busy"),
			wantErrs: 3, wantAdds: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewAnnotationGuard(nil, slog.New(slog.DiscardHandler))
			cs := &refusingCloudStack{err: tt.err, supported: tt.supported}
			w := g.Wrap(cs)
			errs := 0
			for range 3 {
				if w.AddAnnotation(context.Background(), "c", "[WARN] x") != nil {
					errs++
				}
			}
			if ok, err := w.HasAnnotation(context.Background(), "c", "[WARN] x", time.Time{}); tt.wantSkipped > 0 && (!ok || err != nil) {
				t.Errorf("HasAnnotation = %v, %v; want true where annotations cannot exist", ok, err)
			}
			if errs != tt.wantErrs || cs.adds != tt.wantAdds || cs.probe != tt.wantPrb {
				t.Errorf("errors %d, addAnnotation calls %d, probes %d; want %d, %d, %d", errs, cs.adds, cs.probe, tt.wantErrs, tt.wantAdds, tt.wantPrb)
			}
			if got := testutil.ToFloat64(g.skipped); got != tt.wantSkipped {
				t.Errorf("skipped = %v, want %v", got, tt.wantSkipped)
			}
		})
	}
}
