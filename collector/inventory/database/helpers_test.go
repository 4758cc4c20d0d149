package database

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

func TestMain(m *testing.M) { os.Exit(mariadbtest.Main(m)) }

var (
	now     = time.Date(2026, 6, 5, 20, 35, 31, 0, time.UTC) // scenario 3's cycle (docs/scenarios.md)
	created = now.Add(-40 * time.Minute)                     // past the 15-minute grace
	grace   = 15 * time.Minute
)

// reportWorld is the fresh test cluster of docs/scenarios.md: "test", 1 control node and 2 workers, on
// an isolated network, in account alice, created 40 minutes before the check.
type reportWorld struct {
	w    *cloudstacktest.World
	test *cloudstacktest.ClusterSet
}

func newReportWorld() reportWorld {
	w := &cloudstacktest.World{}
	test := w.BuildCluster(cloudstacktest.ClusterSpec{Name: "test", Account: "alice", Control: 1, Workers: 2, Created: created})
	return reportWorld{w: w, test: test}
}

// load renders the world into a fresh database at version v and returns a source reading it as
// the SELECT-only account.
func load(t *testing.T, w *cloudstacktest.World, v mariadbtest.Version, o Options) (*Source, *mariadbtest.Database) {
	t.Helper()
	d := mariadbtest.Start(t).NewDatabaseAt(t, v)
	d.LoadWorld(t, w)
	o.DSN = d.ReaderDSN()
	return newSource(t, o), d
}

// vmOf adds a VM of c's owner, in its domain and zone, on no network.
func vmOf(w *cloudstacktest.World, c *cloudstacktest.Cluster, name, state string, created time.Time) *cloudstacktest.VM {
	return w.AddVM(cloudstacktest.VM{Name: name, State: state, Created: created}.Of(c))
}

// forward adds a port-forwarding rule from the cluster's source NAT address to vm.
func forward(w *cloudstacktest.World, s *cloudstacktest.ClusterSet, vm *cloudstacktest.VM, public, private int) {
	w.AddPortForwardingRule(cloudstacktest.PortForwardingRule{IPAddressID: s.IP.ID, IPAddress: s.IP.Address,
		PublicPort: public, PrivatePort: private, VirtualMachineID: vm.ID, NetworkID: s.Cluster.NetworkID,
		Account: vm.Account, DomainID: vm.DomainID, ProjectID: vm.ProjectID})
}

// deleteRule removes a port-forwarding rule.
func deleteRule(w *cloudstacktest.World, r *cloudstacktest.PortForwardingRule) {
	w.PortForwardingRules = slices.DeleteFunc(w.PortForwardingRules, func(o *cloudstacktest.PortForwardingRule) bool { return o == r })
}

// withConfigDefaults fills the pool sizes, lifetime and timeout left at zero in o with the
// configuration's defaults, which New does not apply.
func withConfigDefaults(o Options) Options {
	d := config.Defaults().Database
	if o.MaxOpenConns == 0 {
		o.MaxOpenConns = d.MaxOpenConns
	}
	if o.MaxIdleConns == 0 {
		o.MaxIdleConns = d.MaxIdleConns
	}
	if o.ConnMaxLifetime == 0 {
		o.ConnMaxLifetime = d.ConnMaxLifetime
	}
	if o.QueryTimeout == 0 {
		o.QueryTimeout = d.QueryTimeout
	}
	return o
}

// newSource returns a Source with o, its zero settings taken from the configuration's defaults.
func newSource(t *testing.T, o Options) *Source {
	t.Helper()
	s, err := New(withConfigDefaults(o))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func inventory(t *testing.T, s *Source) collector.Inventory {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inv, err := s.Inventory(ctx)
	if err != nil {
		t.Fatalf("Inventory: %v", err)
	}
	return inv
}

// mappedVM is a map row whose VM exists, as the database source reports it.
func mappedVM(v *cloudstacktest.VM) collector.MappedVM {
	return collector.MappedVM{ID: v.ID, InternalID: v.InternalID, Name: v.Name, State: v.State, Created: v.Created, Removed: v.Removed}
}

// listedVM is a VM as listVirtualMachines shows it (vmtype from 4.20, user_vm.user_vm_type from
// 4.16: atSchema clears what older schemas lack).
func listedVM(v *cloudstacktest.VM) collector.VM {
	return collector.VM{ID: v.ID, Name: v.Name, State: v.State, Account: v.Account, DomainID: v.DomainID, ProjectID: v.ProjectID, Created: v.Created,
		CKSNode: v.Type == cloudstacktest.CKSNodeType}
}

// atSchema is inv as a database of schema v shows it: before 4.16 user_vm has no user_vm_type, so
// no VM is known as one CKS deployed.
func atSchema(inv collector.Inventory, v mariadbtest.Version) collector.Inventory {
	if v < mariadbtest.V4_16 {
		for i := range inv.VMs {
			inv.VMs[i].CKSNode = false
		}
	}
	return inv
}

// brief is a finding without its message.
type brief struct {
	Kind       collector.Kind
	VMID       string
	VMName     string
	InternalID int64
}

// findings runs the drift check on one cluster of the inventory, with Kubernetes reporting nodes.
func findings(t *testing.T, inv collector.Inventory, clusterID string, nodes []string) (vm, node []brief) {
	t.Helper()
	idx := collector.NewIndex(inv)
	for _, c := range inv.Clusters {
		if c.ID != clusterID {
			continue
		}
		res := collector.Compare(c, idx, collector.NodesRead(nodes, nil), now, grace)
		return briefs(res.VM), briefs(res.Node)
	}
	t.Fatalf("cluster %s not in the inventory", clusterID)
	return nil, nil
}

func briefs(fs []collector.Finding) []brief {
	var out []brief
	for _, f := range fs {
		out = append(out, brief{Kind: f.Kind, VMID: f.VMID, VMName: f.VMName, InternalID: f.InternalID})
	}
	return out
}

// nodeNames are the Kubernetes node names of VMs: their names (the builders' are lower-case).
func nodeNames(vms ...*cloudstacktest.VM) []string {
	var out []string
	for _, v := range vms {
		out = append(out, v.Name)
	}
	return out
}

// grantedAccount creates an account of its own on d with the statements of GrantScript, less
// those naming a table of without, and returns the DSN of a source reading as it; the account is
// dropped when the test ends. It skips where the test server lets no account be created.
func grantedAccount(t *testing.T, d *mariadbtest.Database, suffix string, without ...string) string {
	t.Helper()
	user := d.Name + suffix
	grantee := fmt.Sprintf("'%s'@'%%'", user)
	stmts := []string{"CREATE USER " + grantee + " IDENTIFIED BY 'pw'"}
	for _, stmt := range GrantScript(d.Name, grantee) {
		if !slices.ContainsFunc(without, func(table string) bool { return strings.Contains(stmt, "."+table+" ") }) {
			stmts = append(stmts, stmt)
		}
	}
	for i, q := range stmts {
		if _, err := d.Admin.Exec(q); err != nil && i == 0 {
			t.Skipf("the test server does not let the administrator create an account (%v): %s", err, q)
		} else if err != nil {
			t.Fatalf("a documented grant fails: %v: %s", err, q)
		}
	}
	t.Cleanup(func() { _, _ = d.Admin.Exec("DROP USER IF EXISTS " + grantee) })
	cfg, err := mysql.ParseDSN(d.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd = user, "pw"
	return cfg.FormatDSN()
}
