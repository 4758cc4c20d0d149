package cloudstack_test

import (
	"context"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestClusterAnnotationsSupported asks listApis, as each release answers it, whether
// addAnnotation takes adminsonly, which arrived with annotations on Kubernetes clusters
// (AddAnnotationCmd at 4.16.0.0; neither at 4.14.0.0 nor 4.15.0.0). The refusal the probe
// explains is checked too: 4.14 and 4.15 refuse a cluster annotation.
func TestClusterAnnotationsSupported(t *testing.T) {
	for _, tt := range []struct {
		release string
		want    bool
	}{
		{cloudstacktest.Release414, false},
		{cloudstacktest.Release415, false},
		{cloudstacktest.Release416, true},
		{cloudstacktest.Release422, true},
	} {
		t.Run(tt.release, func(t *testing.T) {
			var id string
			_, w := newWriter(t, func(w *cloudstacktest.World) {
				w.Release = tt.release
				id = w.AddCluster(runningCluster("prod")).ID
			})
			got, err := w.ClusterAnnotationsSupported(context.Background())
			if err != nil || got != tt.want {
				t.Fatalf("ClusterAnnotationsSupported = %v, %v; want %v", got, err, tt.want)
			}
			if err := w.AddAnnotation(context.Background(), id, "[WARN] x"); (err == nil) != tt.want {
				t.Errorf("AddAnnotation: %v, want success %v", err, tt.want)
			}
		})
	}
}
