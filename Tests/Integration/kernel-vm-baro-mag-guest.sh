#!/bin/sh
# Runs inside the kernel VM after kernel-vm-guest.sh (busybox sh, root, in /payload): the barometers and
# magnetometers of the driver catalogue on i2c-stub register files preloaded here, in two rounds (0x76/0x77 are
# shared by four of them; i2c-stub holds at most 10 chips). Where Debian's kernel has a driver (bmp280 for
# BME280/BMP380, st_pressure for LPS22HB/LPS25H, hmc5843 for HMC5883L) it is bound and its IIO values dumped.
# Results go to $OUT/baro-mag/ for kernel-vm-baro-mag-check.py on the host.
set -u
L=/payload/lodestone
R=$OUT/baro-mag
mkdir -p "$R"
. /usr/share/kernel-vm/chips.sh   # the tool's presets: chip_bme280, chip_lps22hb, chip_hmc5883l, blk, reg, st_both

# Register presets for the chips the tool has none for (values the check script recomputes from the datasheets).
# Bosch BMP388 (BMP390 with id 0x60): CHIP_ID, STATUS cmd_rdy + drdy, ERR_REG 0, NVM_PAR_T1…P11 of
# BMP3xxDatasheet.Calibration.typical, DATA: pressure 6500000, temperature 8500000 (little-endian).
chip_bmp3() {
  reg $1 $2 0x00 $3; reg $1 $2 0x01 $4; reg $1 $2 0x02 0x00; reg $1 $2 0x03 0x70
  blk $1 $2 0x31 0x24 0x6d 0x25 0x4b 0xf9 0x3d 0xfb 0x90 0xf4 0x23 0x00 0x85 0x63 0x68 0x76 0x03 0xfa 0x7f 0x0e 0x05 0xc4
  blk $1 $2 0x04 0xa0 0x2e 0x63 0x20 0xb3 0x81
}
# ST LPS25H: WHO_AM_I 0xBD; pressure 0x3F8000 (1016 hPa), TEMP_OUT -8400 (25 °C); both halves (reads use bit 7).
chip_lps25h() { st_both $1 $2 0x0f 0xbd; st_both $1 $2 0x28 0x00 0x80 0x3f 0x30 0xdf; }
# QST QMC5883L: chip ID 0xFF, STATUS DRDY, X 3000, Y -1200, Z 4800 (little-endian).
chip_qmc5883l() { reg $1 $2 0x0d 0xff; reg $1 $2 0x06 0x01; blk $1 $2 0x00 0xb8 0x0b 0x50 0xfb 0xc0 0x12; }
# MEMSIC MMC5983MA: product ID 0x30, STATUS OTP_Read_Done + Meas_M_Done; X 0x24000, Y 0x1E000, Z 0x20004 (18 bits).
chip_mmc5983ma() { reg $1 $2 0x2f 0x30; reg $1 $2 0x08 0x11; blk $1 $2 0x00 0x90 0x00 0x78 0x00 0x80 0x01 0x00; }
# TE MS5611: PROM words 0…7 (the datasheet's C1…C6, CRC 0) as big-endian bytes at 0xA0…0xAF, and the ADC result
# 8569150 (the datasheet's D2) at 0x00…0x02. i2c-stub has one ADC register, so D1 = D2 here.
chip_ms5611() {
  blk $1 $2 0xa0 0x00 0x00 0x9c 0xbf 0x90 0x3c 0x5b 0x15 0x5a 0xf2 0x82 0xb8 0x6e 0x98 0x00 0x00
  blk $1 $2 0x00 0x82 0xc1 0x3e
}

stub_bus() { for a in /sys/bus/i2c/devices/i2c-*; do [ "$(cat "$a/name")" = "SMBus stub driver" ] && { echo "${a##*/i2c-}"; return; }; done; }

# Removes every stub device and the stub, then loads it again with the chips "NAME@ADDR[:DEVNAME]" (DEVNAME: the
# kernel driver to bind, if any) and preloads them. Prints the new bus number.
stub_round() {
  old=$(stub_bus)
  if [ -n "$old" ]; then
    for d in /sys/bus/i2c/devices/$old-00*; do [ -e "$d" ] && echo "0x${d##*-00}" > /sys/bus/i2c/devices/i2c-$old/delete_device; done
    rmmod i2c-stub || { echo "rmmod i2c-stub failed" >&2; return 1; }
  fi
  addrs=""; for c in "$@"; do a=${c#*@}; addrs="$addrs,${a%%:*}"; done
  modprobe i2c-stub chip_addr="${addrs#,}" >> "$R/rounds.log" 2>&1 || return 1
  b=$(stub_bus)
  for c in "$@"; do
    name=${c%@*}; rest=${c#*@}; addr=${rest%%:*}; dev=""; [ "$rest" != "$addr" ] && dev=${rest#*:}
    case $name in
      bmp388) chip_bmp3 "$b" "$addr" 0x50 0x00 ;;
      bmp390) chip_bmp3 "$b" "$addr" 0x60 0x01 ;;
      *) "chip_$name" "$b" "$addr" ;;
    esac
    if [ -n "$dev" ]; then
      echo "$dev $addr" > /sys/bus/i2c/devices/i2c-$b/new_device
      node=/sys/bus/i2c/devices/$b-$(printf '%04x' "$addr")
      modprobe -q "$(cat $node/modalias)" 2>/dev/null
      i=0; while [ $i -lt 30 ] && ! ls -d $node/iio:device* >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done
      ls -d $node/iio:device* >/dev/null 2>&1 && echo "$name@$addr: bound $dev" || echo "$name@$addr: $dev did not bind"
    fi
  done >> "$R/rounds.log" 2>&1
  echo "$b"
}

run() { name=$1; shift; "$L" "$@" > "$R/$name.json" 2> "$R/$name.err"; echo $? > "$R/$name.rc"; }

# Dumps every IIO device's in_* attributes (after raising st_sensors' rate, so one-shot reads sleep briefly) and
# reads each through lodestone read --iio.
iio_round() {
  round=$1
  for d in /sys/bus/iio/devices/iio:device*; do
    [ -e "$d/name" ] || continue
    n=$(cat "$d/name")
    if [ -f "$d/sampling_frequency_available" ]; then
      fastest=$(tr ' ' '\n' < "$d/sampling_frequency_available" | grep . | tail -1)
      echo "$fastest" > "$d/sampling_frequency" 2>/dev/null
    fi
    mkdir -p "$R/sysfs-$round/$n"
    for f in "$d"/in_*; do [ -f "$f" ] && cat "$f" > "$R/sysfs-$round/$n/${f##*/}" 2>/dev/null; done
    run "iio-$round-$n" read --iio "$n" --json
  done
}

uname -r > "$R/kernel-release"

# Round A: one chip of each kind at its usual address, kernel drivers bound where Debian has them.
B=$(stub_round bme280@0x76:bme280 bmp388@0x77:bmp380 lps25h@0x5c:lps25h lps22hb@0x5d:lps22hb hmc5883l@0x1e:hmc5883l \
               qmc5883l@0x0d mmc5983ma@0x30)
echo "round A on i2c-$B" >> "$R/rounds.log"
for c in bme280@0x76 bmp388@0x77 lps25h@0x5c lps22hb@0x5d hmc5883l@0x1e qmc5883l@0x0d mmc5983ma@0x30; do
  run "i2c-${c%@*}" read --i2c /dev/i2c-$B --chip "${c%@*}" --address "${c#*@}" --json
done
run scan-a scan --i2c /dev/i2c-$B
iio_round a

# Round B: the other two chips that share 0x76/0x77.
B=$(stub_round ms5611@0x77 bmp390@0x76:bmp380)
echo "round B on i2c-$B" >> "$R/rounds.log"
run i2c-ms5611 read --i2c /dev/i2c-$B --chip ms5611 --address 0x77 --json
run i2c-bmp390 read --i2c /dev/i2c-$B --chip bmp390 --address 0x76 --json
run scan-b scan --i2c /dev/i2c-$B
iio_round b
exit 0
