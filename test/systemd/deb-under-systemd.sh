#!/usr/bin/env bash
# The Debian package under a real systemd (docs/testing.md, "The package under systemd"): boots a
# minimal Debian 12 with systemd as PID 1 (systemd-nspawn -b, no network) and runs
# deb-under-systemd.inside.sh there: the install, upgrade and rollback procedures of
# docs/deployment.md and docs/upgrading.md as written, a request with a token, 10 requests/s
# during a restart and an upgrade, systemd-analyze security, and the unit's write test.
#
#   test/systemd/deb-under-systemd.sh [NEW.deb OLD.deb]
#
# Without packages it builds them with scripts/release.js: this checkout's at package.json's
# version, and the previous release at a lower version (VERSION~prev) as the release upgraded from
# and rolled back to, so that the upgrade applies a migration and the rollback undoes it. The
# previous release is PREVIOUS (a commit), by default the commit before the newest migration came
# (the first parent of the merge that added it), built from its own sources with this checkout's
# scripts/release.js (--source). The Debian root is built once with debootstrap and kept in
# ${XDG_CACHE_HOME:-~/.cache}/archivectl-ci/bookworm-root (rebuilt when its stamp is missing or
# names other packages); each run boots a copy. Needs root, debootstrap and systemd-nspawn
# (Debian packages debootstrap, systemd-container). Exits non-zero saying what broke.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/archivectl-ci"
DEBIAN_ROOT="$CACHE/bookworm-root"
INCLUDE=systemd,systemd-sysv,dbus,curl,ca-certificates,sudo
MIRROR="${ARCHIVECTL_CI_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
say() { printf '== systemd: %s\n' "$*"; }
broke() {
  printf '== systemd: FAILED: %s\n' "$*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || broke "needs root (debootstrap, systemd-nspawn)"
export PATH="$PATH:/usr/sbin:/sbin"
for p in debootstrap systemd-nspawn dpkg-deb; do command -v "$p" >/dev/null || broke "$p is not installed"; done

WORK=$(mktemp -d)
MACHINE=""
cleanup() {
  [ -z "$MACHINE" ] || kill "$MACHINE" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- the Debian root, once ------------------------------------------------------------------
if [ "$(cat "$DEBIAN_ROOT.stamp" 2>/dev/null)" != "bookworm minbase $INCLUDE" ]; then
  say "building the Debian 12 root (debootstrap --variant=minbase, once) in $DEBIAN_ROOT"
  rm -rf "$DEBIAN_ROOT" "$DEBIAN_ROOT.part" "$DEBIAN_ROOT.stamp"
  mkdir -p "$CACHE"
  debootstrap --variant=minbase --include="$INCLUDE" bookworm "$DEBIAN_ROOT.part" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log"; broke "debootstrap failed"; }
  mv "$DEBIAN_ROOT.part" "$DEBIAN_ROOT"
  echo "bookworm minbase $INCLUDE" >"$DEBIAN_ROOT.stamp"
fi

# --- the packages -----------------------------------------------------------------------------
if [ $# -ge 2 ]; then
  NEW_DEB=$(realpath "$1")
  OLD_DEB=$(realpath "$2")
else
  VERSION=$(node -p 'require("./package.json").version')
  newest=$(git ls-files 'migrations/*.js' | sort | tail -1)
  PREVIOUS=${PREVIOUS:-$(git log --first-parent --diff-filter=A --format=%H -- "$newest" | tail -1)^1}
  git cat-file -e "$PREVIOUS:systemd/archivectl.socket" 2>/dev/null ||
    broke "the previous release $PREVIOUS has no socket unit: the procedures need one (set PREVIOUS)"
  git cat-file -e "$PREVIOUS:$newest" 2>/dev/null && broke "the previous release $PREVIOUS already has $newest"
  say "building the packages: $VERSION, and $VERSION~prev from $(git rev-parse --short "$PREVIOUS") (before $newest)"
  node scripts/release.js --out "$WORK/new" --no-tarball
  mkdir "$WORK/previous"
  git archive "$PREVIOUS" | tar -x -C "$WORK/previous"
  node scripts/release.js --source "$WORK/previous" --out "$WORK/old" --no-tarball --version "$VERSION~prev"
  NEW_DEB=$(ls "$WORK"/new/archivectl_*.deb)
  OLD_DEB=$(ls "$WORK"/old/archivectl_*.deb)
fi
field() { dpkg-deb -f "$1" "$2"; }

# --- the machine --------------------------------------------------------------------------------
MACHINE_ROOT="$WORK/root"
say "copying the Debian root"
cp -a "$DEBIAN_ROOT" "$MACHINE_ROOT"
CI="$MACHINE_ROOT/root/ci"
mkdir -p "$CI/procedures"
cp "$NEW_DEB" "$OLD_DEB" "$CI/"
cp test/systemd/deb-under-systemd.inside.sh test/systemd/write-test.sh "$CI/"
for name in install-deb upgrade-deb rollback-deb; do
  node scripts/extract-procedure.js "$name" docs/deployment.md docs/upgrading.md >"$CI/procedures/$name.sh" ||
    broke "no procedure $name to run"
  for f in docs/deployment.md docs/upgrading.md; do
    if grep -qx "<!-- procedure: $name -->" "$f"; then
      echo "$name: $f" >>"$CI/procedures/from"
      break
    fi
  done
done
cat >"$CI/env" <<EOF
NEW_VERSION=$(field "$NEW_DEB" Version)
OLD_VERSION=$(field "$OLD_DEB" Version)
EOF
# Run at boot, once the system is up; the machine powers off when it is done.
cat >"$MACHINE_ROOT/etc/systemd/system/archivectl-ci.service" <<'EOF'
[Unit]
Description=archivectl package test
After=dbus.service
[Service]
Type=simple
WorkingDirectory=/root/ci
ExecStart=/bin/bash -c '/bin/bash /root/ci/deb-under-systemd.inside.sh >/root/ci/log 2>&1; echo $? >/root/ci/status'
ExecStopPost=/usr/bin/systemctl --no-block poweroff
[Install]
WantedBy=multi-user.target
EOF
ln -s ../archivectl-ci.service "$MACHINE_ROOT/etc/systemd/system/multi-user.target.wants/archivectl-ci.service"
echo archivectl-ci >"$MACHINE_ROOT/etc/hostname"

say "booting it: systemd-nspawn -b (no network)"
BOOT_START=$SECONDS
timeout 900 systemd-nspawn -b --register=no --keep-unit --private-network -D "$MACHINE_ROOT" \
  --console=pipe >"$WORK/console.log" 2>&1 </dev/null &
MACHINE=$!
wait "$MACHINE" || true
MACHINE=""
say "the machine ran $((SECONDS - BOOT_START)) s"

[ -f "$CI/log" ] || { tail -40 "$WORK/console.log"; broke "the test did not run in the machine (console above)"; }
cat "$CI/log"
echo
say "procedures from: $(tr '\n' ' ' <"$CI/procedures/from")"
[ -f "$CI/figures" ] && sed 's/^/== systemd: figure: /' "$CI/figures"
status=$(cat "$CI/status" 2>/dev/null || echo "none (the machine stopped first)")
[ "$status" = 0 ] || broke "the test in the machine ended with status $status (its log above)"
say "passed"
