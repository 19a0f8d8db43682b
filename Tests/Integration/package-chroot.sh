#!/usr/bin/env bash
# The Debian package's maintainer scripts for real: install, reinstall, upgrade, remove and purge
# dist/lodestone_*.deb with dpkg inside a Debian 12 root built from Debian's packages by mmdebstrap (cached), and check
# what each step leaves. No systemd runs in a chroot (no /run/systemd/system), so the units are enabled and disabled
# (deb-systemd-helper's symlinks and state) but not started: starting them is systemd-vm.sh's business.
#
#   Tests/Integration/package-chroot.sh DEB [BUMPED_DEB]      (root; BUMPED_DEB: the same package, a higher version)
#
# Prints PASS/FAIL lines; exit 0 = every check passed. Skips (exit 0) when not root.
set -euo pipefail
DEB=${1:?usage: package-chroot.sh DEB [BUMPED_DEB]}
BUMPED=${2:-}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP package-chroot: needs root (mmdebstrap, chroot)"; exit 0; fi
PACKAGES="systemd,udev,init-system-helpers,libiio0,libi2c0,libsqlite3-0,zlib1g,libstdc++6,procps"
KEY=$(echo "$PACKAGES" | sha256sum | cut -c1-16)
CACHE=${LODESTONE_TEST_CACHE:-/var/cache/lodestone-test}/package-chroot
BASE="$CACHE/$KEY.tar"
mkdir -p "$CACHE"
if [ ! -f "$BASE" ]; then
  echo "package-chroot: building the Debian 12 root (once; cached as $BASE)"
  mmdebstrap --variant=apt --include="$PACKAGES" bookworm "$BASE.tmp" >"$CACHE/mmdebstrap.log" 2>&1 \
    || { tail -20 "$CACHE/mmdebstrap.log"; exit 2; }
  mv "$BASE.tmp" "$BASE"
fi
R=$(mktemp -d /tmp/lodestone-package-chroot.XXXXXX)
cleanup() { for m in proc sys dev; do umount -l "$R/$m" 2>/dev/null || true; done; rm -rf "$R"; }
trap cleanup EXIT
tar -C "$R" -xf "$BASE"
mount -t proc proc "$R/proc"; mount --rbind /sys "$R/sys"; mount --rbind /dev "$R/dev"
cp "$DEB" "$R/tmp/lodestone.deb"
[ -n "$BUMPED" ] && cp "$BUMPED" "$R/tmp/lodestone-bumped.deb"
FAILS=0
pass() { echo "PASS $1${2:+: $2}"; }
fail() { echo "FAIL $1${2:+: $2}"; FAILS=$((FAILS + 1)); }
check() { # name command...
  local name=$1; shift
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(echo "$out" | tail -3 | tr '\n' ' ')"; fi
}
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
dpkg_in() { in_root dpkg "$@" >"$R/tmp/dpkg.out" 2>&1 || { cat "$R/tmp/dpkg.out"; return 1; }; }
# Everything on the file system outside the package database and the transient places, to compare before and after.
snapshot() {
  (cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./var/lib/dpkg \
    -o -path ./var/cache -o -path ./var/log -o -path ./run \) -prune -o -print | LC_ALL=C sort)
}
BEFORE=$(snapshot)
GROUP_BEFORE=$(cut -d: -f1 "$R/etc/group" | LC_ALL=C sort)

# ---------------------------------------------------------------- install
check install dpkg_in -i /tmp/lodestone.deb
check "status installed" sh -c "chroot '$R' dpkg-query -W -f='\${Status}' lodestone | grep -qx 'install ok installed'"
check "binary runs in the Debian 12 root (no /opt/swift)" in_root /usr/bin/lodestone --version
check "ldd: nothing from the Swift toolchain" sh -c "! chroot '$R' ldd /usr/bin/lodestone | grep -E 'not found|swift|Foundation'"
check "user lodestone" sh -c "chroot '$R' getent passwd lodestone | grep -q '^lodestone:x:[0-9]*:[0-9]*:.*:/var/lib/lodestone:'"
check "groups lodestone i2c spi iio gpio" in_root getent group lodestone i2c spi iio gpio
check "/var/lib/lodestone owned by lodestone, 0750" sh -c "[ \"\$(chroot '$R' stat -c '%U:%G %a' /var/lib/lodestone)\" = 'lodestone:lodestone 750' ]"
check "conffiles" sh -c "chroot '$R' dpkg-query -W -f='\${Conffiles}' lodestone | grep -q /etc/lodestone/board.json && chroot '$R' dpkg-query -W -f='\${Conffiles}' lodestone | grep -q /etc/lodestone/policy.toml"
check "the board conffile loads (lodestone run reads /etc/lodestone/board.json)" \
  sh -c "chroot '$R' /usr/bin/lodestone run --duration 1 --json --speed 10 | head -1 | grep -q '\"class\"'"
check "lodestone.socket enabled" test -L "$R/etc/systemd/system/sockets.target.wants/lodestone.socket"
check "lodestone-gpsd.socket enabled (Also=)" test -L "$R/etc/systemd/system/sockets.target.wants/lodestone-gpsd.socket"
check "lodestone.service not enabled (socket-activated)" test ! -L "$R/etc/systemd/system/multi-user.target.wants/lodestone.service"
check "man page renders" sh -c "zcat '$R/usr/share/man/man1/lodestone-serve.1.gz' | grep -q '^.SH OPTIONS'"
check "bash completion" test -s "$R/usr/share/bash-completion/completions/lodestone"
check "udev rules" test -s "$R/usr/lib/udev/rules.d/60-lodestone.rules"
check "systemd-analyze verify of the installed units" sh -c "chroot '$R' systemd-analyze verify lodestone.socket lodestone-gpsd.socket lodestone.service 2>&1 | grep -v 'Cannot add dependency' | { ! grep -iE 'error|invalid|unknown'; }"

# ---------------------------------------------------------------- reinstall, a conffile edit kept, upgrade
echo "# edited by the test" >>"$R/etc/lodestone/policy.toml"
check "reinstall the same version" dpkg_in -i /tmp/lodestone.deb
check "an edited conffile survives a reinstall" grep -q "edited by the test" "$R/etc/lodestone/policy.toml"
check "still enabled after reinstall" test -L "$R/etc/systemd/system/sockets.target.wants/lodestone.socket"
if [ -n "$BUMPED" ]; then
  V_NEW=$(dpkg-deb -f "$BUMPED" Version)
  check "upgrade to $V_NEW" dpkg_in -i /tmp/lodestone-bumped.deb
  check "version is $V_NEW" sh -c "[ \"\$(chroot '$R' dpkg-query -W -f='\${Version}' lodestone)\" = '$V_NEW' ]"
  check "the edited conffile survives the upgrade" grep -q "edited by the test" "$R/etc/lodestone/policy.toml"
  check "still enabled after upgrade" test -L "$R/etc/systemd/system/sockets.target.wants/lodestone.socket"
fi
# The daemon's state, as a run would leave it, for purge to remove.
echo state >"$R/var/lib/lodestone/lodestone.sqlite"

# ---------------------------------------------------------------- a user's choice to disable the gpsd socket stays
check "an administrator disables lodestone-gpsd.socket" in_root systemctl disable lodestone-gpsd.socket
check "reinstall keeps a disabled lodestone-gpsd.socket disabled" sh -c \
  "chroot '$R' dpkg -i /tmp/lodestone.deb >/dev/null 2>&1 && [ ! -L '$R/etc/systemd/system/sockets.target.wants/lodestone-gpsd.socket' ]"

# ---------------------------------------------------------------- remove
check remove dpkg_in -r lodestone
check "binary gone" test ! -e "$R/usr/bin/lodestone"
check "conffiles kept after remove" test -f "$R/etc/lodestone/policy.toml"
check "state kept after remove" test -f "$R/var/lib/lodestone/lodestone.sqlite"
check "status config-files" sh -c "chroot '$R' dpkg-query -W -f='\${Status}' lodestone | grep -qx 'deinstall ok config-files'"

# ---------------------------------------------------------------- purge
check purge dpkg_in -P lodestone
check "package unknown after purge" sh -c "! chroot '$R' dpkg-query -W lodestone >/dev/null 2>&1"
AFTER=$(snapshot)
LEFT=$(comm -13 <(echo "$BEFORE") <(echo "$AFTER"))
GONE=$(comm -23 <(echo "$BEFORE") <(echo "$AFTER"))
# What purge should keep: the system user and its groups (Debian keeps system accounts), i.e. the account databases
# changed (modified files, not new ones) and nothing else.
if [ -z "$LEFT" ] && [ -z "$GONE" ]; then pass "purge leaves no file or directory behind"
else fail "purge leaves files behind" "new: $(echo $LEFT) gone: $(echo $GONE)"; fi
check "no deb-systemd-helper state left" sh -c "[ -z \"\$(find '$R/var/lib/systemd' -name '*lodestone*' 2>/dev/null)\" ]"
GROUP_AFTER=$(cut -d: -f1 "$R/etc/group" | LC_ALL=C sort)
echo "INFO kept by purge, as Debian keeps system accounts: user $(cut -d: -f1 "$R/etc/passwd" | grep -x lodestone || echo none);" \
  "groups $(comm -13 <(echo "$GROUP_BEFORE") <(echo "$GROUP_AFTER") | tr '\n' ' ')"

# ---------------------------------------------------------------- Debian's gpsd holds port 2947: left to it
mkdir -p "$R/etc/systemd/system/sockets.target.wants"
ln -s /usr/lib/systemd/system/gpsd.socket "$R/etc/systemd/system/sockets.target.wants/gpsd.socket"
check "install with gpsd.socket enabled" dpkg_in -i /tmp/lodestone.deb
check "postinst says port 2947 stays gpsd's" grep -q "port 2947 stays gpsd's" "$R/tmp/dpkg.out"
check "lodestone.socket enabled beside gpsd" test -L "$R/etc/systemd/system/sockets.target.wants/lodestone.socket"
check "lodestone-gpsd.socket left disabled" test ! -L "$R/etc/systemd/system/sockets.target.wants/lodestone-gpsd.socket"
check "purge again" dpkg_in -P lodestone
rm "$R/etc/systemd/system/sockets.target.wants/gpsd.socket"

echo "package-chroot: $FAILS failed"
[ "$FAILS" = 0 ]
