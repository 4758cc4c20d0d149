package promqlcheck

// The checks of the Grafana dashboards that need PromQL parsed; the others are in package
// dashboards.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/dashboards"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
)

// jobSentinel stands for $job, so the lint can see that every selector filters on it.
const jobSentinel = "JOB_VARIABLE"

func knownMetrics(t *testing.T) []string {
	t.Helper()
	names, err := exporter.MetricNames()
	if err != nil {
		t.Fatal(err)
	}
	return append(names, "up")
}

// checkQuery checks that a dashboard query (with $job replaced by jobSentinel) parses, names
// only known metrics, filters them on $job (except the query of the job variable itself) and,
// in a panel, reads exporter series through max or min, so that two replicas are not doubled.
// It returns the problems found.
func checkQuery(q dashboards.Query, known []string) []string {
	where := q.File + ": panel " + q.Panel
	if q.Variable != "" {
		where = q.File + ": variable " + q.Variable
	}
	sels, err := Parse(q.Expr)
	if err != nil {
		return []string{fmt.Sprintf("%s: %q does not parse: %v", where, q.Expr, err)}
	}
	needJob := q.Variable != "job"
	var problems []string
	for _, s := range sels {
		if !slices.Contains(known, s.Metric) {
			problems = append(problems, fmt.Sprintf("%s: %q names %q, which the exporter does not emit", where, q.Expr, s.Metric))
		}
		if m, ok := s.Matcher("job"); needJob && (!ok || m.Op != "=~" || m.Value != jobSentinel) {
			problems = append(problems, fmt.Sprintf("%s: %s is not filtered with job=~\"$job\"", where, s.Metric))
		}
		if q.Panel != "" && strings.HasPrefix(s.Metric, "cks_drift_") &&
			!slices.Contains(s.Within, "max") && !slices.Contains(s.Within, "min") {
			problems = append(problems, fmt.Sprintf("%s: %s is not aggregated with max by or min by", where, s.Metric))
		}
	}
	return problems
}

func TestDashboardQueries(t *testing.T) {
	t.Parallel()
	known := knownMetrics(t)
	qs, err := dashboards.Expressions(map[string]string{"job": jobSentinel})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) == 0 {
		t.Fatal("no dashboard query")
	}
	for _, q := range qs {
		for _, p := range checkQuery(q, known) {
			t.Error(p)
		}
	}
}

// TestCheckQueryFindsProblems shows that the lint fails: a panel naming a metric the exporter
// does not emit, one without the $job filter, one that does not aggregate exporter series, and
// one that does not parse.
func TestCheckQueryFindsProblems(t *testing.T) {
	t.Parallel()
	known := knownMetrics(t)
	job := `{job=~"` + jobSentinel + `"}`
	for _, tc := range []struct {
		q    dashboards.Query
		want string
	}{
		{dashboards.Query{File: "f", Panel: "p", Expr: `max(cks_drift_no_such_metric` + job + `)`}, `names "cks_drift_no_such_metric", which the exporter does not emit`},
		{dashboards.Query{File: "f", Panel: "p", Expr: `max(cks_drift_up)`}, `cks_drift_up is not filtered with job=~"$job"`},
		{dashboards.Query{File: "f", Panel: "p", Expr: `sum(cks_drift_up` + job + `)`}, "cks_drift_up is not aggregated with max by or min by"},
		{dashboards.Query{File: "f", Panel: "p", Expr: `max(cks_drift_up` + job + `[$__rate_interval])`}, "does not parse"},
	} {
		problems := checkQuery(tc.q, known)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
			t.Errorf("%q: problems %q, want one with %q", tc.q.Expr, problems, tc.want)
		}
	}
	if p := checkQuery(dashboards.Query{File: "f", Panel: "p", Expr: `max(cks_drift_up` + job + `)`}, known); len(p) != 0 {
		t.Errorf("a good query: %q", p)
	}
}

// TestDashboardQueriesWithValues parses every query with a cluster chosen, as an end-to-end
// test runs them.
func TestDashboardQueriesWithValues(t *testing.T) {
	t.Parallel()
	given, err := dashboards.QueriesWith(map[string]string{"cluster": "prod.k8s"})
	if err != nil {
		t.Fatal(err)
	}
	for file, exprs := range given {
		for _, q := range exprs {
			if _, err := Parse(q); err != nil {
				t.Errorf("%s: %q: %v", file, q, err)
			}
		}
	}
}
