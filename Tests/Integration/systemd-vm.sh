#!/usr/bin/env bash
# systemd integration test: `lodestone serve` under a real systemd as PID 1, with the shipped units
# (packaging/systemd/lodestone.socket and lodestone.service, packaging/sysusers.d/lodestone.conf); with --deb, the
# Debian package itself, installed by `dpkg -i`, then removed and purged.
#
# The guest is QEMU booting Debian 12's own kernel (linux-image-amd64) with a Debian 12 root file system built from
# Debian's packages by mmdebstrap (systemd, udev, gpsd-clients for gpspipe, libiio0, libi2c0, libsqlite3-0 for the
# monitors' store, libmosquitto1 for the fleet link, passwd for useradd). The image is cached under $LODESTONE_TEST_CACHE (default /var/cache/lodestone-test/systemd-vm/KEY,
# about 700 MB), keyed by the package list and this script's guest-side files; each boot runs on a throwaway snapshot of
# it. The package (or the binary, the units, the board file and the policy) and the checks (systemd/guest.sh) reach
# the guest on a read-only 9p share;
# the results come back on another (OUT_DIR). The guest has no network device: gpspipe talks to the daemon over
# loopback.
#
#   Tests/Integration/systemd-vm.sh [--daemon auto|real|standin] [--timeout SEC] [OUT_DIR]     (root; Debian 12)
#
#   --daemon real      build `lodestone` (release, static Swift stdlib) and test `lodestone serve`
#   --daemon standin   test the stand-in daemon (systemd/standin/main.swift: the systemd protocols of
#                      LodestoneSockets plus a tiny gpsd-protocol server), compiled with swiftc
#   --daemon auto      (default) real when `lodestone serve --help` works, else the stand-in (says so)
#   --binary FILE      test this lodestone binary as the real daemon (e.g. a debug build: its shared libraries,
#                      the Swift runtime among them, are copied as ldd resolves them)
#   --deb FILE         install this package in the guest with `dpkg -i` and test what it installed; `dpkg -r` and
#                      `dpkg --purge` at the end
#   --deb-from-debug-build   what CI runs after `swift build --build-tests`: relink the debug build's lodestone with
#                      the static Swift runtime (`swift build --static-swift-stdlib --product lodestone`, .build/debug),
#                      package it (scripts/package --binary --fast: gzip, lintian included), then as --deb
#   --image-only       build (or find) the cached image and stop
#
# Checks (guest.sh prints PASS/FAIL lines): with --deb, `dpkg -i` and what postinst did (the user, the sockets enabled
# and listening, /var/lib/lodestone); socket activation by gpspipe on 127.0.0.1:2947, [::1]:2947 and the Unix socket;
# a clean stop on SIGTERM with STOPPING=1; the watchdog restarting a daemon whose engine stalled
# (LODESTONE_TEST_STALL_ENGINE_AFTER_S); the sandbox (user, groups, MemoryDenyWriteExecute) as systemd applied it;
# the shipped policy (packaging/policy.toml) for two ordinary users, one of them in the group lodestone, and on the
# gpsd endpoint; a region monitor kept over a stop of the service and both sockets; with --deb, `dpkg -r` (conffiles
# and state kept) and `dpkg --purge` (gone; the system user kept). Exit 0 = every check passed. Skips (exit 0 with a
# SKIP line) only when not root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
GUEST="$HERE/systemd"
DAEMON=auto
IMAGE_ONLY=0
BINARY=""
DEB=""
TIMEOUT=420
OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --daemon) DAEMON=$2; shift 2;;
    --timeout) TIMEOUT=$2; shift 2;;
    --image-only) IMAGE_ONLY=1; shift;;
    --binary) BINARY=$2; shift 2;;
    --deb) DEB=$2; shift 2;;
    --deb-from-debug-build) DEB=debug-build; shift;;
    -h|--help) sed -n '2,37p' "$0"; exit 0;;
    *) OUT=$1; shift;;
  esac
done
OUT=${OUT:-$(mktemp -d /tmp/lodestone-systemd-vm.XXXXXX)}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP systemd-vm: needs root (QEMU, apt-get, mmdebstrap)"; exit 0; fi
export PATH=/opt/swift/usr/bin:$PATH
T0=$(date +%s)
log() { echo "systemd-vm: [$(( $(date +%s) - T0 ))s] $*"; }
die() { echo "systemd-vm: $*" >&2; exit 2; }

# ---------------------------------------------------------------- host tools
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -q)
need=()
for p in qemu-system-x86 mmdebstrap e2fsprogs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  log "apt-get install ${need[*]}"
  "${APT[@]}" update >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive "${APT[@]}" install --no-install-recommends "${need[@]}" >/dev/null || die "apt-get install failed"
fi

# ---------------------------------------------------------------- the cached image
# Debian's packages only. gpsd-clients brings gpspipe (and python3); libiio0, libi2c0, libsqlite3-0, libmosquitto1,
# zlib1g and libstdc++6 are what lodestone links or loads: every library the .deb's Depends may name, so that `dpkg -i`
# finds its dependencies without a network; passwd has useradd (the unprivileged users of the policy checks).
PACKAGES="systemd,systemd-sysv,udev,kmod,dbus,linux-image-amd64,gpsd-clients,libiio0,libi2c0,libsqlite3-0,libmosquitto1,zlib1g,libstdc++6,procps,passwd"
KEY=$( (echo "$PACKAGES"; sed -n '/^build_image()/,/^}/p' "$0"; cat "$GUEST/lodestone-harness" "$GUEST/lodestone-harness.service") \
  | sha256sum | cut -c1-16)
CACHE=${LODESTONE_TEST_CACHE:-/var/cache/lodestone-test/systemd-vm}
IMG="$CACHE/$KEY"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 900 9 || die "cache $CACHE is locked by another run"

build_image() {
  local dir="$IMG.tmp"
  rm -rf "$dir"; mkdir -p "$dir"
  log "building the Debian 12 image with mmdebstrap (once; cached in $IMG)"
  # MODULES=most (initramfs-tools' default) has virtio_blk and ext4; the 9p modules come from the root file system.
  mmdebstrap --variant=apt --include="$PACKAGES" \
    --customize-hook='echo lodestone-vm > "$1/etc/hostname"' \
    --customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$1/etc/fstab"' \
    --customize-hook="copy-in $GUEST/lodestone-harness /usr/local/sbin" \
    --customize-hook="copy-in $GUEST/lodestone-harness.service /etc/systemd/system" \
    --customize-hook='chroot "$1" systemctl enable lodestone-harness.service' \
    --customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer' \
    --customize-hook='passwd --root "$1" -d root' \
    bookworm "$dir/root" >"$dir/mmdebstrap.log" 2>&1 || { tail -30 "$dir/mmdebstrap.log"; die "mmdebstrap failed"; }
  cp -L "$dir/root/vmlinuz" "$dir/vmlinuz"; cp -L "$dir/root/initrd.img" "$dir/initrd.img"
  local mb=$(( $(du -sm "$dir/root" | cut -f1) + 600 ))
  mkfs.ext4 -q -L lodestone -d "$dir/root" "$dir/rootfs.img" "${mb}M" || die "mkfs.ext4 -d failed"
  rm -rf "$dir/root"
  mv "$dir" "$IMG"
}
if [ ! -f "$IMG/rootfs.img" ]; then
  T_IMG=$(date +%s); build_image; log "image built in $(( $(date +%s) - T_IMG ))s"
else
  log "cached image $IMG"
fi
flock -u 9
[ "$IMAGE_ONLY" = 1 ] && exit 0

# ---------------------------------------------------------------- the daemon
PAYLOAD=$(mktemp -d /tmp/lodestone-systemd-payload.XXXXXX)
trap 'rm -rf "$PAYLOAD" "$PAYLOAD.deb" "$PAYLOAD.deb-tree" "$PAYLOAD.deb.build.log" "$PAYLOAD.deb.package.log"' EXIT
mkdir -p "$PAYLOAD/bin" "$PAYLOAD/lib" "$PAYLOAD/units" "$PAYLOAD/sysusers.d"
build_real() {
  log "building a static-stdlib release lodestone (.build-static)"
  # A fresh .build-static is compiled with -function-sections from the start: mark it so, or scripts/package would delete
  # these objects as older than the flag and compile them again (scripts/package, "function-sections.stamp").
  [ -d "$ROOT/.build-static/release" ] || { mkdir -p "$ROOT/.build-static" && touch "$ROOT/.build-static/function-sections.stamp"; }
  (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-static --product lodestone \
    -Xswiftc -Xfrontend -Xswiftc -function-sections 2>&1 | tail -1)
  REAL="$ROOT/.build-static/release/lodestone"
  [ -x "$REAL" ] && "$REAL" serve --help >/dev/null 2>&1
}
build_standin() {
  log "compiling the stand-in daemon (swiftc, static stdlib)"
  local files
  files=$(ls "$ROOT"/Sources/LodestoneSockets/Systemd*.swift)
  # shellcheck disable=SC2086
  swiftc -O -swift-version 6 -static-stdlib -module-name LodestoneStandin -o "$PAYLOAD/bin/lodestone" \
    "$GUEST/standin/main.swift" $files 2>&1 | grep -v "^$" || true
  [ -x "$PAYLOAD/bin/lodestone" ] || die "the stand-in did not compile"
}
# The package from the debug build CI just made: only the link step runs again, with the static Swift runtime instead
# of /opt/swift's shared libraries; the compiled modules are reused (no file is compiled again). Objects compiled for
# the shared runtime lack the autolink entries of FoundationEssentials' own static dependencies (a static build's
# objects name them), so those are named here: without them the link fails with undefined _FoundationCollections and
# _FoundationCShims symbols. scripts/package then refuses the binary if it still needs anything from /opt/swift. The
# shared-runtime binary is linked back at the end, as the rest of scripts/test expects it.
deb_from_debug_build() {
  local t=$(date +%s) out="$PAYLOAD.deb"
  local link=(-Xlinker -lFoundationEssentials -Xlinker -l_FoundationCollections -Xlinker -l_FoundationCShims)
  log "relinking .build/debug/lodestone with the static Swift runtime (swift build --static-swift-stdlib)"
  (cd "$ROOT" && swift build --static-swift-stdlib --product lodestone "${link[@]}" >"$out.build.log" 2>&1) \
    || { grep -v '^\[' "$out.build.log" | tail -30 | cut -c1-300; die "swift build --static-swift-stdlib failed"; }
  log "relinked in $(( $(date +%s) - t ))s ($(grep -cE '^\[[0-9]+/[0-9]+\] Compiling' "$out.build.log" || true) files compiled); packaging"
  t=$(date +%s)
  mkdir -p "$out"; cp "$ROOT/.build/debug/lodestone" "$out/lodestone"
  DEB=$(bash "$ROOT/scripts/package" --binary "$out/lodestone" --fast --out "$out" 2>"$out.package.log") \
    || { cat "$out.package.log"; die "scripts/package failed"; }
  grep -E "lintian|bytes" "$out.package.log" | sed 's/^/  /'
  log "packaged in $(( $(date +%s) - t ))s: $(basename "$DEB")"
  t=$(date +%s)
  (cd "$ROOT" && swift build --product lodestone >"$out.build.log" 2>&1) || { tail -20 "$out.build.log"; die "relinking back failed"; }
  log "the shared-runtime debug binary linked back in $(( $(date +%s) - t ))s"
}
[ "$DEB" = debug-build ] && deb_from_debug_build
[ -n "$BINARY" ] && DAEMON=binary
[ -n "$DEB" ] && DAEMON=deb
case "$DAEMON" in
  deb) [ -f "$DEB" ] || die "no package $DEB"; cp "$DEB" "$PAYLOAD/lodestone.deb"; KIND=real;;
  binary) [ -x "$BINARY" ] || die "no executable $BINARY"; cp "$BINARY" "$PAYLOAD/bin/lodestone"; KIND=real;;
  real) build_real || die "lodestone has no working 'serve' command"; cp "$REAL" "$PAYLOAD/bin/lodestone"; KIND=real;;
  standin) build_standin; KIND=standin;;
  auto)
    if build_real; then cp "$REAL" "$PAYLOAD/bin/lodestone"; KIND=real
    else log "NOTE: 'lodestone serve' is not there yet: testing the stand-in daemon instead"; build_standin; KIND=standin; fi;;
  *) die "bad --daemon $DAEMON";;
esac
echo "$KIND" > "$PAYLOAD/kind"
if [ "$DAEMON" = deb ]; then
  # The units and the binary as packaged, for the host's check below.
  rm -rf "$PAYLOAD/bin" "$PAYLOAD/lib" "$PAYLOAD/units" "$PAYLOAD/sysusers.d"
  dpkg-deb -x "$DEB" "$PAYLOAD.deb-tree"
  UNITS="$PAYLOAD.deb-tree/usr/lib/systemd/system"; HOSTBIN="$PAYLOAD.deb-tree/usr/bin/lodestone"
else
  # The binary's shared libraries as the host resolves them, at the same paths (the guest copies only the missing ones).
  ldd "$PAYLOAD/bin/lodestone" | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$PAYLOAD/lib$(dirname "$lib")"; cp -L "$lib" "$PAYLOAD/lib$lib"
  done
  cp "$ROOT"/packaging/systemd/lodestone*.s* "$PAYLOAD/units/"
  cp "$ROOT/packaging/sysusers.d/lodestone.conf" "$PAYLOAD/sysusers.d/"
  cp "$ROOT/boards/simulated.json" "$PAYLOAD/board.json"
  cp "$ROOT/packaging/policy.toml" "$PAYLOAD/policy.toml"
  UNITS="$PAYLOAD/units"; HOSTBIN="$PAYLOAD/bin/lodestone"
fi
cp "$GUEST/guest.sh" "$PAYLOAD/"

# The units as the host's systemd-analyze sees them, in a scratch root holding systemd's own units and the binary.
HOSTCHECK=0
VROOT="$PAYLOAD.verify"
mkdir -p "$VROOT/usr/lib/systemd" "$VROOT/usr/bin" "$VROOT/bin" "$VROOT/etc/systemd/system"
cp -a /usr/lib/systemd/system "$VROOT/usr/lib/systemd/"; cp /bin/kill "$VROOT/bin/"; cp "$HOSTBIN" "$VROOT/usr/bin/"
cp "$UNITS"/lodestone*.s* "$VROOT/etc/systemd/system/"
if out=$(systemd-analyze verify --root="$VROOT" lodestone.socket lodestone-gpsd.socket lodestone.service 2>&1); then
  echo "PASS verify-units-host ($(systemd-analyze --version | head -1))"; HOSTCHECK=1
else
  echo "FAIL verify-units-host: $out"
fi
rm -rf "$VROOT" "$PAYLOAD.deb-tree"

# ---------------------------------------------------------------- boot
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/{exit-code,guest.log,console.log,journal.txt}
ACCEL=(-accel tcg -cpu max)
if [ -c /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then ACCEL=(-accel kvm -cpu host); fi
DEADLINE=$(( $(date +%s) + TIMEOUT ))
log "booting ($KIND daemon, ${ACCEL[1]}, limit ${TIMEOUT}s)"
T_BOOT=$(date +%s)
set +e
timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 "${ACCEL[@]}" -M pc -smp "$(( $(nproc) > 1 ? 2 : 1 ))" -m 1024 \
  -nodefaults -no-user-config -display none -monitor none -nic none -no-reboot \
  -serial "file:$OUT/console.log" \
  -kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" \
  -append "root=/dev/vda rw console=ttyS0 panic=-1 quiet systemd.show_status=0 lodestone.deadline=$DEADLINE" \
  -drive "file=$IMG/rootfs.img,if=virtio,format=raw,snapshot=on" \
  -virtfs "local,path=$PAYLOAD,mount_tag=payload,security_model=none,readonly=on,id=payload" \
  -virtfs "local,path=$OUT,mount_tag=out,security_model=none,id=out" \
  </dev/null >"$OUT/qemu.err" 2>&1
QRC=$?
set -e
[ -f "$OUT/guest.log" ] && cat "$OUT/guest.log"
if [ ! -f "$OUT/exit-code" ]; then
  tail -30 "$OUT/console.log" 2>/dev/null || true; cat "$OUT/qemu.err"
  echo "systemd-vm: the guest ended without an exit code (qemu rc $QRC; timeout ${TIMEOUT}s); see $OUT/console.log"
  exit 1
fi
RC=$(cat "$OUT/exit-code")
PASSES=$(( $(grep -c "^PASS " "$OUT/guest.log" || true) + HOSTCHECK ))
FAILS=$(( $(grep -c "^FAIL " "$OUT/guest.log" || true) + 1 - HOSTCHECK ))
log "VM $(( $(date +%s) - T_BOOT ))s; outputs in $OUT (guest.log, journal.txt, console.log)"
echo "systemd-vm ($KIND daemon): $PASSES passed, $FAILS failed, guest exit $RC, total $(( $(date +%s) - T0 ))s"
[ "$RC" = 0 ] && [ "$FAILS" = 0 ] && [ "$PASSES" -gt 0 ]
