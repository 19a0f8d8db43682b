#!/usr/bin/env python3
"""Scores the Swift activity classifier, causally, through `lodestone replay`, cross-validated by subject.

    python3 score.py --folds DIR      # DIR/<subject>.model from `train.py --folds DIR` (leave-one-subject-out)
    python3 score.py --folds DIR --by source --output activity-sources.md
                                      # DIR/<source>.model from `train.py --folds DIR --by source`

Each session of the development split of shared/datasets/activity is replayed with the model trained without
its subject (`lodestone replay --activity-model DIR/<subject>.model`); no subject is both in training and
scored. The prediction at each whole second is the engine's `activity` column on the last output row at or
before it (what a program asking at that instant would have been told). Sampled on that 1 s grid, as the
datasets' scorer does; rows labelled `other` are not scored; `unknown` counts as wrong. Writes
results/activity.md: per-class precision, recall, F1, macro-F1, accuracy and the confusion matrix, for all
subjects and for phones only (no HuGaDB thigh sensor), per subject, and the number of changes per hour of steady
driving (the TMD car and bus sessions), all of them and the spurious ones (to an activity that is not the label).
"""
import argparse, glob, os, re, sys
import numpy as np, pandas as pd
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import DATASETS, replay, write_result

CLASSES = ['stationary', 'walk', 'run', 'cycle', 'drive']
PREDICTED = CLASSES + ['unknown']


def subject_of(name):
    p = name.split('_')
    return f'{p[0]}-{p[1]}'


def source_of(subject):
    return subject.split('-')[0]


def score_session(path, model):
    truth = pd.read_csv(path, usecols=['t_s', 'label'], dtype={'label': str})
    out = replay(path, '--activity-model', model) if model else replay(path)
    t_end = truth.t_s.values[-1]
    grid = np.arange(1.0, np.floor(t_end) + 1)
    ti = np.searchsorted(truth.t_s.values, grid, side='right') - 1
    oi = np.searchsorted(out.t_s.values, grid, side='right') - 1
    ok = (ti >= 0) & (oi >= 0)
    labels = truth.label.values[ti[ok]]
    preds = out.activity.values[oi[ok]]
    a = out.activity.values
    changed = np.nonzero((a[1:] != a[:-1]) & (a[:-1] != 'unknown'))[0] + 1   # the first decision is not a change
    # A change to the true activity at that moment (a correction) is not spurious; one away from it is.
    truth_then = truth.label.values[np.clip(np.searchsorted(truth.t_s.values, out.t_s.values[changed], side='right') - 1, 0, None)]
    spurious = int((a[changed] != truth_then).sum())
    return labels, preds, len(changed), spurious, t_end


def metrics(y, p):
    cm = np.array([[np.sum((y == a) & (p == b)) for b in PREDICTED] for a in CLASSES])
    rows, f1s = [], []
    for i, c in enumerate(CLASSES):
        tp = cm[i, i]
        prec = tp / max(1, cm[:, i].sum())
        rec = tp / max(1, cm[i].sum())
        f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
        rows.append((c, prec, rec, f1, cm[i].sum()))
        if cm[i].sum():
            f1s.append(f1)
    return cm, rows, float(np.mean(f1s)), float(np.trace(cm[:, :5]) / max(1, cm.sum()))


def table(title, y, p):
    cm, rows, macro, acc = metrics(y, p)
    out = [f'### {title}', '', f'macro-F1 **{macro:.3f}**, accuracy **{acc:.3f}** ({len(y)} scored seconds)', '',
           '| class | precision | recall | F1 | seconds |', '|---|---|---|---|---|']
    out += [f'| {c} | {pr:.3f} | {rc:.3f} | {f1:.3f} | {n} |' for c, pr, rc, f1, n in rows]
    out += ['', 'Confusion matrix (rows: truth, columns: predicted; seconds):', '',
            '| truth \\ predicted | ' + ' | '.join(PREDICTED) + ' |', '|---' * (len(PREDICTED) + 1) + '|']
    out += [f'| {c} | ' + ' | '.join(str(v) for v in cm[i]) + ' |' for i, c in enumerate(CLASSES)]
    return out, macro, acc, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--folds', required=True, help='folder of <subject>.model files (train.py --folds)')
    ap.add_argument('--output', default='activity.md', help="results/<name>; '-' writes nothing (a quick check)")
    ap.add_argument('--note', help='a sentence added under the title (e.g. which fold models were retrained)')
    ap.add_argument('--match', help='score only the sessions whose name matches this regular expression (iterating)')
    ap.add_argument('--by', choices=['subject', 'source'], default='subject',
                    help='fold models per held-out subject (default) or per held-out source')
    a = ap.parse_args()
    ys, ps, subs, drive_changes, drive_spurious, drive_hours = [], [], [], 0, 0, 0.0
    for path in sorted(glob.glob(os.path.join(DATASETS, 'activity', '*.csv.gz'))):
        name = os.path.basename(path)[:-7]
        if a.match and not re.search(a.match, name):
            continue
        subject = subject_of(name)
        model = os.path.join(a.folds, (subject if a.by == 'subject' else source_of(subject)) + '.model')
        if not os.path.exists(model):
            sys.exit(f'score.py: no fold model {model}: run train.py --folds {a.folds}')
        y, p, changes, spurious, dur = score_session(path, model)
        keep = np.isin(y, CLASSES)
        ys.append(y[keep]); ps.append(p[keep]); subs += [subject] * int(keep.sum())
        if name.startswith('tmd_') and ('_Car_' in name or '_Bus_' in name):
            drive_changes += changes
            drive_spurious += spurious
            drive_hours += dur / 3600
        print(f'{name:48s} {keep.sum():6d} s  accuracy {np.mean(y[keep] == p[keep]) if keep.any() else float("nan"):.3f}', flush=True)
    y, p, s = np.concatenate(ys), np.concatenate(ps), np.array(subs)
    unit = 'subject' if a.by == 'subject' else 'source'
    lines = [f'# Activity — leave-one-{unit}-out on the development split', '',
             'Produced by `benchmarks/accuracy/activity/score.py`: every session replayed by `lodestone replay` (the Swift',
             f'classifier, causal) with the model trained by `train.py --folds{"" if a.by == "subject" else " --by source"}`'
             f' without that session\'s {unit} ({len(set(s)) if a.by == "subject" else len(set(map(source_of, s)))} folds).',
             'Scored each whole second on the last decision before it; `other` not scored; `unknown` counts as wrong.', '']
    if a.note:
        lines += [a.note, '']
    all_lines, macro, acc, rows = table('All subjects', y, p)
    phone = ~pd.Series(s).str.startswith('hugadb').values
    phone_lines, pmacro, pacc, _ = table('Phones only (TMD, ML4QS; no HuGaDB thigh sensor)', y[phone], p[phone])
    lines += all_lines + [''] + phone_lines
    lines += ['', '### Per source', '', '| source | seconds | macro-F1 | accuracy | ' + ' | '.join(f'{c} recall' for c in CLASSES)
              + ' | stationary → drive | drive → stationary |', '|---' * (6 + len(CLASSES)) + '|']
    src = np.array([source_of(x) for x in s])
    for name in sorted(set(src)):
        m = src == name
        _, srows, smacro, sacc = metrics(y[m], p[m])
        recalls = ' | '.join(f'{rc:.2f}' if n else '—' for _, _, rc, _, n in srows)
        st, dr = y[m] == 'stationary', y[m] == 'drive'
        lines.append(f'| {name} | {m.sum()} | {smacro:.3f} | {sacc:.3f} | {recalls} | '
                     f'{np.sum(p[m][st] == "drive")} of {st.sum()} s | {np.sum(p[m][dr] == "stationary")} of {dr.sum()} s |')
    lines += ['', 'macro-F1 of a source averages the classes it has.']
    lines += ['', '### Per subject', '', '| subject | seconds | accuracy |', '|---|---|---|']
    for subj in sorted(set(s)):
        m = s == subj
        lines.append(f'| {subj} | {m.sum()} | {np.mean(y[m] == p[m]):.3f} |')
    lines += ['', f'Changes of the reported activity in the TMD car and bus sessions (steady driving, stops included; the '
              f'first decision of a session is not counted): {drive_changes} in {drive_hours:.2f} h = '
              f'{drive_changes / max(drive_hours, 1e-9):.1f} per hour; of them spurious (to an activity that is not the '
              f'session\'s label, `drive`; a change back to `drive` after a wrong first decision or a wrong change is a '
              f'correction): {drive_spurious} = {drive_spurious / max(drive_hours, 1e-9):.1f} per hour.', '',
              'Targets: macro-F1 ≥ 0.85, accuracy ≥ 0.90, every class recall ≥ 0.75; at most one spurious change per hour of '
              'steady driving.']
    if a.output != '-':
        write_result(a.output, '\n'.join(lines) + '\n')
    print(f'drive changes {drive_changes} in {drive_hours:.2f} h = {drive_changes / max(drive_hours, 1e-9):.1f} per hour, '
          f'spurious {drive_spurious} = {drive_spurious / max(drive_hours, 1e-9):.1f} per hour')
    print(f'macro-F1 {macro:.3f} accuracy {acc:.3f}; phones {pmacro:.3f} / {pacc:.3f}; recalls '
          + ' '.join(f'{c} {r:.2f}' for c, _, r, _, _ in rows))


if __name__ == '__main__':
    main()
