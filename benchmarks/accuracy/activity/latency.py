#!/usr/bin/env python3
"""How fast the activity follows a change, on simulated scenarios (unseen by the model: the catalog's scenarios
are not the random ones it was trained with).

`motion-harness record` runs the simulated board through `mixed-day` (stand, walk, stairs, lift, walk, run,
cycle, drive, stand), `drive` and `park-and-walk` (drive, park, get out and walk away) with seeds 1–5; `lodestone replay` runs the engine (shipped model). For each
change of the true activity, the delay until the reported activity first equals the new one; and the changes
of the reported activity to one that is not the true one at that moment (spurious). Writes results/activity-latency.md.
"""
import os, sys, tempfile
import numpy as np, pandas as pd
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import record, replay, write_result

rows, spurious, hours = [], 0, 0.0
with tempfile.TemporaryDirectory() as work:
    for scenario in ['mixed-day', 'drive', 'park-and-walk']:
        for seed in range(1, 6):
            trace = record(scenario, seed, os.path.join(work, f'{scenario}-{seed}.csv'))
            g = pd.read_csv(trace, usecols=['t_s', 'gt_activity'], dtype={'gt_activity': str})
            o = replay(trace)
            t, truth, said = g.t_s.values, g.gt_activity.values, o.activity.values
            changes = np.where(truth[1:] != truth[:-1])[0] + 1
            for k, i in enumerate(changes):
                end = changes[k + 1] if k + 1 < len(changes) else len(truth)
                hit = np.where(said[i:end] == truth[i])[0]
                delay = t[i + hit[0]] - t[i] if len(hit) else None
                rows.append(dict(scenario=scenario, seed=seed, time=t[i], change=f'{truth[i - 1]} → {truth[i]}',
                                 delay=delay, duration=t[end - 1] - t[i]))
            # A reported change to an activity that is not the true one at that moment is spurious.
            switched = np.where(said[1:] != said[:-1])[0] + 1
            spurious += int(sum(said[i] != truth[i] for i in switched if said[i] != 'unknown'))
            hours += t[-1] / 3600
df = pd.DataFrame(rows)
lines = ['# Activity — reaction to changes (simulated scenarios)', '',
         'Produced by `benchmarks/accuracy/activity/latency.py` (mixed-day, drive and park-and-walk, seeds 1–5, shipped model). Delay: from',
         'the true change to the first second the engine reports the new activity; "missed" when it never does before',
         'the next change. `drive → stationary` is held on purpose: a trip established by 20 s of driving evidence stays `drive`',
         'through stops of up to 120 s (traffic lights; `CMMotionActivity` does the same), longer than these 30 s final rests.',
         'Walking away from a moving vehicle is reported after 20 s of walking by design (`vehicleExitS`: walking-like bouts',
         'of up to 12 s happen inside buses and cars, see activity.md); walking that follows a stop (park-and-walk: 20 s parked,',
         'then walking) ends the trip after 4 s of walking leading (`vehicleStopExitS`; real recordings: activity-exit.md).', '',
         '| change | occurrences | median delay | worst delay | missed | segment length |', '|---|---|---|---|---|---|']
for change, g in df.groupby('change', sort=False):
    d = g.delay.dropna()
    lines.append(f'| {change} | {len(g)} | {d.median():.1f} s | {d.max():.1f} s | {g.delay.isna().sum()} | {g.duration.median():.0f} s |'
                 if len(d) else f'| {change} | {len(g)} | — | — | {len(g)} | {g.duration.median():.0f} s |')
d = df.delay.dropna()
lines += ['', f'All changes: median {d.median():.1f} s, 90th percentile {d.quantile(0.9):.1f} s, within 5 s: '
          f'{(d <= 5).sum()} of {len(df)}; missed {df.delay.isna().sum()}.',
          f'Spurious changes (to an activity that is not the true one then): {spurious} in {hours:.2f} h.']
out = df[(df.scenario == 'park-and-walk') & (df.change == 'stationary → walk')].delay
lines += [f'Getting out of the parked car and walking away (park-and-walk, stationary → walk): median {out.median():.1f} s, '
          f'worst {out.max():.1f} s, missed {out.isna().sum()} of {len(out)}.']
write_result('activity-latency.md', '\n'.join(lines) + '\n')
