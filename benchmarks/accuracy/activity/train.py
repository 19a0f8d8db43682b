#!/usr/bin/env python3
"""Trains Lodestone's activity model (issue 5) and its cross-validation folds.

The features are computed by the engine's own Swift code (`motion-harness features`, i.e. ActivityFeatures), so
training and inference see the same numbers. Training material: the development split of
../../../../shared/datasets/activity (every session; `other` rows left out) with a gyroscope-less copy of every
window (weight 0.5: boards without a gyroscope) and simulated traces (`motion-harness simulate`, weight 0.3). Within
each class, subjects are weighted by the square root of their share so that one long-recorded person does not
decide a class; classes are weighted equally. The development split of ../../../../shared/datasets/steps (walking
and standing, lower back and seven phone placements; weight 0.5) adds people and placements: its subjects are
not in the activity set, so cross-validation stays subject-disjoint.

Sparse logs: event-driven phone loggers (TMD) report a value every 0.3 s on median, even while walking, while
HuGaDB, AustinTD4/ML4QS, the steps set and the simulation sample densely. So that the model knows both, every
dense session is also used degraded the way such a logger degrades it (`motion-harness features --event-rate-hz
random`: each row kept with probability R·dt, R drawn in 1.5…6 Hz per session, else the last kept value
repeated), at a fraction of its weight (AUGMENT_CLASSES). The engine interpolates held values (ActivityFeatures), and
`accFreshFraction` tells the model how much of each window was measured.

    python3 train.py                      # features, final model -> Sources/LodestoneMotion/ActivityModelData.swift
    python3 train.py --folds DIR          # also one model per held-out subject: DIR/<subject>.model (LOSO)
    python3 train.py --folds DIR --by source   # one model per held-out source: DIR/<source>.model
    python3 train.py --fixture FILE       # also a Swift/Python agreement fixture (features of TMD windows + probabilities)

Requires numpy, pandas and scikit-learn (requirements.txt) and a built harness (`swift build -c release` in
benchmarks/accuracy). Deterministic for a given scikit-learn version (no subsampling randomness is used).
"""
import argparse, glob, os, subprocess, sys
import numpy as np, pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
DATA = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'datasets', 'activity'))
STEPS = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'datasets', 'steps'))
HARNESS = os.path.join(ROOT, 'benchmarks', 'accuracy', '.build', 'release', 'motion-harness')
CLASSES = ['stationary', 'walk', 'run', 'cycle', 'drive']
PARAMS = dict(max_iter=100, learning_rate=0.15, max_leaf_nodes=8, l2_regularization=1.0, min_samples_leaf=200,
              random_state=0)
GYRO_MASK_WEIGHT = 0.5
SIM_WEIGHT = 0.3
STEPS_WEIGHT = 0.5
# Weight of the event-degraded copy of each dense session's windows, relative to the session's own, by class
# (leave-one-subject-out on the development set, windows, every class at 0.5: macro-F1 0.762, at 1.0: 0.746; none:
# 0.773 but 0.51 stationary recall on TMD's still phones). Not cycling: no logger in the data records a ride sparsely, and degraded
# rides taught the trees that a sparse, swaying log is a bicycle, which is what TMD's sparse car rides look like
# (leave-one-subject-out, through replay: TMD drive recall 0.90 → with cycling 547 s of drive called cycle and
# 15.7 spurious changes per hour of driving; windows: macro-F1 0.762 with, 0.818 without). Walking weighs less: its
# sparse copies look like a passenger swaying in a bus (leave-one-subject-out through replay, walking at 0.5 / 0.15 /
# 0.05 / none: 8.6 / 5.7 / 2.0 / 1.4 spurious changes per hour of TMD vehicles, macro-F1 0.837 / 0.824 / 0.852 / 0.843),
# but without any, a model that never saw a sparse walking log calls it stationary (TMD left out: walk recall 0.00
# with none, 0.78 with 0.05).
AUGMENT_CLASSES = {'stationary': 0.5, 'drive': 0.5, 'walk': 0.05}
DENSE_SOURCES = ('hugadb', 'ml4qs')
# ActivityFeatures.Parameters.amplitudeFloorMps2: log(std + floor) equals log(floor) only when the accelerometer did
# not change at all for the whole window.
AMPLITUDE_FLOOR_MPS2 = 0.05


def harness(*args):
    if not os.path.exists(HARNESS):
        sys.exit(f'train.py: {HARNESS} is missing: run `swift build -c release` in benchmarks/accuracy first')
    subprocess.run([HARNESS, *args], check=True)


def augment_weights(frame):
    """The weight of each degraded window, relative to its session's own."""
    return frame.label.map(AUGMENT_CLASSES).values


def features(work, held_values='interpolate'):
    """The development windows, the extra windows (simulation, steps set, and their degraded copies) and the
    degraded copies of the dense development sessions (kept apart: a fold leaves its subjects' copies out).
    `held_values`: 'hold' computes them with a logger's held values kept as steps (the harness's `--held-values
    hold`, the engine's ActivityFeatures.Parameters.interpolatesHeldValues = false), cached under other names."""
    held = ['--held-values', 'hold'] if held_values == 'hold' else []
    suffix = '-hold' if held else ''
    os.makedirs(work, exist_ok=True)
    simdir = os.path.join(work, 'sim')
    dense = [p for p in sorted(glob.glob(os.path.join(DATA, '*.csv.gz')))
             if os.path.basename(p).startswith(DENSE_SOURCES)]
    inputs = {
        'dev': ([], sorted(glob.glob(os.path.join(DATA, '*.csv.gz')))),
        'steps': ([], sorted(glob.glob(os.path.join(STEPS, '*.csv.gz')))),
        'sim': ([], None),
        'dev-degraded': (['--event-rate-hz', 'random', '--seed', '2'], dense),
        'steps-degraded': (['--event-rate-hz', 'random', '--seed', '3'], sorted(glob.glob(os.path.join(STEPS, '*.csv.gz')))),
        'sim-degraded': (['--event-rate-hz', 'random', '--seed', '4'], None),
    }
    frames = {}
    for name, (options, paths) in inputs.items():
        path = os.path.join(work, name + suffix + '-features.csv')
        if not os.path.exists(path):
            if paths is None:
                if not os.path.isdir(simdir):
                    harness('simulate', '--seed', '1', '--count', '12', '--output', simdir)
                paths = sorted(glob.glob(os.path.join(simdir, '*.csv')))
            harness('features', *options, *held, '--output', path, *paths)
        f = pd.read_csv(path)
        frames[name] = f[f.label.isin(list(AUGMENT_CLASSES) if name.endswith('degraded') else CLASSES)].reset_index(drop=True)
    extra = pd.concat([frames['sim'].assign(weight=SIM_WEIGHT),
                       frames['steps'].assign(weight=STEPS_WEIGHT),
                       frames['sim-degraded'].assign(weight=SIM_WEIGHT * augment_weights(frames['sim-degraded'])),
                       frames['steps-degraded'].assign(weight=STEPS_WEIGHT * augment_weights(frames['steps-degraded']))]).reset_index(drop=True)
    return frames['dev'], extra, frames['dev-degraded']


def weights(y, subjects):
    """Each class weighs the same; within a class, a subject with n windows weighs √n."""
    w = np.zeros(len(y))
    for c in range(len(CLASSES)):
        mc = y == c
        if not mc.any():
            continue
        subs, counts = np.unique(subjects[mc], return_counts=True)
        for sb, n in zip(subs, counts):
            w[mc & (subjects == sb)] = np.sqrt(n) / n
        w[mc] /= w[mc].sum()
    return w * len(y) / len(CLASSES)


def still_but_moving(frame):
    """Windows in which the accelerometer did not change at all for 5 s although the label says the carrier moved.

    A still phone in a TMD walking session (the logger reports only changes, so a phone put down sends nothing),
    not someone walking: 48 of the 61 dead-still development windows are labelled walk, which taught the trees
    that a perfectly quiet accelerometer, e.g. a low-noise one on a board at rest, is a little like walking.
    They are left out of training."""
    return (frame.accMagnitudeLogStd.values <= np.log(AMPLITUDE_FLOOR_MPS2) + 1e-9) & (frame.label.values != 'stationary')


def passenger_thigh(frame):
    """HuGaDB's car-passenger windows (participant 1, a thigh sensor, `sitting_in_car`): to these features a
    seated thigh in a car and on a chair are the same (leaving participant 1 out, its drive recall is 0.00 with or
    without them), and learning them made seated thighs `drive` (129 of the 5 078 HuGaDB stationary windows; a
    seated participant 7 reported as driving for 17 s). Left out of training; still scored."""
    return frame.subject.str.startswith('hugadb').values & (frame.label.values == 'drive')


def fit(dev, extra, names, degraded=None):
    """A model from the development windows `dev`, the weighted `extra` windows and the degraded copies of the
    development sessions (`degraded`, the same subjects as `dev` only)."""
    if degraded is not None and len(degraded):
        degraded = degraded[~passenger_thigh(degraded)]
        extra = pd.concat([extra, degraded.assign(weight=augment_weights(degraded))]).reset_index(drop=True)
    dev = dev[~still_but_moving(dev) & ~passenger_thigh(dev)]
    extra = extra[~still_but_moving(extra)]
    gy = names.index('gyroPresent')
    X = dev[names].values.astype(float)
    y = dev.label.map(CLASSES.index).values
    w = weights(y, dev.subject.values)
    masked = X.copy()
    masked[:, gy] = 0
    masked[:, gy + 1:] = np.nan
    Xs = extra[names].values.astype(float)
    ys = extra.label.map(CLASSES.index).values
    ws = np.zeros(len(ys))
    for src in extra.weight.unique():
        m = (extra.weight == src).values
        ws[m] = weights(ys[m], extra.subject.values[m]) * src
    XX = np.vstack([X, masked, Xs])
    YY = np.concatenate([y, y, ys])
    WW = np.concatenate([w, w * GYRO_MASK_WEIGHT, ws])
    model = HistGradientBoostingClassifier(**PARAMS)
    model.fit(XX, YY, sample_weight=WW)
    return model


def export(model, names):
    """The model in ActivityModel's text format."""
    out = ['lodestone-activity-model 1', 'features %d %s' % (len(names), ' '.join(names)),
           'classes %d %s' % (len(CLASSES), ' '.join(CLASSES)),
           'baseline ' + ' '.join(repr(float(v)) for v in np.ravel(model._baseline_prediction))]
    trees = [(c, p) for it in model._predictors for c, p in enumerate(it)]
    out.append('trees %d' % len(trees))
    for c, p in trees:
        nodes = p.nodes
        out.append('tree %d %d' % (c, len(nodes)))
        for nd in nodes:
            if nd['is_leaf']:
                out.append('-1 0 0 0 0 %r' % float(nd['value']))
            else:
                out.append('%d %r %d %d %d 0' % (nd['feature_idx'], float(nd['num_threshold']), nd['left'], nd['right'],
                                                 int(nd['missing_go_to_left'])))
    return '\n'.join(out) + '\n'


SWIFT_HEADER = '''// GENERATED by benchmarks/accuracy/activity/train.py — do not edit; retrain instead.
//
// The shipped activity model (ActivityModel.standard): gradient-boosted trees over ActivityFeatures, trained on
// the development split of shared/datasets/activity (TMD, HuGaDB, AustinTD4/ML4QS: see that folder's README for
// sources and licences) and on simulated traces. The numbers are the model's parameters, not data: no sample of
// any dataset is in this file. Generated Swift source rather than a bundle resource so that the `lodestone`
// binary is self-contained (see ActivityModel).
// %s

extension ActivityModel {
    /// The model trained by `benchmarks/accuracy/activity/train.py` on the development set.
    public static let standard: ActivityModel = {
        do {
            return try ActivityModel(text: ActivityModelData.text)
        } catch {
            preconditionFailure(
                "the compiled-in activity model does not parse (\\(error)); rerun benchmarks/accuracy/activity/train.py")
        }
    }()
}

enum ActivityModelData {
    static let text = """
'''


def write_swift(text, path, summary):
    with open(path + '.tmp', 'w') as f:
        f.write(SWIFT_HEADER % summary)
        # Indented as scripts/format (swift-format) wants a multi-line literal; the indentation is not in the string.
        f.write(''.join('        ' + line + '\n' for line in text.splitlines()))
        f.write('        """\n}\n')
    os.replace(path + '.tmp', path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--work', default='/tmp/lodestone-activity', help='scratch folder for features (default %(default)s)')
    ap.add_argument('--folds', help='write one model per held-out subject into this folder')
    ap.add_argument('--fixture', help='write a Swift/Python agreement fixture to this file')
    ap.add_argument('--no-final', action='store_true', help='do not rewrite ActivityModelData.swift')
    ap.add_argument('--by', choices=['subject', 'source'], default='subject',
                    help='with --folds: leave one subject (default) or one whole source (tmd, hugadb, ml4qs) out')
    ap.add_argument('--only', nargs='+', metavar='SUBJECT', help='with --folds: only the folds of these held-out subjects')
    ap.add_argument('--held-values', choices=['interpolate', 'hold'], default='interpolate',
                    help='how the features treat a logger\'s held values (must match the engine; default %(default)s)')
    a = ap.parse_args()
    dev, sim, degraded = features(a.work, a.held_values)
    names = [c for c in dev.columns[4:]]
    if not a.no_final:
        model = fit(dev, sim, names, degraded)
        text = export(model, names)
        summary = ('%d windows from %d subjects, %d extra windows (steps set, simulation, event-degraded copies); '
                   '%d trees.') % (len(dev), dev.subject.nunique(), len(sim) + len(degraded),
                                   len(model._predictors) * len(CLASSES))
        write_swift(text, os.path.join(ROOT, 'Sources', 'LodestoneMotion', 'ActivityModelData.swift'), summary)
        print('train.py: wrote ActivityModelData.swift (%s)' % summary)
        if a.fixture:
            rows = dev[dev.subject.str.startswith('tmd')].iloc[::997][:40]
            X = rows[names].values.astype(float)
            X[::3, names.index('gyroPresent')] = 0
            X[::3, names.index('gyroPresent') + 1:] = np.nan
            P = model.predict_proba(X)
            with open(a.fixture, 'w') as f:
                f.write('# ActivityModel agreement fixture (train.py): features of TMD windows (MIT-licensed source,\n')
                f.write('# every third with the gyroscope masked), then scikit-learn\'s predict_proba for the shipped model.\n')
                for x, p in zip(X, P):
                    f.write(' '.join('nan' if np.isnan(v) else repr(float(v)) for v in x) + ' | ' + ' '.join(repr(float(v)) for v in p) + '\n')
            print('train.py: wrote fixture', a.fixture)
    if a.folds:
        os.makedirs(a.folds, exist_ok=True)
        group = (lambda s: s.split('-')[0]) if a.by == 'source' else (lambda s: s)
        dev_groups, degraded_groups = dev.subject.map(group), degraded.subject.map(group)
        for held in sorted(dev_groups.unique()):
            if a.only and held not in a.only:
                continue
            m = fit(dev[dev_groups != held], sim, names, degraded[degraded_groups != held])
            with open(os.path.join(a.folds, held + '.model'), 'w') as f:
                f.write(export(m, names))
            print('train.py: fold without', held, flush=True)


if __name__ == '__main__':
    main()
