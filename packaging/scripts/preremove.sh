#!/bin/sh
# rpm %preun (0: removal; the .deb's is packaging/deb/prerm): stop the service if systemd runs, and
# disable it either way (systemctl disable works without a running systemd), so that no
# enablement link outlives the unit. An upgrade restarts it in the postinstall instead.
set -e
case "$1" in
  remove|0) ;;
  *) exit 0 ;;
esac
if command -v systemctl >/dev/null 2>&1; then
  if [ -d /run/systemd/system ]; then
    systemctl stop cks-drift-exporter.service || true
  fi
  systemctl disable cks-drift-exporter.service >/dev/null 2>&1 || true
fi
exit 0
