package promqlcheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`up{job="cks-drift"} == 0`, []string{"up"}},
		{`absent(up{job="cks-drift"})`, []string{"up"}},
		{`max by (cluster_id, cluster_name) (cks_drift_kubectl_reachable) == 0
		  and on (cluster_id, cluster_name) max by (cluster_id, cluster_name) (cks_drift_cluster_checked) == 1`,
			[]string{"cks_drift_cluster_checked", "cks_drift_kubectl_reachable"}},
		{`time() - max by (job) (cks_drift_last_cycle_success_timestamp_seconds) > 3 * 300`,
			[]string{"cks_drift_last_cycle_success_timestamp_seconds"}},
		{`max by (job) (increase(cks_drift_notification_failures_total[30m])) > 0`,
			[]string{"cks_drift_notification_failures_total"}},
		{`sum(rate(a_total[5m] offset -1h)) by (job) / ignoring(x) group_left b`, []string{"a_total", "b"}},
		{`max_over_time(x[1h:5m] @ end())`, []string{"x"}},
		{`x @ 1700000000 > bool 1`, []string{"x"}},
		{`{__name__="named", job=~"a|b",}`, []string{"named"}},
		{`label_replace(m, "dst", "$1", "src", "(.*)") or vector(0)`, []string{"m"}},
		{`topk(3, m) unless on() count_values("v", m)`, []string{"m"}},
		{`-m + +Inf * NaN - 1e-3 / 0x1F # a comment`, []string{"m"}},
		{"ns:rule:rate5m{kind=`a\\b`}", []string{"ns:rule:rate5m"}},
		{`time()`, nil},
	} {
		got, err := Metrics(tc.expr)
		if err != nil {
			t.Errorf("Metrics(%q): %v", tc.expr, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Metrics(%q) (-want +got):\n%s", tc.expr, diff)
		}
	}
}

// TestParseRejects: what Prometheus refuses is refused, Grafana variables left in included.
func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		``, `max(up`, `up)`, `up{job="a"`, `up{job="a}`, `up[5m`, `up[5x]`,
		`rate(up[$__rate_interval])`, `up{cluster_name=~"$cluster"} or $foo`, `maxx by (job) (up)`,
		`maxx(up)`, `sort_by_label(up, "job")`, `up up`, `up +`, `* up`, `max by (job up)`,
		`up{job~"a"}`, `up{job=~"a("}`, `up{job="a\."}`, `sum(,up)`, `(up, up)`, `up offset`,
		`up @ foo`, `1.2.3`, `up and`,
		`max_over_time(x[1h:5m]) @ end()`, // @ must follow a selector or subquery, not a call
	} {
		if _, err := Parse(expr); err == nil {
			t.Errorf("Parse(%q) accepted it", expr)
		}
	}
}

func TestSelectors(t *testing.T) {
	t.Parallel()
	sels, err := Parse(`max by (job) (increase(x_total{job=~"$a|b", kind!="y"}[30m])) > 0 and on (job) max(up)`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Selector{
		{Metric: "x_total", Matchers: []Matcher{{"job", "=~", "$a|b"}, {"kind", "!=", "y"}}, Within: []string{"max", "increase"}},
		{Metric: "up", Within: []string{"max"}},
	}
	if diff := cmp.Diff(want, sels); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	if m, ok := sels[0].Matcher("kind"); !ok || m.Value != "y" {
		t.Errorf("Matcher(kind) = %v, %v", m, ok)
	}
	if _, ok := sels[1].Matcher("kind"); ok {
		t.Error("Matcher(kind) found a matcher on a selector without one")
	}
}
