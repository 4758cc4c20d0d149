#!/bin/sh
# The service's system user and group, created before the files that they own are unpacked
# (deb preinst; rpm %pre). Kept on removal, as Debian keeps system users.
set -e
user=cks-drift-exporter
if ! getent group "$user" >/dev/null; then
  groupadd --system "$user"
fi
if ! getent passwd "$user" >/dev/null; then
  useradd --system --gid "$user" --home-dir /var/lib/cks-drift-exporter --no-create-home \
    --shell /usr/sbin/nologin --comment "CKS drift exporter" "$user"
fi
exit 0
