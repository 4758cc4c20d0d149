package database

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// clusterEvent is the condition of the events of type eventType whose resource is the cluster k:
// event.resource_type and resource_id (schema-41610to41700.sql, 4.17), the cluster's internal
// id as ActionEventUtils records it. Only the type and the resource are matched, never the
// description, which carries names tenants choose.
func clusterEvent(eventType string) string {
	return "(e.type = '" + eventType + "' AND e.resource_type = 'KubernetesCluster' AND e.resource_id = k.id)"
}

// causeQuery is the statement that finds the event explaining a new finding (collector.CauseWant),
// on a schema whose event table has resource_id (4.17 on): the newest event of one of types
// (n of them) recorded against the finding's VM (on VirtualMachine; event.resource_id is the
// VM's internal id) or its cluster, carried out (Completed, or Created), since the look-back,
// not archived (as listEvents), and recorded under the cluster's own account (the project's for a
// project's cluster) or CloudStack's own accounts 1 (system) and 2 (admin), which
// ConfigurationServerImpl.saveUser creates in the ROOT domain (4.19.0.0): an account of another
// tenant never explains a finding. The user table is not read (it holds the users' credentials):
// the event names its account. Its parameters: the resource type, the VM's uuid (VM only), the
// cluster's uuid, the look-back's start, the types.
func causeQuery(on collector.CauseResource, types int) string {
	resource := "k.id"
	if on == collector.CauseOnVM {
		resource = "(SELECT v.id FROM vm_instance v WHERE v.uuid = ?)"
	}
	return `SELECT e.uuid, e.type, e.state, e.description, a.account_name, e.created, e.account_id = k.account_id, e.account_id IN (1, 2)
FROM kubernetes_cluster k
JOIN event e ON e.resource_type = ? AND e.resource_id = ` + resource + `
JOIN account a ON a.id = e.account_id
WHERE k.uuid = ? AND e.archived = 0 AND e.created >= ? AND e.state IN ('Completed', 'Created')
  AND e.type IN (?` + strings.Repeat(", ?", types-1) + `)
  AND (e.account_id = k.account_id OR e.account_id IN (1, 2))
ORDER BY e.created DESC, e.id DESC
LIMIT 1`
}

// eventResourceQuery says whether the event table has resource_id (4.17 on) and the account may
// read it.
const eventResourceQuery = `SELECT COUNT(*) FROM information_schema.columns
WHERE table_schema = DATABASE() AND table_name = 'event' AND column_name = 'resource_id'`

// Causes looks up the event that explains each wanted finding (the exporter's CauseFinder), one
// statement for each, each bounded by the query timeout; causes[i] is wants[i]'s, zero where none
// explains it or the schema has no event.resource_id (before 4.17). It stops at the first failed
// statement and returns its error with what it found so far.
func (s *Source) Causes(ctx context.Context, wants []collector.CauseWant) ([]collector.Cause, error) {
	out := make([]collector.Cause, len(wants))
	if len(wants) == 0 {
		return out, nil
	}
	var n int
	if err := s.queryRow(ctx, eventResourceQuery, nil, &n); err != nil || n == 0 {
		return out, s.failOrNil("read the schema", err)
	}
	for i, w := range wants {
		args := []any{string(w.On)}
		if w.On == collector.CauseOnVM {
			args = append(args, w.ResourceID)
		}
		args = append(args, w.Cluster.ID, w.Since.UTC())
		for _, t := range w.Types {
			args = append(args, t)
		}
		var (
			id, typ, state, description, account sql.NullString
			created                              sql.NullTime
			owner, admin                         bool
		)
		err := s.queryRow(ctx, causeQuery(w.On, len(w.Types)), args, &id, &typ, &state, &description, &account, &created, &owner, &admin)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return out, s.fail("read event", err)
		}
		e := collector.CauseEvent{ID: id.String, Type: typ.String, State: state.String, Description: description.String,
			Account: account.String, ResourceID: w.ResourceID, ResourceType: string(w.On), Created: utc(created), ByOwner: owner}
		if admin {
			e.Domain = "ROOT"
		}
		if w.Explains(e) {
			out[i] = e.Cause()
		}
	}
	return out, nil
}

// queryRow runs a statement of one row, bounded by the query timeout, into dest.
func (s *Source) queryRow(ctx context.Context, q string, args []any, dest ...any) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryTimeout)
	defer cancel()
	return s.db.QueryRowContext(ctx, q, args...).Scan(dest...)
}

// failOrNil is fail for an error, and nil for none.
func (s *Source) failOrNil(step string, err error) error {
	if err == nil {
		return nil
	}
	return s.fail(step, err)
}
