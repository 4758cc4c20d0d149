package cloudstack

import "fmt"

// page fetches one page and returns CloudStack's total count with the page's items.
type page[T any] func(page, size int) (count int, items []T, err error)

// listAll loops over pages until it holds count items. The SDK does not paginate, and count is the
// total, not the page length; a sequence that does not add up is an error, never a short list,
// so that a cut answer is never taken for a cloud with fewer clusters or VMs.
func listAll[T any](what string, size int, fetch page[T]) ([]T, error) {
	var all []T
	total := -1
	for p := 1; ; p++ {
		count, items, err := fetchPage(fetch, p, size)
		if err != nil {
			return nil, fmt.Errorf("list %s, page %d: %w", what, p, redact(err))
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

// fetchPage calls fetch with guard.
func fetchPage[T any](fetch page[T], p, size int) (count int, items []T, err error) {
	err = guard(func() (err error) { count, items, err = fetch(p, size); return err })
	if err != nil {
		return 0, nil, err
	}
	return count, items, nil
}

// guard runs one SDK call and turns a panic into an error: cloudstack-go indexes into answers it
// has not checked (getRawValue panics on {"count":0,"x":[]}), and no answer, whoever sent it,
// may bring the exporter down.
func guard(call func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cloudstack-go cannot read the answer: %v", r)
		}
	}()
	return call()
}

// listScopes lists in every scope: "" for the resources outside projects, "-1" for those of all
// projects. Within a scope every item needs an id of its own: one without (or null) would be
// dropped and one listed twice means the list shifted while it was paged, so another item was
// missed; either way the list is short, and an error. Across scopes an item may repeat (recent
// CloudStack lists account resources with projectid=-1 too); convert keeps one.
func listScopes[T any](scopes []string, what string, size int, id func(T) string, fetch func(project string, page, size int) (int, []T, error)) ([]T, error) {
	var all []T
	for _, project := range scopes {
		name := what
		if project != "" {
			name += " of projects"
		}
		got, err := listAll(name, size, func(page, size int) (int, []T, error) { return fetch(project, page, size) })
		if err != nil {
			return nil, err
		}
		seen := make(map[string]bool, len(got))
		for i, item := range got {
			switch key := id(item); {
			case key == "":
				return nil, fmt.Errorf("list %s: item %d of %d has no id", name, i+1, len(got))
			case seen[key]:
				return nil, fmt.Errorf("list %s: %q is listed twice", name, key)
			default:
				seen[key] = true
			}
		}
		all = append(all, got...)
	}
	return all, nil
}
