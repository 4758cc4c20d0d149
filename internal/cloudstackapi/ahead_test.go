package cloudstackapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// pages is a listing of n items in pages, as CloudStack answers it, recording the requests.
type pages struct {
	n, size int
	count   func(page int) int // the count an answer reports; nil: n
	// answer, when set, is the whole answer to a page: a server that pages as it likes.
	answer func(page, size int) (count int, items []int)

	mu       sync.Mutex
	inFlight int
	peak     int
	asked    []int
	started  map[int]chan struct{} // closed when page p's request starts
	fail     map[int]error
	panics   map[int]bool
}

func newPages(n, size int) *pages {
	return &pages{n: n, size: size, started: make(map[int]chan struct{}), fail: map[int]error{}, panics: map[int]bool{}}
}

func (ps *pages) startedCh(p int) chan struct{} {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.started[p] == nil {
		ps.started[p] = make(chan struct{})
	}
	return ps.started[p]
}

type rawPage struct {
	page, count int
	items       []int
}

func (ps *pages) request(p, size int) (rawPage, error) {
	ch := ps.startedCh(p)
	ps.mu.Lock()
	ps.inFlight++
	ps.peak = max(ps.peak, ps.inFlight)
	ps.asked = append(ps.asked, p)
	ps.mu.Unlock()
	close(ch)
	defer func() { ps.mu.Lock(); ps.inFlight--; ps.mu.Unlock() }()
	if ps.panics[p] {
		var answers []json.RawMessage
		_ = answers[len(answers)] // cloudstack-go indexes into answers it has not checked
	}
	if err := ps.fail[p]; err != nil {
		return rawPage{}, err
	}
	if ps.answer != nil {
		count, items := ps.answer(p, size)
		return rawPage{page: p, count: count, items: items}, nil
	}
	count := ps.n
	if ps.count != nil {
		count = ps.count(p)
	}
	return rawPage{page: p, count: count, items: itemsOf(p, size, ps.n)}, nil
}

// itemsOf is page p of n items 0, 1, ... in pages of size.
func itemsOf(p, size, n int) []int {
	var items []int
	for i := (p - 1) * size; i < min(p*size, n); i++ {
		items = append(items, i)
	}
	return items
}

// TestListAsksForTheNextPageWhileDecoding: once the count is known, page p+1 is requested
// while page p is decoded (the decode of p waits until that request has started: without the
// overlap this test would never end), one request at a time, and no page past the count.
func TestListAsksForTheNextPageWhileDecoding(t *testing.T) {
	t.Parallel()
	ps := newPages(23, 5) // 5 pages, the last one short
	got, err := List(Listing[int, rawPage]{What: "things", Size: 5, Count: Total, Request: ps.request, Decode: func(r rawPage) (int, []int, error) {
		if r.page >= 2 && r.page < 5 {
			<-ps.startedCh(r.page + 1) // decoding overlaps the next request
		}
		return r.count, r.items, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 23 || got[22] != 22 {
		t.Fatalf("got %d items: %v", len(got), got)
	}
	if fmt.Sprint(ps.asked) != "[1 2 3 4 5]" || ps.peak != 1 {
		t.Errorf("pages asked %v with %d at once; want [1 2 3 4 5] one at a time", ps.asked, ps.peak)
	}
}

// Errors of the listing, with the page asked ahead waited for and no page asked beyond it.
func TestListAheadErrors(t *testing.T) {
	t.Parallel()
	decode := func(r rawPage) (int, []int, error) { return r.count, r.items, nil }
	for _, tc := range []struct {
		name  string
		setup func(*pages)
		want  string
		asked string
	}{
		{"the page asked ahead fails", func(ps *pages) { ps.fail[3] = errors.New("connection reset") }, "list things, page 3: connection reset", "[1 2 3]"},
		{"the SDK panics on an answer", func(ps *pages) { ps.panics[2] = true }, "list things, page 2: cloudstack-go cannot read the answer", "[1 2]"},
		{"the count changes while paging", func(ps *pages) { ps.count = func(p int) int { return map[bool]int{true: 23, false: 24}[p < 3] } },
			"list things, page 3: count changed from 23 to 24 while paging", "[1 2 3 4]"},
		{"the count is larger than the listing", func(ps *pages) { ps.count = func(int) int { return 30 } }, "list things: page 6 is empty after 23 of 30 items", "[1 2 3 4 5 6]"},
		{"the count is smaller than the listing", func(ps *pages) { ps.count = func(int) int { return 7 } }, "list things: 10 items after page 2, but count is 7", "[1 2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := newPages(23, 5)
			tc.setup(ps)
			got, err := List(Listing[int, rawPage]{What: "things", Size: 5, Count: Total, Request: ps.request, Decode: decode})
			if err == nil || !strings.Contains(err.Error(), tc.want) || got != nil {
				t.Errorf("List = %v, %v; want an error with %q", got, err, tc.want)
			}
			ps.mu.Lock()
			defer ps.mu.Unlock()
			if fmt.Sprint(ps.asked) != tc.asked || ps.inFlight != 0 || ps.peak != 1 {
				t.Errorf("asked %v, %d still in flight, %d at once; want %s, 0, 1", ps.asked, ps.inFlight, ps.peak, tc.asked)
			}
		})
	}
}
