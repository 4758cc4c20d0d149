package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/logtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// Bounds of the test's waits. Every wait polls; none is a fixed sleep.
const (
	startTimeout = 30 * time.Second // a process answering /-/ready
	waitTimeout  = 60 * time.Second // an alert or a notification
	stopTimeout  = 10 * time.Second // a process ending after SIGTERM
	pollEvery    = 100 * time.Millisecond
)

// tools are the Debian programs the test runs.
type tools struct {
	prometheus, alertmanager, promtool, amtool string
}

// requireTools finds the programs, skipping the test when one is missing, or failing it when
// CI is set, so that a CI machine without them cannot pass silently.
func requireTools(t *testing.T) tools {
	t.Helper()
	tl := tools{"/usr/bin/prometheus", "/usr/bin/prometheus-alertmanager", "/usr/bin/promtool", "/usr/bin/amtool"}
	for _, p := range []string{tl.prometheus, tl.alertmanager, tl.promtool, tl.amtool} {
		tooltest.Require(t, p, "apt-get install prometheus prometheus-alertmanager")
	}
	return tl
}

// runTool runs a checking command and fails the test with its output if it fails.
func runTool(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// proc is a program started by the test, stopped when the test ends; its output is printed if
// the test failed.
type proc struct {
	name string
	addr string // --web.listen-address
	cmd  *exec.Cmd
	out  *logtest.Buffer
	done chan struct{}
	err  error // of Wait, once done is closed
}

func startProc(t *testing.T, name, addr, path string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, addr: addr, out: &logtest.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(path, args...)
	p.cmd.Dir = t.TempDir()
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("--- output of %s:\n%s", name, p.out)
		}
	})
	waitUntil(t, startTimeout, name+" to answer /-/ready", func() (bool, string) {
		select {
		case <-p.done:
			t.Fatalf("%s exited before it was ready: %v\n%s", name, p.err, p.out)
		default:
		}
		code, _, err := get("http://" + addr + "/-/ready")
		return err == nil && code == http.StatusOK, fmt.Sprint(code, err)
	})
	return p
}

// stop sends SIGTERM, waits a bounded time, then kills.
func (p *proc) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		t.Errorf("%s did not stop within %v of SIGTERM; killed", p.name, stopTimeout)
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

var client = &http.Client{Timeout: 5 * time.Second}

// get returns the status and body of a GET.
func get(u string) (int, []byte, error) {
	resp, err := client.Get(u)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// getJSON decodes the JSON answer of a GET into v, failing the test if it cannot.
func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	code, body, err := get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", u, err, body)
	}
}

// waitUntil polls cond until it holds, failing the test after timeout with what it was
// waiting for and the last state cond described.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s; last seen: %s", timeout, what, state)
		}
		time.Sleep(pollEvery)
	}
}

// sample is one element of an instant vector.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant query on Prometheus. It returns the vector's samples; a scalar or
// string result is returned as one sample without labels.
func query(t *testing.T, prom, expr string) []sample {
	t.Helper()
	var resp struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	code, body, err := get("http://" + prom + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		t.Fatalf("query %q: %v", expr, err)
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Status != "success" {
		t.Fatalf("query %q: %d %s %v %s", expr, code, resp.Error, err, body)
	}
	switch resp.Data.ResultType {
	case "vector":
		var out []sample
		if err := json.Unmarshal(resp.Data.Result, &out); err != nil {
			t.Fatalf("query %q: %v", expr, err)
		}
		return out
	case "scalar", "string":
		var v [2]any
		if err := json.Unmarshal(resp.Data.Result, &v); err != nil {
			t.Fatalf("query %q: %v", expr, err)
		}
		return []sample{{Value: v}}
	default:
		t.Fatalf("query %q: unexpected result type %q", expr, resp.Data.ResultType)
		return nil
	}
}

// value is the sample's value as a string, as Prometheus sends it.
func (s sample) value() string {
	v, _ := s.Value[1].(string)
	return v
}

// promAlert is an alert of Prometheus' /api/v1/alerts.
type promAlert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
}

// alerts returns Prometheus' pending and firing alerts of the named alert rule.
func alerts(t *testing.T, prom, name string) []promAlert {
	t.Helper()
	var resp struct {
		Data struct {
			Alerts []promAlert `json:"alerts"`
		} `json:"data"`
	}
	getJSON(t, "http://"+prom+"/api/v1/alerts", &resp)
	var out []promAlert
	for _, a := range resp.Data.Alerts {
		if a.Labels["alertname"] == name {
			out = append(out, a)
		}
	}
	return out
}

// promRule is an alerting rule of Prometheus' /api/v1/rules.
type promRule struct {
	Name           string    `json:"name"`
	Health         string    `json:"health"`
	LastError      string    `json:"lastError"`
	LastEvaluation time.Time `json:"lastEvaluation"`
}

func alertRules(t *testing.T, prom string) []promRule {
	t.Helper()
	var resp struct {
		Data struct {
			Groups []struct {
				Rules []promRule `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	getJSON(t, "http://"+prom+"/api/v1/rules?type=alert", &resp)
	var out []promRule
	for _, g := range resp.Data.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// amAlert is an alert of Alertmanager's /api/v2/alerts.
type amAlert struct {
	Labels    map[string]string `json:"labels"`
	Receivers []struct {
		Name string `json:"name"`
	} `json:"receivers"`
}
