#!/usr/bin/env python3
"""Altitude and floor accuracy of `lodestone replay` on simulated scenarios.

For each scenario of the catalog that moves vertically or tests the altimeter (stationary, stairs, lift,
weather-drift, stairs-and-lift, mixed-day) and each barometer noise model (BMP280 as on the default simulated
board; BMP388 class), `motion-harness record` runs the simulated board through the scenario exactly as
`lodestone run` samples it (register-level chips read by the real drivers, simulated GNSS), and `lodestone replay`
runs the engine over the trace. Three seeds each. Writes results/altitude.md:

- floors up/down counted vs. the truth (floor changes on foot; lift rides are not floors),
- relative altitude error: RMS of (relative altitude − true height change since the reference), and at rest
  (stationary scenario) the RMS against the *barometric* truth (the true pressure through the ISA: what a
  perfect barometer would say, weather included) — the sensor-noise figure the target is about,
- fused absolute altitude error where GNSS is present (the trace's GNSS heights are ellipsoidal, so the
  datum is the ellipsoid).
"""
import os, sys, tempfile
import numpy as np, pandas as pd
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import record, replay, write_result

SCENARIOS = ['stationary', 'stairs', 'lift', 'weather-drift', 'stairs-and-lift', 'mixed-day']
NOISES = ['consumer', 'bmp388']
SEEDS = [1, 2, 3]


def isa(p, p0=101325.0):
    return 288.15 / 0.0065 * (1 - (p / p0) ** (1 / 5.255877))


def true_floors(g):
    """Floors changed while the truth activity is walking (stairs), up and down."""
    f = g.gt_floor.values
    d = np.diff(f)
    walking = g.gt_activity.values[1:] == 'walk'
    return int(d[(d > 0) & walking].sum()), int(-d[(d < 0) & walking].sum())


rows = []
with tempfile.TemporaryDirectory() as work:
    for sc in SCENARIOS:
        for noise in NOISES:
            for seed in SEEDS:
                trace = record(sc, seed, os.path.join(work, f'{sc}-{noise}-{seed}.csv'), noise)
                g = pd.read_csv(trace, dtype={'gt_activity': str})
                o = replay(trace)
                up, down = true_floors(g)
                m = o.relative_altitude_m.notna().values
                rel = o.relative_altitude_m.values[m]
                h = g.gt_height_m.values[m]
                rel_err = rel - (h - h[0])
                hb = isa(g.gt_pressure_pa.values[m])
                baro_err = rel - (hb - hb[0])
                gnss = g.lat_deg.notna().any()
                abs_err = (o.altitude_m.values - g.gt_height_m.values)[-60 * 25:] if gnss else np.array([np.nan])
                rows.append(dict(scenario=sc, noise=noise, seed=seed, up_true=up, down_true=down,
                                 up=int(o.floors_up.iloc[-1]), down=int(o.floors_down.iloc[-1]),
                                 rel_rms=float(np.sqrt(np.mean(rel_err ** 2))), rel_max=float(np.abs(rel_err).max()),
                                 baro_rms=float(np.sqrt(np.mean(baro_err ** 2))),
                                 abs_rms=float(np.sqrt(np.nanmean(abs_err ** 2))) if gnss else None,
                                 accuracy=float(o.altitude_accuracy_m.iloc[-1])))
                r = rows[-1]
                print(f"{sc:16s} {noise:8s} seed {seed}: floors {r['up']}/{r['down']} (truth {up}/{down}), "
                      f"relative RMS {r['rel_rms']:.3f} m, vs barometric truth {r['baro_rms']:.3f} m", flush=True)

df = pd.DataFrame(rows)
lines = ['# Altitude and floors — simulated scenarios', '',
         'Produced by `benchmarks/accuracy/altitude/score.py`: `motion-harness record` runs the simulated board',
         '(register-level MPU-9250 at 100 Hz and BMP280 at 25 Hz read by the real drivers, simulated GNSS) through each',
         'scenario with the BMP280 noise of the default board (`consumer`: 1.3 Pa RMS) or a BMP388-class barometer',
         '(`bmp388`: 0.5 Pa RMS, `BarometerNoise.bmp388Class`); `lodestone replay` runs the engine. Seeds 1, 2, 3.', '',
         '| scenario | noise | floors up (counted / true) | floors down (counted / true) | relative altitude RMS error | '
         'at rest: RMS vs barometric truth | fused altitude RMS error, last 60 s (GNSS) |',
         '|---|---|---|---|---|---|---|']
for (sc, noise), g in df.groupby(['scenario', 'noise'], sort=False):
    ups = ' '.join(f'{a}/{b}' for a, b in zip(g.up, g.up_true))
    downs = ' '.join(f'{a}/{b}' for a, b in zip(g.down, g.down_true))
    baro = f'{g.baro_rms.mean() * 100:.1f} cm' if sc == 'stationary' else '—'
    absr = f'{g.abs_rms.mean():.2f} m' if g.abs_rms.notna().all() else '— (no GNSS)'
    lines.append(f'| {sc} | {noise} | {ups} | {downs} | {g.rel_rms.mean() * 100:.1f} cm (max {g.rel_max.max() * 100:.0f} cm) '
                 f'| {baro} | {absr} |')
floors_ok = (df.up == df.up_true) & (df.down == df.down_true)
lines += ['', f'Floors exact in {floors_ok.sum()} of {len(df)} runs. Relative altitude error includes the simulated '
          'weather (the generator\'s sea-level pressure drifts, and in `weather-drift` falls 6 hPa/h): relative altitude is '
          'barometric, like `CMAltimeter`\'s, so weather moves it; floors must not.']
write_result('altitude.md', '\n'.join(lines) + '\n')
