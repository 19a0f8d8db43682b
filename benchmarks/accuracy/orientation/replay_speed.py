#!/usr/bin/env python3
"""Replay throughput only: `lodestone replay` against VQF's native C++ replay (vqf_native.cpp) on every BROAD trial,
interleaved in one run, without the accuracy part of run.py.

Each round replays every trial once with each program (a warm-up round first, not counted); a program's rows/s in
a round is all the trials' rows over the sum of its processes' times, start-up included. Printed: the median over
the rounds of wall-clock rows/s and of CPU rows/s (user + sys of the process, less sensitive to the other load of a
shared machine), the median of the per-round ratios, and the load average before and after.

    python3 benchmarks/accuracy/orientation/replay_speed.py [--rounds 5]   # needs .build/release/lodestone,
                                                                           # pip vqf, c++, zlib

With `--baseline OTHER_LODESTONE` a second build (say, main's before a change) runs in the same rounds too, so
that before and after are measured under the same load.

With `--concatenated` the 20 trials are first written as one gzip trace, back to back (each trial's times shifted to
start 1 s after the previous one ends), and each program replays that one file once a round: the rate of a long
replay, without 20 start-ups and 20 output commits (for lodestone about 13 ms and 15 ms each: the process and its
activity model, then the output's fsync and rename).
"""
import argparse, glob, gzip, os, resource, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as R  # noqa: E402  (build_vqf_native, ROOT)


def timed(command, **kwargs):
    """Wall-clock and CPU (user + sys) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def concatenate(paths, target):
    """Writes the trials as one gzip trace at `target`, each one's times shifted to start 1 s after the previous ends."""
    offset, header = 0.0, None
    with gzip.open(target, "wt") as out:
        for path in paths:
            with gzip.open(path, "rt") as f:
                first = f.readline()
                if header is None:
                    header = first
                    out.write(header)
                elif first != header:
                    sys.exit(f"{path}: its header differs from the first trial's")
                last = 0.0
                for line in f:
                    comma = line.index(",")
                    last = float(line[:comma])
                    out.write(f"{last + offset:.4f}{line[comma:]}")
            offset += last + 1.0
    return target


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lodestone", default=os.path.join(R.ROOT, ".build", "release", "lodestone"))
    parser.add_argument("--baseline", help="another lodestone binary to replay in the same rounds (before/after)")
    parser.add_argument("--concatenated", action="store_true", help="replay the trials as one long trace")
    args = parser.parse_args()
    broad = os.path.join(R.ROOT, "..", "shared", "datasets", "broad")
    paths = sorted(glob.glob(os.path.join(broad, "*.csv.gz")))
    with tempfile.TemporaryDirectory() as work:
        if args.concatenated:
            paths = [concatenate(paths, os.path.join(work, "all-trials.csv.gz"))]
        native, version, compiler = R.build_vqf_native(work)
        rows = 0
        for path in paths:
            with gzip.open(path, "rt") as f:
                rows += sum(1 for _ in f) - 1
        load_before = os.getloadavg()
        results = []  # per round: lodestone wall, cpu; native wall, cpu; baseline wall, cpu

        def lodestone(binary, path):
            return timed([binary, "replay", "--input", path, "--declination-deg", "0",
                          "--output", os.path.join(work, "l.csv")], stderr=subprocess.DEVNULL)

        for round_index in range(args.rounds + 1):
            totals = [0.0] * 6
            for path in paths:
                times = lodestone(args.lodestone, path) + timed([native, "replay", path, os.path.join(work, "v.csv")],
                                                               capture_output=True)
                if args.baseline:
                    times += lodestone(args.baseline, path)
                for i, v in enumerate(times):
                    totals[i] += v
            if round_index > 0:
                results.append(totals)
        load_after = os.getloadavg()

        def median(i):
            return statistics.median(rows / r[i] for r in results)

        what = "one trace of every trial" if args.concatenated else f"{len(paths)} trials"
        print(f"{rows} rows in {what}, {args.rounds} rounds (medians); VQF {version} ({compiler})")
        print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores)")
        print(f"lodestone replay  {median(0):,.0f} rows/s wall clock  {median(1):,.0f} rows/s CPU")
        print(f"vqf_native replay {median(2):,.0f} rows/s wall clock  {median(3):,.0f} rows/s CPU")
        print(f"ratio lodestone / vqf_native: {statistics.median(r[2] / r[0] for r in results):.2f} wall clock, "
              f"{statistics.median(r[3] / r[1] for r in results):.2f} CPU")
        if args.baseline:
            print(f"baseline replay   {median(4):,.0f} rows/s wall clock  {median(5):,.0f} rows/s CPU")
            print(f"ratio baseline / vqf_native: {statistics.median(r[2] / r[4] for r in results):.2f} wall clock, "
                  f"{statistics.median(r[3] / r[5] for r in results):.2f} CPU")


if __name__ == "__main__":
    main()
