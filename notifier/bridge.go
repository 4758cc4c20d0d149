package notifier

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// In alertmanager mode the announcements follow the drift alerts that Alertmanager sends, not the
// cycle's own findings: a finding is announced while Alertmanager reports it firing and the
// exporter's last cycle found it (which gives the message and the zone), and its side resolves
// when Alertmanager reports it resolved. Alertmanager de-duplicates the alerts of several
// Prometheus servers and exporter replicas, so one bridge announces each finding once.

// Webhook is Alertmanager's webhook payload, version 4. Unknown fields are ignored and missing
// ones are zero, so that other versions are read as far as they agree.
type Webhook struct {
	Version string         `json:"version"`
	Status  string         `json:"status"`
	Alerts  []WebhookAlert `json:"alerts"`
}

// WebhookAlert is one alert of a webhook payload.
type WebhookAlert struct {
	Status      string            `json:"status"` // firing or resolved
	Labels      map[string]string `json:"labels"`
	StartsAt    time.Time         `json:"startsAt"`
	Fingerprint string            `json:"fingerprint"`
}

// firingAlert is a drift alert that Alertmanager reported firing, kept in the state so that a
// restart does not take every open finding for resolved.
type firingAlert struct {
	StartsAt  time.Time `json:"starts_at"`
	ClusterID string    `json:"cluster_id"`
	Key       string    `json:"key"`
	// Received is when the notifier first heard of it; one that matches no finding is forgotten
	// two check intervals later.
	Received time.Time `json:"received,omitempty"`
}

// MaxFiring bounds the firing alerts the bridge remembers. A cloud with more open findings than
// this announces the rest when entries are freed; a flood of made-up alerts cannot grow the state
// file past it.
const MaxFiring = 10000

// maxLabel bounds the labels a drift alert may carry (a cluster id is a 36-character uuid, a
// node name at most 253 characters): an alert with a longer one is not the exporter's.
const maxLabel = 256

// Receive records the drift alerts of a webhook payload and reports how many changed the set of
// firing alerts. It is idempotent on fingerprint and startsAt: Alertmanager repeats firing alerts
// until they resolve. Alerts without a cluster_id or a known kind are not drift alerts and are
// ignored. A resolution counts only for the exact startsAt of the firing alert it resolves:
// Alertmanager always sends that, and any other (an earlier one, the zero time) is a forgery or
// an older alert's, which must not end the announcement of drift that is still there.
func (n *Notifier) Receive(w Webhook) (changed int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := &n.state
	if s.Firing == nil {
		s.Firing = make(map[string]firingAlert)
	}
	// Alertmanager sends one alert per fingerprint; should a payload hold more, only the last
	// counts, or applying them all (firing then resolved, or two startsAt) would change the state
	// again every time the payload is repeated.
	full := false
	last := make(map[string]int, len(w.Alerts))
	for i, a := range w.Alerts {
		if driftAlert(a) {
			last[a.Fingerprint] = i
		}
	}
	for i, a := range w.Alerts {
		if !driftAlert(a) || last[a.Fingerprint] != i {
			continue
		}
		kind := collector.Kind(a.Labels["kind"])
		clusterID := a.Labels["cluster_id"]
		f := collector.Finding{Kind: kind, VMID: a.Labels["vm_id"], VMName: a.Labels["vm_name"]}
		prev, known := s.Firing[a.Fingerprint]
		switch a.Status {
		case "resolved":
			if known && a.StartsAt.Equal(prev.StartsAt) {
				delete(s.Firing, a.Fingerprint)
				changed++
			} else {
				n.metrics.resolutionsIgnored.Inc()
			}
		default: // firing, or no status
			if known && prev.StartsAt.Equal(a.StartsAt) {
				continue
			}
			if !known && len(s.Firing) >= MaxFiring {
				n.metrics.firingDropped.WithLabelValues(dropLimit).Inc()
				full = true
				continue
			}
			s.Firing[a.Fingerprint] = firingAlert{StartsAt: a.StartsAt, ClusterID: clusterID, Key: f.Key(), Received: n.now()}
			changed++
		}
	}
	if full {
		n.fail("remember a firing alert", fmt.Errorf("the bridge already remembers %d firing alerts", MaxFiring))
	} else {
		n.ok("remember a firing alert")
	}
	if changed > 0 {
		n.save()
	}
	return changed
}

// driftAlert tells the notifier's alerts: with a cluster_id, a fingerprint and a known kind, and
// no label longer than maxLabel.
func driftAlert(a WebhookAlert) bool {
	for _, v := range []string{a.Fingerprint, a.Labels["cluster_id"], a.Labels["vm_id"], a.Labels["vm_name"]} {
		if len(v) > maxLabel {
			return false
		}
	}
	return a.Labels["cluster_id"] != "" && a.Fingerprint != "" && slices.Contains(collector.Kinds, collector.Kind(a.Labels["kind"]))
}

// pruneFiring forgets the firing alerts that match no finding, neither one of the statuses nor
// one the notifier keeps announced, two check intervals after they arrived: made-up alerts, and
// those of clusters that are gone. The wait lets a finding that Alertmanager reports before this
// exporter's own cycle has found it (another replica was faster) still be announced.
func (n *Notifier) pruneFiring(statuses []collector.ClusterStatus) {
	s := &n.state
	if len(s.Firing) == 0 {
		return
	}
	known := make(map[string]bool)
	for _, st := range statuses {
		for _, f := range st.Findings() {
			known[st.Cluster.ID+"/"+f.Key()] = true
		}
	}
	for id, cs := range s.Clusters {
		for _, ss := range cs.Sides {
			for key := range ss.Findings {
				known[id+"/"+key] = true
			}
		}
	}
	now := n.now()
	for fp, f := range s.Firing {
		switch {
		case known[f.ClusterID+"/"+f.Key]:
		case f.Received.IsZero(): // remembered by an older version: start the wait now
			f.Received = now
			s.Firing[fp] = f
		case now.Sub(f.Received) > 2*n.opts.Interval:
			delete(s.Firing, fp)
			n.metrics.firingDropped.WithLabelValues(dropGone).Inc()
		}
	}
}

// firingOnly returns copies of the statuses with the findings to announce in alertmanager mode:
// those Alertmanager reports firing. A finding the last cycle found but Alertmanager does not
// report (yet) is left out; one already announced that Alertmanager still reports firing is kept
// even when the last cycle did not find it, so that only Alertmanager's resolved notification
// (after the rules' keep_firing_for) resolves it.
func (s *state) firingOnly(statuses []collector.ClusterStatus) []collector.ClusterStatus {
	firing := make(map[string]bool, len(s.Firing))
	for _, f := range s.Firing {
		firing[f.ClusterID+"/"+f.Key] = true
	}
	out := make([]collector.ClusterStatus, len(statuses))
	for i, st := range statuses {
		out[i] = st
		for _, side := range collector.Sides {
			out[i].Set(side, s.keepFiring(st.Cluster.ID, side, st.On(side), firing))
		}
	}
	return out
}

func (s *state) keepFiring(clusterID string, side collector.Side, found []collector.Finding, firing map[string]bool) []collector.Finding {
	var out []collector.Finding
	seen := make(map[string]bool)
	for _, f := range found {
		if firing[clusterID+"/"+f.Key()] {
			out = append(out, f)
			seen[f.Key()] = true
		}
	}
	cs := s.Clusters[clusterID]
	if cs == nil || cs.Sides[side] == nil {
		return out
	}
	for _, key := range sortedKeys(cs.Sides[side].Findings) {
		a := cs.Sides[side].Findings[key]
		if !seen[key] && firing[clusterID+"/"+key] {
			// Only the key, kind, message and first-seen time of a finding matter to update.
			id := strings.TrimPrefix(strings.TrimPrefix(key, string(a.Kind)), ":")
			out = append(out, collector.Finding{Kind: a.Kind, VMID: id, Message: a.Message, FirstSeen: a.FirstSeen})
		}
	}
	return out
}
