package ssh

import (
	"fmt"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// TestRealSSHDMaxStartups: 32 clusters behind one sshd (a bastion, a lab), listed 32 at a time
// (check.concurrency 32) against sshd's default MaxStartups 10:30:100. sshd drops some
// connections before the handshake; each is retried once and counted, and no cluster is ever
// unreachable, so nothing flaps from one cycle to the next.
func TestRealSSHDMaxStartups(t *testing.T) {
	const clusters, cycles = 32, 3
	n := newRealNode(t, sshtest.ED25519, nil)
	m := NewMetrics()
	l := n.lister(t, func(o *Options) { o.Metrics, o.Jitter = m, nil }) // the real, random jitter
	for cycle := range cycles {
		var wg sync.WaitGroup
		errs := make([]error, clusters)
		for i := range clusters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := n.cluster
				c.ID = fmt.Sprintf("7a1d2c3b-0000-4000-8000-%012d", i)
				c.SSH = collector.SSHTarget{Host: n.srv.Host(), Port: n.srv.Port()}
				_, errs[i] = l.Nodes(t.Context(), c)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("cycle %d, cluster %d: %v (reason %s)", cycle, i, err, Reason(err))
			}
		}
	}
	retries := testutil.ToFloat64(m.HandshakeRetries)
	t.Logf("%d handshakes retried in %d cycles of %d clusters", int(retries), cycles, clusters)
	if retries == 0 {
		t.Error("sshd dropped no connection: the test did not reach MaxStartups")
	}
}
