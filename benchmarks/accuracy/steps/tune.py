#!/usr/bin/env python3
"""How StepDetector's parameters were chosen: a random local search on the development split of
shared/datasets/steps, minimising the mean absolute count error per recording.

This is a Python transcription of Sources/LodestoneMotion/StepDetector.swift (same filters, peak logic and walk
confirmation), fast enough to evaluate hundreds of parameter sets. It is a tuning aid only: the committed numbers
(results/steps.md) come from the Swift engine through `lodestone replay` (steps/score.py), and
Tests/LodestoneMotionTests checks a subset of them. Tune only on the development split.

    python3 tune.py [--iterations 150] [--seed 1]
"""
import argparse, glob, json, os, random
import numpy as np, pandas as pd

DATA = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'shared',
                                    'datasets', 'steps'))
# The defaults of StepDetector.Parameters (the result of this search).
DEFAULTS = dict(tlp=0.05, tbase=0.7, hmin=0.6, hmin2=0.5, hfrac=0.4, lofrac=0.2, hys=0.2, amp0=2.0, ampk=0.5, perk=0.3,
                plo=0.9, phi=2.0, mingap=0.25, maxgap=1.3, nconf=5, ratio=1.8)
SPACE = dict(tlp=[0.03, 0.05, 0.07, 0.1], tbase=[0.7, 1.0, 1.5, 2.0], hmin=[0.4, 0.6, 0.8, 1.0, 1.3], hmin2=[0.2, 0.3, 0.5],
             hfrac=[0.25, 0.3, 0.35, 0.4, 0.5], lofrac=[0.1, 0.15, 0.2, 0.25, 0.3], hys=[0.2, 0.3, 0.4, 0.6, 0.8],
             ampk=[0.1, 0.2, 0.3, 0.5], plo=[0.6, 0.7, 0.8, 0.9], phi=[1.3, 1.6, 2.0], mingap=[0.22, 0.25, 0.27, 0.3, 0.33],
             maxgap=[1.3, 1.6, 2.0, 2.5], nconf=[2, 3, 4, 5], ratio=[1.8, 2.2, 2.5, 3.0])


def detect(t, a, P):
    """Step times found in one recording (t: s, a: N×3 m/s²)."""
    m = np.linalg.norm(a, axis=1)
    lp1 = lp2 = base = m[0]
    prev = t[0]
    seeking_peak, ext, extt, valley = True, -1e9, 0.0, 0.0
    amp, per = P['amp0'], 0.55
    steps, walking, pending, last = [], False, [], None
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
        if walking and last is not None and t[i] - last > P['maxgap']:
            walking, pending = False, []
        if seeking_peak:
            if s > ext:
                ext, extt = s, t[i]
            if s < ext - P['hys']:
                prom, pt = ext - valley, extt
                seeking_peak, ext = False, s
                gap = None if last is None else pt - last
                if gap is not None and gap < P['mingap']:
                    continue
                strong = prom >= P['hfrac'] * amp and prom >= P['hmin']
                weak = (walking and gap is not None and prom >= P['lofrac'] * amp and prom >= P['hmin2']
                        and P['plo'] * per <= gap <= P['phi'] * per)
                if not (strong or weak):
                    continue
                if strong:
                    amp += P['ampk'] * (prom - amp)
                if gap is not None and gap <= P['maxgap']:
                    per += P['perk'] * (min(max(gap, P['mingap']), P['maxgap']) - per)
                elif gap is not None:
                    walking, pending = False, []
                last = pt
                if walking:
                    steps.append(pt)
                    continue
                pending = (pending + [pt])[-P['nconf']:]
                if len(pending) >= P['nconf']:
                    iv = np.diff(pending)
                    if iv.max() <= P['maxgap'] and iv.max() < P['ratio'] * iv.min():
                        walking = True
                        steps += pending
                        pending = []
        else:
            if s < ext:
                ext = s
            if s > ext + P['hys']:
                valley, seeking_peak, ext, extt = ext, True, s, t[i]
    return steps


def load():
    out = []
    for f in sorted(glob.glob(os.path.join(DATA, '*.csv.gz'))):
        d = pd.read_csv(f, usecols=['t_s', 'acc_x', 'acc_y', 'acc_z'])
        out.append((d.t_s.values, d[['acc_x', 'acc_y', 'acc_z']].values, json.load(open(f[:-7] + '.json'))['steps']))
    return out


def error(data, P):
    return float(np.mean([abs(len(detect(t, a, P)) - n) / n for t, a, n in data]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--iterations', type=int, default=150)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    data = load()
    best = (error(data, DEFAULTS), dict(DEFAULTS))
    print(f'defaults: mean absolute error {best[0] * 100:.2f} %')
    for it in range(a.iterations):
        Q = dict(best[1])
        for k in rng.sample(list(SPACE), 3):
            Q[k] = rng.choice(SPACE[k])
        e = error(data, Q)
        if e < best[0]:
            best = (e, Q)
            print(f'{it}: {e * 100:.2f} % {Q}', flush=True)
    print('best:', best)


if __name__ == '__main__':
    main()
