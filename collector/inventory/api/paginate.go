package api

import (
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// maxPages bounds a listing that does not trust count: a server that keeps answering full pages
// of new items ends the listing with an error after this many pages, instead of never.
const maxPages = 10000

// listUntilShort loops over pages until a page comes back shorter than size (an empty page
// included). listKubernetesClusters answers count = the items on this page in 4.14 up to the 4.20
// line (KubernetesClusterManagerImpl.listKubernetesClusters calls setResponses(list) without a
// total, e.g. at 4.14.0.0 and 4.17.0.0) and the total later, so count is only checked where it
// can only be a total: on the last page it must equal that page's length or every item read.
// A count larger than its page's length can only be a total too: then the listing ends as soon
// as it holds count items, without asking for the empty page after a full last one.
func listUntilShort[T any](what string, size int, fetch cloudstackapi.Page[T]) ([]T, error) {
	var all []T
	total := -1 // count, once a page showed it is the total
	for p := 1; p <= maxPages; p++ {
		var count int
		var items []T
		err := cloudstackapi.Guard(func() (err error) { count, items, err = fetch(p, size); return err })
		if err != nil {
			return nil, fmt.Errorf("list %s, page %d: %w", what, p, cloudstackapi.Redact(err))
		}
		if len(items) > size {
			return nil, fmt.Errorf("list %s, page %d: %d items on a page of %d", what, p, len(items), size)
		}
		all = append(all, items...)
		if count > len(items) {
			total = count
		}
		if total >= 0 && len(all) >= total && len(items) == size {
			if len(all) > total {
				return nil, fmt.Errorf("list %s: %d items after page %d, but count is %d", what, len(all), p, total)
			}
			return all, nil
		}
		if len(items) < size {
			if count != len(items) && count != len(all) {
				return nil, fmt.Errorf("list %s: the listing ended at %d items after page %d, but count is %d", what, len(all), p, count)
			}
			return all, nil
		}
	}
	return nil, fmt.Errorf("list %s: still full pages after %d pages of %d", what, maxPages, size)
}

// listScopes lists in every scope: "" for the resources outside projects, "-1" for those of all
// projects. Within a scope every item needs an id of its own: one without (or null) would be
// dropped and one listed twice means the list shifted while it was paged, so another item was
// missed; either way the list is short, and an error. Across scopes an item may repeat (recent
// CloudStack lists account resources with projectid=-1 too); convert keeps one.
// list lists every page of one scope (project: "" or "-1"), named name in errors.
func listScopes[T any](scopes []string, what string, id func(T) string, list func(name, project string) ([]T, error)) ([]T, error) {
	var all []T
	for _, project := range scopes {
		name := what
		if project != "" {
			name += " of projects"
		}
		got, err := list(name, project)
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
