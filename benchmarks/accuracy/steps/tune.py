#!/usr/bin/env python3
"""How StepDetector's parameters were chosen, and the cross-validated error of that choice.

A Python transcription of Sources/LodestoneMotion/StepDetector.swift (same filters, peak logic, walk confirmation,
leading-step check and closing step), split in two so that a grid is cheap: the peaks of each recording depend only
on the filters and the hysteresis (computed once), the step logic runs over the peaks. It is a tuning aid only:
the committed numbers (results/steps.md) come from the Swift engine through `lodestone replay` (score.py), and
Tests/LodestoneMotionTests checks a subset of them. The engine places samples on a regularised timeline
(SampleTimeline), so on the Oxford phone recordings (irregular timestamps) its counts differ from this script's
by a few steps.

The grid below is searched with leave-one-subject-out cross-validation on the development split of
shared/datasets/steps (12 subjects: 10 IPOL, 2 Oxford): for each subject the parameters with the lowest mean
absolute count error on the other 11 are scored on that subject's recordings. The shipped defaults are the grid's
best on all 12 (the in-sample figure). Tune only on the development split.

    python3 tune.py            # prints the in-sample and the cross-validated mean absolute error
    python3 tune.py --where    # where the count errors are: true steps missed and steps found in excess, by
                               # position in the walk, for the detector before this change and as shipped
"""
import argparse, collections, glob, itertools, json, os
import numpy as np, pandas as pd

DATA = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'shared',
                                    'datasets', 'steps'))
# StepDetector.Parameters as shipped (names: Swift property ← key).
DEFAULTS = dict(tlp=0.05,      # smoothingTimeConstantS
                tbase=0.7,     # baselineTimeConstantS
                hys=0.2,       # peakHysteresisMps2
                hmin=0.6,      # minimumProminenceMps2
                hmin2=0.5,     # minimumWeakProminenceMps2
                hfrac=0.4,     # strongFraction
                lofrac=0.2,    # weakFraction
                plo=0.9, phi=2.0,  # weakWindow
                ampk=0.5,      # amplitudeGain
                perk=0.2,      # periodGain
                amp0=2.0,      # initialAmplitudeMps2
                per0=0.55,     # initialPeriodS
                mingap=0.25,   # minimumIntervalS
                maxgap=1.3,    # maximumIntervalS
                nconf=6,       # confirmationSteps
                ratio=1.6,     # regularityRatio
                leadfrac=0.35,  # leadingStepFraction
                endmin=0.25,   # closingStepMinimumProminenceMps2
                endlo=0.7, endhi=2.0)  # closingStepWindow
# The detector before the closing step and the leading-step check (issue 5 as first merged).
BEFORE = dict(DEFAULTS, perk=0.3, nconf=5, ratio=1.8, leadfrac=0.0, endmin=float('inf'))
# The grid of the cross-validation: the new rules (leading step, closing step) and the confirmation.
GRID = dict(endmin=[0.15, 0.25, 0.35], endlo=[0.6, 0.7, 0.8], leadfrac=[0.3, 0.35, 0.4], nconf=[5, 6],
            ratio=[1.6, 1.8], perk=[0.2, 0.3])


def peaks(t, a, P):
    """(peak time s, prominence m/s², time it was recognised s) of every maximum of the step signal."""
    m = np.linalg.norm(a, axis=1)
    lp1 = lp2 = base = m[0]
    prev = t[0]
    seek, ext, extt, valley = True, -1e9, 0.0, 0.0
    out = []
    for i in range(1, len(t)):
        if t[i] <= prev:
            continue
        dt = t[i] - prev
        prev = t[i]
        al = min(1, dt / P['tlp'])
        lp1 += al * (m[i] - lp1)
        lp2 += al * (lp1 - lp2)
        base += min(1, dt / P['tbase']) * (lp2 - base)
        s = lp2 - base
        if seek:
            if s > ext:
                ext, extt = s, t[i]
            if s < ext - P['hys']:
                out.append((extt, ext - valley, t[i]))
                seek, ext = False, s
        else:
            if s < ext:
                ext = s
            if s > ext + P['hys']:
                valley, seek, ext, extt = ext, True, s, t[i]
    return out


def steps(pk, end_s, P):
    """Step times from the peaks of one recording that ends at end_s."""
    amp, per = P['amp0'], P['per0']
    out, walking, pending, last, closing = [], False, [], None, None

    def end_walk():
        nonlocal walking, pending, closing
        if walking and closing is not None:
            out.append(closing[0])
        walking, pending, closing = False, [], None

    for pt, prom, seen in pk:
        if walking and last is not None and seen - last > P['maxgap']:
            end_walk()
        gap = None if last is None else pt - last
        if gap is not None and gap < P['mingap']:
            continue
        strong = prom >= P['hfrac'] * amp and prom >= P['hmin']
        weak = (walking and gap is not None and prom >= P['lofrac'] * amp and prom >= P['hmin2']
                and P['plo'] * per <= gap <= P['phi'] * per)
        if not (strong or weak):
            if (walking and gap is not None and prom >= P['endmin'] and P['endlo'] * per <= gap <= P['endhi'] * per
                    and (closing is None or prom > closing[1])):
                closing = (pt, prom)
            continue
        closing = None
        if strong:
            amp += P['ampk'] * (prom - amp)
        if gap is not None and gap <= P['maxgap']:
            per += P['perk'] * (min(max(gap, P['mingap']), P['maxgap']) - per)
        elif gap is not None:
            end_walk()
        last = pt
        if walking:
            out.append(pt)
            continue
        pending = (pending + [(pt, prom)])[-P['nconf']:]
        if len(pending) >= P['nconf']:
            iv = np.diff([x[0] for x in pending])
            if iv.max() <= P['maxgap'] and iv.max() < P['ratio'] * iv.min():
                walking = True
                others = np.mean([x[1] for x in pending[1:]])
                out += [x[0] for x in (pending if pending[0][1] >= P['leadfrac'] * others else pending[1:])]
                pending = []
    if walking and last is not None and end_s - last > P['maxgap']:
        end_walk()
    return out


def load(P=DEFAULTS):
    recs = []
    for f in sorted(glob.glob(os.path.join(DATA, '*.csv.gz'))):
        meta = json.load(open(f[:-7] + '.json'))
        d = pd.read_csv(f, usecols=['t_s', 'acc_x', 'acc_y', 'acc_z'])
        t = d.t_s.values
        recs.append(dict(name=os.path.basename(f)[:-7], subject=meta['subject'], n=meta['steps'],
                         pk=peaks(t, d[['acc_x', 'acc_y', 'acc_z']].values, P), end=t[-1], t0=t[0],
                         truth=np.array(meta['step_times_s'])))
    return recs


def abs_errors(recs, P):
    return np.array([abs(len(steps(r['pk'], r['end'], P)) - r['n']) / r['n'] for r in recs])


def where(recs):
    """Matches found step instants to true ones (after removing each recording's median lag of the detector,
    within ±0.25 s, the convention of the data set's README) and counts the misses and excess steps by position:
    the first and the last true step of a recording, or elsewhere."""
    for label, P in [('before', BEFORE), ('shipped', DEFAULTS)]:
        tally = collections.Counter()
        for r in recs:
            found = np.array(steps(r['pk'], r['end'], P)) - r['t0']
            truth, src = r['truth'], r['name'].split('_')[0]
            if len(found) == 0:
                tally[(src, 'missed elsewhere')] += len(truth)
                continue
            found = found - np.median([found[np.argmin(abs(found - x))] - x for x in truth])
            used = set()
            for i, x in enumerate(truth):
                near = [j for j in np.argsort(abs(found - x))[:2] if j not in used and abs(found[j] - x) <= 0.25]
                if near:
                    used.add(near[0])
                else:
                    tally[(src, 'missed: first step' if i == 0 else 'missed: last step' if i == len(truth) - 1
                           else 'missed elsewhere')] += 1
            for j in set(range(len(found))) - used:
                tally[(src, 'excess: before the first step' if found[j] < truth[0] else
                       'excess: after the last step' if found[j] > truth[-1] else 'excess elsewhere')] += 1
        print(f'{label}:')
        for k in sorted(tally):
            print(f'  {k[0]:7s} {k[1]:32s} {tally[k]:4d}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--where', action='store_true', help='where the count errors are (see above)')
    recs = load()
    if ap.parse_args().where:
        return where(recs)
    subject = np.array([r['subject'] for r in recs])
    ipol = np.array([r['name'].startswith('ipol') for r in recs])
    combos = [dict(DEFAULTS, **dict(zip(GRID, v))) for v in itertools.product(*GRID.values())]
    A = np.array([abs_errors(recs, P) for P in combos])          # combos × recordings

    def show(label, e):
        print(f'{label}: mean absolute error {e.mean() * 100:.2f} % (ipol {e[ipol].mean() * 100:.2f} %, '
              f'oxford {e[~ipol].mean() * 100:.2f} %)')
    show('defaults, in-sample', abs_errors(recs, DEFAULTS))
    best = A.mean(1).argmin()
    show('grid best, in-sample', A[best])
    print('  ', {k: combos[best][k] for k in GRID})
    held = np.zeros(len(recs))
    for s in sorted(set(subject)):
        train = subject != s
        k = A[:, train].mean(1).argmin()
        held[~train] = A[k, ~train]
        print(f'  held out {s}: chose {({g: combos[k][g] for g in GRID})}')
    show('leave-one-subject-out', held)


if __name__ == '__main__':
    main()
