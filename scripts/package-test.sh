#!/usr/bin/env bash
# The .deb and .rpm tested for real (run by .ci/run, as root, on a Debian machine):
#   1. the upgrade an operator makes: the package of an older commit (packaging/upgrade-from,
#      built from a git worktree with its own `make package`) installed and edited as
#      docs/install.md's Package steps do, run, then upgraded to this tree's package with standard input
#      closed (dpkg cannot prompt): no prompt, the configuration, the keys and the state kept,
#      and the packaged default of the new version (the loopback listen address) applies; then the
#      rollback to the older package: this package's prerm refuses it, dpkg goes on (the older
#      package's own prerm lets it), and the older exporter refuses the newer state file: nothing
#      reaches CloudStack; then forward again;
#   2. a fresh install of this tree's package: files, owners and modes, the commands of README.md
#      and docs/*.md run as written (docs/commands_test.go: the install guide's edits before the
#      first start, the others with the service running, --once once it stopped), the
#      service's command line run as the package's user against the simulated cloud
#      (cks-drift-demo --simulator-only, whose output shows what CloudStack received), an
#      upgrade to a second build with standard input closed, and a downgrade to a build below the
#      first version of the state format, refused by both packages' prerm (dpkg keeps the newer);
#   each followed by remove and purge, checking what remains after each; lintian on the .deb
#   (no error); the .rpm inspected with rpm -qlp and rpm -qp --scripts.
# The exporter and the simulator run in a network namespace of their own, so the service listens
# on its packaged port with nothing else on the machine in the way. The machine is left as it
# was, except for the system user, which purge keeps (as Debian does).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-$(cat .go-version)}

name=cks-drift-exporter
user=cks-drift-exporter
unit=/usr/lib/systemd/system/$name.service
conf=/etc/$name/$name.yml
defaults=/etc/default/$name
key=/etc/$name/ssh-key # where docs/install.md puts the SSH key
state=/var/lib/$name
wants=/etc/systemd/system/multi-user.target.wants/$name.service
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
absent() { if [ -e "$1" ] || [ -L "$1" ]; then fail "$1 still there"; else pass "$1 is gone"; fi; }
present() { if [ -e "$1" ]; then pass "$1 is kept"; else fail "$1 is gone"; fi; }
await() { # await SECONDS COMMAND...: until the command succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

for tool in dpkg dpkg-deb dpkg-query rpm runuser curl systemd-analyze lintian ip ss git; do
  command -v $tool >/dev/null || { echo "package-test: $tool is missing (.ci/run installs it)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "package-test: run as root (dpkg -i)"; exit 1; }
if dpkg-query -W -f='${Status}' $name 2>/dev/null | grep -q installed; then
  echo "package-test: $name is installed on this machine; remove it first (dpkg --purge $name)"
  exit 1
fi
from=${PKG_UPGRADE_FROM:-$(grep -v '^#' packaging/upgrade-from | head -1)}
git cat-file -e "$from^{commit}" 2>/dev/null || {
  echo "package-test: commit $from (packaging/upgrade-from) is not in this clone; fetch the history (git fetch --unshallow)"
  exit 1
}

tmp=$(mktemp -d)
ns=cks-drift-pkgtest-$$
sim_pid= exporter_pid=
cleanup() {
  set +e
  [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null && wait "$exporter_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  dpkg-query -W -f='${Status}' $name 2>/dev/null | grep -qv not-installed && dpkg --purge $name >/dev/null 2>&1
  rm -f "$key"
  git worktree remove --force "$tmp/old" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up
inns() { ip netns exec "$ns" "$@"; }

echo "== build: this tree's packages, then the older package from $from"
version=$(packaging/version.sh)
arch=$(go env GOARCH)
make --no-print-directory package PKG_RELEASE=1 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
deb1=dist/${name}_${version}-1_${arch}.deb
rpm1=$(ls dist/$name-"$version"-1.*.rpm)
cp "$deb1" "$tmp/"
make --no-print-directory package PKG_RELEASE=2 >>"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
deb2=dist/${name}_${version}-2_${arch}.deb
deb1=$tmp/$(basename "$deb1")
# A build that sorts just below the first version of this tree's state format, with this tree's
# scripts: a downgrade to it is refused by the installed prerm and by its own (failed-upgrade).
since=$(dpkg-deb -I "$deb1" prerm | sed -n "s/^since='\(.*\)'$/\1/p")
check "the prerm names the first version of the state format ($since)" test -n "$since"
cp "$deb2" "$tmp/"
deb2=$tmp/$(basename "$deb2")
make --no-print-directory package PKG_VERSION="$since~older" PKG_RELEASE=1 >>"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
older_deb=dist/${name}_${since}~older-1_${arch}.deb
go build -o "$tmp/cks-drift-demo" ./cmd/cks-drift-demo
start=$SECONDS
git worktree prune
git worktree add --quiet --detach "$tmp/old" "$from"
# Release 0: the older package sorts below this tree's even where both say one VERSION.
make -C "$tmp/old" --no-print-directory package PKG_RELEASE=0 >"$tmp/build-old.log" 2>&1 || { cat "$tmp/build-old.log"; exit 1; }
old_deb=$(ls "$tmp"/old/dist/${name}_*_"$arch".deb)
old_version=$(dpkg-deb -f "$old_deb" Version)
echo "built $old_deb in $((SECONDS - start)) s"
check "the older package ($old_version) sorts below this tree's ($version-1)" dpkg --compare-versions "$old_version" lt "$version-1"

echo "== lintian $deb1"
if lintian --fail-on error --tag-display-limit 0 "$deb1" >"$tmp/lintian.log" 2>&1; then
  pass "lintian: no error"
else
  fail "lintian reports errors"
fi
grep -v 'running with root privileges' "$tmp/lintian.log" || true

echo "== the simulated cloud (cks-drift-demo --simulator-only) in network namespace $ns"
# Not through inns: a function in the background is a subshell, and its pid's kill would leave
# the simulator running.
ip netns exec "$ns" "$tmp/cks-drift-demo" --simulator-only --dir "$tmp/sim" >"$tmp/sim.log" 2>&1 &
sim_pid=$!
await 60 grep -q 'Stop with Ctrl-C' "$tmp/sim.log" || { cat "$tmp/sim.log"; exit 1; }
sim_value() { awk -v k="$1:" '$1 == k {print $2; exit}' "$tmp/sim/$name.yml"; }
endpoint=$(sim_value endpoint) api_key=$(sim_value api_key) secret_key=$(sim_value secret_key)

# readme_edit: the older package's install guide's Package steps with the simulator's endpoint,
# keys and SSH key (this tree's are run from docs/install.md itself, docs_phase below). The
# private_key_file line is for packages whose configuration named the management server's own
# key path (the install guide of those pointed it at the copy).
readme_edit() {
  install -m 0440 -g $user "$tmp/sim/id_ed25519" "$key"
  sed -i -e "s#https://cloud.example.com/client/api#$endpoint#" \
    -e "s#/var/lib/cloudstack/management/.ssh/id_rsa#$key#" "$conf"
  sed -i -e "s#^CS_API_KEY=.*#CS_API_KEY=\"$api_key\"#" -e "s#^CS_SECRET_KEY=.*#CS_SECRET_KEY=\"$secret_key\"#" "$defaults"
}

# start_service LOG: the installed unit's ExecStart as systemd runs it, in the namespace: the
# unit's Environment= values, then the environment file's (which win), ${VAR} and $VAR
# expanded, continuation lines joined, as the service's user, from /.
start_service() {
  local execstart
  execstart=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | sed 's/\\$//' | tr -s '\n ' ' ' | sed 's/^ExecStart=//')
  echo "ExecStart: $execstart"
  (
    cd /
    while IFS= read -r line; do export "${line#Environment=}"; done < <(grep '^Environment=' "$unit" || true)
    set -a; . "$defaults"; set +a
    eval "set -- $execstart"
    echo "command line: $*"
    exec ip netns exec "$ns" runuser -u $user -- "$@"
  ) >"$1" 2>&1 &
  exporter_pid=$!
}
stop_service() { kill "$exporter_pid"; wait "$exporter_pid" || true; exporter_pid=; }
scrape() { inns curl -fsS "http://127.0.0.1:9862$1"; }
serving() { # serving LOG: the service answers on 127.0.0.1:9862 with one cycle done
  if await 120 sh -c "ip netns exec $ns curl -fsS http://127.0.0.1:9862/metrics | grep -q '^cks_drift_up 1'"; then
    pass "/metrics serves cks_drift_up 1"
  else
    fail "/metrics never served cks_drift_up 1"; cat "$1"; return 1
  fi
  check "/metrics shows the simulated drift (analytics: unmapped_vm)" sh -c "ip netns exec $ns curl -fsS http://127.0.0.1:9862/metrics | grep -q 'cks_drift_findings{.*cluster_name=\"analytics\",kind=\"unmapped_vm\"} 1'"
  check "/findings lists the analytics cluster" sh -c "ip netns exec $ns curl -fsS http://127.0.0.1:9862/findings | grep -q analytics"
}
listening() { inns ss -Hltn | awk '{print $4}' | grep ':9862$' | sort | tr '\n' ' ' | sed 's/ $//'; }
sums() { sha256sum "$conf" "$defaults" "$key" $state/state.db; }
received() { grep -c 'CloudStack received' "$tmp/sim.log" || true; }

# remove_and_purge: what each step leaves; the service enabled first, as an operator would
# (systemctl enable works without a running systemd).
remove_and_purge() {
  echo "== remove"
  systemctl enable $name >/dev/null 2>&1 || true
  check "systemctl enable made $wants" test -L $wants
  dpkg --remove $name </dev/null
  check "dpkg says config-files" sh -c "dpkg-query -W -f='\${Status}' $name | grep -qx 'deinstall ok config-files'"
  absent /usr/bin/$name
  absent $unit
  present $conf
  present $defaults
  present $key
  present $state/state.db
  echo "== purge"
  dpkg --purge $name </dev/null
  check "dpkg no longer knows the package" sh -c "! dpkg-query -W -f='\${Status}' $name 2>/dev/null | grep -q ok"
  absent $wants
  absent $key
  absent /etc/$name
  absent $defaults
  absent $state
  check "$user is kept after purge, as Debian keeps system users" getent passwd $user
}

echo "== 1. upgrade: install $(basename "$old_deb"), edit it as docs/install.md does, run it"
dpkg -i "$old_deb" </dev/null >"$tmp/install-old.log" 2>&1 || { cat "$tmp/install-old.log"; exit 1; }
readme_edit
start_service "$tmp/exporter-old.log"
serving "$tmp/exporter-old.log" || true
echo "the older package listens on: $(listening)"
stop_service
pinned_before=$(grep -c 'Pinned the SSH host key' "$tmp/exporter-old.log" || true)
check "the older package pinned the control nodes' host keys ($pinned_before)" test "$pinned_before" -gt 0
sum_before=$(sums)

echo "== upgrade to $(basename "$deb1"), standard input closed"
rc=0
dpkg -i "$deb1" </dev/null >"$tmp/upgrade.log" 2>&1 || rc=$?
cat "$tmp/upgrade.log"
check "dpkg -i exits 0 with standard input closed (exit $rc)" test $rc = 0
check "dpkg asked nothing (no conffile prompt)" sh -c "! grep -q 'Configuration file' '$tmp/upgrade.log'"
check "the postinst names the kept kubectl_command that turns version checks off" grep -q "warning: ssh.kubectl_command .*-o name.* turns off the comparison of kubelet versions" "$tmp/upgrade.log"
check "dpkg says $version-1 installed" sh -c "dpkg-query -W -f='\${Status} \${Version}' $name | grep -qx 'install ok installed $version-1'"
check "no conffile is left for a later upgrade to ask about" sh -c "! dpkg-query -W -f='\${Conffiles}\n' $name | grep -v obsolete | grep -q ."
if [ "$(sums)" = "$sum_before" ]; then
  pass "the configuration, the environment file, the SSH key and the state are kept"
else
  fail "the upgrade changed the configuration, the environment file, the SSH key or the state"
fi
start_service "$tmp/exporter-upgraded.log"
serving "$tmp/exporter-upgraded.log" || true
got=$(listening)
if [ "$got" = 127.0.0.1:9862 ]; then
  pass "the new packaged default applies: the service listens on 127.0.0.1:9862 only"
else
  fail "the upgraded service listens on '$got', want 127.0.0.1:9862 only"
fi
stop_service
check "the kept state's host keys are used: nothing pinned anew" sh -c "! grep -q 'Pinned the SSH host key' '$tmp/exporter-upgraded.log'"
check "the upgraded service warns once of the kept kubectl_command" test "$(grep -c 'msg="The configuration turns a feature off"' "$tmp/exporter-upgraded.log")" = 1
check "and logs the first start after the upgrade" grep -q 'First start of this version with this state file' "$tmp/exporter-upgraded.log"
# 0.1.0's state file records no version: every upgrade note up to this one, from the embedded CHANGELOG.md.
check "and the upgrade notes of CHANGELOG.md in between, one line each ($(grep -c 'msg="Upgrade note"' "$tmp/exporter-upgraded.log"))" \
  grep -q 'msg="Upgrade note" changelog_version=Unreleased .*vm_instance_details' "$tmp/exporter-upgraded.log"

echo "== rollback: $(basename "$old_deb") over $(basename "$deb1"), whose exporter wrote the state"
sum_before=$(sums)
calls_before=$(received)
rc=0
dpkg -i "$old_deb" </dev/null >"$tmp/rollback.log" 2>&1 || rc=$?
cat "$tmp/rollback.log"
check "this package's prerm refuses the downgrade and says why" grep -q "refusing the downgrade to $old_version" "$tmp/rollback.log"
# The older package's own prerm (failed-upgrade) lets dpkg go on: its exporter must refuse.
installed=$(dpkg-query -W -f='${Version}' $name)
echo "dpkg exit $rc, installed: $installed"
start_service "$tmp/exporter-rolledback.log"
if await 60 sh -c "! kill -0 $exporter_pid"; then
  rc=0; wait "$exporter_pid" || rc=$?; exporter_pid=
  cat "$tmp/exporter-rolledback.log"
  check "the older exporter ($installed) refuses the state file (exit $rc)" test "$rc" != 0
  check "and says why: its schema" grep -q 'schema version' "$tmp/exporter-rolledback.log"
else
  fail "the older exporter ($installed) runs on the newer state file"; stop_service
fi
check "CloudStack received nothing during the rollback ($calls_before calls before, $(received) after)" test "$(received)" = "$calls_before"
if [ "$(sums)" = "$sum_before" ]; then pass "the rollback kept the state file as it was"; else fail "the rollback changed the state file"; fi
echo "== forward again to $(basename "$deb1")"
rc=0
dpkg -i "$deb1" </dev/null >"$tmp/forward.log" 2>&1 || rc=$?
check "dpkg -i $(basename "$deb1") exits 0 (exit $rc)" test $rc = 0
start_service "$tmp/exporter-forward.log"
serving "$tmp/exporter-forward.log" || true
# billing's nodes run kubelet v1.23.3 where CloudStack says 1.24.0: node_version_mismatch, which
# the kept kubectl_command (-o name, no versions) cannot see.
mismatch() { inns curl -fsS http://127.0.0.1:9862/metrics | grep -q 'cks_drift_findings{.*cluster_name="billing",kind="node_version_mismatch"} [1-9]'; }
no_mismatch() { ! mismatch; }
check "with 0.1.0's kubectl_command kept, billing's kubelet versions are not compared" no_mismatch
stop_service
check "nothing announced twice after the rollback ($calls_before calls before, $(received) after)" test "$(received)" = "$calls_before"
echo "== the kept kubectl_command removed, as the warning's fix says: the versions are compared again"
sed -i '/^ *kubectl_command:/d' "$conf"
out=$(set -a; . "$defaults"; set +a; runuser -u $user -- /usr/bin/$name --config.file=$conf --config.check --config.check.offline 2>&1) || true
check "--config.check accepts it and no longer names a feature turned off" \
  bash -c 'grep -q "configuration is valid" <<<"$1" && ! grep -q warning <<<"$1"' _ "$out"
start_service "$tmp/exporter-versions.log"
serving "$tmp/exporter-versions.log" || true
check "billing's node_version_mismatch comes back" await 60 mismatch
check "and no WARN of a feature turned off" sh -c "! grep -q 'msg=\"The configuration turns a feature off\"' '$tmp/exporter-versions.log'"
stop_service
remove_and_purge

echo "== 2. install $(basename "$deb1") on a clean machine"
dpkg -i "$deb1" </dev/null
check "dpkg says installed" sh -c "dpkg-query -W -f='\${Status} \${Version}' $name | grep -qx 'install ok installed $version-1'"
check "$user is a system user with no login shell" sh -c "getent passwd $user | awk -F: '\$3 < 1000 && \$7 == \"/usr/sbin/nologin\" {ok=1} END {exit !ok}'"
owner_mode /usr/bin/$name root:root 755
owner_mode $unit root:root 644
owner_mode /etc/$name root:$user 750
owner_mode $conf root:$user 640
owner_mode $defaults root:root 600
owner_mode $state $user:$user 700
check "$conf is the shipped one, only what an install must set" cmp -s packaging/$name.yml $conf
check "$defaults is the shipped one" cmp -s packaging/default $defaults
check "the package has no conffile: an upgrade cannot prompt" sh -c "[ -z \"\$(dpkg-query -W -f='\${Conffiles}' $name)\" ]"
check "the manual page is installed" test -s /usr/share/man/man1/$name.1.gz
check "CHANGELOG.md is installed as /usr/share/doc/$name/changelog.gz" sh -c "gzip -dc /usr/share/doc/$name/changelog.gz | cmp -s - CHANGELOG.md"
check "the binary says version $version and this commit" sh -c "/usr/bin/$name --version 2>&1 | grep -q 'version $version .*revision: $(git rev-parse HEAD)'"

echo "== systemd-analyze verify $unit"
out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ] && pass "systemd-analyze verify: no warning" || fail "systemd-analyze verify: $out"

echo "== the documented commands, as written (docs/commands_test.go), then the service's command line against the simulator"
# The working directory of a checkout after make package: dist/ with the .deb, rules/, examples/.
mkdir -p "$tmp/docs-dir/dist"
cp "$deb1" "$tmp/docs-dir/dist/"
ln -s "$PWD/rules" "$PWD/examples" "$tmp/docs-dir/"
go test -c -o "$tmp/docs.test" ./docs/
# docs_phase PHASE: the commands of README.md and docs/*.md marked to run in PHASE, in the
# namespace, as root, with the install guide's variables set to the simulator's values.
docs_phase() {
  if (cd docs && CLOUD=$endpoint CS_API_KEY=$api_key CS_SECRET_KEY=$secret_key SSH_KEY=$tmp/sim/id_ed25519 \
    CKS_DRIFT_DOCS_PHASE=$1 CKS_DRIFT_DOCS_DIR=$tmp/docs-dir CKS_DRIFT_DOCS_RAN=$tmp/docs-ran \
    CKS_DRIFT_DOCS_LOG=$tmp/exporter.log ip netns exec "$ns" "$tmp/docs.test" -test.v -test.count=1 \
    -test.run '^TestDocumentedCommandsOnAPackage$') >"$tmp/docs-$1.log" 2>&1; then
    pass "the documented commands of phase $1 run as written ($(grep -c '^    --- PASS' "$tmp/docs-$1.log") blocks)"
  else
    fail "documented commands of phase $1 fail as written"; cat "$tmp/docs-$1.log"
  fi
}
docs_phase install
check "--config.check --config.check.offline accepts the edited configuration" sh -c \
  "set -a; . $defaults; set +a; runuser -u $user -- /usr/bin/$name --config.file=$conf --config.check --config.check.offline"
header=$(sed -n "s/^#   \(sudo sh -c .*--config.check .*\)$/\1/p" $conf)
check "the configuration's header has its check command" test -n "$header"
if inns sh -c "$header" >"$tmp/header-check.log" 2>&1 && grep -q 'configuration is valid' "$tmp/header-check.log"; then
  pass "the header's check command runs as written: $header"
else
  fail "the header's check command fails: $header"; cat "$tmp/header-check.log"
fi
start_service "$tmp/exporter.log"
serving "$tmp/exporter.log" || true
got=$(listening)
if [ "$got" = 127.0.0.1:9862 ]; then pass "the service listens on 127.0.0.1:9862 only"; else fail "the service listens on '$got'"; fi
runs_as=$(for p in /proc/[0-9]*; do if [ "$(readlink $p/exe 2>/dev/null)" = /usr/bin/$name ]; then stat -c %U $p; fi; done)
if [ "$runs_as" = $user ]; then pass "the process runs as $user"; else fail "the process runs as '$runs_as'"; fi
check "the simulator printed the annotation CloudStack received (as make demo does)" \
  await 60 grep -q 'CloudStack received addAnnotation on cluster' "$tmp/sim.log"
docs_phase running
stop_service
docs_phase stopped
owner_mode $state/state.db $user:$user 600
sum_before=$(sums)

echo "== upgrade to $(basename "$deb2"), standard input closed"
rc=0
dpkg -i "$deb2" </dev/null >"$tmp/upgrade2.log" 2>&1 || rc=$?
check "dpkg -i exits 0 with standard input closed (exit $rc)" test $rc = 0
check "dpkg asked nothing" sh -c "! grep -q 'Configuration file' '$tmp/upgrade2.log'"
check "dpkg says $version-2 installed" sh -c "dpkg-query -W -f='\${Status} \${Version}' $name | grep -qx 'install ok installed $version-2'"
if [ "$(sums)" = "$sum_before" ]; then pass "the upgrade kept the configuration, the keys and the state"; else fail "the upgrade changed the configuration, the keys or the state"; fi
owner_mode $state $user:$user 700
echo "== downgrade to $(basename "$older_deb"), a build before the state format of $since"
sum_before=$(sums)
rc=0
dpkg -i "$older_deb" </dev/null >"$tmp/downgrade.log" 2>&1 || rc=$?
cat "$tmp/downgrade.log"
check "dpkg -i of the older build fails (exit $rc)" test $rc != 0
check "the prerm said why" grep -q "refusing the downgrade to $since~older-1" "$tmp/downgrade.log"
check "the older build's prerm kept the refusal (failed-upgrade)" grep -q "refused the downgrade to $since~older-1" "$tmp/downgrade.log"
check "dpkg still says $version-2 installed" sh -c "dpkg-query -W -f='\${Status} \${Version}' $name | grep -qx 'install ok installed $version-2'"
if [ "$(sums)" = "$sum_before" ]; then pass "the refused downgrade kept the state"; else fail "the refused downgrade changed the state"; fi
# The upgraded binary with the kept configuration and state: one cycle, drift found (exit 1).
rc=0
(cd / && set -a && . "$defaults" && set +a && inns runuser -u $user -- /usr/bin/$name --config.file=$conf --once) >"$tmp/once.log" 2>&1 || rc=$?
if [ $rc = 1 ] && grep -q unmapped_vm "$tmp/once.log"; then pass "the upgraded binary checks the cloud (--once exit 1, drift)"; else fail "--once after upgrade: exit $rc"; cat "$tmp/once.log"; fi
remove_and_purge

echo "== $rpm1"
files=$(rpm -qlp "$rpm1" 2>/dev/null)
for f in /usr/bin/$name $unit $conf /etc/sysconfig/$name $state /usr/share/man/man1/$name.1.gz /usr/share/doc/$name/CHANGELOG.md; do
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
