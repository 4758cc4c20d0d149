// Package rabbitmqtest runs a private RabbitMQ broker (Debian's rabbitmq-server) on loopback for
// tests of CloudStack's event bus.
package rabbitmqtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/ports"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// The broker's programs as Debian installs them: the real scripts, not /usr/sbin's wrappers,
// which run them through su and log to /var/log.
const (
	serverBin = "/usr/lib/rabbitmq/bin/rabbitmq-server"
	epmdGlob  = "/usr/lib/erlang/erts-*/bin/epmd"
)

// The user of the one account, which may connect from loopback (loopback_users = none).
const (
	User     = "cks"
	Password = "Rabbit-Pw-8812"
)

// Broker is a running broker of a test, with a data directory, ports and an Erlang port mapper of
// its own, so that tests and packages never share one.
type Broker struct {
	t        testing.TB
	dir      string
	port     int // AMQP
	distPort int // Erlang distribution
	epmdPort int
	node     string
	cmd      *exec.Cmd
	exited   chan struct{}
}

// Start starts a broker for t and stops it when t ends. Without rabbitmq-server the test is
// skipped, or fails when CI is set.
func Start(t testing.TB) *Broker {
	t.Helper()
	if testing.Short() {
		t.Skip("rabbitmq-server is a real program: skipped with -short")
	}
	if _, err := os.Stat(serverBin); err != nil {
		tooltest.Unavailable(t, "rabbitmq-server not installed", "apt-get install -y --no-install-recommends rabbitmq-server")
	}
	dir, err := os.MkdirTemp("", "rabbitmqtest-")
	if err != nil {
		t.Fatal(err)
	}
	b := &Broker{t: t, dir: dir, port: freePort(t), distPort: freePort(t), epmdPort: freePort(t), node: fmt.Sprintf("cks%d@localhost", os.Getpid()%100000)}
	conf := fmt.Sprintf("listeners.tcp.default = 127.0.0.1:%d\nloopback_users = none\ndefault_user = %s\ndefault_pass = %s\n", b.port, User, Password)
	for name, content := range map[string]string{"enabled_plugins": "[].\n", "rabbitmq.conf": conf} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		b.Stop()
		b.stopEPMD()
		_ = os.RemoveAll(dir)
	})
	b.Restart()
	return b
}

// URL is the broker's address with the test account.
func (b *Broker) URL() string {
	return fmt.Sprintf("amqp://%s:%s@127.0.0.1:%d/", User, Password, b.port)
}

// Addr is the broker's address without credentials.
func (b *Broker) Addr() string { return fmt.Sprintf("amqp://127.0.0.1:%d/", b.port) }

// Restart starts the broker (again, after Stop, on the same port and data) and waits until it
// takes connections.
func (b *Broker) Restart() {
	b.t.Helper()
	cmd := exec.Command(serverBin)
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(),
		"HOME="+b.dir,
		"RABBITMQ_MNESIA_BASE="+filepath.Join(b.dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(b.dir, "log"),
		"RABBITMQ_NODENAME="+b.node,
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(b.port),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(b.distPort),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(b.dir, "rabbitmq"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(b.dir, "enabled_plugins"),
		"RABBITMQ_PID_FILE="+filepath.Join(b.dir, "pid"),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"ERL_EPMD_PORT="+strconv.Itoa(b.epmdPort),
	)
	log, err := os.OpenFile(filepath.Join(b.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		b.t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("rabbitmq")
		if err != nil {
			b.t.Fatalf("rabbitmqtest: as root the broker runs as user rabbitmq: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := chownAll(b.dir, uid, gid); err != nil {
			b.t.Fatal(err)
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if err := cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	b.cmd, b.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(b.exited) }()
	deadline := time.Now().Add(2 * time.Minute) // a loaded machine; up in about a second otherwise
	for {
		conn, err := amqp.Dial(b.URL())
		if err == nil {
			_ = conn.Close()
			return
		}
		select {
		case <-b.exited:
			b.t.Fatalf("rabbitmqtest: the broker exited: %s", b.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("rabbitmqtest: no connection after 2 minutes: %v; %s", err, b.logTail())
		}
	}
}

// Stop stops the broker and waits until it is gone: its clients lose their connections.
func (b *Broker) Stop() {
	if b.cmd == nil {
		return
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.exited
	}
	b.cmd = nil
}

// stopEPMD ends the test's own Erlang port mapper, which the broker starts and which outlives it.
func (b *Broker) stopEPMD() {
	bins, _ := filepath.Glob(epmdGlob)
	if len(bins) == 0 {
		return
	}
	cmd := exec.Command(bins[0], "-kill")
	cmd.Env = append(os.Environ(), "ERL_EPMD_PORT="+strconv.Itoa(b.epmdPort), "ERL_EPMD_ADDRESS=127.0.0.1")
	_ = cmd.Run()
}

func (b *Broker) logTail() string {
	out, _ := os.ReadFile(filepath.Join(b.dir, "server.log"))
	s := string(out)
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return strings.TrimSpace(s)
}

// freePort returns a port free now on every address, outside Linux's ephemeral ports
// (ports.Free): RabbitMQ refuses to start when its distribution port is in use by anything
// (dist_port_already_used).
func freePort(t testing.TB) int {
	t.Helper()
	port, err := ports.Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func chownAll(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(path, uid, gid)
	})
}

// Publish publishes body to exchange with routingKey as CloudStack's RabbitMQEventBus does
// (4.20.0.0): declaring the exchange a durable topic exchange, then a persistent text/plain
// message.
func (b *Broker) Publish(exchange, routingKey string, body []byte) {
	b.t.Helper()
	conn, err := amqp.Dial(b.URL())
	if err != nil {
		b.t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		b.t.Fatal(err)
	}
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		b.t.Fatal(err)
	}
	if err := ch.Publish(exchange, routingKey, false, false, amqp.Publishing{
		ContentType: "text/plain", DeliveryMode: amqp.Persistent, Body: body,
	}); err != nil {
		b.t.Fatal(err)
	}
}
