package changelog

import (
	"regexp"
	"strconv"
)

// Unreleased is the name of the changelog's section of changes not in a release yet.
const Unreleased = "Unreleased"

// version is a version of the exporter as packaging/version.sh names it: a release
// MAJOR.MINOR.PATCH, or a build commits after one (MAJOR.MINOR.PATCH+N.gHASH[.dirty]).
type version struct {
	core    [3]int
	commits int
}

var versionText = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:\+(\d+)\.g[0-9a-f]+(?:\.dirty)?)?$`)

// parseVersion reads a version; ok is false for anything else ("unknown (state format 1)").
func parseVersion(s string) (v version, ok bool) {
	m := versionText.FindStringSubmatch(s)
	if m == nil {
		return version{}, false
	}
	for i := range 3 {
		v.core[i], _ = strconv.Atoi(m[i+1])
	}
	if m[4] != "" {
		v.commits, _ = strconv.Atoi(m[4])
	}
	return v, true
}

func (v version) less(w version) bool {
	if v.core != w.core {
		for i := range 3 {
			if v.core[i] != w.core[i] {
				return v.core[i] < w.core[i]
			}
		}
	}
	return v.commits < w.commits
}

// Between returns the notes (Parse's, newest first) that an upgrade from the version previous to
// current must read, oldest first: those of every release after previous up to current, and the
// Unreleased ones when current is a build after the newest release (all of them: a build between
// releases cannot tell which came after previous). A previous version that is not a version (a
// state file of 0.1.0 or before records none) takes every note up to current. Rollback is true
// when current is older than previous: no note applies.
func Between(notes []Note, previous, current string) (between []Note, rollback bool) {
	cur, ok := parseVersion(current)
	if !ok {
		return nil, false
	}
	prev, known := parseVersion(previous)
	if known && !prev.less(cur) {
		return nil, cur.less(prev)
	}
	var newest version // the newest release the changelog names
	for _, n := range notes {
		if v, ok := parseVersion(n.Version); ok && newest.less(v) {
			newest = v
		}
	}
	// The versions oldest first, each's notes in the changelog's order.
	var versions []string
	for _, n := range notes {
		if len(versions) == 0 || versions[0] != n.Version {
			versions = append([]string{n.Version}, versions...)
		}
	}
	for _, name := range versions {
		v, ok := parseVersion(name)
		if name == Unreleased {
			ok = newest.less(cur)
		} else {
			ok = ok && !cur.less(v) && (!known || prev.less(v))
		}
		for _, n := range notes {
			if ok && n.Version == name {
				between = append(between, n)
			}
		}
	}
	return between, false
}
