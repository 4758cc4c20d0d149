package cloudstacktest

import (
	"net/url"
	"strconv"
	"strings"
)

// DefaultPageSize is CloudStack's default.page.size.
const DefaultPageSize = 500

// AdminAccount is the account the fake's caller belongs to: a root admin in domain ROOT.
const AdminAccount = "admin"

// window is the slice of a result one list call asks for; limit < 0 means no limit.
type window struct{ start, limit int }

// pageWindow reads page and pagesize as BaseListCmd does: no pagesize means pages of
// default.page.size (so a call without paging returns at most that many items, while count
// still gives the total); pagesize=-1 means unlimited but only without page; page counts from 1
// and anything below 1 means the first page.
func (w *World) pageWindow(p url.Values) (window, *apiError) {
	maxSize := w.MaxPageSize
	if maxSize <= 0 {
		maxSize = DefaultPageSize
	}
	size := maxSize
	if v := p.Get("pagesize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return window{}, paramError("Unable to execute API command due to invalid value. Invalid parameter pagesize value=%s due to incorrect long value format", v)
		}
		switch {
		case n > maxSize:
			return window{}, paramError("Page size can't exceed max allowed page size value: %d", maxSize)
		case n == -1 && p.Get("page") != "":
			return window{}, paramError("Can't specify page parameter when pagesize is -1 (Unlimited)")
		case n == 0 || n < -1:
			// CloudStack would run the query with a nonsensical limit; refuse instead so that a
			// client bug shows up in tests. (Deliberate deviation.)
			return window{}, paramError("Invalid parameter pagesize value=%d", n)
		}
		size = n
	}
	if size == -1 {
		return window{start: 0, limit: -1}, nil
	}
	page := 1
	if v := p.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return window{}, paramError("Unable to execute API command due to invalid value. Invalid parameter page value=%s due to incorrect integer value format", v)
		}
		page = max(n, 1)
	}
	return window{start: (page - 1) * size, limit: size}, nil
}

// listAnswer cuts one page out of every matching item and wraps it as CloudStack does: count is
// the total number of matches (plus any injected CountDelta), not the length of the page.
func listAnswer[T any](r *request, win window, key string, items []T) map[string]any {
	var page []any
	if win.start < len(items) {
		end := len(items)
		if win.limit >= 0 {
			end = min(end, win.start+win.limit)
		}
		for _, it := range items[win.start:end] {
			page = append(page, it)
		}
	}
	return listBody(key, len(items)+r.countDelta, page)
}

// listAnswerOf is listAnswer for items that still have to be turned into their JSON form: only
// the requested page is converted, so that paging through a large world costs O(items) per
// call for the filter instead of building the JSON of every match each time.
func listAnswerOf[T, J any](r *request, win window, key string, items []T, toJSON func(T) J) map[string]any {
	var page []any
	if win.start < len(items) {
		end := len(items)
		if win.limit >= 0 {
			end = min(end, win.start+win.limit)
		}
		for _, it := range items[win.start:end] {
			page = append(page, toJSON(it))
		}
	}
	return listBody(key, len(items)+r.countDelta, page)
}

// visible applies CloudStack's ACL for a root admin (buildACLSearchParameters) to a resource
// owned by account, or by a project when projectID is set:
//   - projectid=<uuid>: that project's resources only;
//   - projectid=-1: every project's resources (plus, with listall=true and
//     SetListAllIncludesAccounts, every account's);
//   - no projectid: no project resources; with id the admin sees any account's resource, with
//     listall=true every account's, otherwise only its own account's.
//
// An account parameter further narrows to that account's own (non-project) resources.
func (s *Server) visible(p url.Values, account, projectID string) bool {
	return s.visibility(p)(account, projectID)
}

// visibility is visible with the request's parameters read once, for loops over every row of a
// large world.
func (s *Server) visibility(p url.Values) func(account, projectID string) bool {
	a, pid, id := p.Get("account"), p.Get("projectid"), p.Get("id")
	listAll := boolParam(p, "listall")
	includesAccounts := s.listAllIncludesAccounts
	return func(account, projectID string) bool {
		if a != "" && (projectID != "" || !strings.EqualFold(a, account)) {
			return false
		}
		switch {
		case pid == "-1":
			return projectID != "" || (listAll && includesAccounts)
		case pid != "":
			return projectID == pid
		case projectID != "":
			return false
		case id != "" || listAll || a != "":
			return true
		default:
			return account == AdminAccount
		}
	}
}

// matchFold reports whether want is empty or equals got without case, as MySQL's default
// collation compares the state and name columns.
func matchFold(want, got string) bool {
	return want == "" || strings.EqualFold(want, got)
}

// containsFold reports whether keyword is empty or found in one of fields, ignoring case, like
// the LIKE '%keyword%' CloudStack builds.
func containsFold(keyword string, fields ...string) bool {
	if keyword == "" {
		return true
	}
	k := strings.ToLower(keyword)
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), k) {
			return true
		}
	}
	return false
}
