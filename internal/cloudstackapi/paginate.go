package cloudstackapi

import (
	"fmt"
	"time"
)

// Count says what the count of a list command's answer means, and so when its listing ends. The
// SDK does not paginate; whatever the count, a sequence of pages that does not add up is an
// error, never a short list, so that a cut answer is never taken for a cloud with fewer clusters
// or VMs.
type Count int

const (
	// Total: count is the total on every page. The listing ends once it holds count items; the
	// count must not change while paging, and a page may not be empty before it is reached.
	Total Count = iota
	// PageOrTotal: count is the items on this page on some releases and the total on others, so
	// the listing ends at a page shorter than asked for (an empty page included), and count is
	// only checked where it can only be a total: on the last page it must equal that page's
	// length or every item read. A count larger than its page's length can only be a total too:
	// then the listing ends as soon as it holds count items, without asking for the empty page
	// after a full last one. A page larger than asked for is an error.
	PageOrTotal
	// Unread: count is not read. The listing ends at a page of other than the size asked for
	// (shorter, or larger: a release that does not page), or, with an ID, at a page that adds no
	// new id (one that repeats the whole list).
	Unread
)

// MaxPages bounds a listing that does not trust count: a server that keeps answering full pages
// of new items ends the listing with an error after this many pages, instead of never.
const MaxPages = 10000

// Listing describes the paging of one list command.
type Listing[T, R any] struct {
	What  string // what is listed, for errors: "list <What>, page 2: ..."
	Size  int    // the page size asked for
	Count Count
	// MaxPages bounds the pages; 0 is MaxPages, except for a Total, whose count bounds them.
	MaxPages int
	// ID, with Unread, keeps each item once (an item without an id is dropped), and a page that
	// adds no new id ends the listing.
	ID func(T) string
	// Until, if set, makes the listing a search: it ends at the first page Until holds for, and at
	// MaxPages without an error, since what it looks for is then not there.
	Until func(page []T) bool
	// Request asks CloudStack for a page and Decode reads the answer: once a total is known, the
	// next page is requested as soon as an answer has arrived, while that answer is decoded.
	Request func(page, size int) (R, error)
	Decode  func(R) (count int, items []T, err error)
}

// List pages through a command as l describes. CloudStack still gets one request at a time, and
// the time spent decoding hides behind the next request's latency. It asks for the pages the
// count needs and no more: a page is asked ahead only while a total is known and every page so
// far was full. Each SDK call runs under Guard, and its errors are redacted and hinted.
func List[T, R any](l Listing[T, R]) ([]T, error) {
	type answer struct {
		raw R
		err error
	}
	ask := func(p int) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			var a answer
			a.err = Guard(func() (err error) { a.raw, err = l.Request(p, l.Size); return err })
			ch <- a
		}()
		return ch
	}
	bound := l.MaxPages
	if bound == 0 && l.Count != Total {
		bound = MaxPages
	}
	s := &pager[T, R]{Listing: l, total: -1, seen: make(map[string]bool)}
	next := ask(1)
	for p := 1; ; p++ {
		a := <-next
		next = nil
		if a.err != nil {
			return nil, fmt.Errorf("list %s, page %d: %w", l.What, p, Hint(Redact(a.err)))
		}
		if s.total >= 0 && len(s.all)+l.Size < s.total && s.read == (p-1)*l.Size && (bound == 0 || p < bound) {
			next = ask(p + 1) // needed if this page is full, as every page so far was
		}
		done, err := s.add(p, a.raw)
		if err == nil && !done && p == bound {
			if l.Until == nil {
				err = fmt.Errorf("list %s: still full pages after %d pages of %d", l.What, bound, l.Size)
			}
			done = true
		}
		if err != nil || done {
			if next != nil {
				<-next // asked ahead but not needed: wait for it, never leave a call running
			}
			if err != nil {
				return nil, err
			}
			return s.all, nil
		}
		if next == nil {
			next = ask(p + 1)
		}
	}
}

// pager is a listing between its pages.
type pager[T, R any] struct {
	Listing[T, R]
	all   []T
	read  int // the items of the pages so far, kept or not
	total int // the count, once it is known to be the total; -1 before
	seen  map[string]bool
}

// add decodes page p and adds its items as the count's meaning says; done says the listing ends
// with this page.
func (s *pager[T, R]) add(p int, raw R) (done bool, err error) {
	var count int
	var items []T
	if err := Guard(func() (err error) { count, items, err = s.Decode(raw); return err }); err != nil {
		return false, fmt.Errorf("list %s, page %d: %w", s.What, p, Hint(Redact(err)))
	}
	switch s.Count {
	case Total:
		done, err = s.addCounted(p, count, items)
	case PageOrTotal:
		done, err = s.addUntilShort(p, count, items)
	default:
		done = s.addUnread(items)
	}
	s.read += len(items)
	if err == nil && !done && s.Until != nil && s.Until(items) {
		done = true
	}
	return done, err
}

// addCounted adds a page of a listing whose count is the total.
func (s *pager[T, R]) addCounted(p, count int, items []T) (bool, error) {
	if len(items) == 0 && len(s.all) < s.total {
		// CloudStack answers a page past the end as {}, without a count: say what happened
		// rather than report the count as changed to 0.
		return false, fmt.Errorf("list %s: page %d is empty after %d of %d items", s.What, p, len(s.all), s.total)
	}
	if s.total >= 0 && count != s.total {
		return false, fmt.Errorf("list %s, page %d: count changed from %d to %d while paging", s.What, p, s.total, count)
	}
	s.all, s.total = append(s.all, items...), count
	switch {
	case len(s.all) == count:
		return true, nil
	case len(s.all) > count:
		return false, fmt.Errorf("list %s: %d items after page %d, but count is %d", s.What, len(s.all), p, count)
	case len(items) == 0:
		return false, fmt.Errorf("list %s: page %d is empty after %d of %d items", s.What, p, len(s.all), count)
	}
	return false, nil
}

// addUntilShort adds a page of a listing whose count is the page's length or the total.
func (s *pager[T, R]) addUntilShort(p, count int, items []T) (bool, error) {
	if len(items) > s.Size {
		return false, fmt.Errorf("list %s, page %d: %d items on a page of %d", s.What, p, len(items), s.Size)
	}
	s.all = append(s.all, items...)
	if count > len(items) {
		s.total = count
	}
	if s.total >= 0 && len(s.all) >= s.total && len(items) == s.Size {
		if len(s.all) > s.total {
			return false, fmt.Errorf("list %s: %d items after page %d, but count is %d", s.What, len(s.all), p, s.total)
		}
		return true, nil
	}
	if len(items) < s.Size {
		if count != len(items) && count != len(s.all) {
			return false, fmt.Errorf("list %s: the listing ended at %d items after page %d, but count is %d", s.What, len(s.all), p, count)
		}
		return true, nil
	}
	return false, nil
}

// addUnread adds a page of a listing whose count is not read.
func (s *pager[T, R]) addUnread(items []T) bool {
	added := 0
	for _, it := range items {
		if s.ID == nil {
			s.all = append(s.all, it)
			continue
		}
		if key := s.ID(it); key != "" && !s.seen[key] {
			s.seen[key] = true
			s.all = append(s.all, it)
			added++
		}
	}
	return len(items) != s.Size || (s.ID != nil && added == 0)
}

// Guard runs one SDK call and turns a panic into an error: cloudstack-go indexes into answers it
// has not checked (getRawValue panics on {"count":0,"x":[]}), and no answer, whoever sent it,
// may bring the exporter down.
func Guard(call func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cloudstack-go cannot read the answer: %v", r)
		}
	}()
	return call()
}

// dateLayout is how CloudStack writes dates: 2024-06-05T07:51:22+0000.
const dateLayout = "2006-01-02T15:04:05-0700"

// ParseDate reads a CloudStack date; one it cannot read is the zero time.
func ParseDate(s string) time.Time {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
