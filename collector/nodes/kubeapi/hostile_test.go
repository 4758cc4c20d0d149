package kubeapi

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The API server belongs to the tenant. These tests play a hostile one: whatever it answers,
// the lister gives no nodes, labels the failure, and sends nothing anywhere else.

// sink is a plain-HTTP server that records every request it gets: where a redirect points.
type sink struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []string // "METHOD URL Authorization"
}

func newSink(t *testing.T, addr string) *sink {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, r.Method+" "+r.URL.String()+" "+r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		// What the tenant would have the exporter take for the node list.
		_, _ = io.WriteString(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"from-the-redirect-target"}}]}`)
	}))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sink) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// TestRedirectsAreNeverFollowed: a 3xx from the API server, to a plain-HTTP server on loopback,
// to another loopback address or to CloudStack's own endpoint with a query of the tenant's
// choice, is an unreadable node side (bad_output); nothing is sent to the address it names, so
// neither the token nor a request of the tenant's choosing leaves, and no node comes from the
// target's answer.
func TestRedirectsAreNeverFollowed(t *testing.T) {
	local := newSink(t, "127.0.0.1:0")
	other := newSink(t, "127.0.0.2:0")
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, target := range []struct {
			name string
			url  func(r *rig) string
			sent func(r *rig) int
		}{
			{"plain http on loopback", func(*rig) string { return local.srv.URL + "/api/v1/nodes" }, func(*rig) int { return len(local.requests()) }},
			{"another loopback address", func(*rig) string { return other.srv.URL + "/latest/meta-data/" }, func(*rig) int { return len(other.requests()) }},
			{"the CloudStack endpoint", func(r *rig) string { return r.cs.Endpoint() + "?command=listUsers&listall=true&response=json" },
				func(r *rig) int { return r.cs.CallCount("listUsers") }},
		} {
			t.Run(fmt.Sprintf("%d to %s", code, target.name), func(t *testing.T) {
				r := newRig(t, threeNodes...)
				cred := r.api.NewToken(true)
				r.serve(t, cred)
				to := target.url(r)
				r.api.SetAnswer(func(w http.ResponseWriter, req *http.Request) { http.Redirect(w, req, to, code) })
				nodes, err := r.lister(t).Nodes(context.Background(), r.cluster)
				if nodes != nil || Reason(err) != reasonBadAnswer {
					t.Fatalf("Nodes = %v, %v (reason %q), want no nodes and reason %q", nodes, err, Reason(err), reasonBadAnswer)
				}
				if n := target.sent(r); n != 0 {
					t.Errorf("the redirect target got %d requests, want none", n)
				}
				for _, got := range append(local.requests(), other.requests()...) {
					if strings.Contains(got, cred.Token) {
						t.Errorf("the token left for the redirect target: %s", got)
					}
				}
				if len(r.api.Requests()) == 0 {
					t.Error("the API server got no request: the test proves nothing")
				}
			})
		}
	}
	if got := append(local.requests(), other.requests()...); len(got) != 0 {
		t.Errorf("the sinks got %q, want nothing", got)
	}
}

// TestHostileAnswers: answers no real API server gives. Each ends in a labelled failure within
// its bound, without nodes.
func TestHostileAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer http.HandlerFunc
		reason string
	}{
		{"endless continue tokens", func(w http.ResponseWriter, r *http.Request) {
			// Every page has a new node and a new token; the list never ends by itself.
			n := len(r.URL.Query().Get("continue"))
			fmt.Fprintf(w, `{"kind":"NodeList","metadata":{"continue":"%s"},"items":[{"metadata":{"name":"page-%d"}}]}`, strings.Repeat("c", n+1), n)
		}, reasonTooMany},
		{"endless continue tokens, no nodes", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"kind":"NodeList","metadata":{"continue":"again%d"},"items":[]}`, len(r.URL.RawQuery))
		}, reasonBadAnswer},
		{"a body that never ends", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"kind":"NodeList","items":[`)
			item := []byte(`{"metadata":{"name":"x"},"status":{"images":[{"names":["` + strings.Repeat("i", 4<<10) + `"],"sizeBytes":1}]}},`)
			for {
				if _, err := w.Write(item); err != nil {
					return
				}
			}
		}, reasonTooLarge},
		{"one string that never ends", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"kind":"NodeList","items":[{"metadata":{"name":"x","annotations":{"a":"`)
			chunk := []byte(strings.Repeat("a", 64<<10))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, reasonTooLarge},
		{"deep JSON", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"kind":"NodeList","items":[{"metadata":{"name":"x"},"status":{"deep":`+strings.Repeat("[", 1<<20)+strings.Repeat("]", 1<<20)+`}}]}`)
		}, reasonBadAnswer},
		// The kept fields of a node are bounded like its name: 1,000 nodes with a systemUUID and a
		// kubeletVersion of 1 MiB each (under the token bound) once kept 2 GB for one cluster. (A
		// kubeletVersion past collector.MaxVersionBytes is dropped as unknown: TestListNodesVersions.)
		{"a systemUUID of 1 MiB", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, `{"kind":"NodeList","items":[{"metadata":{"name":"x"},"status":{"nodeInfo":{"systemUUID":"%s"}}}]}`, strings.Repeat("u", 1<<20-64))
		}, reasonBadAnswer},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "<html>hello</html>") }, reasonBadAnswer},
		{"items of the wrong type", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"items":{"metadata":{"name":"x"}}}`)
		}, reasonBadAnswer},
		{"more after the list", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"items":[{"metadata":{"name":"x"}}]}{"items":[{"metadata":{"name":"y"}}]}`)
		}, reasonBadAnswer},
		{"always 401", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
		}, reasonAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, threeNodes...)
			r.serve(t, r.api.NewToken(true))
			r.api.SetAnswer(tc.answer)
			// Decoding up to the page cap takes seconds with the race detector: the timeout must
			// not be what ends the list.
			l := r.lister(t, func(o *Options) { o.Timeout = 2 * time.Minute })
			for range 3 {
				nodes, err := l.Nodes(context.Background(), r.cluster)
				if nodes != nil || Reason(err) != tc.reason {
					t.Fatalf("Nodes = %v, %v (reason %q), want no nodes and reason %q", nodes, err, Reason(err), tc.reason)
				}
			}
			// One list is at most max_nodes pages, and a refused credential costs one more
			// kubeconfig from CloudStack per list, never a loop.
			if n := len(r.api.Requests()); n > 3*(100+1) {
				t.Errorf("the API server got %d requests for 3 lists", n)
			}
			if n := r.configCalls(); n > 1+3 {
				t.Errorf("getKubernetesClusterConfig asked %d times for 3 lists", n)
			}
		})
	}
}

// TestMemoryFollowsNodesNotBytes: three nodes in an answer of 30 MiB (one node's status lists
// images until then, under the page cap and, at max_nodes 1,000, the list's bound). The list is
// read as a stream, so the heap stays far below the answer's size while it is read; reading it
// whole, as before, held it all at once.
func TestMemoryFollowsNodesNotBytes(t *testing.T) {
	const size = 30 << 20
	r := newRig(t, threeNodes...)
	r.serve(t, r.api.NewToken(true))
	r.api.SetAnswer(func(w http.ResponseWriter, _ *http.Request) {
		image := []byte(`{"names":["registry.k8s.io/hostile/image@sha256:` + strings.Repeat("0", 64) + `"],"sizeBytes":1},`)
		n, _ := fmt.Fprintf(w, `{"kind":"NodeList","items":[{"metadata":{"name":"%s"}},{"metadata":{"name":"%s"}},{"metadata":{"name":"%s"},"status":{"images":[`,
			threeNodes[0].Name, threeNodes[1].Name, threeNodes[2].Name)
		for n < size {
			m, err := w.Write(image)
			if err != nil {
				return
			}
			n += m
		}
		_, _ = io.WriteString(w, `{"names":[]}]}}]}`)
	})
	listWithinHeap(t, r, fmt.Sprintf("a %d MiB answer", size>>20))
}
