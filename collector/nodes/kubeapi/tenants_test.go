package kubeapi

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"
)

// A victim tenant and hostile ones in one lister, as a cycle lists their clusters at once: each
// hostile cluster's node side is unreadable with its reason, the victim's is read as usual, and
// what the hostile ones cost stays within a bound.

// tenants is a victim's cluster and hostile clusters of one fake CloudStack, each with its own
// API server.
type tenants struct {
	victim  *rig
	hostile []*rig
}

func newTenants(t *testing.T, hostile int) *tenants {
	t.Helper()
	cs, source := emptyCloud(t)
	ts := &tenants{}
	for i := range hostile + 1 {
		api, err := kubetest.NewServer()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(api.Close)
		api.SetNodes(threeNodes...)
		c := addCluster(cs, fmt.Sprintf("tenant%d", i), api.URL())
		r := &rig{cs: cs, api: api, source: source, cluster: c}
		r.serve(t, api.NewToken(true))
		if i == 0 {
			ts.victim = r
		} else {
			ts.hostile = append(ts.hostile, r)
		}
	}
	return ts
}

func (ts *tenants) lister(t *testing.T, change ...func(*Options)) *Lister {
	t.Helper()
	return ts.victim.lister(t, change...)
}

// listAll lists every cluster at once through l and checks that the victim's nodes are its own
// three and that every hostile cluster's node side is unreadable with reason.
func (ts *tenants) listAll(t *testing.T, l *Lister, reason string) {
	t.Helper()
	clusters := []collector.Cluster{ts.victim.cluster}
	for _, r := range ts.hostile {
		clusters = append(clusters, r.cluster)
	}
	nodes := make([][]string, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() { nodes[i], errs[i] = l.Nodes(context.Background(), c) })
	}
	wg.Wait()
	want := []string{threeNodes[0].Name, threeNodes[1].Name, threeNodes[2].Name}
	if errs[0] != nil || !slices.Equal(nodes[0], want) {
		t.Errorf("the victim's nodes = %v, %v, want %v", nodes[0], errs[0], want)
	}
	for i := 1; i < len(clusters); i++ {
		if nodes[i] != nil || Reason(errs[i]) != reason {
			t.Errorf("hostile cluster %d: Nodes = %v, %v (reason %q), want no nodes and reason %q", i, nodes[i], errs[i], Reason(errs[i]), reason)
		}
	}
}

// allocated returns the bytes the process allocated while f ran (whatever was freed since).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestKubeconfigAliasBomb: four tenants whose control nodes wrote a kubeconfig with 7.6 KB of
// nested YAML aliases (about 1.1 GB each once clientcmd expanded them; four killed the exporter
// with a runtime out-of-memory). Refused before decoding, with kubeconfig_unavailable, from
// CloudStack and from kubeconfig_dir; the victim is listed as usual, and the whole test
// allocates a few MiB.
func TestKubeconfigAliasBomb(t *testing.T) {
	for _, from := range []string{"CloudStack", "kubeconfig_dir"} {
		t.Run(from, func(t *testing.T) {
			ts := newTenants(t, 4)
			dir := t.TempDir()
			for _, r := range ts.hostile {
				conf, err := r.api.Kubeconfig(r.api.NewToken(true))
				if err != nil {
					t.Fatal(err)
				}
				bomb := kubetest.AliasBomb(conf)
				if len(bomb) > maxKubeconfig/4 {
					t.Fatalf("the bomb is %d bytes: the size bound, not the aliases, would refuse it", len(bomb))
				}
				if from == "CloudStack" {
					r.cs.SetKubeconfig(r.cluster.ID, bomb)
				} else {
					if err := os.WriteFile(filepath.Join(dir, r.cluster.ID+".conf"), bomb, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			l := ts.lister(t, func(o *Options) { o.KubeconfigDir = dir })
			n := allocated(func() { ts.listAll(t, l, reasonKubeconfig) })
			t.Logf("allocated %.1f MiB", float64(n)/(1<<20))
			if n > 64<<20 {
				t.Errorf("listing allocated %d MiB, want at most 64", n>>20)
			}
			for _, r := range ts.hostile {
				if got := len(r.api.Requests()); got != 0 {
					t.Errorf("a hostile API server got %d requests, want none", got)
				}
			}
		})
	}
}

// TestKubeconfigYAMLBounds: what the kubeconfig check refuses and what it keeps.
func TestKubeconfigYAMLBounds(t *testing.T) {
	r := newRig(t, threeNodes...)
	plain := r.serve(t, r.api.NewToken(true))
	for _, tc := range []struct {
		name string
		conf []byte
		ok   bool
	}{
		{"kubeadm's admin.conf as clientcmd writes it", plain, true},
		{"an anchor without an alias", append(slices.Clone(plain), "x-a: &a 1\n"...), false},
		{"an alias in a second document", append(slices.Clone(plain), "---\na: &a [1]\nb: *a\n"...), false},
		{"a merge key", append(slices.Clone(plain), "x-a: &a {k: v}\nx-b: {<<: *a}\n"...), false},
		{"too many nodes", append(slices.Clone(plain), fmt.Sprintf("x-pad: [%s0]\n", strings.Repeat("0,", maxKubeconfigNodes))...), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := plainYAML(tc.conf)
			if (err == nil) != tc.ok || (err != nil && Reason(err) != reasonKubeconfig) {
				t.Errorf("plainYAML = %v (reason %q), want ok %v", err, Reason(err), tc.ok)
			}
		})
	}
}

// TestWhitespaceIsNotBuffered: an answer with 30 MiB of spaces before its first node, plain and
// under gzip (30 KiB on the wire), under the page's and, at max_nodes 1,000, the list's bound.
// The decoder once kept every space until the next token, about 90 MB a list; now the list is
// read and the heap stays far below that.
func TestWhitespaceIsNotBuffered(t *testing.T) {
	const spaces = 30 << 20
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip %v", compress), func(t *testing.T) {
			r := newRig(t, threeNodes...)
			r.serve(t, r.api.NewToken(true))
			r.api.SetAnswer(kubetest.SpacedList(threeNodes, spaces, compress))
			listWithinHeap(t, r, fmt.Sprintf("%d MiB of spaces", spaces>>20))
		})
	}
}

// TestListBytesBound: every byte read counts against (max_nodes + 1) × 64 KiB, whitespace
// included, after decompression. Four tenants answer a valid list of their three nodes after
// 10 MiB of spaces (under the page bound of 32 MiB, which alone let it through), plain or under
// gzip: at max_nodes 100 (6.3 MiB) each is output_too_large, and the victim is read.
func TestListBytesBound(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip %v", compress), func(t *testing.T) {
			ts := newTenants(t, 4)
			for _, r := range ts.hostile {
				r.api.SetAnswer(kubetest.SpacedList(threeNodes, 10<<20, compress))
			}
			ts.listAll(t, ts.lister(t, func(o *Options) { o.Timeout, o.MaxNodes = 2*time.Minute, 100 }), reasonTooLarge)
		})
	}
}

// TestHugeHeaders: four tenants answer their node list after 9.9 MB of short headers, which
// net/http's client takes by default (about 100 MB a cluster once). Headers over 64 KiB are
// output_too_large; the victim is read.
func TestHugeHeaders(t *testing.T) {
	ts := newTenants(t, 4)
	for _, r := range ts.hostile {
		r.api.SetAnswer(kubetest.HugeHeaders(threeNodes, 9_900_000))
	}
	ts.listAll(t, ts.lister(t), reasonTooLarge)
}

// TestErrorAnswerBounded: an error answer is read whole by client-go to find its Status, so it is
// cut at 64 KiB: a 403 with 30 MiB of message is output_too_large, not held.
func TestErrorAnswerBounded(t *testing.T) {
	ts := newTenants(t, 2)
	for _, r := range ts.hostile {
		r.api.SetAnswer(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":403,"message":"%s"}`, strings.Repeat("m", 30<<20))
		})
	}
	ts.listAll(t, ts.lister(t), reasonTooLarge)
}

// frameTenants points each hostile cluster's kubeconfig at a FrameServer that floods as flood
// says, and returns the servers.
func frameTenants(t *testing.T, ts *tenants, flood kubetest.Flood) []*kubetest.FrameServer {
	t.Helper()
	var out []*kubetest.FrameServer
	for _, r := range ts.hostile {
		fs, conf := kubetest.StartFrameServer(t, flood)
		r.cs.SetKubeconfig(r.cluster.ID, conf)
		out = append(out, fs)
	}
	return out
}

// TestGoAwayStorm: two tenants' API servers answer every HTTP/2 request with a GOAWAY that
// refuses it (once 6,052 TLS handshakes and requests in 10 s from one cluster, each with the
// token). The client speaks HTTP/1.1 only, where such a server can only drop the connection:
// one list makes at most maxConns connections and requests, with no retry by net/http or
// client-go, and the victim is read.
func TestGoAwayStorm(t *testing.T) {
	ts := newTenants(t, 2)
	servers := frameTenants(t, ts, kubetest.GoAway)
	ts.listAll(t, ts.lister(t), reasonOther)
	for i, fs := range servers {
		protocols := fs.Protocols()
		if len(protocols) > maxConns || fs.Requests() > maxConns {
			t.Errorf("server %d: %d handshakes and %d requests for one list, want at most %d", i, len(protocols), fs.Requests(), maxConns)
		}
		if slices.Contains(protocols, "h2") || len(protocols) == 0 {
			t.Errorf("server %d: protocols %q, want HTTP/1.1 only", i, protocols)
		}
	}
}

// TestFrameFloods: API servers that flood an HTTP/2 client with PING or SETTINGS frames, each of
// which it must answer (once about 7 s of the exporter's CPU per 10 s and cluster). The client
// never speaks HTTP/2 to them: each handshake negotiates HTTP/1.1, and the list ends at once.
func TestFrameFloods(t *testing.T) {
	for _, flood := range []kubetest.Flood{kubetest.Pings, kubetest.Settings} {
		t.Run(fmt.Sprint(flood), func(t *testing.T) {
			ts := newTenants(t, 2)
			servers := frameTenants(t, ts, flood)
			ts.listAll(t, ts.lister(t), reasonOther)
			for i, fs := range servers {
				if protocols := fs.Protocols(); slices.Contains(protocols, "h2") || len(protocols) == 0 || len(protocols) > maxConns {
					t.Errorf("server %d: protocols %q, want HTTP/1.1 at most %d times", i, protocols, maxConns)
				}
			}
		})
	}
}
