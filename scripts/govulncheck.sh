#!/usr/bin/env bash
# govulncheck without the public vulnerability service.
#
# The vulnerability database is itself a Go module, golang.org/x/vulndb, so it comes through the
# Go module proxy like any dependency: the script downloads it, builds a local database index
# from its OSV files with the module's own cmd/indexdb, and runs govulncheck against that with
# -db file://...
#
# Usage: scripts/govulncheck.sh [--strict] [package patterns...]   (default ./...)
#
# Exit status:
#   0  no reachable vulnerability in a third-party module (standard-library ones are printed
#      but tolerated: they are fixed by building with a newer Go, not by this repository)
#   1  --strict and any reachable vulnerability, standard library included
#   3  a reachable vulnerability in a third-party module (govulncheck's own code for findings)
#   other  the tools could not be installed or the scan failed
#
# Environment:
#   VULNDB_VERSION       version of golang.org/x/vulndb, the database (default latest)
#   GOVULNCHECK_DB       an existing database directory to use instead of building one
#   GOVULNCHECK_CACHE    where built indexes are kept, one per vulndb version (default
#                        ~/.cache/cks-drift-exporter/govulndb; "off" keeps none). Runs may share
#                        it at once: entries are published whole and rebuilt when incomplete
#                        (scripts/vulncache.sh)
#   KEEP_TMP=1           keep the scratch directory (database, JSON report) for inspection
set -euo pipefail

VULNDB_VERSION=${VULNDB_VERSION:-latest}

strict=0
args=()
for a in "$@"; do
	case "$a" in
	--strict) strict=1 ;;
	-h | --help)
		awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
		exit 0
		;;
	*) args+=("$a") ;;
	esac
done
[ ${#args[@]} -gt 0 ] || args=(./...)

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/vulncache.sh
. "$repo/scripts/vulncache.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/govulncheck.XXXXXX")
if [ "${KEEP_TMP:-}" = 1 ]; then
	echo "govulncheck.sh: scratch directory $tmp kept" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
step() { printf '==> %s (%ss)\n' "$*" "$SECONDS" >&2; }

# 1. govulncheck itself, at the version tools/govulncheck pins (as every tool is), into the scratch
# directory.
step "building govulncheck from tools/govulncheck"
go -C "$repo/tools/govulncheck" build -o "$tmp/bin/govulncheck" golang.org/x/vuln/cmd/govulncheck
govulncheck="$tmp/bin/govulncheck"

# 2. The database: golang.org/x/vulndb's OSV files, indexed by its own cmd/indexdb. The module is
# resolved in a scratch module so that this repository's go.mod and go.sum are never touched.
# Building indexdb is most of the time (its dependencies fill about 1 GB of module cache), so the
# index is kept per vulndb version in $GOVULNCHECK_CACHE and reused while the version is current.
db=${GOVULNCHECK_DB:-}
vulndb_version=""
if [ -z "$db" ]; then
	vulndb_version=$VULNDB_VERSION
	if [ "$vulndb_version" = latest ]; then
		vulndb_version=$(cd "$tmp" && go list -m -f '{{.Version}}' golang.org/x/vulndb@latest)
	fi
	cache=${GOVULNCHECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cks-drift-exporter/govulndb}
	if [ "$cache" != off ] && vulncache_valid "$cache/$vulndb_version"; then
		db="$cache/$vulndb_version"
		step "reusing the index of golang.org/x/vulndb@$vulndb_version in $db"
	else
		if [ "$cache" != off ] && [ -e "$cache/$vulndb_version" ]; then
			step "the cached index in $cache/$vulndb_version is incomplete: building it again"
		fi
		step "downloading golang.org/x/vulndb@$vulndb_version"
		mkdir -p "$tmp/scratch"
		(
			cd "$tmp/scratch"
			export GOFLAGS=-mod=mod
			go mod init vulndb-scratch >/dev/null 2>&1
			go get "golang.org/x/vulndb@$vulndb_version" >/dev/null 2>&1 ||
				go get "golang.org/x/vulndb@$vulndb_version"
			cat >tools.go <<-'EOF'
				//go:build tools

				package tools

				import _ "golang.org/x/vulndb/cmd/indexdb"
			EOF
			go mod tidy >/dev/null 2>&1 || go mod tidy
		)
		osv=$(cd "$tmp/scratch" && go list -m -f '{{.Dir}}' golang.org/x/vulndb)/data/osv
		step "indexing $(find "$osv" -name '*.json' | wc -l) OSV entries of golang.org/x/vulndb@$vulndb_version"
		db="$tmp/db"
		(cd "$tmp/scratch" && go run golang.org/x/vulndb/cmd/indexdb -vulns "$osv" -out "$db")
		if [ "$cache" != off ]; then
			db=$(vulncache_put "$db" "$cache" "$vulndb_version")
		fi
	fi
fi
case "$db" in
/*) ;;
*) db="$PWD/$db" ;;
esac

# 3. The scan: once, as JSON; the text report is converted from it.
step "scanning ${args[*]} with $(go env GOVERSION)"
set +e
(cd "$repo" && "$govulncheck" -db "file://$db" -format json "${args[@]}") >"$tmp/report.json"
rc=$?
set -e
if [ $rc -ne 0 ]; then
	echo "govulncheck.sh: govulncheck failed (exit $rc)" >&2
	exit $rc
fi
set +e
"$govulncheck" -mode convert <"$tmp/report.json"
set -e

# A finding is reachable when its trace names a function; the first trace entry names the
# vulnerable module ("stdlib" for the standard library), its version and package. Classified
# without jq: govulncheck's JSON is indented one field per line, and each finding object ends
# with a line "  }", so a small awk state machine suffices.
awk '
	/"finding": *\{/ { in_f = 1; osv = mod = ver = pkg = fixed = fn = ""; next }
	!in_f { next }
	/"osv":/ { osv = val($0) }
	/"fixed_version":/ { fixed = val($0) }
	/"module":/ && mod == "" { mod = val($0) }
	/"version":/ && ver == "" { ver = val($0) }
	/"package":/ && pkg == "" { pkg = val($0) }
	/"function":/ { fn = 1 }
	/^  \}/ {
		in_f = 0
		if (fn && !((osv, pkg) in seen)) {
			seen[osv, pkg] = 1
			printf "%s %s %s %s %s\n", (mod == "stdlib" ? "stdlib" : "module"), osv, mod, pkg, ver " -> " (fixed == "" ? "no fix" : fixed)
		}
	}
	function val(s) { sub(/^[^:]*: *"/, "", s); sub(/".*/, "", s); return s }
' "$tmp/report.json" | sort -u >"$tmp/reachable.txt"
stdlib=$(awk '$1 == "stdlib" { print $2 }' "$tmp/reachable.txt" | sort -u | wc -l)
thirdparty=$(awk '$1 == "module" { print $2 }' "$tmp/reachable.txt" | sort -u | wc -l)

echo
echo "=== Summary: reachable vulnerabilities (id, module, package, found -> fixed) ==="
awk '{ $1 = ""; print " " $0 }' "$tmp/reachable.txt"
echo "govulncheck.sh: $(go env GOVERSION), database golang.org/x/vulndb${vulndb_version:+@$vulndb_version}: reachable: $stdlib in the standard library, $thirdparty in third-party modules ($SECONDS s)"
if [ "$thirdparty" -gt 0 ]; then
	echo "govulncheck.sh: FAIL: reachable vulnerabilities in third-party modules: upgrade them (go.mod)" >&2
	exit 3
fi
if [ "$stdlib" -gt 0 ]; then
	if [ $strict = 1 ]; then
		echo "govulncheck.sh: FAIL (--strict): reachable standard-library vulnerabilities: build with a Go release that fixes them" >&2
		exit 1
	fi
	echo "govulncheck.sh: standard-library vulnerabilities tolerated (build releases with a Go that fixes them; --strict fails on them)"
fi
exit 0
