#!/bin/sh
# Which places the service can write, run as an ExecStartPre= of archivectl.service (a drop-in the
# package test adds), so with the unit's own user and sandbox. One line per place, "writable" or
# "denied", in /var/lib/archivectl/write-test.out; it leaves a marker in /tmp and /var/tmp so that
# the test can see they were the service's own. Always exits 0: the test judges, not systemd.
out=/var/lib/archivectl/write-test.out
: >"$out" || exit 0
for dir in /var/lib/archivectl /var/cache/archivectl /run/archivectl /run/lock /dev/shm /dev/mqueue \
  /tmp /var/tmp /run /etc /opt /opt/archivectl /usr/local /var/log /var/lib /root /home /dev; do
  probe="$dir/.write-test.$$"
  if (: >"$probe") 2>/dev/null; then
    rm -f "$probe"
    echo "writable $dir"
  else
    echo "denied $dir"
  fi >>"$out"
done
: >/tmp/archivectl-write-test.marker 2>/dev/null
: >/var/tmp/archivectl-write-test.marker 2>/dev/null
exit 0
