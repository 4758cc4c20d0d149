package collector

// What a cluster's last cycle was, as one series per cluster, so that a dashboard can name the
// clusters that were not compared in full and say why, without joining three series.
var statusDesc = desc("cluster_status",
	"1 for each cluster with what its last cycle was: status checked, skipped (reason: its state, or its cluster type) or unreachable (reason: why its node list could not be read) (cached).",
	"cluster_id", "cluster_name", "status", "reason")

// Values of the status label.
const (
	StatusChecked     = "checked"
	StatusSkipped     = "skipped"
	StatusUnreachable = "unreachable"
)

// Status returns the status of a cluster in its last cycle and the reason for anything but
// checked. Reasons are CloudStack's states and the kubectl failure reasons: a handful of values,
// so the series stays one per cluster.
func (s ClusterStatus) Status() (status, reason string) {
	switch {
	case !s.Checked && s.Cluster.ClusterType == "ExternalManaged":
		return StatusSkipped, s.Cluster.ClusterType
	case !s.Checked:
		return StatusSkipped, s.Cluster.State
	case !s.Nodes.Read():
		return StatusUnreachable, s.Nodes.Err
	default:
		return StatusChecked, ""
	}
}
