package database

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// cycleStatements are the statements of a cycle after the schema's columns, as read runs them for
// a schema with c.
func cycleStatements(c columns) []string {
	return append([]string{c.clustersQuery(), c.offeringsQuery(), c.mapQuery(), c.vmsQuery(), sourceNATQuery, rulesQuery, c.loginUsersQuery(), nicsQuery},
		c.ruleStatements()...)
}

var (
	tableAlias = regexp.MustCompile(`\b(?:FROM|JOIN)\s+(\w+)(?:\s+(\w+))?`)
	columnRef  = regexp.MustCompile(`\b([a-z]\w*)\.(\w+)\b`)
	sqlWords   = map[string]bool{"ON": true, "WHERE": true, "ORDER": true, "JOIN": true, "LEFT": true, "GROUP": true}
)

// named returns the table.column pairs a statement names, every column being written alias.column
// with the alias declared by a FROM or JOIN of the same statement.
func named(t *testing.T, stmt string) map[string]bool {
	t.Helper()
	aliases := map[string]string{}
	for _, m := range tableAlias.FindAllStringSubmatch(stmt, -1) {
		if m[2] == "" || sqlWords[m[2]] {
			t.Errorf("table %s has no alias in:\n%s", m[1], stmt)
			continue
		}
		if other, ok := aliases[m[2]]; ok && other != m[1] {
			t.Errorf("alias %s names %s and %s in:\n%s", m[2], other, m[1], stmt)
		}
		aliases[m[2]] = m[1]
	}
	out := map[string]bool{}
	for _, m := range columnRef.FindAllStringSubmatch(stmt, -1) {
		table, ok := aliases[m[1]]
		if !ok {
			t.Errorf("%s.%s: no table has the alias %s in:\n%s", m[1], m[2], m[1], stmt)
			continue
		}
		out[table+"."+m[2]] = true
	}
	return out
}

// TestQueriesNameWhatCloudStackHas checks the statements of a cycle against CloudStack's own
// schema at each release (mariadbtest.Described, each column cited to the release's SQL): with
// the columns the source detects in that schema, every table and column its statements name
// exists in the release, and every column the description says is read is named. A table or
// column that a release renames or drops (user_vm_details, renamed vm_instance_details by 4.21)
// fails here unless the source reads the release's name.
func TestQueriesNameWhatCloudStackHas(t *testing.T) {
	for _, release := range mariadbtest.DescribedReleases {
		t.Run(release, func(t *testing.T) {
			cols, err := mariadbtest.Described(release)
			if err != nil {
				t.Fatal(err)
			}
			present := map[[2]string]bool{}
			described := map[string]mariadbtest.Column{}
			for _, c := range cols {
				present[[2]string{c.Table, c.Name}] = true
				described[c.Table+"."+c.Name] = c
			}
			c, err := detect(present)
			if err != nil {
				t.Fatal(err)
			}
			stmts := cycleStatements(c)
			if len(stmts) != statementsPerCycle-1 {
				t.Fatalf("%d statements after the schema's; a cycle runs %d in all: add the new one to cycleStatements", len(stmts), statementsPerCycle)
			}
			if c.eventResource { // the look-ups of causes, only for new findings
				stmts = append(stmts, causeQuery(collector.CauseOnVM, 2), causeQuery(collector.CauseOnCluster, 1))
			}
			all := map[string]bool{}
			for _, stmt := range stmts {
				for ref := range named(t, stmt) {
					all[ref] = true
				}
			}
			var missing, unread []string
			for ref := range all {
				if _, ok := described[ref]; !ok {
					missing = append(missing, ref)
				}
			}
			for ref, c := range described {
				if !c.Seed && !all[ref] {
					unread = append(unread, ref)
				}
			}
			sort.Strings(missing)
			sort.Strings(unread)
			if len(missing) > 0 {
				t.Errorf("CloudStack %s has no %s, which the statements name", release, strings.Join(missing, ", "))
			}
			if len(unread) > 0 {
				t.Errorf("the description of %s says %s are read, but no statement names them (mark them seed, or drop them)", release, strings.Join(unread, ", "))
			}
		})
	}
}
