package ssh

import (
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshdtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
)

// One cluster's node list, end to end (dial, handshake with the pin policy, an RSA user key as
// the management server's id_rsa, kubectl, parse), against Debian's sshd and against the fake.
// ns/op is the per-cluster latency; cpu-ns/op is this process's CPU per check (user + system),
// which against sshd is the exporter's alone and against the in-process fake includes the fake.
//
//	go test -run '^$' -bench 'BenchmarkNodes' -benchtime 100x ./collector/nodes/ssh

func BenchmarkNodesRealSSHD(b *testing.B) {
	key, _, err := sshtest.GenerateKey(sshtest.RSA)
	if err != nil {
		b.Fatal(err)
	}
	srv := sshdtest.Start(b, sshdtest.Options{AuthorizedKeys: []gossh.PublicKey{key.PublicKey()}})
	benchNodes(b, key, srv.User(), standInCommand, collector.SSHTarget{Host: srv.Host(), Port: srv.Port()})
}

func BenchmarkNodesFake(b *testing.B) {
	key, _, err := sshtest.GenerateKey(sshtest.RSA)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := sshtest.NewServer(sshtest.Options{AuthorizedKey: key.PublicKey()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	srv.SetNodes(sshdtest.Nodes...)
	benchNodes(b, key, sshtest.DefaultUser, standInCommand, collector.SSHTarget{Host: srv.Host(), Port: srv.Port()})
}

func benchNodes(b *testing.B, key gossh.Signer, user, command string, target collector.SSHTarget) {
	l, err := NewLister(Options{User: user, Signer: key, Policy: config.HostKeyPin, Pins: &MemoryPins{},
		Timeout: 10 * time.Second, Command: command, MaxNodes: 1000})
	if err != nil {
		b.Fatal(err)
	}
	c := collector.Cluster{ID: "7a1d2c3b-0000-4000-8000-0000000000b1", Name: "bench", SSH: target}
	if _, err := l.Nodes(b.Context(), c); err != nil { // the first contact pins
		b.Fatal(err)
	}
	before := cpu(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.Nodes(b.Context(), c); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpu(b)-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpu is the CPU time this process has used, user and system.
func cpu(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
