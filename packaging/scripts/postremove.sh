#!/bin/sh
# After removal. "remove" keeps the state (findings, what was announced, pinned SSH host keys);
# "purge" (deb only; dpkg removes the configuration itself) deletes it too.
set -e
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
if [ "$1" = purge ]; then
  rm -rf /var/lib/cks-drift-exporter
fi
exit 0
