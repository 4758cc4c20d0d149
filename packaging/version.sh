#!/bin/sh
# The package version, from git as the binary's: a release tag v1.2.3 gives 1.2.3, a commit after
# it 1.2.3+4.gabc1234, an untagged history 0.0.0+<commits>.g<commit>; ".dirty" marks local changes.
# Debian and RPM versions must start with a digit and sort upwards, which the commit count does.
set -e
dirty=
git diff --quiet HEAD 2>/dev/null || dirty=.dirty
if tag=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
  echo "${tag#v}$dirty" | sed 's/-\([0-9]*\)-g\([0-9a-f]*\)/+\1.g\2/'
else
  echo "0.0.0+$(git rev-list --count HEAD 2>/dev/null || echo 0).g$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$dirty"
fi
