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
	var all []T
	total := -1
	for p := 1; ; p++ {
		count, items, err := fetchPage(fetch, p, size)
		if err != nil {
			return nil, fmt.Errorf("list %s, page %d: %w", what, p, Hint(Redact(err)))
		}
		if len(items) == 0 && len(all) < total {
			// CloudStack answers a page past the end as {}, without a count: say what happened
			// rather than report the count as changed to 0.
			return nil, fmt.Errorf("list %s: page %d is empty after %d of %d items", what, p, len(all), total)
		}
		if total >= 0 && count != total {
			return nil, fmt.Errorf("list %s, page %d: count changed from %d to %d while paging", what, p, total, count)
		}
		total = count
		all = append(all, items...)
		switch {
		case len(all) == total:
			return all, nil
		case len(all) > total:
			return nil, fmt.Errorf("list %s: %d items after page %d, but count is %d", what, len(all), p, total)
		case len(items) == 0:
			return nil, fmt.Errorf("list %s: page %d is empty after %d of %d items", what, p, len(all), total)
		}
	}
}

// fetchPage calls fetch with Guard.
func fetchPage[T any](fetch Page[T], p, size int) (count int, items []T, err error) {
	err = Guard(func() (err error) { count, items, err = fetch(p, size); return err })
	if err != nil {
		return 0, nil, err
	}
	return count, items, nil
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
