#!/bin/sh
# Runs inside the kernel VM from kernel-vm-guest.sh (busybox sh, root, in /payload), while the default stub chips are
# bound: coexistence with iio-sensor-proxy (issue 19). A stand-in does what iio-sensor-proxy does to an accelerometer
# or magnetometer it serves — opens /dev/iio:deviceN, enables scan elements, attaches a trigger and enables the
# buffer, and keeps the device open — under the name iio-sensor-proxy (so /proc/PID/comm is the real daemon's,
# "iio-sensor-prox"). The real st_magn driver then refuses one-shot reads with EBUSY, and `lodestone read --iio`
# must say in one line which process holds the device and what to do. Results go to $OUT/coexist/ for
# kernel-vm-coexist-check.py. Everything is put back afterwards (the baro/mag rounds reload i2c-stub).
set -u
L=/payload/lodestone
C=$OUT/coexist
mkdir -p "$C"
T0=$(cut -d' ' -f1 /proc/uptime)
d=""
for x in /sys/bus/iio/devices/iio:device*; do [ "$(cat "$x/name" 2>/dev/null)" = lis3mdl ] && d=$x; done
if [ -z "$d" ]; then echo "no lis3mdl IIO device" > "$C/setup-error"; exit 0; fi
id=${d##*/}
echo "$id" > "$C/device"
cat > /tmp/iio-sensor-proxy <<EOF
#!/bin/sh
exec 3< /dev/$id
for c in $d/scan_elements/in_magn_*_en; do echo 1 > "\$c"; done
echo tick0 > $d/trigger/current_trigger
echo 1 > $d/buffer/enable && echo ready > /tmp/holder-ready
sleep 600 3<&- &
echo \$! > /tmp/holder-sleep
wait
EOF
chmod +x /tmp/iio-sensor-proxy
# its output kept off the guest log's pipe, which would otherwise wait for its sleep
/tmp/iio-sensor-proxy > /dev/null 2>&1 &
HOLDER=$!
echo "$HOLDER" > "$C/holder.pid"
i=0; while [ $i -lt 50 ] && [ ! -f /tmp/holder-ready ]; do sleep 0.1; i=$((i+1)); done
cat "$d/buffer/enable" > "$C/buffer-enable" 2>&1
cat /proc/$HOLDER/comm > "$C/holder.comm" 2>&1
"$L" read --iio lis3mdl --json > "$C/held.json" 2> "$C/held.err"; echo $? > "$C/held.rc"
kill "$HOLDER" $(cat /tmp/holder-sleep 2>/dev/null); wait "$HOLDER" 2>/dev/null
echo 0 > "$d/buffer/enable"
for c in "$d"/scan_elements/in_magn_*_en; do echo 0 > "$c"; done
echo "" > "$d/trigger/current_trigger" 2>/dev/null
"$L" read --iio lis3mdl --json > "$C/after.json" 2> "$C/after.err"; echo $? > "$C/after.rc"
echo "$T0 $(cut -d' ' -f1 /proc/uptime)" | awk '{printf "%.2f\n", $2-$1}' > "$C/seconds"
exit 0
