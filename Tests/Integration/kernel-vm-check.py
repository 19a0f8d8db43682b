#!/usr/bin/env python3
"""Host-side checks of the kernel-VM integration run: lodestone's SI values against the datasheet formulas
(computed here independently) and against the kernel drivers' sysfs values."""
import json, os, sys

out = sys.argv[1]
failures = []

def load(name):
    rc = int(open(os.path.join(out, name + ".rc")).read().strip())
    lines = [l for l in open(os.path.join(out, name + ".json")).read().splitlines() if l.strip()]
    err = open(os.path.join(out, name + ".err")).read().strip()
    return rc, [json.loads(l) for l in lines], err

def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)

def close(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol

def sysfs(dev, attr):
    p = os.path.join(out, "sysfs", dev, attr)
    return float(open(p).read().strip()) if os.path.exists(p) else None

# --- BMP280 over libi2c: Bosch datasheet 3.11.3 / 8.1 with the trim and ADC words the stub holds.
T1, T2, T3 = 27504, 26435, -1000
P = [36477, -10685, 3024, 2855, 140, -7, 15500, -14600, 6000]
adc_T, adc_P = 519888, 415148
v1 = (((adc_T >> 3) - (T1 << 1)) * T2) >> 11
v2 = (((((adc_T >> 4) - T1) * ((adc_T >> 4) - T1)) >> 12) * T3) >> 14
t_fine = v1 + v2
temp_c = ((t_fine * 5 + 128) >> 8) / 100.0
p1 = t_fine - 128000
p2 = p1 * p1 * P[5] + ((p1 * P[4]) << 17) + (P[3] << 35)
p1 = (((p1 * p1 * P[2]) >> 8) + ((p1 * P[1]) << 12))
p1 = (((1 << 47) + p1) * P[0]) >> 33
p = 1048576 - adc_P
p = (((p << 31) - p2) * 3125) // p1
q1 = (P[8] * (p >> 13) * (p >> 13)) >> 25
q2 = (P[7] * p) >> 19
pressure_pa = (((p + q1 + q2) >> 8) + (P[6] << 4)) / 256.0
rc, rows, err = load("i2c-bmp280")
check(rc == 0 and len(rows) == 1, f"lodestone read --i2c bmp280 succeeded ({err})")
if rows:
    r = rows[0]
    check(close(r.get("temperature_c"), temp_c, 1e-9), f"bmp280 i2c temperature {r.get('temperature_c')} == datasheet {temp_c}")
    check(close(r.get("pressure_pa"), pressure_pa, 1e-6), f"bmp280 i2c pressure {r.get('pressure_pa')} == datasheet {pressure_pa} (25767233/256)")

# --- LIS3MDL over libi2c: raw x=1000 y=-500 z=2000 at the default ±4 gauss, 6842 LSB/gauss (DS table 3).
rc, rows, err = load("i2c-lis3mdl")
check(rc == 0 and len(rows) == 1, f"lodestone read --i2c lis3mdl succeeded ({err})")
if rows:
    r = rows[0]
    for axis, raw in (("x", 1000), ("y", -500), ("z", 2000)):
        want = raw / 6842.0 * 100.0
        check(close(r.get(f"mag_{axis}_ut"), want, 1e-6), f"lis3mdl i2c mag_{axis} {r.get(f'mag_{axis}_ut')} µT == {want:.6f}")

# --- MPU-6050 over libi2c: accel 100,-100,16384; temp 3456; gyro 10,20,30 (register map rev 4.2).
rc, rows, err = load("i2c-mpu6050")
check(rc == 0 and len(rows) == 1, f"lodestone read --i2c mpu6050 succeeded ({err})")
if rows:
    r = rows[0]
    acc_lsb = float(os.environ.get("MPU_ACC_LSB_PER_G", "0"))
    check(close(r.get("temperature_c"), 3456 / 340.0 + 36.53, 1e-9), f"mpu6050 i2c temperature {r.get('temperature_c')} == 3456/340+36.53")
    # The range lodestone configured is reflected in the ratio of z to raw 16384; it must be one of the datasheet's.
    az = r.get("acc_z_mps2")
    lsb_per_g = 16384 * 9.80665 / az if az else None
    check(lsb_per_g is not None and any(abs(lsb_per_g - s) < 1e-6 for s in (16384, 8192, 4096, 2048)),
          f"mpu6050 accel z {az} m/s² is raw 16384 at a datasheet sensitivity ({lsb_per_g} LSB/g)")
    if lsb_per_g:
        check(close(r.get("acc_x_mps2"), 100 / lsb_per_g * 9.80665, 1e-9) and close(r.get("acc_y_mps2"), -100 / lsb_per_g * 9.80665, 1e-9),
              "mpu6050 accel x/y at the same sensitivity")
    gx = r.get("gyr_x_rads")
    lsb_per_dps = 10 / (gx * 57.29577951308232) if gx else None
    check(lsb_per_dps is not None and any(abs(lsb_per_dps - s) < 1e-3 for s in (131, 65.5, 32.8, 16.4)),
          f"mpu6050 gyro x {gx} rad/s is raw 10 at a datasheet sensitivity ({lsb_per_dps} LSB/(°/s))")
    if lsb_per_dps:
        check(close(r.get("gyr_z_rads"), 30 / lsb_per_dps / 57.29577951308232, 1e-9), "mpu6050 gyro z at the same sensitivity")

# --- An address with no chip: one clear line, non-zero exit, no crash.
rc, rows, err = load("i2c-absent")
check(rc != 0 and rc < 128 and len(err.splitlines()) == 1 and "0x77" in err and "NACK" in err,
      f"absent chip gives one line naming the address and the NACK, exit {rc}: {err}")

# --- IIO: lodestone's SI values equal what the kernel's sysfs says, converted per the IIO ABI.
def iio_expect(dev, chan, unit_factor):
    inp = sysfs(dev, f"in_{chan}_input")
    if inp is not None:
        return inp * unit_factor
    raw = sysfs(dev, f"in_{chan}_raw")
    base = chan.split("_")[0]
    scale = sysfs(dev, f"in_{chan}_scale") or sysfs(dev, f"in_{base}_scale")
    off = sysfs(dev, f"in_{chan}_offset") or sysfs(dev, f"in_{base}_offset") or 0.0
    return None if raw is None or scale is None else (raw + off) * scale * unit_factor

expect = {
    "bmp280": [("temperature_c", "temp", 1e-3), ("pressure_pa", "pressure", 1e3)],
    "lis3mdl": [(f"mag_{a}_ut", f"magn_{a}", 100.0) for a in "xyz"],
    "lsm6dsl_accel": [(f"acc_{a}_mps2", f"accel_{a}", 1.0) for a in "xyz"],
    "lsm6dsl_gyro": [(f"gyr_{a}_rads", f"anglvel_{a}", 1.0) for a in "xyz"],
    "mpu6050": [(f"acc_{a}_mps2", f"accel_{a}", 1.0) for a in "xyz"] + [(f"gyr_{a}_rads", f"anglvel_{a}", 1.0) for a in "xyz"],
}
for dev, keys in expect.items():
    if not os.path.exists(os.path.join(out, f"iio-{dev}.rc")):
        check(False, f"IIO device {dev} was not listed by the kernel")
        continue
    rc, rows, err = load(f"iio-{dev}")
    check(rc == 0 and len(rows) == 1, f"lodestone read --iio {dev} succeeded ({err})")
    if not rows:
        continue
    for key, chan, factor in keys:
        want = iio_expect(dev, chan, factor)
        got = rows[0].get(key)
        check(want is not None and close(got, want, 1e-6 * max(1.0, abs(want))), f"iio {dev} {key} {got} == sysfs {want}")
check(close(load("iio-bmp280")[1][0].get("temperature_c") if load("iio-bmp280")[1] else None, 25.08, 1e-9), "iio bmp280 temperature is the datasheet 25.08 °C")

rc = int(open(os.path.join(out, "scan.rc")).read().strip())
text = open(os.path.join(out, "scan.json")).read()   # human text plus a draft board file
check(rc == 0 and "bmp280" in text and "lis3mdl" in text and "mpu6050" in text, "scan identifies bmp280, lis3mdl and mpu6050 on the stub bus")

print(f"kernel-vm: {len(failures)} failed")
sys.exit(1 if failures else 0)
