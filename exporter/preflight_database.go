package exporter

import (
	"context"
	"errors"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/database"
)

// databaseGrants checks that the database account may read every table the source reads, the
// VM details table under both of its names (user_vm_details up to CloudStack 4.20,
// vm_instance_details from 4.21) so that an upgrade of CloudStack keeps it reading, and names
// the statements that grant what is missing.
func (p *preflight) databaseGrants(ctx context.Context, db *database.Source) {
	missing, err := db.CheckGrants(ctx)
	if err == nil && len(missing) > 0 {
		lines := make([]string, len(missing))
		for i, m := range missing {
			lines[i] = m.Error()
		}
		err = errors.New(strings.Join(lines, "; "))
	}
	p.check("database grants", "SELECT on every table read, and on both names of the VM details table", err)
}
