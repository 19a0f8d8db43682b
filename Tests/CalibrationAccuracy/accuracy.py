#!/usr/bin/env python3
"""Accuracy of `lodestone calibrate mag` — the harness behind the numbers in README.md.

Simulated board (boards/simulated.json: hard iron [12, -7.5, 4] uT, soft iron S, consumer-MEMS noise, the
simulated person doing the calibrate-mag motion): for each seed, the CLI runs a whole non-interactive session
and saves its file; this compares both magnetometers' results with the truth:
  - hard-iron error |h_fit - h| (uT);
  - soft-iron error: largest entry of |W_fit - S^-1 / det(S^-1)^(1/3)| (W has determinant 1; relative, as the
    entries are near 1);
  - heading error from the calibration alone: W_fit (S B + h - h_fit) against B for 5000 random
    orientations (board forward axis within 65 deg of horizontal), B the WMM2025 field at the scenario's start
    (from `lodestone geo declination`); worst case and RMS, degrees;
  - seconds of motion until the session was complete, grade, residual.
BROAD (../shared/datasets/broad, CC BY 4.0, Laidig et al. 2021): each undisturbed rotation or combined trial
and the attached-magnet trials, from the trace: outcome, residual, hard iron, |B|, dip from the accelerometer.

Usage: python3 Tests/CalibrationAccuracy/accuracy.py [LODESTONE] [SEEDS]   (from the repository root)
"""
import glob, json, os, subprocess, sys, tempfile
import numpy as np

LODESTONE = sys.argv[1] if len(sys.argv) > 1 else ".build/release/lodestone"
SEEDS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
HARD = np.array([12.0, -7.5, 4.0])
SOFT = np.array([[1.03, 0.02, 0.0], [0.02, 0.97, 0.01], [0.0, 0.01, 1.0]])


def wmm_field_enu(lat, lon, height_m, year):
    out = subprocess.run([LODESTONE, "geo", "declination"], input=f"decimal_year,lat_deg,lon_deg,height_km\n{year},{lat},{lon},{height_m / 1000}\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()[1].split(",")
    x, y, z = (float(out[i]) / 1000 for i in (7, 8, 9))   # north, east, down, nT -> uT
    return np.array([y, x, -z])


def random_rotations(n, rng):
    u1, u2, u3 = rng.random(n), rng.random(n) * 2 * np.pi, rng.random(n) * 2 * np.pi
    a, b = np.sqrt(1 - u1), np.sqrt(u1)
    q = np.stack([b * np.cos(u3), a * np.sin(u2), a * np.cos(u2), b * np.sin(u3)], axis=1)   # w x y z
    w, x, y, z = q.T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], axis=1)


def heading_errors(w_fit, h_fit, field_enu, rng):
    r = random_rotations(5000, rng)                       # board -> ENU
    forward = r[:, :, 1]
    keep = np.abs(forward[:, 2]) < np.sin(np.radians(65))
    r = r[keep]
    b_board = np.einsum("nji,j->ni", r, field_enu)        # R^T B
    measured = b_board @ SOFT.T + HARD
    calibrated = (measured - h_fit) @ w_fit.T
    enu = np.einsum("nij,nj->ni", r, calibrated)
    err = np.degrees(np.arctan2(enu[:, 0], enu[:, 1]) - np.arctan2(field_enu[0], field_enu[1]))
    err = (err + 180) % 360 - 180
    return np.abs(err).max(), np.sqrt((err ** 2).mean())


def simulated(tmp):
    rng = np.random.default_rng(1)
    target = np.linalg.inv(SOFT)
    target /= np.cbrt(np.linalg.det(target))
    field = wmm_field_enu(47.3769, 8.5417, 455.5, 2026.5)
    rows = []
    for seed in range(1, SEEDS + 1):
        path = os.path.join(tmp, f"sim-{seed}.json")
        r = subprocess.run([LODESTONE, "calibrate", "mag", "--yes", "--speed", "0", "--seed", str(seed), "--output", path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            rows.append((seed, "both", None, r.stdout.strip().splitlines()[:1]))
            continue
        doc = json.load(open(path))
        for s in doc["sensors"]:
            m = s["magnetometer"]
            w = np.array(m["softIronCorrection"]).reshape(3, 3)
            h = np.array(m["hardIronMicroTesla"])
            worst, rms = heading_errors(w, h, field, rng)
            rows.append((seed, s["id"], dict(hard=np.linalg.norm(h - HARD), soft=np.abs(w - target).max(), worst=worst, rms=rms,
                                             motion=m["motionS"], grade=m["grade"], residual=m["residualMicroTesla"]), None))
    return rows


def broad(tmp):
    out = []
    trials = sorted(glob.glob("../shared/datasets/broad/*_undisturbed_*rotation*.csv.gz") + glob.glob("../shared/datasets/broad/*combined*.csv.gz")
                    + glob.glob("../shared/datasets/broad/*attached_magnet*.csv.gz"))
    for t in trials:
        path = os.path.join(tmp, "broad.json")
        if os.path.exists(path):
            os.remove(path)
        r = subprocess.run([LODESTONE, "calibrate", "mag", "--from-trace", t, "--output", path], capture_output=True, text=True)
        name = os.path.basename(t).replace(".csv.gz", "")
        if r.returncode == 0:
            m = json.load(open(path))["sensors"][0]["magnetometer"]
            out.append(f"| {name} | {m['grade']} | {m['residualMicroTesla']:.2f} | {np.linalg.norm(m['hardIronMicroTesla']):.2f} | "
                       f"{m['fieldStrengthMicroTesla']:.1f} | {m['coveragePercent']:.0f} | {m['mountingCheck']} |")
        else:
            first = r.stdout.strip().splitlines()[0] if r.stdout.strip() else r.stderr.strip()
            out.append(f"| {name} | {first.split(' — ')[0].replace('imu: ', '')} | {first.split(' — ')[-1]} | | | | |")
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        rows = simulated(tmp)
        ok = [r for r in rows if r[2] is not None]
        print(f"Simulated board, {SEEDS} seeds x 2 magnetometers ({len(ok)} results, {len(rows) - len(ok)} failures):")
        for key, unit, scale in [("hard", "uT", 1), ("soft", "%", 100), ("worst", "deg", 1), ("rms", "deg", 1), ("motion", "s", 1),
                                 ("residual", "uT", 1)]:
            v = np.array([r[2][key] for r in ok]) * scale
            print(f"  {key:9s} median {np.median(v):7.3f}  max {v.max():7.3f} {unit}")
        print("  grades:", {g: sum(1 for r in ok if r[2]["grade"] == g) for g in ("good", "acceptable")})
        for r in rows:
            if r[2] is None:
                print("  failed:", r)
        print()
        print("BROAD (from the traces):")
        print("| trial | outcome | residual µT | hard iron µT | fitted abs(B) µT | coverage % | mounting check |")
        print("|---|---|---|---|---|---|---|")
        for line in broad(tmp):
            print(line)


if __name__ == "__main__":
    main()
