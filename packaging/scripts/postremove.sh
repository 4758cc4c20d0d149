#!/bin/sh
# rpm %postun: tell systemd the unit is gone. The state stays (findings, what was announced,
# pinned SSH host keys), as rpm has no purge; the .deb's postrm is packaging/deb/postrm.
set -e
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
exit 0
