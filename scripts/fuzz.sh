#!/bin/sh
# Runs every Go fuzz target for a fixed time each, one after the other, and stops at the first
# failure; the failing input is then under the package's testdata/fuzz/<FuzzName>/, where a plain
# "go test" replays it.
#
#   scripts/fuzz.sh [time]    time as go test -fuzztime takes it (10s, 2m, 5000x); default 10s
#
# New inputs are minimized for at most 3s, so that a short run is spent fuzzing rather than
# minimizing one large input (go's default allows 60s).
set -eu

fuzztime="${1:-10s}"
cd "$(dirname "$0")/.."

while read -r target pkg; do
	echo "fuzz: $target ($pkg) for $fuzztime"
	${GO:-go} test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=3s "$pkg" || {
		echo "fuzz: $target failed" >&2
		exit 1
	}
done <<TARGETS
FuzzParseNodes ./collector/nodes/ssh
FuzzParse ./config
FuzzWebhook ./notifier
FuzzInventoryResponse ./collector/inventory/api
FuzzClusterAnswer ./collector/inventory/api
FuzzSanitisers ./internal/safetext
FuzzAlertDescription ./notifier
TARGETS
