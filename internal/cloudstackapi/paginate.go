package cloudstackapi

import (
	"fmt"
	"time"
)

// Page fetches one page and returns CloudStack's total count with the page's items.
type Page[T any] func(page, size int) (count int, items []T, err error)

// ListAll loops over pages until it holds count items. The SDK does not paginate, and count is the
// total, not the page length; a sequence that does not add up is an error, never a short list,
// so that a cut answer is never taken for a cloud with fewer clusters or VMs.
func ListAll[T any](what string, size int, fetch Page[T]) ([]T, error) {
	type page struct {
		count int
		items []T
	}
	return ListAhead(what, size,
		func(p, size int) (page, error) { c, items, err := fetch(p, size); return page{c, items}, err },
		func(pg page) (int, []T, error) { return pg.count, pg.items, nil })
}

// ListAhead is ListAll with each page in two steps: request, which asks CloudStack for it, and
// decode, which reads the answer. Once the count is known, the next page is requested as soon
// as an answer has arrived, while that answer is decoded: CloudStack still gets one request at
// a time, and the time spent decoding hides behind the next request's latency. It asks for the
// pages the count needs and no more: a page is asked ahead only while every page so far was
// full.
func ListAhead[T, R any](what string, size int, request func(page, size int) (R, error), decode func(R) (int, []T, error)) ([]T, error) {
	type answer struct {
		raw R
		err error
	}
	ask := func(p int) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			var a answer
			a.err = Guard(func() (err error) { a.raw, err = request(p, size); return err })
			ch <- a
		}()
		return ch
	}
	var all []T
	total := -1
	next := ask(1)
	for p := 1; ; p++ {
		a := <-next
		next = nil
		if a.err != nil {
			return nil, fmt.Errorf("list %s, page %d: %w", what, p, Hint(Redact(a.err)))
		}
		if total >= 0 && len(all)+size < total && len(all) == (p-1)*size {
			next = ask(p + 1) // needed if this page is full, as every page so far was
		}
		var done bool
		var err error
		all, total, done, err = addPage(what, p, all, total, a.raw, decode)
		if err != nil || done {
			if next != nil {
				<-next // asked ahead but not needed: wait for it, never leave a call running
			}
			return all, err
		}
		if next == nil {
			next = ask(p + 1)
		}
	}
}

// addPage decodes page p and adds its items to all, checking them against the count, which
// must not change while paging; done says all holds every item.
func addPage[T, R any](what string, p int, all []T, total int, raw R, decode func(R) (int, []T, error)) (_ []T, _ int, done bool, _ error) {
	var count int
	var items []T
	if err := Guard(func() (err error) { count, items, err = decode(raw); return err }); err != nil {
		return nil, total, false, fmt.Errorf("list %s, page %d: %w", what, p, Hint(Redact(err)))
	}
	if len(items) == 0 && len(all) < total {
		// CloudStack answers a page past the end as {}, without a count: say what happened
		// rather than report the count as changed to 0.
		return nil, total, false, fmt.Errorf("list %s: page %d is empty after %d of %d items", what, p, len(all), total)
	}
	if total >= 0 && count != total {
		return nil, total, false, fmt.Errorf("list %s, page %d: count changed from %d to %d while paging", what, p, total, count)
	}
	all = append(all, items...)
	switch {
	case len(all) == count:
		return all, count, true, nil
	case len(all) > count:
		return nil, count, false, fmt.Errorf("list %s: %d items after page %d, but count is %d", what, len(all), p, count)
	case len(items) == 0:
		return nil, count, false, fmt.Errorf("list %s: page %d is empty after %d of %d items", what, p, len(all), count)
	}
	return all, count, false, nil
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
