#!/usr/bin/env bash
# The .deb and .rpm tested for real (run by .ci/run, as root, on a Debian machine):
#   build both (make package), install the .deb, check its files, owners and modes; run the
#   installed binary as the package's user with the installed unit's ExecStart and environment
#   file against the simulated cloud (cks-drift-demo --simulator-only), check /metrics, /findings
#   and the state file; systemd-analyze verify the unit; upgrade to a second build, remove, purge,
#   checking what remains after each step; inspect the .rpm with rpm -qlp and rpm -qp --scripts.
# The machine is left as it was, except for the system user, which purge keeps (as Debian does).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-$(cat "$(dirname "$0")/../.go-version")}

name=cks-drift-exporter
user=cks-drift-exporter
unit=/usr/lib/systemd/system/$name.service
conf=/etc/$name/$name.yml
defaults=/etc/default/$name
state=/var/lib/$name
failed=0
passed=0
pass() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
check() { # check DESCRIPTION COMMAND...: one assertion
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}
owner_mode() { # owner_mode PATH OWNER:GROUP MODE
  local got
  got=$(stat -c '%U:%G %a' "$1" 2>/dev/null || echo missing)
  if [ "$got" = "$2 $3" ]; then pass "$1 is $2 $3"; else fail "$1 is $got, want $2 $3"; fi
}
absent() { if [ -e "$1" ]; then fail "$1 still there"; else pass "$1 is gone"; fi; }
present() { if [ -e "$1" ]; then pass "$1 is kept"; else fail "$1 is gone"; fi; }
await() { # await SECONDS COMMAND...: until the command succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

for tool in dpkg dpkg-query rpm runuser curl systemd-analyze; do
  command -v $tool >/dev/null || { echo "package-test: $tool is missing (.ci/run installs it)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "package-test: run as root (dpkg -i)"; exit 1; }

tmp=$(mktemp -d)
sim_pid= exporter_pid=
cleanup() {
  set +e
  [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null && wait "$exporter_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  rm -f /etc/$name/id_ed25519
  dpkg-query -W -f='${Status}' $name 2>/dev/null | grep -qv not-installed && dpkg --purge $name >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
if dpkg-query -W -f='${Status}' $name 2>/dev/null | grep -q installed; then
  echo "package-test: $name is installed on this machine; remove it first (dpkg --purge $name)"
  exit 1
fi

# Two builds of one version: the second is the upgrade.
version=$(packaging/version.sh)
make --no-print-directory package PKG_VERSION="$version" PKG_RELEASE=1 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
make --no-print-directory package PKG_VERSION="$version" PKG_RELEASE=2 >>"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
arch=$(go env GOARCH)
deb1=dist/${name}_${version}-1_${arch}.deb deb2=dist/${name}_${version}-2_${arch}.deb
rpm1=$(ls dist/$name-"$version"-1.*.rpm)
go build -o "$tmp/cks-drift-demo" ./cmd/cks-drift-demo

echo "== install $deb1"
dpkg -i "$deb1"
check "dpkg says installed" sh -c "dpkg-query -W -f='\${Status} \${Version}' $name | grep -qx 'install ok installed $version-1'"
check "$user is a system user with no login shell" sh -c "getent passwd $user | awk -F: '\$3 < 1000 && \$7 == \"/usr/sbin/nologin\" {ok=1} END {exit !ok}'"
owner_mode /usr/bin/$name root:root 755
owner_mode $unit root:root 644
owner_mode /etc/$name root:$user 750
owner_mode $conf root:$user 640
owner_mode $defaults root:root 600
owner_mode $state $user:$user 700
check "both /etc files are conffiles" sh -c "[ \$(dpkg-query -W -f='\${Conffiles}' $name | grep -cE '^ ($conf|$defaults) ') = 2 ]"
check "the binary carries the version from git" sh -c "/usr/bin/$name --version 2>&1 | grep -q 'revision: $(git rev-parse HEAD)'"

echo "== systemd-analyze verify $unit"
out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ] && pass "systemd-analyze verify: no warning" || fail "systemd-analyze verify: $out"

echo "== run the installed binary as $user with the unit's command line, against the simulator"
"$tmp/cks-drift-demo" --simulator-only --dir "$tmp/sim" >"$tmp/sim.log" 2>&1 &
sim_pid=$!
await 60 grep -q 'Stop with Ctrl-C' "$tmp/sim.log" || { cat "$tmp/sim.log"; exit 1; }
endpoint=$(awk '/^  endpoint:/ {print $2}' "$tmp/sim/$name.yml")
install -m 0440 -o root -g $user "$tmp/sim/id_ed25519" /etc/$name/id_ed25519
# The packaged configuration as an operator edits it: the endpoint and the SSH key; the API
# keys stay ${CS_API_KEY} and ${CS_SECRET_KEY}, set in the environment file.
sed -i -e "s#^  endpoint: .*#  endpoint: $endpoint#" \
  -e "s#^  private_key_file: .*#  private_key_file: /etc/$name/id_ed25519#" "$conf"
port=
for _ in $(seq 100); do # a loopback port nobody answers on
  p=$((20000 + RANDOM % 40000))
  if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "package-test: no free port"; exit 1; }
sed -i -e "s#^CKS_DRIFT_EXPORTER_ARGS=.*#CKS_DRIFT_EXPORTER_ARGS=\"--web.listen-address=127.0.0.1:$port --log.level=debug\"#" \
  -e 's#^CS_API_KEY=.*#CS_API_KEY="test-api-key"#' -e 's#^CS_SECRET_KEY=.*#CS_SECRET_KEY="test-secret-key"#' "$defaults"
# ExecStart as systemd runs it: continuation lines joined, $VAR from the EnvironmentFile split
# into words, as the service's user, from /.
execstart=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | sed 's/\\$//' | tr -s '\n ' ' ' | sed 's/^ExecStart=//')
echo "ExecStart: $execstart"
(
  cd /
  set -a; . "$defaults"; set +a
  eval "set -- $execstart"
  exec runuser -u $user -- "$@"
) >"$tmp/exporter.log" 2>&1 &
exporter_pid=$!
metrics() { curl -fsS "http://127.0.0.1:$port/metrics"; }
if await 120 sh -c "curl -fsS http://127.0.0.1:$port/metrics | grep -q '^cks_drift_up 1'"; then
  pass "/metrics serves cks_drift_up 1"
  check "/metrics shows the simulated drift (analytics: unmapped_vm)" sh -c "curl -fsS http://127.0.0.1:$port/metrics | grep -q 'cks_drift_findings{.*cluster_name=\"analytics\",kind=\"unmapped_vm\"} 1'"
  check "/findings lists the analytics cluster" sh -c "curl -fsS http://127.0.0.1:$port/findings | grep -q analytics"
  runs_as=$(for p in /proc/[0-9]*; do if [ "$(readlink $p/exe 2>/dev/null)" = /usr/bin/$name ]; then stat -c %U $p; fi; done)
  if [ "$runs_as" = $user ]; then pass "the process runs as $user"; else fail "the process runs as '$runs_as'"; fi
else
  fail "/metrics never served cks_drift_up 1"; cat "$tmp/exporter.log"
fi
kill "$exporter_pid"; wait "$exporter_pid" || true; exporter_pid=
owner_mode $state/state.db $user:$user 600
sum_before=$(sha256sum "$conf" "$defaults" $state/state.db)

echo "== upgrade to $deb2"
dpkg -i "$deb2"
check "dpkg says $version-2 installed" sh -c "dpkg-query -W -f='\${Status} \${Version}' $name | grep -qx 'install ok installed $version-2'"
if [ "$(sha256sum "$conf" "$defaults" $state/state.db)" = "$sum_before" ]; then
  pass "upgrade kept the configuration, the environment file and the state"
else
  fail "upgrade changed the configuration, the environment file or the state"
fi
owner_mode $state $user:$user 700
# The upgraded binary with the kept configuration and state: one cycle, drift found (exit 1).
rc=0
(cd / && set -a && . "$defaults" && set +a && runuser -u $user -- /usr/bin/$name --config.file=$conf --once) >"$tmp/once.log" 2>&1 || rc=$?
if [ $rc = 1 ] && grep -q unmapped_vm "$tmp/once.log"; then pass "the upgraded binary checks the cloud (--once exit 1, drift)"; else fail "--once after upgrade: exit $rc"; cat "$tmp/once.log"; fi

echo "== remove"
# Enabled as an operator would (systemctl enable works without a running systemd): removal must
# not leave the enablement link behind.
wants=/etc/systemd/system/multi-user.target.wants/$name.service
systemctl enable $name >/dev/null 2>&1 || true
check "systemctl enable made $wants" test -L $wants
dpkg --remove $name
absent $wants
check "dpkg says config-files" sh -c "dpkg-query -W -f='\${Status}' $name | grep -qx 'deinstall ok config-files'"
absent /usr/bin/$name
absent $unit
present $conf
present $defaults
present $state/state.db

echo "== purge"
rm -f /etc/$name/id_ed25519 # ours, not the package's
dpkg --purge $name
check "dpkg no longer knows the package" sh -c "! dpkg-query -W -f='\${Status}' $name 2>/dev/null | grep -q ok"
absent /etc/$name
absent $defaults
absent $state
check "$user is kept after purge, as Debian keeps system users" getent passwd $user

echo "== $rpm1"
files=$(rpm -qlp "$rpm1" 2>/dev/null)
for f in /usr/bin/$name $unit $conf /etc/sysconfig/$name $state; do
  check "rpm -qlp lists $f" grep -qx "$f" <<<"$files"
done
check "the rpm has no /etc/default file" bash -c '! grep -q /etc/default' <<<"$files"
check "rpm -qp --configfiles: both /etc files" sh -c "[ \$(rpm -qp --configfiles '$rpm1' 2>/dev/null | grep -cE '^($conf|/etc/sysconfig/$name)\$') = 2 ]"
scripts=$(rpm -qp --scripts "$rpm1" 2>/dev/null)
check "rpm %pre creates the user" grep -q "useradd --system" <<<"$scripts"
check "rpm %post reloads systemd" grep -q "daemon-reload" <<<"$scripts"
check "rpm %preun stops and disables the service" grep -q "systemctl disable" <<<"$scripts"
check "rpm owner of $state is $user" sh -c "rpm -qp --qf '[%{FILENAMES} %{FILEUSERNAME} %{FILEMODES:perms}\n]' '$rpm1' 2>/dev/null | grep -qx '$state $user drwx------'"
check "rpm version is $version-1" sh -c "[ \"\$(rpm -qp --qf '%{VERSION}-%{RELEASE}' '$rpm1' 2>/dev/null)\" = '$version-1' ]"

echo "package-test: $passed passed, $failed failed"
[ $failed = 0 ]
