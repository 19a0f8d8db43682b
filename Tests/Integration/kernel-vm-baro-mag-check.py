#!/usr/bin/env python3
"""Host-side checks of the barometer/magnetometer rounds of the kernel-VM run (kernel-vm-baro-mag-guest.sh):
`lodestone read --i2c` against the datasheet formulas, computed here independently of the Swift code from the
register contents the guest preloaded, and `lodestone read --iio` against what Debian's own drivers put in sysfs
(with the HMC5843-family scale quirk corrected, and reported)."""
import json, os, struct, sys

out = sys.argv[1]
failures = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def load(name):
    """(exit code, JSON rows, stderr) of one lodestone run; exit code None when the run is missing."""
    p = os.path.join(out, name)
    if not os.path.exists(p + ".rc"):
        return None, [], ""
    rc = int(open(p + ".rc").read().strip())
    rows = [json.loads(l) for l in open(p + ".json").read().splitlines() if l.strip().startswith("{")]
    return rc, rows, open(p + ".err").read().strip()


def sysfs(round_, dev, attr):
    p = os.path.join(out, f"sysfs-{round_}", dev, attr)
    if not os.path.exists(p):
        return None
    try:
        return float(open(p).read().strip())
    except ValueError:
        return None


def close(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


def one_reading(name):
    rc, rows, err = load(name)
    check(rc == 0 and len(rows) == 1, f"lodestone {name.replace('-', ' ', 1)} succeeded ({err or 'ok'})")
    return rows[0] if rows else {}


# --- Bosch BME280 (BST-BME280-DS002 4.2.3; T and P as the BMP280's 3.11.3) with the tool's bme280 preset.
T1, T2, T3 = 27504, 26435, -1000
P = [36477, -10685, 3024, 2855, 140, -7, 15500, -14600, 6000]
adc_T, adc_P, adc_H = 519888, 415148, 0x6FA0
v1 = (((adc_T >> 3) - (T1 << 1)) * T2) >> 11
v2 = (((((adc_T >> 4) - T1) * ((adc_T >> 4) - T1)) >> 12) * T3) >> 14
t_fine = v1 + v2
bme_t = ((t_fine * 5 + 128) >> 8) / 100.0
a = t_fine - 128000
b = a * a * P[5] + ((a * P[4]) << 17) + (P[3] << 35)
a = ((a * a * P[2]) >> 8) + ((a * P[1]) << 12)
a = (((1 << 47) + a) * P[0]) >> 33
p = 1048576 - adc_P
p = (((p << 31) - b) * 3125) // a
bme_p = (((p + ((P[8] * (p >> 13) * (p >> 13)) >> 25) + ((P[7] * p) >> 19)) >> 8) + (P[6] << 4)) / 256.0
H1, H2, H3, H4, H5, H6 = 0x4B, 0x016A, 0x00, 0x13D, 0x032, 0x1E
x = t_fine - 76800
x = ((((adc_H << 14) - (H4 << 20) - (H5 * x)) + 16384) >> 15) * \
    (((((((x * H6) >> 10) * (((x * H3) >> 11) + 32768)) >> 10) + 2097152) * H2 + 8192) >> 14)
x = x - (((((x >> 15) * (x >> 15)) >> 7) * H1) >> 4)
bme_h_q22_10 = min(max(x, 0), 419430400) >> 12
r = one_reading("i2c-bme280")
check(close(r.get("temperature_c"), bme_t, 1e-9) and close(r.get("pressure_pa"), bme_p, 1e-6),
      f"bme280 over i2c: {r.get('temperature_c')} °C, {r.get('pressure_pa')} Pa == datasheet {bme_t} °C, {bme_p} Pa")
check(sysfs("a", "bme280", "in_humidityrelative_input") == bme_h_q22_10 * 1000 // 1024,
      f"Linux's bme280 humidity {sysfs('a', 'bme280', 'in_humidityrelative_input')} m% == datasheet {bme_h_q22_10 * 1000 // 1024}")

# --- Bosch BMP388/BMP390 (BST-BMP388-DS001 9.1-9.3, floating point) with the NVM and ADC values preloaded.
nvm = bytes([0x24, 0x6d, 0x25, 0x4b, 0xf9, 0x3d, 0xfb, 0x90, 0xf4, 0x23, 0x00, 0x85, 0x63, 0x68, 0x76, 0x03, 0xfa,
             0x7f, 0x0e, 0x05, 0xc4])
t1, t2, t3, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11 = struct.unpack("<HHbhhbbHHbbhbb", nvm)
qt1, qt2, qt3 = t1 * 2.0 ** 8, t2 / 2.0 ** 30, t3 / 2.0 ** 48
qp = [(p1 - 2 ** 14) / 2.0 ** 20, (p2 - 2 ** 14) / 2.0 ** 29, p3 / 2.0 ** 32, p4 / 2.0 ** 37, p5 * 2.0 ** 3,
      p6 / 2.0 ** 6, p7 / 2.0 ** 8, p8 / 2.0 ** 15, p9 / 2.0 ** 48, p10 / 2.0 ** 48, p11 / 2.0 ** 65]
ut, up = 8500000, 6500000
d = ut - qt1
bmp3_t = d * qt2 + d * d * qt3
tl = bmp3_t
o1 = qp[4] + qp[5] * tl + qp[6] * tl ** 2 + qp[7] * tl ** 3
o2 = up * (qp[0] + qp[1] * tl + qp[2] * tl ** 2 + qp[3] * tl ** 3)
bmp3_p = o1 + o2 + up * up * (qp[8] + qp[9] * tl) + up ** 3 * qp[10]
for chip in ("bmp388", "bmp390"):
    r = one_reading(f"i2c-{chip}")
    check(close(r.get("temperature_c"), bmp3_t, 1e-9) and close(r.get("pressure_pa"), bmp3_p, 1e-6),
          f"{chip} over i2c: {r.get('temperature_c')} °C, {r.get('pressure_pa')} Pa == datasheet {bmp3_t:.6f} °C, {bmp3_p:.4f} Pa")

# --- TE MS5611 (datasheet first- and second-order calculation) with the example PROM and D1 = D2 = 8569150.
C = [None, 40127, 36924, 23317, 23282, 33464, 28312]
D1 = D2 = 8569150
dT = D2 - (C[5] << 8)
TEMP = 2000 + ((dT * C[6]) >> 23)
OFF = (C[2] << 16) + ((C[4] * dT) >> 7)
SENS = (C[1] << 15) + ((C[3] * dT) >> 8)
if TEMP < 2000:
    T2_, OFF2, SENS2 = (dT * dT) >> 31, (5 * (TEMP - 2000) ** 2) >> 1, (5 * (TEMP - 2000) ** 2) >> 2
    TEMP, OFF, SENS = TEMP - T2_, OFF - OFF2, SENS - SENS2
ms_p = (((D1 * SENS) >> 21) - OFF) >> 15
r = one_reading("i2c-ms5611")
check(r.get("temperature_c") == TEMP / 100 and r.get("pressure_pa") == ms_p,
      f"ms5611 over i2c: {r.get('temperature_c')} °C, {r.get('pressure_pa')} Pa == datasheet {TEMP / 100} °C, {ms_p} Pa")

# --- ST LPS22HB (4096 LSB/hPa, 100 LSB/°C) and LPS25H (4096 LSB/hPa, 42.5 + raw/480 °C), as preloaded.
for chip, want_t in (("lps22hb", 2500 / 100), ("lps25h", 42.5 - 8400 / 480)):
    r = one_reading(f"i2c-{chip}")
    check(close(r.get("pressure_pa"), 0x3F8000 / 4096 * 100, 1e-9) and close(r.get("temperature_c"), want_t, 1e-9),
          f"{chip} over i2c: {r.get('pressure_pa')} Pa, {r.get('temperature_c')} °C == datasheet 101600 Pa, {want_t} °C")

# --- Magnetometers, µT: HMC5883L X 300, Y 200, Z −200 at 1090 LSB/gauss (±1.3 gauss); QMC5883L 3000, −1200, 4800
# at 12000 LSB/gauss; MMC5983MA 18-bit 0x24000, 0x1E000, 0x20004 at 16384 counts/gauss around 131072.
mags = {
    "hmc5883l": [v / 1090 * 100 for v in (300, 200, -200)],
    "qmc5883l": [v / 12000 * 100 for v in (3000, -1200, 4800)],
    "mmc5983ma": [(v - 131072) / 16384 * 100 for v in (0x24000, 0x1E000, 0x20004)],
}
for chip, want in mags.items():
    r = one_reading(f"i2c-{chip}")
    got = [r.get(f"mag_{a}_ut") for a in "xyz"]
    check(all(close(g, w, 1e-9) for g, w in zip(got, want)), f"{chip} over i2c: {got} µT == datasheet {want}")


# --- The kernel's own drivers, read through lodestone read --iio, against sysfs and the datasheet.
def iio_si(round_, dev, chan, factor):
    """The channel's value per the IIO ABI from the dumped sysfs (no quirk correction), in SI."""
    inp = sysfs(round_, dev, f"in_{chan}_input")
    if inp is not None:
        return inp * factor
    raw = sysfs(round_, dev, f"in_{chan}_raw")
    base = chan.split("_")[0]
    scale = sysfs(round_, dev, f"in_{chan}_scale") or sysfs(round_, dev, f"in_{base}_scale") or 1.0
    off = sysfs(round_, dev, f"in_{chan}_offset") or sysfs(round_, dev, f"in_{base}_offset") or 0.0
    return None if raw is None else (raw + off) * scale * factor


kernel_devices = {  # IIO name → (round, chip read over i2c, keys and channels, tolerance)
    "bme280": ("a", "bme280", [("temperature_c", "temp", 1e-3), ("pressure_pa", "pressure", 1e3)], 1e-6),
    "lps22hb": ("a", "lps22hb", [("pressure_pa", "pressure", 1e3), ("temperature_c", "temp", 1e-3)], 1e-6),
    "lps25h": ("a", "lps25h", [("pressure_pa", "pressure", 1e3), ("temperature_c", "temp", 1e-3)], 1e-6),
}
for dev, (round_, chip, keys, tol) in kernel_devices.items():
    rc, rows, err = load(f"iio-{round_}-{dev}")
    check(rc == 0 and len(rows) == 1, f"lodestone read --iio {dev} succeeded ({err or 'ok'})")
    i2c = load(f"i2c-{chip}")[1]
    for key, chan, factor in keys:
        want = iio_si(round_, dev, chan, factor)
        got = rows[0].get(key) if rows else None
        check(want is not None and close(got, want, tol * max(1.0, abs(want))), f"iio {dev} {key} {got} == sysfs {want}")
        ours = i2c[0].get(key) if i2c else None
        check(close(got, ours, 1e-3 * max(1.0, abs(ours or 0))),
              f"Linux's {dev} driver and lodestone's {chip} driver agree on {key}: {got} vs {ours}")

# BMP380: Linux's integer compensation (Bosch's BMP3 API) against the datasheet's floating-point one.
rc, rows, err = load("iio-a-bmp380")
check(rc == 0 and len(rows) == 1, f"lodestone read --iio bmp380 succeeded ({err or 'ok'})")
if rows:
    check(close(rows[0].get("temperature_c"), bmp3_t, 0.01) and close(rows[0].get("pressure_pa"), bmp3_p, 1.0),
          f"Linux's bmp380 driver ({rows[0].get('temperature_c')} °C, {rows[0].get('pressure_pa')} Pa) agrees with the "
          f"datasheet's floating-point formulas ({bmp3_t:.4f} °C, {bmp3_p:.3f} Pa) within its integer resolution")

# HMC5883L: Linux's hmc5843 driver reports a scale 100× too small; lodestone read --iio corrects it and says so.
rc, rows, err = load("iio-a-hmc5883l")
check(rc == 0 and len(rows) == 1, f"lodestone read --iio hmc5883l succeeded")
uncorrected = [iio_si("a", "hmc5883l", f"magn_{a}", 100.0) for a in "xyz"]
want = mags["hmc5883l"]
check(all(u is not None and close(u * 100, w, 1e-3 * abs(w)) for u, w in zip(uncorrected, want)),
      f"Linux's hmc5843 driver shows the quirk: raw × in_magn_scale = {uncorrected} µT, 1/100 of the datasheet's {want}")
got = [rows[0].get(f"mag_{a}_ut") for a in "xyz"] if rows else [None] * 3
check(all(close(g, w, 1e-4 * abs(w)) for g, w in zip(got, want)),
      f"lodestone read --iio hmc5883l with the quirk corrected: {got} µT == datasheet {want} (within the driver's rounding)")
check("hmc5843-scale" in err and "kernel 6." in err, f"lodestone read --iio says it corrected the quirk: {err[:160]}")

# --- lodestone scan identifies every chip (reads only) at its address.
for scan, chips in (("scan-a", ["bme280 0x76", "bmp388 0x77", "lps25h 0x5C", "lps22hb 0x5D", "hmc5883l 0x1E",
                                "qmc5883l 0x0D", "mmc5983ma 0x30"]),
                    ("scan-b", ["ms5611 0x77", "bmp390 0x76"])):
    rc_path = os.path.join(out, scan + ".rc")
    rc = int(open(rc_path).read().strip()) if os.path.exists(rc_path) else None
    text = open(os.path.join(out, scan + ".json")).read() if rc is not None else ""   # human text, then a draft board
    for c in chips:
        name, addr = c.split()
        found = any(f" {addr}: {name} (" in line for line in text.splitlines())
        check(rc == 0 and found, f"{scan}: lodestone scan identifies {name} at {addr}")

print(f"kernel-vm baro/mag: {len(failures)} failed")
sys.exit(1 if failures else 0)
