#!/usr/bin/env python3
"""Accuracy and speed of Lodestone's orientation filter on BROAD's development trials, beside its peers.

In one run, on the same files (../shared/datasets/broad, every *.csv.gz):

* Lodestone: `lodestone replay --declination-deg 0` (release build) on each trial, as a user would run it.
* VQF (PyPI `vqf`, its C++ core through Cython, default parameters), x-io Fusion (PyPI `imufusion`, the
  settings of its own advanced example) and Madgwick (PyPI `ahrs`, default gain and a gain tuned on these trials).
* BROAD's metric exactly as ../shared/datasets/broad/README.md defines it: e = q_est ⊗ q_gt⁻¹; total = angle of e,
  heading = 2·atan2(|e_z|, |e_w|), inclination = 2·atan2(√(e_x²+e_y²), √(e_w²+e_z²)); RMSE over valid == 1, in
  degrees; the mean over trials. The estimate is used as is (9D: no heading-offset removal).
* The honesty of Lodestone's heading accuracy: the share of valid samples whose heading error is within the
  reported heading_accuracy_deg (an invalid, negative accuracy counts as a miss), and the median reported
  accuracy over the RMS heading error (pooled over all trials, and per trial).
* Speed: ns per 9D update of Lodestone (package-benchmark, benchmarks/ suite Fusion) and of VQF's C++ core
  (vqf_native.cpp, built here from the vqf sdist fetched with pip: never committed) on the same trial; replay
  throughput in rows per second of `lodestone replay` and of vqf_native's equivalent over all trials.

Writes results.md (the committed table) and heading_error.png (heading error over time of the three hardest trials
for Lodestone and the hardest for VQF) next to this script. Takes about half an hour on a shared 2-core machine, most of it in ahrs' pure-Python Madgwick
(plus the release builds the first time).

    python3 benchmarks/accuracy/orientation/run.py [--skip-build] [--skip-speed] [--madgwick-gains 0.041,0.08]

Needs numpy, matplotlib, vqf, imufusion, ahrs (pip install), a C++ compiler and zlib (for vqf_native).
"""

import argparse
import datetime
import glob
import gzip
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RATE_HZ = 2000 / 7  # BROAD: 285.714 Hz, sample period exactly 0.0035 s
TS = 0.0035


def sh(args, **kw):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kw)


# ---------------------------------------------------------------------------------------------------- metric

def qmul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], 1)


def errors_deg(q_est, q_gt):
    """BROAD's total, heading and inclination errors per sample (deg), and the heading error's sign."""
    e = qmul(q_est, q_gt * np.array([1, -1, -1, -1]))
    total = 2 * np.arccos(np.clip(np.abs(e[:, 0]), 0, 1))
    heading = 2 * np.arctan2(np.abs(e[:, 3]), np.abs(e[:, 0]))
    incl = 2 * np.arctan2(np.sqrt(e[:, 1] ** 2 + e[:, 2] ** 2), np.sqrt(e[:, 0] ** 2 + e[:, 3] ** 2))
    sign = np.where(e[:, 3] * e[:, 0] >= 0, 1.0, -1.0)
    return np.degrees(total), np.degrees(heading), np.degrees(incl), sign


def rmse(x, valid):
    return float(np.sqrt(np.mean(x[valid] ** 2)))


def score(q_est, trial):
    t, h, i, _ = errors_deg(q_est, trial["gt"])
    v = trial["valid"]
    return rmse(t, v), rmse(h, v), rmse(i, v)


# ---------------------------------------------------------------------------------------------------- data

def load_trial(path):
    with gzip.open(path, "rt") as f:
        header = f.readline().strip().split(",")
        expected = "t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,mag_x,mag_y,mag_z,gt_qw,gt_qx,gt_qy,gt_qz,valid".split(",")
        if header != expected:
            sys.exit(f"{path}: unexpected header {header}; expected BROAD's {expected}")
        a = np.loadtxt(f, delimiter=",")
    valid = (a[:, 14] == 1) & np.all(np.isfinite(a[:, 10:14]), axis=1)
    return {"name": os.path.basename(path)[:-len(".csv.gz")], "path": path, "t": a[:, 0],
            "acc": np.ascontiguousarray(a[:, 1:4]), "gyr": np.ascontiguousarray(a[:, 4:7]),
            "mag": np.ascontiguousarray(a[:, 7:10]), "gt": a[:, 10:14], "valid": valid}


# ---------------------------------------------------------------------------------------------------- filters

def run_lodestone(binary, trial, workdir, extra=()):
    out = os.path.join(workdir, trial["name"] + ".lodestone.csv")
    start = time.perf_counter()
    sh([binary, "replay", "--input", trial["path"], "--declination-deg", "0", "--output", out, *extra])
    seconds = time.perf_counter() - start
    with open(out) as f:
        header = f.readline().strip().split(",")
    cols = {name: i for i, name in enumerate(header)}
    a = np.genfromtxt(out, delimiter=",", skip_header=1, filling_values=np.nan)
    if len(a) != len(trial["t"]):
        sys.exit(f"lodestone replay wrote {len(a)} rows for {trial['name']}, the trial has {len(trial['t'])}")
    q = a[:, [cols["qw"], cols["qx"], cols["qy"], cols["qz"]]]
    return {"q": q, "accuracy": a[:, cols["heading_accuracy_deg"]], "disturbed": a[:, cols["mag_disturbed"]],
            "seconds": seconds}


def run_vqf(trial):
    from vqf import VQF
    return VQF(TS).updateBatch(trial["gyr"], trial["acc"], trial["mag"])["quat9D"]


def run_imufusion(trial):
    import imufusion
    settings = imufusion.AhrsSettings()
    # The settings of x-io's own advanced example (Fusion/Python/advanced_example.py), at BROAD's rate and range.
    settings.convention = imufusion.CONVENTION_ENU
    settings.gain = 0.5
    settings.gyroscope_range = 2000
    settings.acceleration_rejection = 10
    settings.magnetic_rejection = 10
    settings.rejection_timeout = int(5 * RATE_HZ)
    settings.sample_rate = RATE_HZ
    ahrs = imufusion.Ahrs()
    ahrs.set_settings(settings)
    gyr = np.degrees(trial["gyr"])
    acc = trial["acc"] / 9.80665
    q = np.empty((len(gyr), 4))
    for k in range(len(gyr)):
        ahrs.update(gyr[k], acc[k], trial["mag"][k])
        q[k] = ahrs.get_quaternion()
    return q


def run_madgwick(trial, gain):
    from ahrs.filters import Madgwick
    q = Madgwick(gyr=trial["gyr"], acc=trial["acc"], mag=trial["mag"], frequency=RATE_HZ, gain=gain).Q
    # ahrs' Madgwick estimates the orientation in a North-West-Up earth frame (magnetic north along x, up along
    # z); turn it into East-North-Up: +90° about up.
    nwu_to_enu = np.array([np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)])
    return qmul(np.tile(nwu_to_enu, (len(q), 1)), q)


# ---------------------------------------------------------------------------------------------------- speed

def build_vqf_native(workdir):
    """Fetches the vqf sdist of the installed version with pip, builds vqf_native.cpp against its C++ core."""
    from importlib.metadata import version as installed_version
    version = installed_version("vqf")
    sdist_dir = os.path.join(workdir, "sdist")
    os.makedirs(sdist_dir, exist_ok=True)
    sh([sys.executable, "-m", "pip", "download", f"vqf=={version}", "--no-binary", "vqf", "--no-deps", "-q", "-d", sdist_dir])
    archive = glob.glob(os.path.join(sdist_dir, "vqf-*.tar.gz"))[0]
    with tarfile.open(archive) as t:
        t.extractall(sdist_dir, filter="data")
    cpp = glob.glob(os.path.join(sdist_dir, "vqf-*", "vqf", "cpp"))[0]
    binary = os.path.join(workdir, "vqf_native")
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    sh([compiler, "-O2", "-std=c++17", "-I" + cpp, os.path.join(HERE, "vqf_native.cpp"), os.path.join(cpp, "vqf.cpp"), "-lz", "-o", binary])
    return binary, version, os.path.basename(compiler) + " -O2"


def swift_update_ns():
    """p50 wall-clock ns per operation of the Fusion benchmarks (package-benchmark, release)."""
    env = dict(os.environ, PATH="/opt/swift/usr/bin:" + os.environ.get("PATH", ""))
    out = sh(["swift", "package", "benchmark", "--target", "Fusion", "--no-progress"], cwd=os.path.join(ROOT, "benchmarks"), env=env).stdout
    result = {}
    name = None
    for line in out.splitlines():
        m = re.match(r"^(OrientationFilter\.update9D|OrientationStage\.process)\s*$", line.strip())
        if m:
            name = m.group(1)
        elif name and line.startswith("│ Time (wall clock)"):
            cells = [c.strip() for c in line.split("│")]
            result[name] = float(cells[4])  # p0, p25, p50 → the p50 column
            name = None
        elif name and line.startswith("│ Malloc (total)"):
            cells = [c.strip() for c in line.split("│")]
            result[name + ".malloc_p90"] = float(cells[6])
    return result


# ---------------------------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--broad", default=os.path.join(ROOT, "..", "shared", "datasets", "broad"))
    parser.add_argument("--skip-build", action="store_true", help="use the existing .build/release/lodestone")
    parser.add_argument("--skip-speed", action="store_true", help="no package-benchmark and no vqf_native")
    parser.add_argument("--madgwick-gains", default="0.041,0.08",
                        help="Madgwick gains to score: ahrs' default and the best of a sweep on these trials")
    parser.add_argument("--out", default=HERE)
    args = parser.parse_args()

    paths = sorted(glob.glob(os.path.join(args.broad, "*.csv.gz")))
    if not paths:
        sys.exit(f"no BROAD trials in {args.broad}")
    env = dict(os.environ, PATH="/opt/swift/usr/bin:" + os.environ.get("PATH", ""))
    if not args.skip_build:
        print("building lodestone (release)…", flush=True)
        sh(["swift", "build", "-c", "release", "--product", "lodestone"], cwd=ROOT, env=env)
    binary = os.path.join(ROOT, ".build", "release", "lodestone")
    gains = [float(g) for g in args.madgwick_gains.split(",") if g]

    workdir = tempfile.mkdtemp(prefix="lodestone-orientation-")
    rows = []
    series = {}
    pooled_heading, pooled_accuracy = [], []
    lodestone_seconds = 0.0
    total_rows = 0
    try:
        for path in paths:
            trial = load_trial(path)
            total_rows += len(trial["t"])
            lode = run_lodestone(binary, trial, workdir)
            lodestone_seconds += lode["seconds"]
            q_vqf = run_vqf(trial)
            q_fusion = run_imufusion(trial)
            r = {"name": trial["name"], "lodestone": score(lode["q"], trial), "vqf": score(q_vqf, trial),
                 "imufusion": score(q_fusion, trial)}
            for g in gains:
                r[f"madgwick {g:g}"] = score(run_madgwick(trial, g), trial)
            # Honesty of the heading accuracy.
            _, h, _, sign = errors_deg(lode["q"], trial["gt"])
            v = trial["valid"]
            acc = lode["accuracy"]
            inside = (acc[v] >= 0) & (h[v] <= acc[v])
            r["coverage"] = float(inside.mean())
            r["median_accuracy"] = float(np.median(np.where(acc[v] >= 0, acc[v], np.inf)))
            r["ratio"] = r["median_accuracy"] / r["lodestone"][1]
            pooled_heading.append(h[v])
            pooled_accuracy.append(np.where(acc[v] >= 0, acc[v], np.inf))
            _, hv, _, sv = errors_deg(q_vqf, trial["gt"])
            series[trial["name"]] = (trial["t"], h * sign, acc, hv * sv, v)
            rows.append(r)
            print(f"{trial['name'][:34]:34s} lodestone {r['lodestone'][0]:5.2f}  vqf {r['vqf'][0]:5.2f}  "
                  f"imufusion {r['imufusion'][0]:5.2f}  coverage {100 * r['coverage']:5.1f} %", flush=True)

        heading_all = np.concatenate(pooled_heading)
        accuracy_all = np.concatenate(pooled_accuracy)
        pooled = {"coverage": float(np.mean(heading_all <= accuracy_all)),
                  "ratio": float(np.median(accuracy_all) / np.sqrt(np.mean(heading_all ** 2)))}

        speed = None
        if not args.skip_speed:
            print("speed: vqf_native and package-benchmark…", flush=True)
            native, version, compiler = build_vqf_native(workdir)
            bench_trial = os.path.join(args.broad, "21_undisturbed_fast_combined.csv.gz")
            before = float(sh([native, "bench", bench_trial]).stdout.split()[1])
            swift = swift_update_ns()
            after = float(sh([native, "bench", bench_trial]).stdout.split()[1])
            native_seconds = 0.0
            for path in paths:
                out = sh([native, "replay", path, os.path.join(workdir, "vqf.csv")]).stdout.split()
                native_seconds += float(out[3])
            speed = {"vqf_ns": (before, after), "swift": swift, "vqf_version": version, "compiler": compiler,
                     "lodestone_rows_per_s": total_rows / lodestone_seconds, "vqf_rows_per_s": total_rows / native_seconds}

        write_markdown(args.out, rows, pooled, speed, gains, total_rows)
        plot(args.out, rows, series)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def write_markdown(out_dir, rows, pooled, speed, gains, total_rows):
    peers = ["lodestone", "vqf", "imufusion"] + [f"madgwick {g:g}" for g in gains]
    means = {p: np.mean([r[p] for r in rows], axis=0) for p in peers}
    worst = {p: max(r[p][0] for r in rows) for p in peers}
    commit = sh(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT).stdout.strip()
    dirty = sh(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT).stdout.strip()
    from importlib.metadata import version  # the packages' versions, for the record
    lines = [
        "# Orientation accuracy on BROAD (development trials)",
        "",
        f"Generated by `benchmarks/accuracy/orientation/run.py` on {datetime.date.today().isoformat()}, Lodestone "
        f"{commit}{' (uncommitted changes)' if dirty else ''}, {len(rows)} trials, {total_rows:,} samples, "
        f"{platform.machine()} with {os.cpu_count()} cores. Data: BROAD (Laidig, Caruso, Cereatti, Seel 2021, "
        "CC BY 4.0), `../shared/datasets/broad`. Metric: BROAD's (README there): RMSE over `valid` samples of the "
        "total, heading and inclination error of `q_est ⊗ q_gt⁻¹`, degrees; 9D as is (no heading alignment); "
        "declination 0 (the lab's north is magnetic).",
        "",
        f"Peers (PyPI, same files, same run): VQF {version('vqf')} (defaults), x-io Fusion `imufusion` "
        f"{version('imufusion')} (gain 0.5, rejection 10°, timeout 5 s), Madgwick from `ahrs` {version('ahrs')} "
        f"(gains {', '.join(f'{g:g}' for g in gains)}: ahrs' default and the best of a sweep on these trials).",
        "",
        "| trial | Lodestone total | heading | incl. | VQF total | heading | incl. | Fusion total | "
        + " | ".join(f"Madgwick {g:g} total" for g in gains) + " | accuracy coverage | median acc. / RMS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(gains) + "---:|---:|",
    ]
    for r in rows:
        cells = [r["name"]] + [f"{x:.2f}" for x in r["lodestone"]] + [f"{x:.2f}" for x in r["vqf"]] + [f"{r['imufusion'][0]:.2f}"]
        cells += [f"{r[f'madgwick {g:g}'][0]:.2f}" for g in gains]
        cells += [f"{100 * r['coverage']:.1f} %", f"{r['ratio']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    cells = ["**mean**"] + [f"**{x:.2f}**" for x in means["lodestone"]] + [f"{x:.2f}" for x in means["vqf"]]
    cells += [f"{means['imufusion'][0]:.2f}"] + [f"{means[f'madgwick {g:g}'][0]:.2f}" for g in gains]
    cells += [f"**{100 * pooled['coverage']:.1f} %**", f"**{pooled['ratio']:.2f}**"]
    lines.append("| " + " | ".join(cells) + " |")
    cells = ["worst trial (total)", f"{worst['lodestone']:.2f}", "", "", f"{worst['vqf']:.2f}", "", "", f"{worst['imufusion']:.2f}"]
    cells += [f"{worst[f'madgwick {g:g}']:.2f}" for g in gains] + ["", ""]
    lines.append("| " + " | ".join(cells) + " |")
    m = means["lodestone"]
    ok = lambda b: "met" if b else "**not met**"  # noqa: E731
    lines += [
        "",
        "Coverage and the ratio in the mean row are pooled over all valid samples of all trials.",
        "",
        "## Targets",
        "",
        "| target | measured | |",
        "|---|---:|---|",
        f"| mean total RMSE ≤ 2.4° (VQF: {means['vqf'][0]:.2f}°) | {m[0]:.2f}° | {ok(m[0] <= 2.4)} |",
        f"| mean heading RMSE ≤ 2.3° | {m[1]:.2f}° | {ok(m[1] <= 2.3)} |",
        f"| mean inclination RMSE ≤ 0.7° | {m[2]:.2f}° | {ok(m[2] <= 0.7)} |",
        f"| no trial above 6° total | worst {worst['lodestone']:.2f}° | {ok(worst['lodestone'] <= 6)} |",
        f"| heading accuracy contains the error in ≥ 90 % of valid samples | {100 * pooled['coverage']:.1f} % | {ok(pooled['coverage'] >= 0.9)} |",
        f"| median heading accuracy ≤ 2.5 × RMS heading error | {pooled['ratio']:.2f} × | {ok(pooled['ratio'] <= 2.5)} |",
    ]
    if speed:
        s = speed["swift"]
        lo, hi = min(speed["vqf_ns"]), max(speed["vqf_ns"])
        update = s.get("OrientationFilter.update9D", float("nan"))
        lines += [
            f"| one 9D update ≤ VQF's native update, 0 allocations | {update:.0f} ns vs {lo:.0f}–{hi:.0f} ns; "
            f"{s.get('OrientationFilter.update9D.malloc_p90', float('nan')):.0f} mallocs | {ok(update <= lo and s.get('OrientationFilter.update9D.malloc_p90', 1) == 0)} |",
            "",
            "## Speed (same machine, same run)",
            "",
            "| | Lodestone | VQF C++ core |",
            "|---|---:|---:|",
            f"| one 9D update, trial 21 (53,612 samples; ns, p50) | {update:.0f} | {lo:.0f}–{hi:.0f} (before/after) |",
            f"| one sample through the orientation stage (filter, heading, WMM declination, heading filter; ns, p50) | {s.get('OrientationStage.process', float('nan')):.0f} | — |",
            f"| replay end to end: gunzip, parse, fuse, format, write (rows/s, all trials) | {speed['lodestone_rows_per_s']:,.0f} | {speed['vqf_rows_per_s']:,.0f} |",
            "",
            f"Lodestone: package-benchmark suite `Fusion` (release, `swift package benchmark --target Fusion`), "
            f"mallocs per 1000 updates at p90 = {s.get('OrientationFilter.update9D.malloc_p90', float('nan')):.0f}. "
            f"VQF {speed['vqf_version']}: its C++ core from the PyPI sdist built with {speed['compiler']} "
            "(`vqf_native.cpp`: `VQF::update(gyr, acc, mag)` over the same samples; replay writes 13 columns, "
            f"Lodestone's writes {1 + 19}). Times depend on the machine's load: compare within one run.",
        ]
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def plot(out_dir, rows, series):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # The three hardest trials for Lodestone, and the hardest for VQF when it is not among them.
    hardest = sorted(rows, key=lambda r: -r["lodestone"][0])[:3]
    vqf_hardest = max(rows, key=lambda r: r["vqf"][0])
    if vqf_hardest not in hardest:
        hardest.append(vqf_hardest)
    fig, axes = plt.subplots(len(hardest), 1, figsize=(11, 2.6 * len(hardest)), sharex=False)
    for ax, r in zip(np.atleast_1d(axes), hardest):
        t, h, acc, hv, v = series[r["name"]]
        band = np.where(acc >= 0, acc, np.nan)
        ax.fill_between(t, -band, band, color="C0", alpha=0.15, lw=0, label="Lodestone ± heading accuracy")
        ax.plot(t, hv, color="C3", lw=0.6, label=f"VQF (RMSE {r['vqf'][1]:.2f}°)")
        ax.plot(t, h, color="C0", lw=0.8, label=f"Lodestone (RMSE {r['lodestone'][1]:.2f}°)")
        ymax = np.nanmax(np.abs(np.concatenate([h[v], hv[v]]))) * 1.1
        ax.fill_between(t, -ymax, ymax, where=~v, color="0.85", lw=0, label="not scored (rest / no truth)")
        ax.set_ylim(-ymax, ymax)
        ax.set_xlim(t[0], t[-1])
        ax.set_ylabel("heading error (°)")
        ax.set_title(r["name"], fontsize=9)
        ax.legend(fontsize=7, loc="upper left", ncol=4)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "heading_error.png"), dpi=90)


if __name__ == "__main__":
    main()
