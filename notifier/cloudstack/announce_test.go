package cloudstack_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestAnnotation adds an annotation to a cluster and looks it up by text and creation time.
func TestAnnotation(t *testing.T) {
	const text = "cks-drift: 1 unmapped VM (prod-node-18fe)"
	var cluster, other *cloudstacktest.Cluster
	s, src := newWriter(t, func(w *cloudstacktest.World) {
		cluster = w.AddCluster(runningCluster("prod"))
		other = w.AddCluster(runningCluster("dev"))
	})
	ctx := context.Background()

	before := time.Now()
	if err := src.AddAnnotation(ctx, cluster.ID, text); err != nil {
		t.Fatalf("AddAnnotation: %v", err)
	}
	var stored []cloudstacktest.Annotation
	s.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Annotations {
			stored = append(stored, *a)
		}
	})
	want := []cloudstacktest.Annotation{{EntityType: "KUBERNETES_CLUSTER", EntityID: cluster.ID, Annotation: text, AdminsOnly: true}}
	if diff := cmp.Diff(want, stored, cmpopts.IgnoreFields(cloudstacktest.Annotation{}, "ID", "Created")); diff != "" {
		t.Errorf("stored annotations (-want +got):\n%s", diff)
	}

	tests := []struct {
		name      string
		clusterID string
		text      string
		since     time.Time
		want      bool
	}{
		{name: "same text, since just before it was added", clusterID: cluster.ID, text: text, since: before, want: true},
		{name: "same text, since an hour before", clusterID: cluster.ID, text: text, since: before.Add(-time.Hour), want: true},
		{name: "same text, since a later time", clusterID: cluster.ID, text: text, since: time.Now().Add(time.Minute)},
		{name: "another text", clusterID: cluster.ID, text: "cks-drift: 2 unmapped VMs", since: before.Add(-time.Hour)},
		{name: "a prefix of the text", clusterID: cluster.ID, text: text[:20], since: before.Add(-time.Hour)},
		{name: "another cluster", clusterID: other.ID, text: text, since: before.Add(-time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := src.HasAnnotation(ctx, tt.clusterID, tt.text, tt.since)
			if err != nil {
				t.Fatalf("HasAnnotation: %v", err)
			}
			if got != tt.want {
				t.Errorf("HasAnnotation = %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("unknown cluster", func(t *testing.T) {
		const id = "cafe9999-0000-4000-8000-000000000000"
		err := src.AddAnnotation(ctx, id, text)
		if err == nil || !strings.Contains(err.Error(), "addAnnotation on cluster "+id) {
			t.Errorf("AddAnnotation on an unknown cluster: error %v, want one naming the call and cluster", err)
		}
	})
}

// TestAlertLatch walks through CloudStack's alert latch: a second alert of a type and zone is
// dropped with success until the first is archived.
func TestAlertLatch(t *testing.T) {
	s, src := newWriter(t, func(w *cloudstacktest.World) {
		// Same type, another name: not ours, so AlertStored must not count it.
		w.Alerts = append(w.Alerts, &cloudstacktest.Alert{ID: "cafe8888-0000-4000-8000-000000000000", Type: 20003,
			Name: "SOMEONE.ELSE", Description: "theirs", ZoneID: zoneID, Sent: created})
	})
	ctx := context.Background()

	type op int
	const (
		generate op = iota
		stored
		archive
	)
	steps := []struct {
		do   op
		typ  int
		zone string
		desc string
		want bool // for stored
	}{
		{do: generate, typ: 20001, zone: zoneID, desc: "first"},
		{do: stored, typ: 20001, desc: "first", want: true},
		{do: generate, typ: 20001, zone: zoneID, desc: "second"}, // latched: success, nothing stored
		{do: stored, typ: 20001, desc: "second", want: false},
		{do: generate, typ: 20001, desc: "zoneless"}, // another zone is another latch
		{do: stored, typ: 20001, desc: "zoneless", want: true},
		{do: generate, typ: 20002, zone: zoneID, desc: "other type"},
		{do: stored, typ: 20002, desc: "other type", want: true},
		{do: stored, typ: 20003, desc: "theirs", want: false},
		{do: archive, typ: 20001},
		{do: stored, typ: 20001, desc: "first", want: false},
		{do: stored, typ: 20002, desc: "other type", want: true},
		{do: generate, typ: 20001, zone: zoneID, desc: "second"},
		{do: stored, typ: 20001, desc: "second", want: true},
	}
	for i, st := range steps {
		switch st.do {
		case generate:
			if err := src.GenerateAlert(ctx, st.typ, st.zone, st.desc); err != nil {
				t.Fatalf("step %d: GenerateAlert(%d, %q): %v", i, st.typ, st.desc, err)
			}
		case archive:
			if err := src.ArchiveAlerts(ctx, st.typ); err != nil {
				t.Fatalf("step %d: ArchiveAlerts(%d): %v", i, st.typ, err)
			}
		case stored:
			got, err := src.AlertStored(ctx, st.typ, st.desc)
			if err != nil {
				t.Fatalf("step %d: AlertStored(%d, %q): %v", i, st.typ, st.desc, err)
			}
			if got != st.want {
				t.Errorf("step %d: AlertStored(%d, %q) = %v, want %v", i, st.typ, st.desc, got, st.want)
			}
		}
	}
	var names []string
	s.Read(func(w *cloudstacktest.World) {
		for _, a := range w.Alerts {
			if a.Type != 20003 {
				names = append(names, a.Name)
			}
		}
	})
	if diff := cmp.Diff([]string{notifier.AlertName, notifier.AlertName, notifier.AlertName, notifier.AlertName}, names); diff != "" {
		t.Errorf("names of the stored alerts (-want +got):\n%s", diff)
	}
}

// TestGenerateAlert checks that GenerateAlert awaits its job, and that the alerts CloudStack
// refuses are errors.
func TestGenerateAlert(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		typ     int
		desc    string
		polls   int      // queryAsyncJobResult answers "pending" this many times; each costs the SDK 1 s or more
		wantIn  []string // empty: no error
		wantIs  error
		wantSet bool // the alert is stored
	}{
		{name: "description of 999 characters", typ: 20010, desc: strings.Repeat("x", 999), wantSet: true},
		{name: "job pending for one poll", typ: 20013, desc: "drift", polls: 1, wantSet: true},
		{name: "description over 999 characters", typ: 20011, desc: strings.Repeat("x", 1000),
			wantIn: []string{"generateAlert type 20011", "431", "description"}},
		{name: "built-in type under our name", typ: 8, desc: "drift",
			wantIn: []string{"generateAlert type 8", "default alert"}},
		{name: "cancelled context", ctx: cancelled, typ: 20012, desc: "drift",
			wantIn: []string{"generateAlert type 20012"}, wantIs: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, src := newWriter(t, nil)
			s.SetJobPolls(tt.polls)
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := src.GenerateAlert(ctx, tt.typ, zoneID, tt.desc)
			switch {
			case len(tt.wantIn) == 0 && err != nil:
				t.Fatalf("GenerateAlert: %v", err)
			case len(tt.wantIn) > 0 && err == nil:
				t.Fatalf("GenerateAlert: no error, want one containing %q", tt.wantIn)
			}
			for _, want := range tt.wantIn {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
			if got := s.CallCount("queryAsyncJobResult"); len(tt.wantIn) == 0 && got != tt.polls+1 {
				t.Errorf("got %d queryAsyncJobResult calls, want %d", got, tt.polls+1)
			}
			var n int
			s.Read(func(w *cloudstacktest.World) { n = len(w.Alerts) })
			if got := n == 1; got != tt.wantSet {
				t.Errorf("stored %d alerts, want stored = %v", n, tt.wantSet)
			}
		})
	}
}
