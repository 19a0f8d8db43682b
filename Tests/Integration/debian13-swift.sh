#!/usr/bin/env bash
# Debian's own Swift (issue 19): builds the root package with Debian 13's `swiftlang` (Swift 6.0.3) inside a Debian 13
# (trixie) root made by mmdebstrap from Debian's packages on this machine's architecture (cached as a tarball, like
# package-chroot.sh's), and runs its tests there. The chroot reads github.com packages from /opt/swift-packages (bound
# read-only, with the host's git rule), so resolution is offline.
#
#   Tests/Integration/debian13-swift.sh              build everything (--build-tests) and run every test (root)
#   Tests/Integration/debian13-swift.sh --ci         build everything and run a named subset (CI_SUITES below)
#   Tests/Integration/debian13-swift.sh --build-only build everything, run no test
#   Tests/Integration/debian13-swift.sh --root-only  make (or find) the cached root and stop (scripts/test runs it in
#                                                    the background while the main build runs)
#
# The tree is copied into the root (Sources, Tests, Examples, boards, …: no .git, no .build*), so that the chroot's
# Package.resolved never replaces the host's; the build's scratch path, .build-debian13 in the repository, persists.
#
# The whole package builds, unchanged: the daemon logs through LodestoneLog (in house) since swift-log's releases in
# reach offline need Swift 6.2. The tests run as scripts/test runs them (the daemon's and the fleet's on their own),
# less what the root cannot provide, each skip printed with its reason.
#
# Prints PASS/FAIL/SKIP lines and the timings; exit 0 = built and every test run passed. Skips (exit 0) when not root.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
MODE=all
case "${1:-}" in
  "") ;;
  --root-only) MODE=root ;;
  --ci) MODE=ci ;;
  --build-only) MODE=build ;;
  *) echo "usage: $0 [--ci | --build-only | --root-only]" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then echo "SKIP debian13-swift: needs root (mmdebstrap, chroot, mounts)"; exit 0; fi
command -v mmdebstrap >/dev/null || { echo "FAIL debian13-swift: mmdebstrap is missing (scripts/bootstrap --test)"; exit 1; }
log() { echo "debian13-swift: $*"; }
# no swift-log (see the header)
if grep -rlE '^import Logging' Sources Tests Examples || grep -q 'swift-log"' Package.swift; then
  echo "FAIL debian13-swift: swift-log is back (its releases in /opt/swift-packages need Swift 6.2): use LodestoneLog"; exit 1
fi

now() { date +%s; }

# ---------------------------------------------------------------- the cached Debian 13 root
# swiftlang: Debian's Swift 6.0.3 (swift, swiftc, the package manager, XCTest, Swift Testing, Foundation). git:
# the package manager clones dependencies. The -dev packages are what the package links (scripts/bootstrap's list).
# The test tools are scripts/bootstrap --test's that the tests run here use: gpsd (GNSS sources), iiod and
# libiio-utils (libiio's network backend), util-linux and mount (the private mount namespaces), strace, proj-data.
PACKAGES="swiftlang,git,ca-certificates,pkg-config,libi2c-dev,libiio-dev,zlib1g-dev,libsqlite3-dev,libmosquitto-dev"
PACKAGES+=",gpsd,iiod,libiio-utils,util-linux,mount,strace,proj-data"
# The daemon's and the fleet's tests: Debian's gpsd clients (gpspipe, cgps, python3-gps, libgps), tmux, and mosquitto.
PACKAGES+=",gpsd-clients,python3-gps,libgps-dev,tmux,mosquitto,mosquitto-clients"
ARCH=$(dpkg --print-architecture)
KEY=$(echo "trixie $ARCH $PACKAGES" | sha256sum | cut -c1-16)
CACHE=${LODESTONE_TEST_CACHE:-/var/cache/lodestone-test}/debian13-swift
BASE="$CACHE/$KEY.tar"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 1200 9 || { echo "FAIL debian13-swift: cache $CACHE is locked by another run"; exit 1; }
if [ ! -f "$BASE" ]; then
  log "building the Debian 13 root with mmdebstrap (once; cached as $BASE)"
  T=$(now)
  mmdebstrap --variant=apt --format=tar --architectures="$ARCH" --include="$PACKAGES" trixie "$BASE.tmp" \
    http://deb.debian.org/debian \
    >"$CACHE/mmdebstrap.log" 2>&1 || { tail -20 "$CACHE/mmdebstrap.log"; echo "FAIL debian13-swift: mmdebstrap"; exit 1; }
  mv "$BASE.tmp" "$BASE"
  log "root built in $(( $(now) - T ))s"
else
  log "cached root $BASE"
fi
flock -u 9
[ "$MODE" = root ] && exit 0

# ---------------------------------------------------------------- unpack, mount, copy the tree
T0=$(now)
R=$(mktemp -d /var/tmp/lodestone-debian13.XXXXXX)
cleanup() {
  for m in src/.build-debian13 shared opt/swift-packages dev/pts dev proc; do umount -l "$R/$m" 2>/dev/null || true; done
  umount -l "$R" 2>/dev/null || true
  # Bind mounts share the host's file system, so rm's --one-file-system would not stop at them: remove nothing while
  # anything is still mounted under the root.
  if grep -q " $R/" /proc/self/mounts; then echo "debian13-swift: $R still has mounts; left in place" >&2; return; fi
  rm -rf --one-file-system "$R"
}
trap cleanup EXIT
tar -C "$R" -xf "$BASE"
# The root is a mount point of its own, so that the tests' private mount namespaces (mount --make-rprivate /) work.
mount --bind "$R" "$R"
mount -t proc proc "$R/proc"
mount --bind /dev "$R/dev"; mount --bind /dev/pts "$R/dev/pts"
mkdir -p "$R/opt/swift-packages"
mount --bind /opt/swift-packages "$R/opt/swift-packages"; mount -o remount,bind,ro "$R/opt/swift-packages"
# ../shared beside the checkout (datasets, the WMM, gpsd's logs), read-only, where the tests look for it from /src.
SHARED=$(cd "$REPO/.." && pwd)/shared
if [ -d "$SHARED" ]; then
  mkdir -p "$R/shared"
  mount --bind "$SHARED" "$R/shared"; mount -o remount,bind,ro "$R/shared"
else
  log "no $SHARED: the tests that read the shared datasets will fail"
fi
# The host's rule, in the root's system git configuration: every github.com address reads /opt/swift-packages.
cat >"$R/etc/gitconfig" <<'EOF'
[url "/opt/swift-packages/"]
	insteadOf = https://github.com/
	insteadOf = git@github.com:
	insteadOf = ssh://git@github.com/
[safe]
	directory = *
EOF
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$R/src"
tar -C "$REPO" --exclude='./.git' --exclude='./.build' --exclude='./.build-*' --exclude='./.build_*' \
  --exclude='./Package.resolved' --exclude='.swiftpm' --exclude='.build' --exclude='./fuzz' --exclude='./dist' \
  -cf - . | tar -C "$R/src" -xf -
mkdir -p "$REPO/.build-debian13" "$R/src/.build-debian13"
mount --bind "$REPO/.build-debian13" "$R/src/.build-debian13"

in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
log "$(in_root swift --version 2>&1 | head -1)"
T_SETUP=$(( $(now) - T0 ))
log "root unpacked and the tree copied in ${T_SETUP}s"

# ---------------------------------------------------------------- build
BUILD_LOG="$REPO/.build-debian13/build.log"
T=$(now)
if ! in_root sh -c 'cd /src && swift build --build-tests --scratch-path .build-debian13' >"$BUILD_LOG" 2>&1; then
  { grep -E "error:" "$BUILD_LOG" || true; } | sort -u | head -40 || true; tail -5 "$BUILD_LOG"
  echo "FAIL debian13-swift: swift build with Debian 13's Swift ($BUILD_LOG)"; exit 1
fi
T_BUILD=$(( $(now) - T ))
WARNINGS=$(grep -E "^/src/(Sources|Tests|Examples)/.*warning:" "$BUILD_LOG" | sort -u || true)
if [ -n "$WARNINGS" ]; then echo "$WARNINGS"; echo "FAIL debian13-swift: warnings in Lodestone's code with Swift 6.0.3"; exit 1; fi
echo "PASS swift build --build-tests with Debian 13's Swift, no warnings in our code (${T_BUILD}s)"

[ "$MODE" = build ] && { log "timings: setup ${T_SETUP}s, build ${T_BUILD}s"; exit 0; }

# ---------------------------------------------------------------- tests
# Every suite runs: the root has what scripts/bootstrap --test installs for them (gpsd and its clients, mosquitto).
# --ci: a named subset that touches every layer (math, decoding, the engine's wire, the daemon's logger and
# configuration, the fleet's units) in a couple of minutes; the build above is the check that matters most.
CI_SUITES='^(LodestoneCoreTests|LodestoneLogTests|LodestoneWireTests|LodestoneTraceTests|LodestoneLocationTests)\.'
FAILED=0
TEST_LOG_DIR="$REPO/.build-debian13"
run_tests() {  # name, swift test's arguments
  local name=$1; shift
  local logf="$TEST_LOG_DIR/test-${name// /-}.log" t
  t=$(now)
  in_root sh -c 'cd /src && exec timeout 1500 swift test --skip-build --scratch-path .build-debian13 "$@"' sh "$@" \
    >"$logf" 2>&1 || true
  local summary xct
  summary=$(grep -E "Test run with [0-9]+ tests?" "$logf" | tail -1 || true)
  xct=$(grep -E "Executed [0-9]+ tests?" "$logf" | tail -1 || true)
  # (Swift Testing 6.0 marks a skipped test with ✘ too: "✘ Test … skipped".)
  # Counted, not `! grep … | grep -q`: under pipefail a grep -q that stops at its first match can leave the grep before it
  # to die of SIGPIPE, and the negation would read that as "no failure".
  failures=$({ grep -E "✘|error: .*failed" "$logf" || true; } | { grep -cv " skipped" || true; })
  if [[ "$summary" == *passed* ]] && [ "${failures:-0}" -eq 0 ]; then
    echo "PASS swift test ($name) with Debian 13's Swift: $summary${xct:+; XCTest: $xct} ($(( $(now) - t ))s)"
  else
    { grep -E "✘|error:" "$logf" || true; } | head -40 || true
    echo "FAIL debian13-swift: swift test ($name) ($logf): ${summary:-no summary} ($(( $(now) - t ))s)"; FAILED=1
  fi
}
T=$(now)
if [ "$MODE" = ci ]; then
  run_tests "ci subset" --filter "$CI_SUITES"
else
  run_tests "everything but the daemon and the fleet" --skip '^LodestoneDaemonTests\.' --skip '^LodestoneFleetTests\.'
  run_tests "the daemon" --filter '^LodestoneDaemonTests\.'
  run_tests "the fleet" --filter '^LodestoneFleetTests\.'
fi
T_TEST=$(( $(now) - T ))
log "timings: setup ${T_SETUP}s, build ${T_BUILD}s, tests ${T_TEST}s"
[ "$FAILED" = 0 ] || exit 1
