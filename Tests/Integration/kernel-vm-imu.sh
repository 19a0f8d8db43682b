#!/usr/bin/env bash
# Issue 3's IMUs against the real kernel, a VM boot of its own (../shared/tools/kernel-vm): lodestone reads the
# ICM-20948 (i2c-stub emulating its register banks), LSM6DS3/DSL/DSOX, LSM9DS1 and its magnetometer, ADXL345 and
# AK09916 over a real /dev/i2c-N through libi2c, where Debian's kernel has a driver compares with it through IIO,
# and reads four chips over the kernel's spidev through lodestone-spi-stub, a test-only SPI controller module built
# here against the guest kernel's headers (Debian's x86 kernel has no SPI controller to put spidev on).
#
#   Tests/Integration/kernel-vm-imu.sh [OUT_DIR]      (root; Debian 12; run by kernel-vm.sh)
# Exit 0 = pass. Skips (exit 0 with a SKIP line) only when not root or the VM tool is absent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VM="$ROOT/../shared/tools/kernel-vm/run-in-vm.sh"
OUT=${1:-$(mktemp -d /tmp/lodestone-kvm-imu.XXXXXX)}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP kernel-vm-imu: needs root (QEMU, apt-get)"; exit 0; fi
if [ ! -f "$VM" ]; then echo "SKIP kernel-vm-imu: $VM not found"; exit 0; fi
case "$(uname -m)" in   # the VM tool boots only Debian's amd64 kernel (see kernel-vm.sh)
  x86_64) ;;
  *) echo "SKIP kernel-vm-imu: this host is $(uname -m); the kernel-VM tool boots only Debian's amd64 kernel (x86_64 hosts)"; exit 0;;
esac
export PATH=/opt/swift/usr/bin:$PATH
# lodestone and the test bundle load libiio with dlopen() when they first use it (Sources/CLodestoneLinux/iio_loader.c),
# so ldd no longer lists it: the VM tool copies it, and what it links, only when named.
# awk reads the whole listing: one that stopped at the first match would close the pipe on ldconfig, whose next write
# then dies of SIGPIPE, and pipefail makes that (exit 141) the script's end (a CI run ended so, with no message).
LIBIIO=$(ldconfig -p | awk '/libiio\.so\.0 / && !found {found = $NF} END {if (found) print found}')
[ -n "$LIBIIO" ] || { echo "FAIL: libiio.so.0 not found (apt-get install libiio0)"; exit 1; }

echo "kernel-vm-imu: building a static lodestone, the SPI stub module and spi-poke"
# A fresh .build-static is compiled with -function-sections from the start: mark it so, or scripts/package would delete
# these objects as older than the flag and compile them again (scripts/package, "function-sections.stamp").
[ -d "$ROOT/.build-static/release" ] || { mkdir -p "$ROOT/.build-static" && touch "$ROOT/.build-static/function-sections.stamp"; }
(cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-static --product lodestone \
  -Xswiftc -Xfrontend -Xswiftc -function-sections 2>&1 | tail -1)
# The guest runs the kernel the VM tool cached (its first run downloads it): build against that version's headers.
CACHE=${KERNEL_VM_CACHE:-/var/cache/kernel-vm}
KVER=$(ls "$CACHE" 2>/dev/null | sed -n 's/^linux-image-//p' | sort -V | tail -1)
if [ -z "$KVER" ]; then echo "kernel-vm-imu: no kernel in $CACHE: run Tests/Integration/kernel-vm.sh (or run-in-vm.sh) once first"; exit 1; fi
if [ ! -d "/lib/modules/$KVER/build" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
    "linux-headers-$KVER" gcc make >/dev/null
fi
PAYLOAD=$(mktemp -d /tmp/lodestone-imu-payload.XXXXXX)
BUILD=$(mktemp -d /tmp/lodestone-spi-stub.XXXXXX)
trap 'rm -rf "$PAYLOAD" "$BUILD"' EXIT
cp "$HERE/spi-stub/lodestone-spi-stub.c" "$HERE/spi-stub/Kbuild" "$BUILD/"
if ! make -C "/lib/modules/$KVER/build" M="$BUILD" modules > "$BUILD/build.log" 2>&1; then
  tail -20 "$BUILD/build.log"; echo "kernel-vm-imu: building lodestone-spi-stub.ko for $KVER failed"; exit 1
fi
cp "$BUILD/lodestone-spi-stub.ko" "$PAYLOAD/"
gcc -O2 -Wall -o "$PAYLOAD/spi-poke" "$HERE/spi-stub/spi-poke.c"
cp "$ROOT/.build-static/release/lodestone" "$PAYLOAD/"
rm -rf "$OUT"; mkdir -p "$OUT"
set +e
bash "$VM" --timeout 300 --extra-lib "$LIBIIO" --chips none "$PAYLOAD" "$HERE/kernel-vm-imu-guest.sh" "$OUT" > "$OUT/host.log" 2>&1
RC=$?
set -e
if [ $RC -ne 0 ]; then
  echo "kernel-vm-imu: the VM run failed (exit $RC); last lines of its logs:"
  tail -30 "$OUT/host.log"; [ -f "$OUT/console.log" ] && tail -10 "$OUT/console.log"
  exit 1
fi
python3 "$HERE/kernel-vm-imu-check.py" "$OUT"
