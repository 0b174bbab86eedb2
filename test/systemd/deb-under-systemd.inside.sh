#!/bin/bash
# Inside the booted Debian of deb-under-systemd.sh, as root, with systemd as PID 1 and no network:
# the docs' procedures for the Debian package, run as written (procedures/*.sh), with VERSION
# and OLD_VERSION set as the docs say, and what they must give. Figures go to ./figures.
#   install-deb   OLD_VERSION, timed; a token; a request with it 200
#   the unit      systemd-analyze security <= 1.5; the write test (write-test.sh) holds
#   restart       systemctl restart under 10 requests/s: none refused, none lost
#   upgrade-deb   OLD_VERSION -> NEW_VERSION under 10 requests/s: none lost; the old release's
#                 files stay beside the new one; the restart migrated to the newer schema; the
#                 install and the restart timed
#   rollback-deb  NEW_VERSION -> OLD_VERSION: the schema back to the older one, the token still answered 200
set -euo pipefail
cd /root/ci
# shellcheck source=/dev/null
. ./env
URL=http://127.0.0.1:8080
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
fail() {
  echo "FAILED: $*"
  echo "--- journal of archivectl (last 30 lines)"
  journalctl -u archivectl.service -u archivectl.socket -o short-precise --no-pager | tail -30 || true
  exit 1
}
figure() { echo "$*" | tee -a figures; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
now() { date +%s.%N; }

# A procedure as written, each command traced with its start time (for the figures). A block
# opens with the lines that assign its parameters (`V=0.2.0   # the release to install`): each
# PARAM=VALUE given here replaces the value of that line, the rest runs as the docs have it.
procedure() { # NAME PARAM=VALUE...
  local name=$1 param value
  shift
  cp "procedures/$name.sh" "run-$name.sh"
  for assignment in "$@"; do
    param=${assignment%%=*}
    value=${assignment#*=}
    grep -q "^$param=" "run-$name.sh" || fail "procedure $name no longer assigns $param"
    sed -i "0,/^$param=[^ ]*/s||$param=$value|" "run-$name.sh"
  done
  echo "--- procedure $name ($*)"
  # (bash takes no PS4 from the environment when run by root: set inside)
  bash -eu -o pipefail -c 'PS4="+ \$(date +%s.%N) "; set -x; . "$0"' "run-$name.sh" 2>"trace-$name" || {
    cat "trace-$name"
    fail "procedure $name failed"
  }
  echo "end $(now)" >>"trace-$name"
  grep -v '^+* [0-9.]* \(date\|awk\|\. run-\)' "trace-$name" | sed 's/^+* [0-9.]* /+ /' || true
}
# Seconds from the traced command matching $2 to the next command (or the end) in trace $1.
command_seconds() {
  awk -v pat="$2" '
    /^\++ [0-9.]+ / { if (t != "" && end == "") end = $2; if (t == "" && index($0, pat)) t = $2; next }
    /^end / { if (t != "" && end == "") end = $2 }
    END { if (t == "" || end == "") exit 1; printf "%.2f", end - t }' "trace-$1"
}

# 10 requests a second with the token until stopped; each line: HTTP status, curl's exit status
# (7: refused, 28: no answer in 30 s), start time
traffic_start() {
  : >"traffic-$1"
  (
    while [ ! -e "traffic-$1.stop" ]; do
      (
        t=$(now)
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H "Authorization: Bearer $TOKEN" "$URL/api/actors?perPage=1") && rc=0 || rc=$?
        echo "$code $rc $t" >>"traffic-$1"
      ) &
      sleep 0.1
    done
    wait
  ) &
  TRAFFIC=$!
  sleep 2
}
traffic_stop() { # NAME: prints the counts, fails when one was lost
  sleep 2
  touch "traffic-$1.stop"
  wait "$TRAFFIC"
  local total ok refused
  total=$(wc -l <"traffic-$1")
  ok=$(grep -c '^200 0 ' "traffic-$1" || true)
  refused=$(grep -c '^[0-9]* 7 ' "traffic-$1" || true)
  figure "$1: $total requests, $((total - ok)) lost ($refused refused)"
  [ "$ok" = "$total" ] || {
    grep -v '^200 0 ' "traffic-$1" | head -20
    fail "$1: $((total - ok)) of $total requests were not answered 200"
  }
}
status_with_token() { curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H "Authorization: Bearer $TOKEN" "$URL/api/actors?perPage=1"; }
installed() { dpkg-query -W -f='${Version}' archivectl; }

echo "systemd $(systemctl --version | head -1 | cut -d' ' -f2) as PID 1 ($(cat /proc/1/comm)); $(systemctl is-system-running || true)"
for p in node npm cc gcc make python3; do ! command -v "$p" >/dev/null || fail "$p is installed here: the package must not need it"; done
ip -o link 2>/dev/null | grep -v ' lo:' && fail "the machine has a network" || true

# --- install -------------------------------------------------------------------------------------
procedure install-deb "V=$OLD_VERSION"
seconds=$(command_seconds install-deb 'apt-get install') || fail "install-deb has no apt-get install"
figure "install: apt-get install $seconds s (no network, no compiler, no node)"
[ "$(installed)" = "$OLD_VERSION" ] || fail "dpkg says $(installed) is installed, not $OLD_VERSION"
[ "$(readlink /opt/archivectl/current)" = "$OLD_VERSION" ] || fail "/opt/archivectl/current is not $OLD_VERSION"
systemctl is-active --quiet archivectl.service || fail "archivectl.service is not active after install-deb"
if [ -e /lib/systemd/system/archivectl.socket ]; then
  systemctl is-active --quiet archivectl.socket || fail "archivectl.socket is not active after install-deb"
  systemctl is-enabled --quiet archivectl.socket || fail "archivectl.socket is not enabled after install-deb"
fi
figure "archivectl: $(archivectl --version | head -1)"

# A token (docs/cli.md), as the service's user
runuser -u archive -- archivectl account create ci --role user --as root
TOKEN=$(runuser -u archive -- archivectl token create ci --name package-test --as root)
[ "$(status_with_token)" = 200 ] || fail "a request with the new token was not answered 200"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/api/actors?perPage=1")" = 401 ] || fail "a request without a token was not refused with 401"
journalctl -u archivectl.service -o cat --no-pager | grep -qF "${TOKEN#arc_}" && fail "the token's value is in the journal"
echo "a request with the token: 200"

# --- the unit ------------------------------------------------------------------------------------
score=$(systemd-analyze security archivectl.service --no-pager | sed -n 's/.*Overall exposure level for archivectl.service: \([0-9.]*\).*/\1/p')
figure "systemd-analyze security archivectl.service: $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 1.5) }' || fail "the exposure level $score is above 1.5"

# The write test, from the service's own context: an ExecStartPre= in a drop-in
install -D -m 0755 write-test.sh /usr/local/lib/archivectl-ci/write-test.sh
mkdir -p /run/systemd/system/archivectl.service.d
printf '[Service]\nExecStartPre=/bin/sh /usr/local/lib/archivectl-ci/write-test.sh\n' >/run/systemd/system/archivectl.service.d/write-test.conf
rm -f /tmp/archivectl-write-test.marker /var/tmp/archivectl-write-test.marker
systemctl daemon-reload
systemctl restart archivectl.service
rm /run/systemd/system/archivectl.service.d/write-test.conf
systemctl daemon-reload
[ -f /var/lib/archivectl/write-test.out ] || fail "the write test wrote no result (not even to /var/lib/archivectl)"
result=$(cat /var/lib/archivectl/write-test.out)
rm -f /var/lib/archivectl/write-test.out
echo "$result"
writable=$(awk '$1 == "writable" { print $2 }' <<<"$result" | sort | tr '\n' ' ')
expected="/var/lib/archivectl /var/cache/archivectl /tmp /var/tmp"
[ -d /run/archivectl ] && expected="$expected /run/archivectl"
expected=$(tr ' ' '\n' <<<"$expected" | sort | tr '\n' ' ')
figure "write test: the service can write $writable"
[ "$writable" = "$expected" ] || fail "the service can write: $writable; it may write only: $expected"
# its /tmp and /var/tmp are its own
[ ! -e /tmp/archivectl-write-test.marker ] || fail "the service wrote to the machine's /tmp"
[ ! -e /var/tmp/archivectl-write-test.marker ] || fail "the service wrote to the machine's /var/tmp"
systemctl restart archivectl.service
[ "$(status_with_token)" = 200 ] || fail "the token was not answered 200 after the write test"

# --- restart under traffic -------------------------------------------------------------------
traffic_start restart
t0=$(now)
systemctl restart archivectl.service
figure "restart: systemctl restart took $(elapsed "$t0" "$(now)") s"
traffic_stop restart

# --- upgrade under traffic -------------------------------------------------------------------
# the schema each release expects, as its archivectl --version says
schema_of() { "$1" --version | sed -n 's/.*database schema \([^)]*\)).*/\1/p'; }
OLD_SCHEMA=$(schema_of "/opt/archivectl/$OLD_VERSION/bin/archivectl")
[ -n "$OLD_SCHEMA" ] || fail "/opt/archivectl/$OLD_VERSION/bin/archivectl --version names no schema"
traffic_start upgrade
procedure upgrade-deb "V=$NEW_VERSION"
traffic_stop upgrade
seconds=$(command_seconds upgrade-deb 'apt-get install') || fail "upgrade-deb has no apt-get install"
figure "upgrade: apt-get install $seconds s while the old release served"
seconds=$(command_seconds upgrade-deb 'systemctl restart') || fail "upgrade-deb has no systemctl restart"
figure "upgrade: systemctl restart (stop, back up, migrate, listen) $seconds s, connections queued by the socket meanwhile"
[ "$(installed)" = "$NEW_VERSION" ] || fail "dpkg says $(installed) is installed, not $NEW_VERSION"
[ "$(readlink /opt/archivectl/current)" = "$NEW_VERSION" ] || fail "/opt/archivectl/current is not $NEW_VERSION"
[ -x "/opt/archivectl/$OLD_VERSION/bin/archivectl" ] || fail "the release upgraded from is gone from /opt/archivectl/$OLD_VERSION"
pid=$(systemctl show -p MainPID --value archivectl.service)
grep -q "/opt/archivectl/$NEW_VERSION/" "/proc/$pid/maps" || fail "the daemon does not run the new release's files"
[ "$(status_with_token)" = 200 ] || fail "the token was not answered 200 after the upgrade"
# the release upgraded from is older: the new daemon's start-up migrated the database
NEW_SCHEMA=$(schema_of archivectl)
[ "$NEW_SCHEMA" != "$OLD_SCHEMA" ] || fail "$OLD_VERSION and $NEW_VERSION expect one schema: the upgrade migrated nothing"
applied=$(journalctl -u archivectl.service -o cat --no-pager | grep 'applied database migrations' | tail -1)
grep -q "$NEW_SCHEMA" <<<"$applied" || fail "the upgrade's restart did not apply $NEW_SCHEMA (journal: ${applied:-nothing})"
runuser -u archive -- archivectl doctor | grep -q "all applied: schema $NEW_SCHEMA" || fail "doctor does not report schema $NEW_SCHEMA"
figure "upgrade: migrated $OLD_SCHEMA -> $NEW_SCHEMA"

# --- rollback --------------------------------------------------------------------------------
procedure rollback-deb "OLD=$OLD_VERSION" "SCHEMA=$OLD_SCHEMA"
[ "$(installed)" = "$OLD_VERSION" ] || fail "dpkg says $(installed) is installed after the rollback, not $OLD_VERSION"
[ "$(readlink /opt/archivectl/current)" = "$OLD_VERSION" ] || fail "/opt/archivectl/current is not $OLD_VERSION after the rollback"
[ "$(status_with_token)" = 200 ] || fail "the token was not answered 200 after the rollback"
runuser -u archive -- archivectl doctor | grep -q "all applied: schema $OLD_SCHEMA" || fail "doctor does not report schema $OLD_SCHEMA after the rollback"
seconds=$(command_seconds rollback-deb 'apt-get install') || fail "rollback-deb has no apt-get install"
figure "rollback: apt-get install $seconds s; the token still answered 200"
journalctl -u archivectl.service -p err -o cat --no-pager | tail -5 | sed 's/^/journal error: /'
echo "all held"
