#!/bin/sh
# rpm %post (1 install, 2 upgrade; the .deb's is packaging/deb/postinst): tell
# systemd about the unit, and restart the service on upgrade if it runs. A first install does
# not start it: the configuration needs the cloud's endpoint and keys first.
set -e
case "$1" in
  configure) upgrade=${2:+yes} ;;
  1) upgrade= ;;
  2) upgrade=yes ;;
  *) exit 0 ;;
esac
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
  if [ -n "$upgrade" ]; then
    systemctl try-restart cks-drift-exporter.service || true
  fi
fi
exit 0
