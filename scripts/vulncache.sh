# The cache of govulncheck databases kept by scripts/govulncheck.sh, one per golang.org/x/vulndb
# version. Sourced, not run. Several runs on one machine may share the cache at once: an entry
# is only ever published whole, by renaming a complete copy into place, and an entry that fails
# validation (cut short by a crash or by an older script) is rebuilt instead of used.

# vulncache_valid DIR: DIR is a complete database, as govulncheck -db file://DIR reads it.
vulncache_valid() {
	local d=$1 f
	for f in index/db.json index/modules.json index/vulns.json; do
		[ -s "$d/$f" ] || return 1
	done
	[ -d "$d/ID" ] || return 1
	# At least one entry.
	find "$d/ID" -maxdepth 1 -name '*.json' -print -quit | grep -q . || return 1
	return 0
}

# vulncache_put SRC CACHE VERSION: publishes the database built in SRC as CACHE/VERSION and prints
# the directory to use: the published entry, an entry another run published meanwhile, or SRC
# when the cache cannot be written.
vulncache_put() {
	local src=$1 cache=$2 version=$3 entry tmp broken lock
	entry="$cache/$version"
	if ! mkdir -p "$cache" 2>/dev/null; then
		printf '%s\n' "$src"
		return 0
	fi
	# A unique name in the cache's own file system, so that the rename below is atomic.
	tmp=$(mktemp -d "$cache/.$version.XXXXXX") || {
		printf '%s\n' "$src"
		return 0
	}
	if ! cp -R "$src/." "$tmp/" || ! vulncache_valid "$tmp"; then
		rm -rf "$tmp"
		printf '%s\n' "$src"
		return 0
	fi
	# Replacing a damaged entry and publishing are done under a lock, so that one run cannot remove
	# what another has just published. Readers need no lock: a valid entry is never changed.
	exec {lock}>"$cache/.lock"
	if command -v flock >/dev/null; then
		flock -w 600 "$lock" || true
	fi
	if [ -e "$entry" ] && ! vulncache_valid "$entry"; then
		broken=$(mktemp -u "$cache/.$version.broken.XXXXXX")
		mv -T "$entry" "$broken" && rm -rf "$broken"
	fi
	# rename(2) is atomic and refuses a non-empty target: a run that published first wins, and
	# this copy goes.
	local published=0
	mv -T "$tmp" "$entry" 2>/dev/null && published=1
	exec {lock}>&-
	if [ $published = 1 ]; then
		printf '%s\n' "$entry"
		return 0
	fi
	rm -rf "$tmp"
	if vulncache_valid "$entry"; then
		printf '%s\n' "$entry"
	else
		printf '%s\n' "$src"
	fi
}
