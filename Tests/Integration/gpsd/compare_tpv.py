#!/usr/bin/env python3
"""Compare two gpsd JSON streams (as `gpspipe -w` printed them) epoch by epoch: real gpsd's and lodestone's.

Each side's TPVs with a `time` and a fix (mode >= 2) are grouped by time; the last TPV of a time is the epoch's
(gpsd sends one per sentence, the last is the most complete). Epochs are paired by time (nearest within
--time-tol-s). A pair agrees when: mode is equal, the horizontal distance is within --h-m, altHAE and altMSL (where
both sides have them) within --v-m, speed (where both have it) within --speed-mps. Dates may be compared without
the date (--ignore-date: gpsd 3.22 shifts pre-2019 logs by 1024 weeks).

Prints a JSON summary (epochs each side, paired, agreed, the first disagreements) and exits 0 when at least
--min-agreed of gpsd's epochs were paired and agreed, else 1.

Usage: compare_tpv.py GPSD.json LODESTONE.json [--h-m 1.0] [--v-m 1.0] [--speed-mps 0.5] [--time-tol-s 0.001]
                      [--min-agreed 0.9] [--ignore-date]
Written for Lodestone's gpsd tests (side by side with Debian's gpsd).
"""
import argparse
import datetime
import json
import math
import sys


def epochs(path, ignore_date):
    out = {}
    with open(path, 'rb') as f:
        for raw in f:
            raw = raw.strip()
            if not raw.startswith(b'{'):
                continue
            try:
                o = json.loads(raw)
            except ValueError:
                continue
            if o.get('class') != 'TPV' or 'time' not in o or o.get('mode', 0) < 2:
                continue
            if 'lat' not in o or 'lon' not in o:
                continue
            t = datetime.datetime.strptime(o['time'].rstrip('Z'), '%Y-%m-%dT%H:%M:%S.%f')
            t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
            if ignore_date:
                t = t % 86400.0
            out[round(t, 3)] = o
    return out


def horizontal_m(a, b):
    lat = math.radians((a['lat'] + b['lat']) / 2)
    dn = math.radians(a['lat'] - b['lat']) * 6371008.8
    de = math.radians(a['lon'] - b['lon']) * 6371008.8 * math.cos(lat)
    return math.hypot(dn, de)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('gpsd')
    ap.add_argument('lodestone')
    ap.add_argument('--h-m', type=float, default=1.0)
    ap.add_argument('--v-m', type=float, default=1.0)
    ap.add_argument('--speed-mps', type=float, default=0.5)
    ap.add_argument('--time-tol-s', type=float, default=0.001)
    ap.add_argument('--min-agreed', type=float, default=0.9)
    ap.add_argument('--ignore-date', action='store_true')
    args = ap.parse_args()
    g = epochs(args.gpsd, args.ignore_date)
    l = epochs(args.lodestone, args.ignore_date)
    lt = sorted(l)
    paired = agreed = 0
    bad = []
    for t in sorted(g):
        # nearest lodestone epoch
        best = min(lt, key=lambda x: abs(x - t)) if lt else None
        if best is None or abs(best - t) > args.time_tol_s:
            continue
        paired += 1
        a, b = g[t], l[best]
        why = []
        if a.get('mode') != b.get('mode'):
            why.append('mode %s vs %s' % (a.get('mode'), b.get('mode')))
        h = horizontal_m(a, b)
        if h > args.h_m:
            why.append('horizontal %.3f m' % h)
        for k in ('altHAE', 'altMSL'):
            if k in a and k in b and abs(a[k] - b[k]) > args.v_m:
                why.append('%s %.3f vs %.3f' % (k, a[k], b[k]))
        if 'speed' in a and 'speed' in b and abs(a['speed'] - b['speed']) > args.speed_mps:
            why.append('speed %.3f vs %.3f' % (a['speed'], b['speed']))
        if why:
            bad.append({'time': a['time'], 'why': why})
        else:
            agreed += 1
    summary = {
        'gpsd_epochs': len(g), 'lodestone_epochs': len(l), 'paired': paired, 'agreed': agreed,
        'tolerances': {'h_m': args.h_m, 'v_m': args.v_m, 'speed_mps': args.speed_mps, 'time_s': args.time_tol_s},
        'disagreements': bad[:10],
    }
    print(json.dumps(summary, indent=1))
    ok = len(g) > 0 and agreed >= args.min_agreed * len(g)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
