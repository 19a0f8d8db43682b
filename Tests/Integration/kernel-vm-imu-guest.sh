#!/bin/sh
# Issue 3's IMUs inside the kernel VM (busybox sh, root, in /payload). Writes results to $OUT for the host check
# (kernel-vm-imu-check.py). Two i2c-stub phases (the ST IMUs share 0x6A/0x6B, and i2c-stub holds one set of chips per
# load), then the SPI stub. Register presets are the values the check computes its expectations from.
set -u
L=/payload/lodestone
run() { name=$1; shift; "$L" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.rc"; }
stub_bus() { for a in /sys/bus/i2c/devices/i2c-*; do [ "$(cat "$a/name")" = "SMBus stub driver" ] && echo "${a##*/i2c-}"; done; }
reg() { i2cset -y -f "$B" "$1" "$2" "$3"; }                         # byte write (follows i2c-stub's banks)
blk() { _a=$1; _r=$2; shift 2; i2cset -y -f "$B" "$_a" "$_r" "$@" i; }  # I2C block write (bank 0 storage)
st_both() { blk "$@"; _a=$1; _r=$(printf '0x%02x' $(( $2 | 0x80 ))); shift 2; blk "$_a" "$_r" "$@"; }  # ST auto-increment view too
bind() {  # bind KERNEL_ID ADDR: instantiate the kernel driver as a board file would, note whether an IIO device came
  echo "$1 $2" > "/sys/bus/i2c/devices/i2c-$B/new_device" 2>/dev/null
  node=/sys/bus/i2c/devices/$B-$(printf '%04x' "$2")
  [ -e "$node/modalias" ] && modprobe -q "$(cat "$node/modalias")"
  i=0; while [ $i -lt 30 ] && ! ls -d "$node"/iio:device* >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done
  if ls -d "$node"/iio:device* >/dev/null 2>&1; then echo "bound" > "$OUT/bind-$1"; else echo "not bound" > "$OUT/bind-$1"; fi
}
dump_iio() {  # dump_iio PHASE: every IIO device's in_* attributes and lodestone's reading of it
  for d in /sys/bus/iio/devices/iio:device*; do
    [ -e "$d/name" ] || continue
    n=$(cat "$d/name")
    [ -f "$d/sampling_frequency" ] && echo 104 > "$d/sampling_frequency" 2>/dev/null
    mkdir -p "$OUT/sysfs/$n"
    for f in "$d"/in_*; do [ -f "$f" ] && cat "$f" > "$OUT/sysfs/$n/${f##*/}" 2>/dev/null; done
    run "iio-$n" read --iio "$n" --json
  done
}
unbind_all() { for c in /sys/bus/i2c/devices/$B-*; do [ -e "$c" ] && echo "0x${c##*-}" > "/sys/bus/i2c/devices/i2c-$B/delete_device"; done; }

modprobe i2c-dev

# ---- Phase A: ICM-20948 (banked: REG_BANK_SEL 0x7F, USER_BANK bits 5:4), LSM6DS3, LSM6DSOX, ADXL345, AK09916
modprobe i2c-stub chip_addr=0x69,0x6a,0x6b,0x53,0x0c bank_reg=0x7f bank_mask=0x30 bank_start=0x00 bank_end=0x7e || exit 1
B=$(stub_bus); echo "$B" > "$OUT/stub-bus"
# ICM-20948 bank 0: WHO_AM_I, I2C_MST_STATUS.I2C_SLV4_DONE, accel 1000 -2000 8192, gyro 100 -200 1000, temp 1335,
# EXT_SLV_SENS_DATA: AK09916 ST1 DRDY, HX 100, HY -200, HZ 300, TMPS, ST2; bank 3: I2C_SLV4_DI = WIA2 0x09.
reg 0x69 0x00 0xea; reg 0x69 0x17 0x40
blk 0x69 0x2d 0x03 0xe8 0xf8 0x30 0x20 0x00 0x00 0x64 0xff 0x38 0x03 0xe8 0x05 0x37
blk 0x69 0x3b 0x01 0x64 0x00 0x38 0xff 0x2c 0x01 0x00 0x00
reg 0x69 0x7f 0x30; reg 0x69 0x17 0x09; reg 0x69 0x7f 0x00
# LSM6DS3: temp 32, gyro 100 -100 1000, accel 0 0 16384
reg 0x6a 0x0f 0x69; blk 0x6a 0x20 0x20 0x00 0x64 0x00 0x9c 0xff 0xe8 0x03 0x00 0x00 0x00 0x00 0x00 0x40
# LSM6DSOX: temp 512, gyro 200 -300 50, accel 1000 -1000 8000
reg 0x6b 0x0f 0x6c; blk 0x6b 0x20 0x00 0x02 0xc8 0x00 0xd4 0xfe 0x32 0x00 0xe8 0x03 0x18 0xfc 0x40 0x1f
# ADXL345: DEVID, x 256 y -128 z 64
reg 0x53 0x00 0xe5; blk 0x53 0x32 0x00 0x01 0x80 0xff 0x40 0x00
# AK09916: WIA1 WIA2, ST1 DRDY, HX 1000 HY -1000 HZ 2000, TMPS, ST2
reg 0x0c 0x00 0x48; reg 0x0c 0x01 0x09; blk 0x0c 0x10 0x01 0xe8 0x03 0x18 0xfc 0xd0 0x07 0x00 0x00
bind lsm6ds3 0x6a; bind lsm6dsox 0x6b; bind adxl345 0x53; bind ak09916 0x0c
run a-icm20948 read --i2c /dev/i2c-$B --chip icm20948 --address 0x69 --json
run a-lsm6ds3  read --i2c /dev/i2c-$B --chip lsm6ds3  --address 0x6a --json
run a-lsm6dsox read --i2c /dev/i2c-$B --chip lsm6dsox --address 0x6b --json
run a-adxl345  read --i2c /dev/i2c-$B --chip adxl345  --address 0x53 --json
run a-ak09916  read --i2c /dev/i2c-$B --chip ak09916  --address 0x0c --json
run a-wrong    read --i2c /dev/i2c-$B --chip lsm6dsl  --address 0x6a --json
dump_iio
run a-scan scan --i2c /dev/i2c-$B
unbind_all; rmmod i2c-stub

# ---- Phase B: LSM6DSL, LSM9DS1 accelerometer/gyroscope and magnetometer
modprobe i2c-stub chip_addr=0x6a,0x6b,0x1e || exit 1
B=$(stub_bus)
# LSM6DSL: temp 256, gyro 300 -300 0, accel -16384 0 0
reg 0x6a 0x0f 0x6a; blk 0x6a 0x20 0x00 0x01 0x2c 0x01 0xd4 0xfe 0x00 0x00 0x00 0xc0 0x00 0x00 0x00 0x00
# LSM9DS1 A/G: temp 32, STATUS 0x07, gyro 100 200 -300; accel 0 8192 8192
reg 0x6b 0x0f 0x68; blk 0x6b 0x15 0x20 0x00 0x07 0x64 0x00 0xc8 0x00 0xd4 0xfe; blk 0x6b 0x28 0x00 0x00 0x00 0x20 0x00 0x20
# LSM9DS1 M: x 1000 y -500 z 2000 (both views: lodestone and st_magn read with the auto-increment bit)
st_both 0x1e 0x0f 0x3d; st_both 0x1e 0x28 0xe8 0x03 0x0c 0xfe 0xd0 0x07
bind lsm6dsl 0x6a; bind lsm9ds1-imu 0x6b; bind lsm9ds1_magn 0x1e
run b-lsm6dsl     read --i2c /dev/i2c-$B --chip lsm6dsl     --address 0x6a --json
run b-lsm9ds1     read --i2c /dev/i2c-$B --chip lsm9ds1     --address 0x6b --json
run b-lsm9ds1-mag read --i2c /dev/i2c-$B --chip lsm9ds1-mag --address 0x1e --json
dump_iio
run b-scan scan --i2c /dev/i2c-$B
unbind_all; rmmod i2c-stub

# ---- SPI: the kernel's spidev and SPI_IOC_MESSAGE over lodestone-spi-stub (a register file per chip select)
P=/payload/spi-poke
if insmod /payload/lodestone-spi-stub.ko framing=readBit7,readBit7AutoIncrementBit6,readBit7MultiByteBit6,readBit7; then
  echo loaded > "$OUT/spi-stub"
  ls /dev/spidev* > "$OUT/spi-devices" 2>&1
  # spidev0.0, MPU-9250: WHO_AM_I; I2C_MST_STATUS.I2C_SLV4_DONE; I2C_SLV4_DI 0x48 (WIA, then ASA 0x48 ×3);
  # accel 0 0 8192, temp 0, gyro 10 20 30; EXT_SENS_DATA: ST1 DRDY, HX 100, HY 200, HZ -300, ST2 BITM.
  $P /dev/spidev0.0 0x75 0x71; $P /dev/spidev0.0 0x35 0x48 0x40
  $P /dev/spidev0.0 0x3b 0 0 0 0 0x20 0 0 0 0 10 0 20 0 30 0x01 0x64 0x00 0xc8 0x00 0xd4 0xfe 0x10
  # spidev0.1, LSM9DS1 magnetometer (bit 6 = increment): WHO_AM_I_M; x 1000 y -500 z 2000 (0x40 | 0x28: a burst)
  $P /dev/spidev0.1 0x0f 0x3d; $P /dev/spidev0.1 0x68 0xe8 0x03 0x0c 0xfe 0xd0 0x07
  # spidev0.2, ADXL345 (bit 6 = multi-byte): DEVID; x 256 y -256 z 512
  $P /dev/spidev0.2 0x00 0xe5; $P /dev/spidev0.2 0x72 0x00 0x01 0x00 0xff 0x00 0x02
  # spidev0.3, LSM6DSOX: WHO_AM_I; temp 0, gyro 0 0 100, accel 0 8192 0
  $P /dev/spidev0.3 0x0f 0x6c; $P /dev/spidev0.3 0x20 0 0 0 0 0 0 0x64 0 0 0 0 0x20 0 0
  run s-mpu9250     read --spi /dev/spidev0.0 --chip mpu9250     --json
  run s-lsm9ds1-mag read --spi /dev/spidev0.1 --chip lsm9ds1-mag --json
  run s-adxl345     read --spi /dev/spidev0.2 --chip adxl345     --speed 5000000 --json
  run s-lsm6dsox    read --spi /dev/spidev0.3 --chip lsm6dsox    --json
  run s-wrong       read --spi /dev/spidev0.2 --chip mpu9250     --json
  run s-scan scan --spi /dev/spidev0.0 --spi /dev/spidev0.1 --spi /dev/spidev0.2 --spi /dev/spidev0.3
else
  echo "insmod failed" > "$OUT/spi-stub"; dmesg | tail -5 >> "$OUT/spi-stub"
fi
ls "$OUT"
exit 0
