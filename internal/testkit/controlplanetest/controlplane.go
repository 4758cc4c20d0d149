// Package controlplanetest runs a real Kubernetes control plane for tests: etcd and kube-apiserver
// (and optionally kube-controller-manager) from make kube-tools, on loopback, with generated PKI,
// RBAC and no kubelet.
package controlplanetest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/ports"
)

// Options configures a ControlPlane.
type Options struct {
	// ControllerManager also runs kube-controller-manager with the service-account controllers
	// only, so that a Secret of type kubernetes.io/service-account-token gets its token.
	ControllerManager bool
}

// ControlPlane is one etcd, one kube-apiserver and perhaps one kube-controller-manager, each a
// process of the test's, listening on 127.0.0.1 only.
type ControlPlane struct {
	t    testing.TB
	dir  string
	port int
	ca   *authority
	// superCert and superKey are a client certificate in group system:masters, which RBAC
	// cannot restrict: the helper's own credential, as kubeadm's super-admin.conf.
	superCert, superKey []byte
	http                *http.Client
	kubectl             string

	mu    sync.Mutex
	procs []*proc // started in order: etcd, kube-apiserver, kube-controller-manager
}

// startTimeout bounds the start of the control plane; on a loaded 2-core machine kube-apiserver
// needs up to half a minute before /readyz answers ok.
const startTimeout = 3 * time.Minute

// Start runs a control plane for t and stops it, by the pids of its processes, when t ends.
// Without the binaries of make kube-tools t is skipped, or fails when CI is set.
func Start(t testing.TB, o Options) *ControlPlane {
	t.Helper()
	bins := map[string]string{}
	names := []string{"etcd", "kube-apiserver", "kubectl"}
	if o.ControllerManager {
		names = append(names, "kube-controller-manager")
	}
	for _, n := range names {
		bins[n] = Tool(t, n)
	}
	c := &ControlPlane{t: t, dir: t.TempDir(), kubectl: bins["kubectl"]}
	c.ca = newAuthority(t, "kubernetes")
	writeFile(t, c.file("ca.crt"), c.ca.certPEM)
	serveCert, serveKey := c.ca.issue(t, "kube-apiserver", nil, true)
	writeFile(t, c.file("apiserver.crt"), serveCert)
	writeFile(t, c.file("apiserver.key"), serveKey)
	c.superCert, c.superKey = c.ca.issue(t, "kubernetes-super-admin", []string{"system:masters"}, false)
	saKey, saPub := serviceAccountKey(t, c.dir)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.ca.certPEM)
	cert, err := tls.X509KeyPair(c.superCert, c.superKey)
	if err != nil {
		t.Fatal(err)
	}
	c.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("controlplanetest: %v", err)
		}
	})

	var last error
	for range 3 { // a free port can be taken by another process before the server binds it
		if last = c.startServers(bins, saKey, saPub); last == nil {
			break
		}
		if err := c.Stop(); err != nil {
			t.Logf("controlplanetest: %v", err)
		}
	}
	if last != nil {
		t.Fatalf("controlplanetest: %v", last)
	}
	writeFile(t, c.file("super-admin.conf"), c.kubeconfig("kubernetes-super-admin",
		userCert{c.superCert, c.superKey}, c.ca.certPEM))
	// What kubeadm init does after the API server answers: the admin.conf group is bound to
	// cluster-admin, and admin.conf is no longer system:masters (kubeadm 1.29 and later).
	c.MustDo(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "kubeadm:cluster-admins"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "kubeadm:cluster-admins"}},
	}, http.StatusCreated)
	if o.ControllerManager {
		if err := c.startControllerManager(bins["kube-controller-manager"], saKey); err != nil {
			t.Fatalf("controlplanetest: %v", err)
		}
	}
	return c
}

func (c *ControlPlane) file(name string) string { return filepath.Join(c.dir, name) }

// startServers runs etcd and kube-apiserver on free ports and waits until the API server is
// ready and has its system namespaces.
func (c *ControlPlane) startServers(bins map[string]string, saKey, saPub string) error {
	client, peer := freePort(c.t), freePort(c.t)
	c.port = freePort(c.t)
	data := c.file("etcd")
	_ = os.RemoveAll(data)
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	etcd, err := c.run("etcd", bins["etcd"], "--name=default", "--data-dir="+data,
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL, "--log-level=warn",
		// A test's data need not survive a crash of the machine.
		"--unsafe-no-fsync")
	if err != nil {
		return err
	}
	api, err := c.run("kube-apiserver", bins["kube-apiserver"],
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(c.port),
		"--cert-dir="+c.file("certs"),
		"--tls-cert-file="+c.file("apiserver.crt"), "--tls-private-key-file="+c.file("apiserver.key"),
		"--client-ca-file="+c.file("ca.crt"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saPub, "--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.96.0.0/12",
		"--authorization-mode=RBAC",
		// The kubernetes Service's endpoints would be 127.0.0.1, which an Endpoints object
		// may not hold; nothing here routes to it.
		"--endpoint-reconciler-type=none",
		"--profiling=false")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for _, p := range []struct {
		path string
		why  string
	}{
		{"/readyz", "ready"},
		{"/api/v1/namespaces/kube-system", "namespace kube-system"},
		{"/api/v1/namespaces/default", "namespace default"},
	} {
		if err := c.await(ctx, p.path, etcd, api); err != nil {
			return fmt.Errorf("kube-apiserver on port %d not %s: %w\n%s\n%s", c.port, p.why, err, api.tail(), etcd.tail())
		}
	}
	return nil
}

// startControllerManager runs kube-controller-manager with the service-account token and
// service-account controllers, serving nothing.
func (c *ControlPlane) startControllerManager(bin, saKey string) error {
	_, err := c.run("kube-controller-manager", bin,
		"--kubeconfig="+c.file("super-admin.conf"),
		"--controllers=serviceaccount-token,serviceaccount",
		"--service-account-private-key-file="+saKey,
		"--root-ca-file="+c.file("ca.crt"),
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--secure-port=0")
	return err
}

// await asks the API server for path every 100 ms until it answers 200, one of the processes
// exits, or ctx ends.
func (c *ControlPlane) await(ctx context.Context, path string, procs ...*proc) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := "no answer"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL()+path, nil)
		resp, err := c.http.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		for _, p := range procs {
			select {
			case <-p.exited:
				return fmt.Errorf("%s exited: %v", p.name, p.err)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %s)", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// URL is the API server's address, https://127.0.0.1:<port>.
func (c *ControlPlane) URL() string { return "https://127.0.0.1:" + strconv.Itoa(c.port) }

// CA is the cluster CA's certificate, PEM-encoded.
func (c *ControlPlane) CA() []byte { return c.ca.certPEM }

// PID is kube-apiserver's pid.
func (c *ControlPlane) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		if p.name == "kube-apiserver" {
			return p.cmd.Process.Pid
		}
	}
	return 0
}

// Freeze stops kube-apiserver with SIGSTOP: its port still accepts connections (the kernel
// does), and nothing answers, as an overloaded or hung API server. Resume undoes it.
//
// It returns once every thread of kube-apiserver has stopped. kill(2) returns before that: the
// kernel stops the threads of a process one by one, from the first of them that takes the
// signal, and on a loaded machine the others go on serving for a while. A list sent in that
// while was answered (TestRealAPIServerFrozenAndStopped saw three nodes under load 20).
func (c *ControlPlane) Freeze() {
	c.t.Helper()
	c.signal(syscall.SIGSTOP)
	pid := c.PID()
	deadline := time.Now().Add(time.Minute)
	for !stopped(pid) {
		if time.Now().After(deadline) {
			c.t.Fatalf("controlplanetest: kube-apiserver (pid %d) has not stopped a minute after SIGSTOP", pid)
		}
		time.Sleep(5 * time.Millisecond) // polled: the kernel says nothing when the last one stops
	}
}

// stopped reports whether every thread of process pid is stopped (state T in
// /proc/<pid>/task/<tid>/stat).
func stopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		// pid (comm) state ...: comm may hold spaces and parentheses, so the state follows the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) || stat[i+2] != 'T' {
			return false
		}
	}
	return true
}

// Resume continues a frozen kube-apiserver with SIGCONT.
func (c *ControlPlane) Resume() { c.signal(syscall.SIGCONT) }

func (c *ControlPlane) signal(sig syscall.Signal) {
	c.t.Helper()
	if err := syscall.Kill(c.PID(), sig); err != nil {
		c.t.Fatalf("controlplanetest: %s kube-apiserver: %v", sig, err)
	}
}

// Stop ends every process by its pid, the last started first, and waits for them. A stopped
// control plane refuses connections on its port. It is safe to call more than once.
func (c *ControlPlane) Stop() error {
	c.mu.Lock()
	procs := c.procs
	c.procs = nil
	c.mu.Unlock()
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		if err := procs[i].stop(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func freePort(t testing.TB) int {
	t.Helper()
	port, err := ports.Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// proc is one process of the control plane, its log kept in a file.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	err    error
}

// run starts a binary with its output in <name>.log and records it for Stop.
func (c *ControlPlane) run(name, bin string, args ...string) (*proc, error) {
	log, err := os.Create(c.file(name + ".log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = c.dir
	// The kernel ends the process when the test binary dies without its cleanup (a panic, a
	// timeout), so that no server outlives its tests.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: log.Name(), exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}

// stop sends SIGCONT (a frozen process cannot act on SIGTERM) and SIGTERM to the pid, and SIGKILL
// when the process has not ended 30 seconds later.
func (p *proc) stop() error {
	pid := p.cmd.Process.Pid
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = syscall.Kill(pid, syscall.SIGCONT)
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	<-p.exited
	return fmt.Errorf("%s (pid %d) did not end within 30 s of SIGTERM; killed", p.name, pid)
}

// tail is the end of the process's log, for an error.
func (p *proc) tail() string {
	data, _ := os.ReadFile(p.log)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return p.name + " log:\n" + string(bytes.TrimSpace(data))
}
