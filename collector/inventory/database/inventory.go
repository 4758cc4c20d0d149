package database

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// accountTypeProject is account.type of a project's own account (Account.Type.PROJECT).
const accountTypeProject = 5

// Inventory reads every cluster, every VM map row and every VM in one read-only transaction, so all
// of it comes from one snapshot, with a fixed number of statements however many clusters there
// are. The fields are filled as the API source fills them from listKubernetesClusters and
// listVirtualMachines, except that Mapped holds every map row: expunged VMs (Removed) and VM ids
// that do not exist (Missing) included. Any failure fails the whole call.
func (s *Source) Inventory(ctx context.Context) (collector.Inventory, error) {
	// REPEATABLE READ, stated so a server defaulting to READ COMMITTED still gives one snapshot.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return collector.Inventory{}, s.fail("begin read-only transaction", err)
	}
	defer tx.Rollback() //nolint:errcheck // nothing was written; rolling back only ends the snapshot
	read, step, err := reader{tx: tx, timeout: s.opts.QueryTimeout}.read(ctx)
	if err != nil {
		return collector.Inventory{}, s.fail(step, err)
	}
	return s.assemble(read), nil
}

func (s *Source) assemble(r rows) collector.Inventory {
	inv := collector.Inventory{Clusters: make([]collector.Cluster, 0, len(r.clusters)), VMs: make([]collector.VM, 0, len(r.vms))}
	for _, v := range r.vms {
		project := v.accountType.Int64 == accountTypeProject
		if project && !s.opts.IncludeProjects {
			continue
		}
		inv.VMs = append(inv.VMs, collector.VM{ID: v.uuid.String, Name: v.name.String, State: v.state.String,
			Account: ownerAccount(project, v.accountName), DomainID: v.domainUUID.String,
			ProjectID: v.projectUUID.String, Created: utc(v.created), CKSNode: strings.EqualFold(v.vmType.String, "cksnode")})
	}

	ipsByNetwork := make(map[int64][]ipRow)
	for _, ip := range r.ips {
		ipsByNetwork[ip.networkID] = append(ipsByNetwork[ip.networkID], ip)
	}
	nicsByVM := make(map[int64][]nicRow)
	for _, n := range r.nics {
		nicsByVM[n.vmID] = append(nicsByVM[n.vmID], n)
	}
	offerings, offeringsOf := assembleOfferings(r.cols, r.offers)
	inv.Offerings = offerings
	mapsByCluster := make(map[int64][]mapRow)
	for _, m := range r.maps {
		mapsByCluster[m.clusterID] = append(mapsByCluster[m.clusterID], m)
	}

	for _, k := range r.clusters {
		project := k.accountType.Int64 == accountTypeProject
		if project && !s.opts.IncludeProjects {
			continue
		}
		c := collector.Cluster{
			ID: k.uuid.String, Name: k.name.String, State: k.state.String, ClusterType: collector.ClusterTypeOrDefault(k.clusterType.String),
			ZoneID: k.zoneUUID.String, ZoneName: k.zoneName.String, Account: ownerAccount(project, k.accountName),
			DomainID: k.domainUUID.String, Domain: k.domainName.String,
			ProjectID: k.projectUUID.String, Project: k.projectName.String, NetworkID: k.networkUUID.String,
			Created:      utc(k.created),
			ControlNodes: int(k.control), WorkerNodes: int(k.workers), EtcdNodes: int(k.etcd.Int64),
			MapRowsVisible:    true,
			KubernetesVersion: k.semanticVersion.String,
			OperationStarted:  utc(k.operationStarted),
		}
		if o := offeringsOf[k.id]; o != nil {
			c.Offerings = collector.NodeOfferings(o.def, o.byType, c.EtcdNodes)
		}
		maps := mapsByCluster[k.id]
		for _, m := range maps {
			c.Mapped = append(c.Mapped, mapped(c, m))
		}
		c.SSH = s.sshTarget(k, sourceNAT(k, ipsByNetwork), firstControl(c, maps, r.cols.mapControl), r, nicsByVM)
		c.Rules = r.network.rulesOf(k.networkID)
		inv.Clusters = append(inv.Clusters, c)
	}
	return inv
}

// ownerAccount is the response's account: the API names no account for a project's resources,
// only the project (ApiResponseHelper and UserVmJoinDaoImpl set either one or the other).
func ownerAccount(project bool, name sql.NullString) string {
	if project {
		return ""
	}
	return name.String
}

func mapped(c collector.Cluster, m mapRow) collector.MappedVM {
	if !m.vm.Valid {
		return collector.MappedVM{InternalID: m.vmID, Missing: true}
	}
	return collector.MappedVM{
		ID: m.uuid.String, InternalID: m.vm.Int64, Name: m.name.String, State: m.state.String,
		Created: utc(m.created), Removed: m.removed.Valid, Unmanaged: m.unmanaged.Bool,
		Etcd: m.etcd || collector.IsEtcdName(c, m.name.String), External: m.external,
		KubernetesVersion: m.nodeVersion.String,
	}
}

// sourceNAT is the cluster's public address as listKubernetesClusters gives it: the one source NAT
// address of its network, unless the network is reached directly. That is a shared network, or a
// routed one (4.20), which has no source NAT address, so no address is found for it either.
func sourceNAT(k clusterRow, byNetwork map[int64][]ipRow) *ipRow {
	if !k.networkID.Valid || strings.EqualFold(k.guestType.String, "Shared") {
		return nil
	}
	if ips := byNetwork[k.networkID.Int64]; len(ips) == 1 {
		return &ips[0]
	}
	return nil
}

// firstControl picks the VM to reach kubectl on among the VMs the API would list (existing and
// not expunged), in map order, by the rule both sources share (collector.FirstControl); flagged
// says whether the map has the control_node column (4.16 and later).
func firstControl(c collector.Cluster, rows []mapRow, flagged bool) *mapRow {
	var visible []*mapRow
	var candidates []collector.ControlCandidate
	for i := range rows {
		if rows[i].vm.Valid && !rows[i].removed.Valid {
			m := &rows[i]
			visible = append(visible, m)
			candidates = append(candidates, collector.ControlCandidate{Name: m.name.String, State: m.state.String, Control: m.control, Etcd: m.etcd, External: m.external})
		}
	}
	if i := collector.FirstControl(c, candidates, flagged); i >= 0 {
		return visible[i]
	}
	return nil
}

// sshTarget reaches the first control node as the API source does (collector.ReachControl), with
// the network's source NAT address as the cluster's public address, and logs in as its
// controlNodeLoginUser.
func (s *Source) sshTarget(k clusterRow, ip *ipRow, control *mapRow, r rows, nics map[int64][]nicRow) collector.SSHTarget {
	if control == nil {
		return collector.SSHTarget{}
	}
	var publicID, public string
	if ip != nil {
		publicID, public = strconv.FormatInt(ip.id, 10), ip.address
	}
	vm := control.vm.Int64
	t := collector.SSHTarget{User: r.users[vm]}
	t.Host, t.Port = collector.ReachControl(r.rules[vm], publicID, public, nicAddress(nics[vm], k.networkUUID.String))
	if s.opts.SSHPort != 0 {
		t.Port = s.opts.SSHPort
	}
	return t
}

// nicAddress is the VM's address on the cluster's network, else on its default NIC.
func nicAddress(nics []nicRow, networkUUID string) string {
	for _, n := range nics {
		if n.networkUUID.String == networkUUID && n.address.String != "" {
			return n.address.String
		}
	}
	for _, n := range nics {
		if n.isDefault && n.address.String != "" {
			return n.address.String
		}
	}
	return ""
}

// utc is a DATETIME column as the instant CloudStack meant: it stores UTC.
func utc(t sql.NullTime) time.Time {
	if !t.Valid || t.Time.IsZero() {
		return time.Time{}
	}
	return t.Time.UTC()
}
