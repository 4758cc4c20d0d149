#!/bin/sh
# The version of the binary, the packages, the image and the chart: the VERSION file at the top
# of the tree (as Prometheus projects keep one), changed by hand at a release. Builds of one
# version are told apart by their revision (git), and packages by PKG_RELEASE.
set -e
cd "$(dirname "$0")/.."
v=$(tr -d ' \n' <VERSION)
case "$v" in
  [0-9]*.[0-9]*.[0-9]*) echo "$v" ;;
  *) echo "packaging/version.sh: VERSION says '$v', want MAJOR.MINOR.PATCH" >&2; exit 1 ;;
esac
