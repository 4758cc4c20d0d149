#!/bin/sh
# The version of the binary, the packages and the image: packaging/version.sh [COMMIT], HEAD by
# default. The VERSION file at the top of the tree (as Prometheus projects keep one) is changed by
# hand at a release: a build of the commit that last changed it is that version; every later
# commit is VERSION+<commits since that one>.g<abbreviated commit> (0.1.0+103.gd2b6b0a), and a
# build of HEAD with local changes ends in .dirty (a release's: 0.1.0+0.g<commit>.dirty), so that no two builds of one branch share a
# version. dpkg and rpm sort these above their release, below the next one and by commit count
# (packaging/packaging_test.go checks both). Commits before the VERSION file were
# 0.0.0+<commits>.g<commit>, as their own packaging named them. Outside a git checkout (a
# source tarball, the container build's context): VERSION alone.
set -e
cd "$(dirname "$0")/.."
commit=${1:-HEAD}
dirty=
if ! git rev-parse --verify -q "$commit^{commit}" >/dev/null 2>&1; then
  [ -z "$1" ] || { echo "packaging/version.sh: $1 is not a commit of this clone" >&2; exit 1; }
  v=$(tr -d ' \n' <VERSION)
  n=
elif [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  echo "packaging/version.sh: a shallow clone cannot count commits; fetch the history (git fetch --unshallow)" >&2
  exit 1
elif git cat-file -e "$commit:VERSION" 2>/dev/null; then
  v=$(git show "$commit:VERSION" | tr -d ' \n')
  n=$(git rev-list --count "$(git log -1 --format=%H "$commit" -- VERSION)..$commit")
else
  v=0.0.0
  n=$(git rev-list --count "$commit")
fi
if [ -z "$1" ] && [ -n "$n" ] && git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --quiet HEAD --; then
  dirty=.dirty # a release's tree with local changes is 0.1.0+0.g<commit>.dirty, above the release
fi
case "$v" in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "packaging/version.sh: VERSION says '$v', want MAJOR.MINOR.PATCH" >&2; exit 1 ;;
esac
if [ "${n:-0}" -gt 0 ] || [ -n "$dirty" ]; then
  echo "$v+$n.g$(git rev-parse --short=7 "$commit")$dirty"
else
  echo "$v"
fi
