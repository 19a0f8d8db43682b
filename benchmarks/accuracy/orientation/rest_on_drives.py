#!/usr/bin/env python3
"""Rest detection on simulated drives: found at the stops, never while the car moves.

    python3 rest_on_drives.py --binary .build/release/lodestone --seeds 101-110

For each scenario (`drive`, `urban-drive`) and seed, records the whole scenario on the simulated board
(`lodestone run --speed 0 --record`), replays it (`lodestone replay`) and compares `at_rest` with the truth:
the seconds reported at rest while the car moves faster than 1 m/s (false rest), the share of the truly
stationary time (speed < 0.05 m/s) reported at rest, and whether rest was found at all. Prints one line per
trial and the totals.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import ROOT  # noqa: E402


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    a = np.genfromtxt(path, delimiter=",", skip_header=1, filling_values=np.nan)
    return {name: a[:, i] for i, name in enumerate(header)}


# Each scenario's length, s (`Scenario.swift`): `run` goes on past the end of a scenario (still), so it is stopped there.
DURATIONS_S = {"drive": 350, "urban-drive": 310}


def trial(binary, scenario, seed, workdir):
    trace = os.path.join(workdir, f"{scenario}-{seed}.csv")
    out = os.path.join(workdir, f"{scenario}-{seed}.replay.csv")
    subprocess.run([binary, "run", "--board", os.path.join(ROOT, "boards", "simulated.json"), "--scenario", scenario,
                    "--seed", str(seed), "--speed", "0", "--duration", str(DURATIONS_S[scenario]), "--record", trace], check=True, capture_output=True, text=True)
    subprocess.run([binary, "replay", "--input", trace, "--output", out], check=True, capture_output=True, text=True)
    rec, rep = read_csv(trace), read_csv(out)
    speed = np.sqrt(rec["gt_vel_e_mps"] ** 2 + rec["gt_vel_n_mps"] ** 2 + rec["gt_vel_u_mps"] ** 2)
    t_rec, t_rep = rec["t_s"], rep["t_s"]
    at_rest = rep["at_rest"]
    ok = np.isfinite(speed)
    idx = np.clip(np.searchsorted(t_rep, t_rec[ok]), 0, len(t_rep) - 1)
    rest = at_rest[idx] == 1
    v = speed[ok]
    t = t_rec[ok]
    dt = np.diff(t, append=t[-1])
    moving = v > 1.0
    still = v < 0.05
    os.remove(trace)
    os.remove(out)
    return {"false_rest_s": float(np.sum(dt[moving & rest])), "still_s": float(np.sum(dt[still])),
            "rest_when_still_s": float(np.sum(dt[still & rest])), "found": bool(rest.any())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "lodestone"))
    parser.add_argument("--seeds", default="101-110", help="first-last")
    parser.add_argument("--scenarios", default="drive,urban-drive")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split("-"))
    workdir = tempfile.mkdtemp(prefix="lodestone-rest-")
    rows = []
    for scenario in args.scenarios.split(","):
        for seed in range(first, last + 1):
            r = trial(args.binary, scenario, seed, workdir)
            rows.append(r)
            print(f"{scenario:12s} seed {seed}: rest found {'yes' if r['found'] else 'NO '}, "
                  f"at rest {r['rest_when_still_s']:6.1f} of {r['still_s']:6.1f} s still, "
                  f"false rest while moving > 1 m/s {r['false_rest_s']:6.1f} s", flush=True)
    never = sum(not r["found"] for r in rows)
    false_s = sum(r["false_rest_s"] for r in rows)
    still = sum(r["still_s"] for r in rows)
    found = sum(r["rest_when_still_s"] for r in rows)
    print(f"{len(rows)} trials: rest never found in {never}; at rest {100 * found / still:.1f} % of the "
          f"stationary time; false rest while moving {false_s:.1f} s in total")


if __name__ == "__main__":
    main()
