package api

import (
	"fmt"
	"strings"
	"testing"
)

// TestListUntilShort pages clusters the way 4.14 to 4.20 count them (count = the page's length)
// and the way later releases do (count = the total), and refuses what cannot be told from a
// complete list: a count that is neither at the last page, more items than asked for, and a
// server that never sends a short page (bounded by maxPages).
func TestListUntilShort(t *testing.T) {
	pages := func(total int, count func(page, items int) int) func(p, size int) (int, []int, error) {
		return func(p, size int) (int, []int, error) {
			var items []int
			for i := (p - 1) * size; i < total && i < p*size; i++ {
				items = append(items, i)
			}
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
		}, wantErr: fmt.Sprintf("still full pages after %d pages of 3", maxPages)},
		{name: "a panicking SDK call", fetch: func(int, int) (int, []int, error) { panic("index out of range") },
			wantErr: "cloudstack-go cannot read the answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := listUntilShort("kubernetes clusters", 3, tt.fetch)
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
