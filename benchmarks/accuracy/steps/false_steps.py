#!/usr/bin/env python3
"""False steps at rest and in vehicles: `lodestone replay` over every development session of
shared/datasets/activity that has rows labelled `stationary` or `drive`; a step counted on such a row is a false
step (the carrier is not walking), except within 2 s after a row labelled `walk` or `run`: a walk's last steps
are reported when it ends (up to `maximumIntervalS`, 1.3 s, later; StepDetector) and labels change at the walk's
end. Prints the steps per class (also those in the 2 s grace), the hours replayed and the sessions with any.

    python3 false_steps.py [--lodestone PATH]    # PATH: another build to compare (default: this repository's)

The numbers go into results/steps.md by hand (the table "False steps"); the step set's own standing phases are
in score.py's table.
"""
import argparse, glob, os, sys
import numpy as np
import pandas as pd
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import DATASETS, lodestone, replay

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--lodestone', default=None)
args = ap.parse_args()
binary = args.lodestone or lodestone()   # checked once, before the first replay
steps, hours, noisy = {'stationary': 0, 'drive': 0}, {'stationary': 0.0, 'drive': 0.0}, []
grace = {'stationary': 0, 'drive': 0}
for path in sorted(glob.glob(os.path.join(DATASETS, 'activity', '*.csv.gz'))):
    labels = pd.read_csv(path, usecols=['t_s', 'label'])
    if not labels.label.isin(['stationary', 'drive']).any():
        continue
    o = replay(path, binary=binary)
    # Output rows follow the input's accelerometer rows one to one.
    if len(o) != len(labels):
        sys.exit(f'{path}: {len(o)} output rows for {len(labels)} input rows; is the replay output format changed?')
    added = o.steps.diff().fillna(o.steps.iloc[0]).values
    dt = labels.t_s.diff().fillna(0).clip(upper=1).values
    t = labels.t_s.values
    on_foot = labels.label.isin(['walk', 'run']).values
    last_on_foot = pd.Series(np.where(on_foot, t, np.nan)).ffill().fillna(-np.inf).values
    after_walk = t - last_on_foot <= 2
    for k in steps:
        grace[k] += int(added[(labels.label == k).values & after_walk].sum())
        m = (labels.label == k).values & ~after_walk
        steps[k] += int(added[m].sum())
        hours[k] += dt[m].sum() / 3600
        if added[m].sum() > 0:
            noisy.append((os.path.basename(path), k, int(added[m].sum())))
for k in steps:
    print(f'{k}: {steps[k]} steps in {hours[k]:.2f} h (and {grace[k]} within 2 s after walking)')
for name, k, n in noisy:
    print(f'  {name} ({k}): {n}')
