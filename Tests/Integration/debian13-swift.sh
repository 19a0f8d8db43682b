#!/usr/bin/env bash
# Debian's own Swift (issue 19): builds the root package with Debian 13's `swiftlang` (Swift 6.0.3) inside a Debian 13
# (trixie) root made by mmdebstrap from Debian's packages on this machine's architecture (cached as a tarball, like
# package-chroot.sh's), and runs its tests there. The chroot reads github.com packages from /opt/swift-packages (bound
# read-only, with the host's git rule), so resolution is offline.
#
#   Tests/Integration/debian13-swift.sh              build and test (root)
#   Tests/Integration/debian13-swift.sh --root-only  make (or find) the cached root and stop (scripts/test runs it in
#                                                    the background while the main build runs)
#
# The tree is copied into the root (Sources, Tests, Examples, boards, …: no .git, no .build*), so that the chroot's
# Package.resolved never replaces the host's; the build's scratch path, .build-debian13 in the repository, persists.
#
# swift-log: the only copy here (/opt/swift-packages/apple/swift-log.git) is 1.16.2, whose manifest needs tools 6.2 and
# whose sources use `nonisolated(nonsending)` (Swift 6.2). Against GitHub, Swift 6.0.3 resolves `from: "1.5.0"` to the
# newest swift-log whose manifest it can read; offline it cannot. So the copy's manifest drops swift-log and the targets
# that import Logging (named below; the script fails if any other target imports it), and says so: everything else —
# the engine, every library a program links, the examples and their tests — builds and runs with 6.0.3.
#
# Prints PASS/FAIL/SKIP lines and the timings; exit 0 = built and every test run passed. Skips (exit 0) when not root.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
ROOT_ONLY=0
[ "${1:-}" = "--root-only" ] && ROOT_ONLY=1
if [ "$(id -u)" -ne 0 ]; then echo "SKIP debian13-swift: needs root (mmdebstrap, chroot, mounts)"; exit 0; fi
command -v mmdebstrap >/dev/null || { echo "FAIL debian13-swift: mmdebstrap is missing (scripts/bootstrap --test)"; exit 1; }
log() { echo "debian13-swift: $*"; }
now() { date +%s; }

# ---------------------------------------------------------------- the cached Debian 13 root
# swiftlang: Debian's Swift 6.0.3 (swift, swiftc, the package manager, XCTest, Swift Testing, Foundation). git:
# the package manager clones dependencies. The -dev packages are what the package links (scripts/bootstrap's list).
# The test tools are scripts/bootstrap --test's that the tests run here use: gpsd (GNSS sources), iiod and
# libiio-utils (libiio's network backend), util-linux and mount (the private mount namespaces), strace, proj-data.
PACKAGES="swiftlang,git,ca-certificates,pkg-config,libi2c-dev,libiio-dev,zlib1g-dev,libsqlite3-dev,libmosquitto-dev"
PACKAGES+=",gpsd,iiod,libiio-utils,util-linux,mount,strace,proj-data"
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
[ "$ROOT_ONLY" = 1 ] && exit 0

# ---------------------------------------------------------------- unpack, mount, copy the tree
T0=$(now)
R=$(mktemp -d /var/tmp/lodestone-debian13.XXXXXX)
cleanup() {
  for m in src/.build-debian13 opt/swift-packages dev/pts dev proc; do umount -l "$R/$m" 2>/dev/null || true; done
  # Bind mounts share the host's file system, so rm's --one-file-system would not stop at them: remove nothing while
  # anything is still mounted under the root.
  if grep -q " $R/" /proc/self/mounts; then echo "debian13-swift: $R still has mounts; left in place" >&2; return; fi
  rm -rf --one-file-system "$R"
}
trap cleanup EXIT
tar -C "$R" -xf "$BASE"
mount -t proc proc "$R/proc"
mount --bind /dev "$R/dev"; mount --bind /dev/pts "$R/dev/pts"
mkdir -p "$R/opt/swift-packages"
mount --bind /opt/swift-packages "$R/opt/swift-packages"; mount -o remount,bind,ro "$R/opt/swift-packages"
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
  --exclude='./Package.resolved' --exclude='./.swiftpm' --exclude='./benchmarks' --exclude='./fuzz' --exclude='./dist' \
  -cf - . | tar -C "$R/src" -xf -
mkdir -p "$REPO/.build-debian13" "$R/src/.build-debian13"
mount --bind "$REPO/.build-debian13" "$R/src/.build-debian13"

# ---------------------------------------------------------------- swift-log (see the header)
LOGGING_TARGETS='"LodestoneDaemon", "LodestoneFleet", "lodestone", "LodestoneDaemonTests", "LodestoneFleetTests", "LodestoneEngineTests"'
importers=$(grep -rlE '^import Logging' Sources Tests Examples | cut -d/ -f2 | sort -u)
for t in $importers; do
  case "$LOGGING_TARGETS" in *"\"$t\""*) ;; *) echo "FAIL debian13-swift: $t imports Logging: add it to LOGGING_TARGETS"; exit 1;; esac
done
grep -q 'https://github.com/apple/swift-log"' "$R/src/Package.swift" \
  || { echo "FAIL debian13-swift: Package.swift's swift-log line changed: update this script"; exit 1; }
grep -v 'https://github.com/apple/swift-log"' "$R/src/Package.swift" >"$R/src/Package.swift.new"
cat >>"$R/src/Package.swift.new" <<EOF

// Added by Tests/Integration/debian13-swift.sh: no swift-log that Swift 6.0.3 reads is in /opt/swift-packages, so the
// targets that import Logging (and LodestoneEngineTests, which runs the lodestone executable) are left out.
let debian13Excluded: Set<String> = [$LOGGING_TARGETS]
package.targets.removeAll { debian13Excluded.contains(\$0.name) }
package.products.removeAll { debian13Excluded.contains(\$0.name) }
EOF
mv "$R/src/Package.swift.new" "$R/src/Package.swift"
log "left out (swift-log 1.16.2 needs Swift 6.2): $LOGGING_TARGETS"

in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
log "$(in_root swift --version 2>&1 | head -1)"
T_SETUP=$(( $(now) - T0 ))
log "root unpacked and the tree copied in ${T_SETUP}s"

# ---------------------------------------------------------------- build
BUILD_LOG="$REPO/.build-debian13/build.log"
T=$(now)
if ! in_root sh -c 'cd /src && swift build --build-tests --scratch-path .build-debian13' >"$BUILD_LOG" 2>&1; then
  grep -E "error:" "$BUILD_LOG" | sort -u | head -40; tail -5 "$BUILD_LOG"
  echo "FAIL debian13-swift: swift build with Debian 13's Swift ($BUILD_LOG)"; exit 1
fi
T_BUILD=$(( $(now) - T ))
WARNINGS=$(grep -E "^/src/(Sources|Tests|Examples)/.*warning:" "$BUILD_LOG" | sort -u || true)
if [ -n "$WARNINGS" ]; then echo "$WARNINGS"; echo "FAIL debian13-swift: warnings in Lodestone's code with Swift 6.0.3"; exit 1; fi
echo "PASS swift build --build-tests with Debian 13's Swift, no warnings in our code (${T_BUILD}s)"

# ---------------------------------------------------------------- tests
TEST_LOG="$REPO/.build-debian13/test.log"
T=$(now)
in_root sh -c 'cd /src && timeout 1500 swift test --skip-build --scratch-path .build-debian13' >"$TEST_LOG" 2>&1 || true
T_TEST=$(( $(now) - T ))
SUMMARY=$(grep -E "Test run with [0-9]+ tests?" "$TEST_LOG" | tail -1 || true)
XCT=$(grep -E "Executed [0-9]+ tests?" "$TEST_LOG" | tail -1 || true)
if echo "$SUMMARY" | grep -qE "passed" && ! grep -qE "✘|error: .*failed" "$TEST_LOG"; then
  echo "PASS swift test with Debian 13's Swift: $SUMMARY${XCT:+; XCTest: $XCT} (${T_TEST}s)"
else
  grep -E "✘|error:" "$TEST_LOG" | head -40
  echo "FAIL debian13-swift: swift test ($TEST_LOG): ${SUMMARY:-no summary}"; exit 1
fi
log "timings: setup ${T_SETUP}s, build ${T_BUILD}s, tests ${T_TEST}s"
