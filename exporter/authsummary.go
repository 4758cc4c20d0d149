package exporter

import (
	"log/slog"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// authReason is the reason label of a control node that refused the exporter's SSH key.
const authReason = "auth"

// widespreadAuthFailure reports whether the control nodes of most checked clusters refused the
// key in this cycle (at least two): then the key or the user is wrong for the whole cloud, not
// for one node, and one line that names the settings says more than a line per cluster.
func widespreadAuthFailure(cur []collector.ClusterStatus) (refused, checked int, widespread bool) {
	for _, s := range cur {
		if !s.Checked {
			continue
		}
		checked++
		if s.Nodes.Err == authReason {
			refused++
		}
	}
	return refused, checked, refused >= 2 && 2*refused > checked
}

// msgAuthAgain ends the summary line's episode: the key works on most control nodes again (a
// node that still refuses it has a per-cluster line from the next change of its reason on).
const msgAuthAgain = "Most control nodes accept the SSH key again"

// logAuthSummary logs one line when most control nodes refused the key, once until that changes,
// and an INFO line when that is over; it reports whether the summary applies (the per-cluster
// lines are then left out).
func logAuthSummary(prev, cur []collector.ClusterStatus, cfg *config.Config, logger *slog.Logger) bool {
	refused, checked, widespread := widespreadAuthFailure(cur)
	_, _, before := widespreadAuthFailure(prev)
	if !widespread {
		if before {
			logger.Info(msgAuthAgain, "refused", refused, "checked", checked)
		}
		return false
	}
	if !before {
		logger.Warn("The control nodes of most clusters refused the SSH key: check ssh.user and ssh.private_key_file (a cluster's own login user, from CloudStack, wins over ssh.user)",
			"refused", refused, "checked", checked, "ssh_user", cfg.SSH.User, "ssh_private_key_file", cfg.SSH.PrivateKeyFile)
	}
	return true
}
