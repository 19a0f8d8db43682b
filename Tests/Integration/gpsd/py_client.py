#!/usr/bin/python3
"""Read TPVs from a gpsd-compatible server with Debian's python3-gps, as an unmodified client does.

Prints one line per TPV: `TPV mode=<mode> lat=<lat> lon=<lon>` (lat/lon with 9 decimals, or `nan`), and one
`SKY uSat=<n> nSat=<n>` and `ATT heading=<deg>` per SKY/ATT; exits 0 after COUNT TPVs, 1 on timeout.

Usage: py_client.py PORT COUNT [--timeout 15]
Written for Lodestone's gpsd tests.
"""
import argparse
import sys
import time

import gps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('port')
    ap.add_argument('count', type=int)
    ap.add_argument('--timeout', type=float, default=15.0)
    args = ap.parse_args()
    session = gps.gps(host='127.0.0.1', port=args.port, mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
    deadline = time.time() + args.timeout
    seen = 0
    while time.time() < deadline:
        if not session.waiting(timeout=0.5):
            continue
        if session.read() != 0:
            print('read failed', file=sys.stderr)
            return 1
        report = session.data
        cls = report.get('class') if hasattr(report, 'get') else None
        if cls == 'TPV':
            lat = getattr(report, 'lat', float('nan'))
            lon = getattr(report, 'lon', float('nan'))
            print('TPV mode=%d lat=%.9f lon=%.9f' % (report.get('mode', 0), lat, lon), flush=True)
            seen += 1
            if seen >= args.count:
                return 0
        elif cls == 'SKY':
            print('SKY uSat=%s nSat=%s' % (report.get('uSat'), report.get('nSat')), flush=True)
        elif cls == 'ATT':
            print('ATT heading=%s' % report.get('heading'), flush=True)
    print('timeout after %d TPVs' % seen, file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main())
