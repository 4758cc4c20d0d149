package api

import (
	"encoding/json"
	"fmt"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// listPages lists a command in one scope (project: "" or "-1"), named name in errors, with count
// saying what its count means (cloudstackapi.List); each page is shrunk to what the check needs
// as it is decoded.
func listPages[W, T any](c *cs.CloudStackClient, command, key string, count cloudstackapi.Count, size int, extra map[string]string, to func(*W) T) func(name, project string) ([]T, error) {
	return func(name, project string) ([]T, error) {
		return cloudstackapi.List(cloudstackapi.Listing[T, json.RawMessage]{What: name, Size: size, Count: count,
			Request: func(page, size int) (json.RawMessage, error) {
				return requestPage(c, command, project, page, size, extra)
			},
			Decode: func(body json.RawMessage) (int, []T, error) { return decodePage(body, key, to) }})
	}
}

// requestPage asks for one page of a list command in one scope and returns the answer undecoded.
func requestPage(c *cs.CloudStackClient, command, project string, page, size int, extra map[string]string) (json.RawMessage, error) {
	p := &cs.CustomServiceParams{}
	p.SetParam("listall", true)
	p.SetParam("page", page)
	p.SetParam("pagesize", size)
	if project != "" {
		p.SetParam("projectid", project)
	}
	for k, v := range extra {
		p.SetParam(k, v)
	}
	var body json.RawMessage
	custom, _ := cs.NewCustomService(c).(*cs.CustomService)
	if err := custom.CustomRequest(command, p, &body); err != nil {
		return nil, err
	}
	return body, nil
}

// decodePage decodes a page leniently and shrinks its items.
func decodePage[W, T any](body json.RawMessage, key string, to func(*W) T) (int, []T, error) {
	count, items, err := decodeList[W](body, key)
	return count, shrink(items, to), err
}

// shrink converts a page of decoded items.
func shrink[T any, U any](items []T, to func(*T) U) []U {
	out := make([]U, len(items))
	for i := range items {
		out[i] = to(&items[i])
	}
	return out
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
