package kube

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the counters the node lister keeps itself, live rather than per cycle. One set
// outlives reloads: the runtime creates it once, registers it and hands it to every Lister it
// builds.
type Metrics struct {
	// HandshakeRetries counts connections that a control node dropped before the SSH handshake
	// and that were tried once more, the way sshd's MaxStartups throttles.
	HandshakeRetries prometheus.Counter
}

// NewMetrics creates the lister's counters, at zero.
func NewMetrics() *Metrics {
	return &Metrics{
		HandshakeRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cks_drift_ssh_handshake_retries_total",
			Help: "SSH connections to control nodes that were dropped before the handshake (as sshd's MaxStartups does) and tried once more.",
		}),
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) { m.HandshakeRetries.Describe(ch) }

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) { m.HandshakeRetries.Collect(ch) }
