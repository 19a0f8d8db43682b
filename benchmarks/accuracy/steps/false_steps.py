#!/usr/bin/env python3
"""False steps at rest and in vehicles: `lodestone replay` over every development session of
shared/datasets/activity that has rows labelled `stationary` or `drive`; a step counted on such a row is a false
step (the carrier is not walking). Prints the steps per class, the hours replayed and the sessions with any.

    python3 false_steps.py [--lodestone PATH]    # PATH: another build to compare (default: this repository's)

The numbers go into results/steps.md by hand (the table "False steps"); the step set's own standing phases are
in score.py's table.
"""
import argparse, glob, os, subprocess, sys, tempfile
import pandas as pd
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import DATASETS, lodestone

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--lodestone', default=None)
args = ap.parse_args()
binary = args.lodestone or lodestone()
steps, hours, noisy = {'stationary': 0, 'drive': 0}, {'stationary': 0.0, 'drive': 0.0}, []
for path in sorted(glob.glob(os.path.join(DATASETS, 'activity', '*.csv.gz'))):
    labels = pd.read_csv(path, usecols=['t_s', 'label'])
    if not labels.label.isin(['stationary', 'drive']).any():
        continue
    with tempfile.NamedTemporaryFile(suffix='.csv', delete=False) as f:
        out = f.name
    try:
        r = subprocess.run([binary, 'replay', '--input', path, '--output', out], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f'lodestone replay {path}: {r.stderr.strip()}')
        o = pd.read_csv(out, usecols=['t_s', 'steps'])
    finally:
        os.unlink(out)
    # Output rows follow the input's accelerometer rows one to one.
    added = o.steps.diff().fillna(o.steps.iloc[0]).values
    dt = labels.t_s.diff().fillna(0).clip(upper=1).values
    n = len(added) if len(added) == len(labels) else None
    if n is None:
        sys.exit(f'{path}: {len(o)} output rows for {len(labels)} input rows')
    for k in steps:
        m = (labels.label == k).values
        steps[k] += int(added[m].sum())
        hours[k] += dt[m].sum() / 3600
        if added[m].sum() > 0:
            noisy.append((os.path.basename(path), k, int(added[m].sum())))
for k in steps:
    print(f'{k}: {steps[k]} steps in {hours[k]:.2f} h')
for name, k, n in noisy:
    print(f'  {name} ({k}): {n}')
