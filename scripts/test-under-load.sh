#!/bin/bash
# test-under-load.sh [RUNS]: runs `make test` RUNS times in a row (default 5) while a parallel
# build rebuilds every package from scratch (`go build -a ./...` with a cache of its own, niced,
# over and over), and prints one line per run: passed or FAILED, seconds, load average and the
# counts of ok and FAIL packages. Each run's output is kept in build/under-load/run<N>.log. It
# exits 1 when any run failed. Set CI=true so that a test missing its real server fails rather
# than skips, as in CI. This is how CI's determinism is measured (docs/development.md).
set -u
cd "$(dirname "$0")/.."
runs=${1:-5}
GO=${GO:-go}
out=build/under-load
mkdir -p "$out"
cache=$(mktemp -d)
stop=$cache/stop
(
	export GOCACHE=$cache/gocache
	while [ ! -e "$stop" ]; do
		rm -rf "$GOCACHE"
		nice -n 5 "$GO" build -a ./... >/dev/null 2>&1
	done
) &
load=$!
trap 'touch "$stop"; wait "$load"; rm -rf "$cache"' EXIT
failed=0
for i in $(seq 1 "$runs"); do
	start=$(date +%s)
	if make test >"$out/run$i.log" 2>&1; then result=passed; else result=FAILED; failed=1; fi
	echo "run $i $result in $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg);" \
		"$(grep -c '^ok' "$out/run$i.log") ok, $(grep -c '^FAIL' "$out/run$i.log") FAIL"
done
exit "$failed"
