// Package cloudstacktest runs a fake Apache CloudStack API server on loopback that speaks the real wire protocol.
package cloudstacktest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// Default credentials of a new Server.
const (
	DefaultAPIKey    = "test-api-key"
	DefaultSecretKey = "test-secret-key"
)

// Server is a fake CloudStack management server. It answers as the root admin of account
// "admin" in domain ROOT, from the World a test builds. Its methods are safe for concurrent use:
// a test can change the world, faults or latency while a client is in the middle of a request.
type Server struct {
	apiKey string
	secret string

	ts        *httptest.Server // nil for servers made with NewUnstarted
	done      chan struct{}    // closed by Close so that delayed answers give up
	closeOnce sync.Once

	mu                      sync.Mutex
	answerBytes             atomic.Int64 // bytes of every answer body written
	world                   *World
	calls                   []Call
	callSeq                 uint64
	faults                  map[string]*Fault // by lower-cased command, "" for all
	latency                 time.Duration
	jobPolls                int
	jobs                    map[string]*job
	listAllIncludesAccounts bool
	recorded                map[string][]byte // by command: a recorded answer to replay
	inFlight, maxInFlight   int               // requests being answered now, and the most at once
}

// NewServer starts a Server on 127.0.0.1 with the default credentials and an empty world.
func NewServer() *Server {
	s := NewUnstarted()
	s.ts = httptest.NewServer(s)
	return s
}

// NewServerOn serves the fake on l, a listener the caller chose (the demo binary listens on a
// fixed port); Close closes it.
func NewServerOn(l net.Listener) *Server {
	s := NewUnstarted()
	s.ts = httptest.NewUnstartedServer(s)
	_ = s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.Start()
	return s
}

// NewUnstarted returns a Server that listens nowhere: serve Handler() yourself (for instance
// behind your own http.Server or mux). Endpoint is then empty, and Close only stops delayed
// answers.
func NewUnstarted() *Server {
	return &Server{
		apiKey: DefaultAPIKey,
		secret: DefaultSecretKey,
		done:   make(chan struct{}),
		world:  &World{VMs: make(map[int64]*VM), MaxPageSize: DefaultPageSize},
		faults: make(map[string]*Fault),
		jobs:   make(map[string]*job),
	}
}

// Handler returns the API handler; it answers on any path, as the real /client/api does.
func (s *Server) Handler() http.Handler { return s }

// Endpoint is the URL to give cloudstack.NewAsyncClient, e.g. http://127.0.0.1:PORT/client/api.
func (s *Server) Endpoint() string {
	if s.ts == nil {
		return ""
	}
	return s.ts.URL + "/client/api"
}

// APIKey returns the API key the server accepts.
func (s *Server) APIKey() string { return s.apiKey }

// SecretKey returns the secret requests must be signed with.
func (s *Server) SecretKey() string { return s.secret }

// Close stops the server. Answers waiting on a Delay or latency give up first, so Close never
// waits for them.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	if s.ts != nil {
		s.ts.Close()
	}
}

// Update runs fn on the world under the server's lock, so no request sees a half-made change.
// fn must not call other Server methods.
func (s *Server) Update(fn func(w *World)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.world.sortedValid = false
	fn(s.world)
}

// Read runs fn on the world under the server's lock. fn must not keep pointers into the world
// past its return, nor call other Server methods.
func (s *Server) Read(fn func(w *World)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.world)
}

// SetListAllIncludesAccounts makes listall=true&projectid=-1 return account resources as well as
// project ones, as the ACL code of recent CloudStack (ListAllIncludingProjectResources) does;
// older releases, and this fake by default, return project resources only. A client that
// enumerates twice (without and with projectid=-1) must not count those resources twice.
func (s *Server) SetListAllIncludesAccounts(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listAllIncludesAccounts = on
}

// wait sleeps for d unless the request is cancelled or the server closes; it reports whether
// the full time passed.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}
