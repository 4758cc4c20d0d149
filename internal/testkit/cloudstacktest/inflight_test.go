package cloudstacktest

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestMaxInFlight: requests held by a delay overlap and are counted as such; the count falls back
// when they end, which ResetCalls shows, and a lone request afterwards is one in flight.
func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	if got := s.MaxInFlight(); got != 0 {
		t.Fatalf("MaxInFlight of a new server = %d, want 0", got)
	}
	s.SetFault("listAlerts", Fault{Delay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const held = 3
	var wg sync.WaitGroup
	for range held {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint()+"?command=listAlerts", nil)
			if err != nil {
				t.Error(err)
				return
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		})
	}
	awaitCondition(t, "three held requests in flight", func() bool { return s.MaxInFlight() == held })
	cancel()
	wg.Wait()
	s.ClearFaults()
	awaitCondition(t, "the held requests answered", func() bool {
		s.ResetCalls()
		return s.MaxInFlight() == 0
	})
	if status, _, _ := rawCall(t, s, url.Values{"command": {"listAlerts"}}); status != http.StatusOK {
		t.Fatalf("listAlerts answered %d", status)
	}
	if got := s.MaxInFlight(); got != 1 {
		t.Errorf("MaxInFlight after one lone request = %d, want 1", got)
	}
}

// awaitCondition polls cond until it holds, failing the test after a minute.
func awaitCondition(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
