package ssh

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the counters the node lister keeps itself, live rather than per cycle. One set
// outlives reloads: the runtime creates it once, registers it and hands it to every Lister it
// builds.
type Metrics struct {
	// HandshakeRetries counts connections that a control node dropped before the SSH handshake
	// and that were tried again, the way sshd's MaxStartups throttles.
	HandshakeRetries prometheus.Counter
	// ListDuration observes how long one cluster's node listing took, whatever its outcome and
	// whichever node source made it (the cycle observes it, around the source's call).
	ListDuration prometheus.Histogram
	// HostKeyAddressChanges counts control nodes met at a new address while their cluster had a
	// pin at another: by result, the pin moved (same key) or the key refused (another key).
	HostKeyAddressChanges *prometheus.CounterVec
}

// NewMetrics creates the lister's counters, at zero.
func NewMetrics() *Metrics {
	m := &Metrics{
		HandshakeRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_ssh_handshake_retries_total",
			Help: "SSH connections to control nodes that were dropped before the handshake (as sshd's MaxStartups does) and tried again.",
		}),
		ListDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "cks_drift_node_list_duration_seconds",
			Help:    "Time one cluster's node listing took (SSH and kubectl, or the Kubernetes API), successful or not, in seconds.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}),
		HostKeyAddressChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cks_drift_ssh_host_key_address_changes_total",
			Help: "Control nodes met at a new SSH address while their cluster had a host key pinned at another, by result: moved (the same key; the pin moved) or refused (another key; host_key_changed).",
		}, []string{"result"}),
	}
	for _, r := range []string{addressMoved, addressRefused} {
		m.HostKeyAddressChanges.WithLabelValues(r)
	}
	return m
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.HandshakeRetries.Describe(ch)
	m.ListDuration.Describe(ch)
	m.HostKeyAddressChanges.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.HandshakeRetries.Collect(ch)
	m.ListDuration.Collect(ch)
	m.HostKeyAddressChanges.Collect(ch)
}
