package sshtest

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/controlplanetest"
)

var update = flag.Bool("update", false, "record real kubectl's texts into testdata")

// kubectlArgs are the default ssh.kubectl_command's arguments to kubectl.
func kubectlArgs(t *testing.T) []string {
	t.Helper()
	f := strings.Fields(config.DefaultKubectlCommand)
	if len(f) < 3 || f[0] != "sudo" || f[1] != "/opt/bin/kubectl" {
		t.Fatalf("the default command %q is not sudo /opt/bin/kubectl ...", config.DefaultKubectlCommand)
	}
	return f[2:]
}

// kubectlRun runs real kubectl with kubeconfig and the discovery cache dir, and returns its stderr.
func kubectlRun(t *testing.T, cp *controlplanetest.ControlPlane, kubeconfig, cache string, args ...string) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := cp.KubectlCommand(cache, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err
}

// TestRealKubectlTexts runs the kubectl of make kube-tools against a real kube-apiserver in the
// situations the stand-ins play and compares what it writes to stderr with the recordings in
// testdata: a token that may not list nodes, the API server frozen (SIGSTOP) and down, with and
// without a discovery cache. The fake control node's FailCommand, Forbidden and APITimeout print
// the recordings without a cache. With -update it records them again.
func TestRealKubectlTexts(t *testing.T) {
	cp := controlplanetest.Start(t, controlplanetest.Options{})
	cp.AddNodes(t, controlplanetest.Node{Name: "real-control-1", KubeletVersion: "v1.33.1", SystemUUID: "6c1e0a5e-0000-4000-8000-000000000001"})
	dir := t.TempDir()
	admin, norights := filepath.Join(dir, "admin.conf"), filepath.Join(dir, "norights.conf")
	ns := cp.Namespace(t, nil)
	for file, data := range map[string][]byte{
		admin:    cp.AdminKubeconfig(),
		norights: cp.TokenKubeconfig("norights", cp.ServiceAccountToken(t, ns, "norights")),
	} {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := kubectlArgs(t)
	cached := filepath.Join(dir, "cached")
	if stderr, err := kubectlRun(t, cp, admin, cached, args...); err != nil {
		t.Fatalf("kubectl with the API server up: %v: %s", err, stderr)
	}

	stderr, err := kubectlRun(t, cp, norights, filepath.Join(dir, "cold-forbidden"), args...)
	compare(t, "testdata/kubectl-forbidden.stderr", stderr, err)

	cp.Freeze()
	stderr, err = kubectlRun(t, cp, admin, filepath.Join(dir, "cold-frozen"), args...)
	compare(t, "testdata/kubectl-frozen.stderr", stderr, err)
	stderr, err = kubectlRun(t, cp, admin, cached, args...)
	compare(t, "testdata/kubectl-frozen-cached.stderr", stderr, err)
	cp.Resume()

	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	stderr, err = kubectlRun(t, cp, admin, filepath.Join(dir, "cold-refused"), args...)
	compare(t, "testdata/kubectl-refused.stderr", stderr, err)
	stderr, err = kubectlRun(t, cp, admin, cached, args...)
	compare(t, "testdata/kubectl-refused-cached.stderr", stderr, err)
}

// compare checks that kubectl failed and wrote what the recording at path holds, apart from what
// differs from run to run (klog's time and pid, the port, the namespace); with -update it records
// it.
func compare(t *testing.T, path, stderr string, err error) {
	t.Helper()
	if _, ok := err.(*exec.ExitError); !ok {
		t.Errorf("%s: kubectl did not fail with an exit status: %v", path, err)
	}
	if *update {
		// The API server's port is the one a CKS control node's kubeconfig names, so that the
		// stand-ins print the same text from one recording to the next.
		recorded := loopback.ReplaceAllString(stderr, "127.0.0.1:6443")
		recorded = namespace.ReplaceAllString(recorded, "serviceaccount:default:")
		if err := os.WriteFile(path, []byte(recorded), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatalf("%v (run with -update to record it)", rerr)
	}
	if diff := cmp.Diff(normalize(string(want)), normalize(stderr)); diff != "" {
		t.Errorf("real kubectl's stderr differs from %s (-recorded +now; -update records it):\n%s", path, diff)
	}
}

var (
	klogTime = regexp.MustCompile(`(?m)^([IWEF])[0-9]{4} [0-9:.]{15} +[0-9]+ `)
	// Which of its timeouts a frozen API server's request meets first differs from run to run.
	timedOut  = regexp.MustCompile(`(context deadline exceeded|net/http: request canceled while waiting for connection)( \(Client\.Timeout exceeded while awaiting headers\))?`)
	loopback  = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	namespace = regexp.MustCompile(`serviceaccount:(test-[0-9a-f]{8}|default):`)
)

func normalize(s string) string {
	s = klogTime.ReplaceAllString(s, "${1}MMDD hh:mm:ss.uuuuuu PID ")
	s = loopback.ReplaceAllString(s, "127.0.0.1:PORT")
	s = timedOut.ReplaceAllString(s, "TIMED OUT")
	return namespace.ReplaceAllString(s, "serviceaccount:NAMESPACE:")
}

// TestMeasureKubectlFrozen measures how long real kubectl takes to give up on a frozen API server
// (SIGSTOP) with and without a discovery cache, for a few --request-timeout values, and logs the
// table docs/node-sources.md quotes. It only measures: run it with CKS_DRIFT_MEASURE_KUBECTL=1.
func TestMeasureKubectlFrozen(t *testing.T) {
	if os.Getenv("CKS_DRIFT_MEASURE_KUBECTL") == "" {
		t.Skip("a measurement, not a test: set CKS_DRIFT_MEASURE_KUBECTL=1")
	}
	cp := controlplanetest.Start(t, controlplanetest.Options{})
	cp.AddNodes(t, controlplanetest.Node{Name: "real-control-1", KubeletVersion: "v1.33.1"})
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin.conf")
	if err := os.WriteFile(admin, cp.AdminKubeconfig(), 0o600); err != nil {
		t.Fatal(err)
	}
	base := kubectlArgs(t)
	var args []string
	for _, a := range base {
		if !strings.HasPrefix(a, "--request-timeout=") {
			args = append(args, a)
		}
	}
	cached := filepath.Join(dir, "cached")
	if stderr, err := kubectlRun(t, cp, admin, cached, args...); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	cp.Freeze()
	defer cp.Resume()
	for _, timeout := range []string{"1s", "2s", "3s", "5s"} {
		for _, cache := range []string{"none", "fresh"} {
			c := cached
			if cache == "none" {
				c = filepath.Join(dir, "cold-"+timeout)
			}
			start := time.Now()
			stderr, err := kubectlRun(t, cp, admin, c, append(args, "--request-timeout="+timeout)...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			t.Logf("--request-timeout=%s, discovery cache %s: exit after %.1f s (%v), %d lines, last: %s",
				timeout, cache, time.Since(start).Seconds(), err, len(lines), lines[len(lines)-1])
			t.Logf("stderr:\n%s", stderr)
		}
	}
}

// TestFakeKubectlAnswersAsRealKubectl runs the kubectl of make kube-tools against a real
// kube-apiserver holding the fake's nodes, and the fake control node's kubectl on the same
// commands: what each prints on stdout and stderr and its exit status are the same, for every
// output the exporter may be configured to parse and for kubectl's refusals. (The table and its
// wide form are left out: real nodes without a kubelet are NotReady and have their own ages; so
// is an unknown format, whose list of the formats kubectl knows grows with its releases.)
func TestFakeKubectlAnswersAsRealKubectl(t *testing.T) {
	cp := controlplanetest.Start(t, controlplanetest.Options{})
	nodes := []node{{name: "demo-control-1", version: "v1.33.1"}, {name: "demo-node-2", version: "v1.32.4", index: 1}}
	for _, n := range nodes {
		cp.AddNodes(t, controlplanetest.Node{Name: n.name, KubeletVersion: n.version})
	}
	cache := filepath.Join(t.TempDir(), "cache")
	for _, args := range []string{
		"get nodes -o name",
		"get no --output=name demo-node-2",
		"get nodes --no-headers -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion --request-timeout=5s",
		"get nodes -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion",
		"get nodes -o custom-columns=NAME:.metadata.name,ZONE:.metadata.labels.zone --no-headers",
		"get nodes -o name ghost",
		"get nodes --all",
		"get nodes -x",
		"get nodes -o",
		"get nodes --no-headers=maybe",
		"get nodes -o custom-columns=NAME",
		"get widgets",
	} {
		t.Run(args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := cp.KubectlCommand(cache, strings.Fields(args)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			status := 0
			if err := cmd.Run(); err != nil {
				exitErr, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				status = exitErr.ExitCode()
			}
			call, refused := parseCommand("sudo /opt/bin/kubectl " + args)
			fake := answer{}
			if refused != nil {
				fake = *refused
			} else {
				fake = call.print(nodes)
			}
			real := answer{stdout: stdout.String(), stderr: stderr.String(), status: uint32(status)}
			if diff := cmp.Diff(real, fake, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("kubectl %s: the fake differs from real kubectl (-real +fake):\n%s", args, diff)
			}
		})
	}
}
