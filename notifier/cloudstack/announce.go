// Package cloudstack is the notifier's side of the CloudStack API: the only writes the exporter
// ever makes to CloudStack (annotations, alerts and the archiving of its own alerts) and the
// look-ups that tell whether an earlier write got through.
package cloudstack

import (
	"context"
	"fmt"
	"strconv"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// Writer makes the notifier's calls; it implements notifier.CloudStack.
type Writer struct {
	api      *cloudstackapi.Client
	pageSize int
}

// New returns a writer over api that lists annotations pageSize at a time.
func New(api *cloudstackapi.Client, pageSize int) *Writer {
	return &Writer{api: api, pageSize: pageSize}
}

var _ notifier.CloudStack = (*Writer)(nil)

const (
	entityType     = "KUBERNETES_CLUSTER"
	asyncWaitLimit = 60 // seconds to await generateAlert's async job
)

// AddAnnotation attaches an admins-only annotation to the cluster.
func (s *Writer) AddAnnotation(ctx context.Context, clusterID, text string) error {
	c := s.api.SDK(ctx)
	p := c.Annotation.NewAddAnnotationParams()
	p.SetEntitytype(entityType)
	p.SetEntityid(clusterID)
	p.SetAnnotation(text)
	p.SetAdminsonly(true)
	if err := cloudstackapi.Guard(func() error { _, err := c.Annotation.AddAnnotation(p); return err }); err != nil {
		return fmt.Errorf("addAnnotation on cluster %s: %w", clusterID, cloudstackapi.WriteHint("addAnnotation", cloudstackapi.Redact(err)))
	}
	return nil
}

// HasAnnotation reports whether the cluster carries text in an annotation created since.
func (s *Writer) HasAnnotation(ctx context.Context, clusterID, text string, since time.Time) (bool, error) {
	c := s.api.SDK(ctx)
	got, err := cloudstackapi.List(cloudstackapi.Listing[*cs.Annotation, *cs.ListAnnotationsResponse]{
		What: "annotations", Size: s.pageSize, Count: cloudstackapi.Total,
		Request: func(page, size int) (*cs.ListAnnotationsResponse, error) {
			p := c.Annotation.NewListAnnotationsParams()
			p.SetEntitytype(entityType)
			p.SetEntityid(clusterID)
			p.SetPage(page)
			p.SetPagesize(size)
			return c.Annotation.ListAnnotations(p)
		},
		Decode: func(r *cs.ListAnnotationsResponse) (int, []*cs.Annotation, error) { return r.Count, r.Annotations, nil },
	})
	if err != nil {
		return false, err
	}
	// CloudStack writes dates to the second: an annotation added at 10:00:00.7 reads 10:00:00,
	// so since is cut to the second, or it would miss an annotation made just after it.
	since = since.Truncate(time.Second)
	for _, a := range got {
		if a != nil && a.Annotation == text && !cloudstackapi.ParseDate(a.Created).Before(since) {
			return true, nil
		}
	}
	return false, nil
}

// GenerateAlert raises an alert and awaits its async job under a bound.
func (s *Writer) GenerateAlert(ctx context.Context, alertType int, zoneID, description string) error {
	c := s.api.SDK(ctx)
	c.AsyncTimeout(asyncWaitLimit)
	p := c.Alert.NewGenerateAlertParams(description, notifier.AlertName, alertType)
	if zoneID != "" {
		p.SetZoneid(zoneID)
	}
	if err := cloudstackapi.Guard(func() error { _, err := c.Alert.GenerateAlert(p); return err }); err != nil {
		return fmt.Errorf("generateAlert type %d: %w", alertType, cloudstackapi.WriteHint("generateAlert", cloudstackapi.Redact(err)))
	}
	return nil
}

// AlertStored reports whether an un-archived alert of the type with the description exists.
func (s *Writer) AlertStored(ctx context.Context, alertType int, description string) (bool, error) {
	c := s.api.SDK(ctx)
	p := c.Alert.NewListAlertsParams()
	p.SetType(strconv.Itoa(alertType))
	p.SetName(notifier.AlertName)
	var r *cs.ListAlertsResponse
	err := cloudstackapi.Guard(func() (err error) { r, err = c.Alert.ListAlerts(p); return err })
	if err != nil {
		return false, fmt.Errorf("listAlerts type %d: %w", alertType, cloudstackapi.WriteHint("listAlerts", cloudstackapi.Redact(err)))
	}
	for _, a := range r.Alerts {
		if a.Type == alertType && a.Description == description {
			return true, nil
		}
	}
	return false, nil
}

// ArchiveAlerts archives every alert of the type: the notifier's types are its own.
func (s *Writer) ArchiveAlerts(ctx context.Context, alertType int) error {
	c := s.api.SDK(ctx)
	p := c.Alert.NewArchiveAlertsParams()
	p.SetType(strconv.Itoa(alertType))
	if err := cloudstackapi.Guard(func() error { _, err := c.Alert.ArchiveAlerts(p); return err }); err != nil {
		return fmt.Errorf("archiveAlerts type %d: %w", alertType, cloudstackapi.WriteHint("archiveAlerts", cloudstackapi.Redact(err)))
	}
	return nil
}
