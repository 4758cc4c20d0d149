#!/bin/sh
# Before removal (deb prerm "remove"; rpm %preun 0): stop the service. An upgrade restarts it
# in the postinstall instead.
set -e
case "$1" in
  remove|0) ;;
  *) exit 0 ;;
esac
if [ -d /run/systemd/system ]; then
  systemctl disable --now cks-drift-exporter.service || true
fi
exit 0
