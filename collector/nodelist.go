package collector

// NodeList is the outcome of listing one cluster's Kubernetes nodes: the one record of whether the
// node side was read, from the listing through the comparison (Compare) to what a cluster's
// status keeps of its last listing (ClusterStatus.Nodes). Its zero value is a list that was never
// read (no listing yet, or none for a cluster never checked), and so is one that failed (Err set):
// only NodesRead makes a list that Read reports as read, so that a forgotten field can never make
// an unread node side look compared, which would clear its findings.
type NodeList struct {
	Names []string
	// Versions holds the kubelet version of each node of Names whose source reported one.
	Versions map[string]string
	Err      string // reason the list could not be read; empty when it was, or was never listed
	Detail   string // with Err: one short sanitised line saying more
	// Slow: the listing took longer than its share of the node source's timeout, so that the
	// next cycle lists the cluster in the lane of slow control nodes (the exporter's lanes).
	Slow bool
	read bool
}

// NodesRead is the list of a cluster whose nodes were read: their names, in the source's order,
// and the kubelet versions the source reported (nil: none).
func NodesRead(names []string, versions map[string]string) NodeList {
	return NodeList{Names: names, Versions: versions, read: true}
}

// Read reports whether the nodes were read. When they were not, the node side is not compared at
// all, so that an unreachable control node never clears or invents a node finding.
func (l NodeList) Read() bool { return l.read }
