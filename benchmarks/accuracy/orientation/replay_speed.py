#!/usr/bin/env python3
"""Replay throughput only: `lodestone replay` against VQF's native C++ replay (vqf_native.cpp) on every BROAD trial,
interleaved in one run, wall clock per process (the second of two runs of each), without the accuracy part of run.py.

    python3 benchmarks/accuracy/orientation/replay_speed.py   # needs .build/release/lodestone, pip vqf, c++, zlib
"""
import glob, gzip, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as R  # noqa: E402  (build_vqf_native, ROOT)


def main():
    broad = os.path.join(R.ROOT, "..", "shared", "datasets", "broad")
    lodestone = os.path.join(R.ROOT, ".build", "release", "lodestone")
    with tempfile.TemporaryDirectory() as work:
        native, version, compiler = R.build_vqf_native(work)
        rows, lodestone_s, native_s = 0, 0.0, 0.0
        for path in sorted(glob.glob(os.path.join(broad, "*.csv.gz"))):
            with gzip.open(path, "rt") as f:
                rows += sum(1 for _ in f) - 1
            for attempt in range(2):
                start = time.perf_counter()
                subprocess.run([lodestone, "replay", "--input", path, "--declination-deg", "0",
                                "--output", os.path.join(work, "l.csv")], check=True, stderr=subprocess.DEVNULL)
                mid = time.perf_counter()
                subprocess.run([native, "replay", path, os.path.join(work, "v.csv")], check=True, capture_output=True)
                end = time.perf_counter()
                if attempt == 1:
                    lodestone_s += mid - start
                    native_s += end - mid
        print(f"{rows} rows; VQF {version} ({compiler})")
        print(f"lodestone replay  {rows / lodestone_s:,.0f} rows/s")
        print(f"vqf_native replay {rows / native_s:,.0f} rows/s")


if __name__ == "__main__":
    main()
