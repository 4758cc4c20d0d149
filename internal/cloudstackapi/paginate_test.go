package cloudstackapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestListPageOrTotal pages clusters the way 4.14 to 4.19.0.0 count them (count = the page's length)
// and the way later releases do (count = the total), and refuses what cannot be told from a
// complete list: a count that is neither at the last page, more items than asked for, and a
// server that never sends a short page (bounded by MaxPages).
func TestListPageOrTotal(t *testing.T) {
	pages := func(total int, count func(page, items int) int) func(p, size int) (int, []int, error) {
		return func(p, size int) (int, []int, error) {
			items := itemsOf(p, size, total)
			return count(p, len(items)), items, nil
		}
	}
	tests := []struct {
		name    string
		fetch   func(p, size int) (int, []int, error)
		want    int
		wantErr string
	}{
		{name: "count = page length", fetch: pages(7, func(_, n int) int { return n }), want: 7},
		{name: "count = page length, last page empty", fetch: pages(6, func(_, n int) int { return n }), want: 6},
		{name: "count = total", fetch: pages(7, func(_, n int) int {
			if n == 0 {
				return 0
			}
			return 7
		}), want: 7},
		{name: "count = total, last page full: no empty page asked for", fetch: func(p, size int) (int, []int, error) {
			if p > 2 {
				return 0, nil, fmt.Errorf("page %d asked for after 6 of 6 items", p)
			}
			return pages(6, func(int, int) int { return 6 })(p, size)
		}, want: 6},
		{name: "count = total, fewer than listed", fetch: pages(9, func(int, int) int { return 5 }),
			wantErr: "6 items after page 2, but count is 5"},
		{name: "count says more than was listed", fetch: pages(7, func(int, int) int { return 9 }),
			wantErr: "the listing ended at 7 items after page 3, but count is 9"},
		{name: "a page longer than asked", fetch: func(_, size int) (int, []int, error) {
			return size + 1, make([]int, size+1), nil
		}, wantErr: "4 items on a page of 3"},
		{name: "never a short page", fetch: func(p, size int) (int, []int, error) {
			return size, make([]int, size), nil
		}, wantErr: fmt.Sprintf("still full pages after %d pages of 3", MaxPages)},
		{name: "a panicking SDK call", fetch: func(int, int) (int, []int, error) { panic("index out of range") },
			wantErr: "cloudstack-go cannot read the answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := List(Listing[int, rawPage]{What: "kubernetes clusters", Size: 3, Count: PageOrTotal,
				Request: func(p, size int) (rawPage, error) {
					count, items, err := tt.fetch(p, size)
					return rawPage{page: p, count: count, items: items}, err
				},
				Decode: func(r rawPage) (int, []int, error) { return r.count, r.items, nil }})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || got != nil {
					t.Fatalf("got %d items, error %v; want no items and an error with %q", len(got), err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.want {
				t.Fatalf("got %d items, error %v; want %d", len(got), err, tt.want)
			}
		})
	}
}

// TestListHostile pages servers that do what no release does, under each meaning of the count:
// the listing ends with every item or an error, never a short list taken for a whole one (but
// where the count is the page's length, an empty page cannot be told from the end), asks no page
// past what it needs, and leaves no request running.
func TestListHostile(t *testing.T) {
	const n, size = 8, 3 // pages of 3, 3 and 2
	total := func(count func(p int) int) func(p, size int) (int, []int) {
		return func(p, size int) (int, []int) { return count(p), itemsOf(p, size, n) }
	}
	pageLength := func(items func(p, size int) []int) func(p, size int) (int, []int) {
		return func(p, size int) (int, []int) { i := items(p, size); return len(i), i }
	}
	honest := func(p, size int) []int { return itemsOf(p, size, n) }
	emptySecond := func(p, size int) []int { // page 2 is empty; the others are as they were
		if p == 2 {
			return nil
		}
		return itemsOf(p, size, n)
	}
	whole := func(int, int) []int { return itemsOf(1, n, n) } // every page is the whole list
	repeat := func(p, size int) []int {                       // page 2 repeats page 1
		if p == 2 {
			p = 1
		}
		return itemsOf(p, size, n)
	}
	endless := func(p, size int) []int { return itemsOf(p, size, p*size) } // full pages of new items
	countOf := func(items func(p, size int) []int, count int) func(p, size int) (int, []int) {
		return func(p, size int) (int, []int) { return count, items(p, size) }
	}
	tests := []struct {
		name     string
		count    Count
		maxPages int
		id       bool                           // ID keeps each item once (Unread)
		until    int                            // > 0: a search for this item
		answer   func(p, size int) (int, []int) // the server
		want     string                         // the items, or the error
		asked    string
	}{
		// count = the total: the count holds the listing to the items it says.
		{name: "total: honest", count: Total, answer: total(func(int) int { return n }),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1 2 3]"},
		{name: "total: count changes while paging", count: Total, answer: total(func(p int) int { return n + p/2 }),
			want: "list things, page 2: count changed from 8 to 9 while paging", asked: "[1 2 3]"},
		{name: "total: endless full pages overrun the count", count: Total, answer: countOf(endless, n),
			want: "list things: 9 items after page 3, but count is 8", asked: "[1 2 3]"},
		{name: "total: endless full pages, a count that grows with them", count: Total,
			answer: func(p, size int) (int, []int) { return p*size + 1, endless(p, size) },
			want:   "list things, page 2: count changed from 4 to 7 while paging", asked: "[1 2]"},
		{name: "total: full pages up to a count of 30: exactly the pages it needs", count: Total, answer: countOf(endless, 30),
			want: fmt.Sprint(itemsOf(1, 30, 30)), asked: "[1 2 3 4 5 6 7 8 9 10]"},
		{name: "total: the page bound, when set, holds too", count: Total, maxPages: 4, answer: countOf(endless, 30),
			want: "list things: still full pages after 4 pages of 3", asked: "[1 2 3 4]"},
		{name: "total: an empty page before the count", count: Total, answer: countOf(emptySecond, n),
			want: "list things: page 2 is empty after 3 of 8 items", asked: "[1 2 3]"},
		{name: "total: a page larger than asked that holds the count", count: Total, answer: countOf(whole, n),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1]"},
		{name: "total: a page repeating the previous one is kept (the scopes refuse an item listed twice)", count: Total,
			answer: countOf(repeat, n), want: "[0 1 2 0 1 2 6 7]", asked: "[1 2 3]"},

		// count = the page's length (4.14 to 4.19.0.0) or the total (4.19.1.0 on): a short page ends the
		// listing, and a total is checked where it shows.
		{name: "page length: honest", count: PageOrTotal, answer: pageLength(honest),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1 2 3]"},
		{name: "total: honest, pages asked ahead", count: PageOrTotal, answer: total(func(int) int { return n }),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1 2 3]"},
		{name: "total: count changes while paging", count: PageOrTotal, answer: total(func(p int) int { return n + p/2 }),
			want: "list things: the listing ended at 8 items after page 3, but count is 9", asked: "[1 2 3]"},
		{name: "page length: endless full pages end at the bound", count: PageOrTotal, answer: pageLength(endless),
			want: fmt.Sprintf("list things: still full pages after %d pages of 3", MaxPages), asked: fmt.Sprint(pageNumbers(MaxPages))},
		{name: "page length: an empty page cannot be told from the end", count: PageOrTotal, answer: pageLength(emptySecond),
			want: "[0 1 2]", asked: "[1 2]"},
		{name: "total: an empty page before the count", count: PageOrTotal, answer: countOf(emptySecond, n),
			want: "list things: the listing ended at 3 items after page 2, but count is 8", asked: "[1 2 3]"},
		{name: "a page larger than asked", count: PageOrTotal, answer: pageLength(whole),
			want: "list things, page 1: 8 items on a page of 3", asked: "[1]"},
		{name: "page length: a page repeating the previous one is kept (the scopes refuse it)", count: PageOrTotal,
			answer: pageLength(repeat), want: "[0 1 2 0 1 2 6 7]", asked: "[1 2 3]"},

		// count not read, each id kept once (listKubernetesSupportedVersions).
		{name: "unread: honest", count: Unread, id: true, answer: pageLength(honest),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1 2 3]"},
		{name: "unread: a count that changes is not read", count: Unread, id: true, answer: total(func(p int) int { return n + p/2 }),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1 2 3]"},
		{name: "unread: endless full pages end at the bound", count: Unread, id: true, maxPages: 5, answer: pageLength(endless),
			want: "list things: still full pages after 5 pages of 3", asked: "[1 2 3 4 5]"},
		{name: "unread: an empty page ends the listing", count: Unread, id: true, answer: pageLength(emptySecond),
			want: "[0 1 2]", asked: "[1 2]"},
		{name: "unread: a page larger than asked is a release that does not page", count: Unread, id: true,
			answer: pageLength(whole), want: "[0 1 2 3 4 5 6 7]", asked: "[1]"},
		{name: "unread: a page repeating the previous one ends the listing", count: Unread, id: true,
			answer: pageLength(repeat), want: "[0 1 2]", asked: "[1 2]"},
		{name: "unread: a full list on every page (4.14.0.0's versions)", count: Unread, id: true,
			answer: pageLength(func(int, int) []int { return itemsOf(1, size, size) }), want: "[0 1 2]", asked: "[1 2]"},

		// count not read, a search for one item (listEvents): the bound ends it without an error.
		{name: "search: found on page 2", count: Unread, maxPages: 3, until: 4, answer: total(func(int) int { return 1000 }),
			want: "[0 1 2 3 4 5]", asked: "[1 2]"},
		{name: "search: not in the pages of the bound", count: Unread, maxPages: 3, until: 99, answer: pageLength(endless),
			want: "[0 1 2 3 4 5 6 7 8]", asked: "[1 2 3]"},
		{name: "search: not in the list", count: Unread, maxPages: 3, until: 99, answer: pageLength(honest),
			want: "[0 1 2 3 4 5 6 7]", asked: "[1 2 3]"},
		{name: "search: an empty page ends it", count: Unread, maxPages: 3, until: 99, answer: pageLength(emptySecond),
			want: "[0 1 2]", asked: "[1 2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps := newPages(0, size)
			ps.answer = tt.answer
			l := Listing[int, rawPage]{What: "things", Size: size, Count: tt.count, MaxPages: tt.maxPages, Request: ps.request,
				Decode: func(r rawPage) (int, []int, error) { return r.count, r.items, nil }}
			if tt.id {
				l.ID = strconv.Itoa
			}
			if tt.until > 0 {
				l.Until = func(page []int) bool { return slices.Contains(page, tt.until) }
			}
			got, err := List(l)
			if err != nil {
				if err.Error() != tt.want || got != nil {
					t.Errorf("List = %v, %v; want %s", got, err, tt.want)
				}
			} else if fmt.Sprint(got) != tt.want {
				t.Errorf("List = %v; want %s", got, tt.want)
			}
			ps.mu.Lock()
			defer ps.mu.Unlock()
			if asked := fmt.Sprint(ps.asked); asked != tt.asked || ps.inFlight != 0 || ps.peak != 1 {
				t.Errorf("asked %.80s, %d still in flight, %d at once; want %.80s, 0, 1", asked, ps.inFlight, ps.peak, tt.asked)
			}
		})
	}
}

// pageNumbers is 1, 2, ... n.
func pageNumbers(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
