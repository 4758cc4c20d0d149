package cloudstack

import (
	"context"
	"fmt"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// ClusterAnnotationsSupported asks listApis whether addAnnotation can annotate Kubernetes
// clusters. Annotations on clusters arrive in 4.16 together with addAnnotation's adminsonly
// parameter (AddAnnotationCmd at 4.16.0.0; neither at 4.15.0.0), so the parameter tells the two
// apart without knowing the release.
func (s *Writer) ClusterAnnotationsSupported(ctx context.Context) (bool, error) {
	c := s.api.SDK(ctx)
	p := c.APIDiscovery.NewListApisParams()
	p.SetName("addAnnotation")
	var r *cs.ListApisResponse
	if err := cloudstackapi.Guard(func() (err error) { r, err = c.APIDiscovery.ListApis(p); return err }); err != nil {
		return false, fmt.Errorf("listApis addAnnotation: %w", cloudstackapi.Redact(err))
	}
	for _, a := range r.Apis {
		if a == nil || a.Name != "addAnnotation" {
			continue
		}
		for _, param := range a.Params {
			if param.Name == "adminsonly" {
				return true, nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("listApis does not list addAnnotation")
}
