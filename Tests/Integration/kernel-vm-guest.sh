#!/bin/sh
# Runs inside the kernel VM (busybox sh, root, in /payload). Writes results to $OUT for the host to check.
set -u
B=${STUB_BUS:-0}
L=/payload/lodestone
echo "$B" > "$OUT/stub-bus"
run() { name=$1; shift; "$L" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.rc"; }
# Raw I2C through libi2c (the kernel driver owns each address: lodestone must fall back to I2C_SLAVE_FORCE).
run i2c-bmp280  read --i2c /dev/i2c-$B --chip bmp280  --address 0x76 --json
run i2c-lis3mdl read --i2c /dev/i2c-$B --chip lis3mdl --address 0x1c --json
run i2c-mpu6050 read --i2c /dev/i2c-$B --chip mpu6050 --address 0x68 --json
run i2c-absent  read --i2c /dev/i2c-$B --chip bmp280  --address 0x77 --json
# The kernel's own drivers through libiio's local backend.
for d in /sys/bus/iio/devices/iio:device*; do
  n=$(cat "$d/name")
  # lower the st_sensors ODR so one-shot reads do not sleep 2 s each
  [ -f "$d/sampling_frequency" ] && echo 80 > "$d/sampling_frequency" 2>/dev/null
  mkdir -p "$OUT/sysfs/$n"
  for f in "$d"/in_*; do [ -f "$f" ] && cat "$f" > "$OUT/sysfs/$n/${f##*/}" 2>/dev/null; done
  run "iio-$n" read --iio "$n" --json
done
run scan scan --i2c /dev/i2c-$B --iio
# Coexistence: a stand-in for iio-sensor-proxy holds the LIS3MDL's buffer (before the next round reloads i2c-stub).
[ -f /payload/kernel-vm-coexist-guest.sh ] && sh /payload/kernel-vm-coexist-guest.sh
# The barometers and magnetometers of the driver catalogue, on stub chips of their own (reloads i2c-stub).
[ -f /payload/kernel-vm-baro-mag-guest.sh ] && sh /payload/kernel-vm-baro-mag-guest.sh
ls "$OUT"
exit 0
