package cloudstack

import (
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

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
		got, err := cloudstackapi.ListAll(name, size, func(page, size int) (int, []T, error) { return fetch(project, page, size) })
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
