#!/usr/bin/env bash
# Real-kernel integration test: `lodestone read` over a real /dev/i2c-N (libi2c) and over the kernel's own
# IIO drivers (libiio), inside Debian's real kernel booted under QEMU by ../shared/tools/kernel-vm.
# The chips are i2c-stub register files preloaded with datasheet values; the kernel drivers bmp280,
# st_magn, st_lsm6dsx and inv_mpu6050 bind to them. The guest runs lodestone and dumps sysfs; the host
# (check.py) compares lodestone's SI values with the datasheet formulas and with what sysfs says.
#
#   Tests/Integration/kernel-vm.sh [OUT_DIR]      (root; Debian 12)
# Exit 0 = pass. Skips (exit 0 with a SKIP line) only when not root or the VM tool is absent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VM="$ROOT/../shared/tools/kernel-vm/run-in-vm.sh"
OUT=${1:-$(mktemp -d /tmp/lodestone-kvm.XXXXXX)}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP kernel-vm: needs root (QEMU, apt-get)"; exit 0; fi
if [ ! -x "$VM" ] && [ ! -f "$VM" ]; then echo "SKIP kernel-vm: $VM not found"; exit 0; fi
# The VM tool boots Debian's amd64 kernel under qemu-system-x86_64 and runs an x86_64 payload: an arm64 host (a
# Raspberry Pi, an arm64 CI runner) would need linux-image-arm64, qemu-system-aarch64 -M virt and an aarch64 busybox
# layer, which the tool does not build. Say so rather than fail.
case "$(uname -m)" in
  x86_64) ;;
  *) echo "SKIP kernel-vm: this host is $(uname -m); the kernel-VM tool boots only Debian's amd64 kernel (x86_64 hosts)"; exit 0;;
esac
export PATH=/opt/swift/usr/bin:$PATH
# lodestone and the test bundle load libiio with dlopen() when they first use it (Sources/CLodestoneLinux/iio_loader.c),
# so ldd no longer lists it: the VM tool copies it, and what it links, only when named.
# awk reads the whole listing: one that stopped at the first match would close the pipe on ldconfig, whose next write
# then dies of SIGPIPE, and pipefail makes that (exit 141) the script's end (a CI run ended so, with no message).
LIBIIO=$(ldconfig -p | awk '/libiio\.so\.0 / && !found {found = $NF} END {if (found) print found}')
[ -n "$LIBIIO" ] || { echo "FAIL: libiio.so.0 not found (apt-get install libiio0)"; exit 1; }

echo "kernel-vm: building a static lodestone"
# A fresh .build-static is compiled with -function-sections from the start: mark it so, or scripts/package would delete
# these objects as older than the flag and compile them again (scripts/package, "function-sections.stamp").
[ -d "$ROOT/.build-static/release" ] || { mkdir -p "$ROOT/.build-static" && touch "$ROOT/.build-static/function-sections.stamp"; }
(cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-static --product lodestone \
  -Xswiftc -Xfrontend -Xswiftc -function-sections 2>&1 | tail -1)
PAYLOAD=$(mktemp -d /tmp/lodestone-payload.XXXXXX)
trap 'rm -rf "$PAYLOAD"' EXIT
cp "$ROOT/.build-static/release/lodestone" "$PAYLOAD/"
cp "$HERE/kernel-vm-baro-mag-guest.sh" "$PAYLOAD/"
cp "$HERE/kernel-vm-coexist-guest.sh" "$PAYLOAD/"
rm -rf "$OUT"; mkdir -p "$OUT"
set +e
bash "$VM" --timeout 300 --extra-lib "$LIBIIO" --chips "bmp280@0x76 lis3mdl@0x1c lsm6dsl@0x6a mpu6050@0x68" \
  "$PAYLOAD" "$HERE/kernel-vm-guest.sh" "$OUT" > "$OUT/host.log" 2>&1
RC=$?
set -e
if [ $RC -ne 0 ]; then
  echo "kernel-vm: the VM run failed (exit $RC); last lines of its logs:"
  tail -30 "$OUT/host.log"; [ -f "$OUT/console.log" ] && tail -10 "$OUT/console.log"
  exit 1
fi
python3 "$HERE/kernel-vm-check.py" "$OUT"
python3 "$HERE/kernel-vm-baro-mag-check.py" "$OUT/baro-mag"
python3 "$HERE/kernel-vm-coexist-check.py" "$OUT/coexist"

# Second boot: the package's own kernel-gated tests (LodestoneLinuxTests' KernelI2CStub and KernelIIO suites,
# skipped on the host) run inside the guest against the same stub chips and kernel drivers.
echo "kernel-vm: running the kernel-gated test suites in the guest"
(cd "$ROOT" && swift build --build-tests 2>&1 | tail -1)
BUNDLE="$ROOT/.build/debug/LodestonePackageTests.xctest"
rm -rf "$PAYLOAD"/*; cp "$BUNDLE" "$PAYLOAD/"
OUT2="$OUT/tests"; mkdir -p "$OUT2"
set +e
bash "$VM" --timeout 300 --extra-lib "$LIBIIO" --mem 1024 "$PAYLOAD" "$HERE/kernel-vm-tests-guest.sh" "$OUT2" > "$OUT2/host.log" 2>&1
RC=$?
set -e
grep -E "✔ Suite|✘|Test run with|skipped" "$OUT2/guest.log" | grep -vE "^✔ Test ([A-Za-z0-9_]+\(|\")" || true
if [ $RC -ne 0 ] || ! grep -qE "Test run with [0-9]+ tests .*passed" "$OUT2/guest.log" || grep -q "skipped" "$OUT2/guest.log"; then
  echo "kernel-vm: the kernel-gated suites failed, were skipped or did not run (exit $RC)"; tail -30 "$OUT2/guest.log"; exit 1
fi
echo "kernel-vm: kernel-gated suites passed"

# Issue 3's IMUs (ICM-20948 with i2c-stub's banks, LSM6DS3/DSL/DSOX, LSM9DS1, ADXL345, AK09916 over I2C and the
# kernel's ST/AKM drivers through IIO; four chips over spidev through a test-only SPI controller): a boot of their own.
bash "$HERE/kernel-vm-imu.sh" "$OUT/imu"
