#!/usr/bin/env bash
# Feed one receiver log to Debian's gpsd (through gpsfake) and to `lodestone serve` (a board file whose only sensor
# is the log), read both with `gpspipe -w`, and compare their TPVs epoch by epoch (compare_tpv.py).
# Loopback only, bounded (every step under `timeout`). Needs gpsd, gpsd-clients (gpsfake, gpspipe), python3.
#
# Usage: side_by_side.sh LOG LODESTONE OUTDIR [compare_tpv.py options…]
#   LOG        a receiver log (Tests/…/datasets/nmea/*.log)
#   LODESTONE  the built `lodestone` executable
#   OUTDIR     where gpsd.json, lodestone.json, board.json, the logs and summary.json go
# Exit status: compare_tpv.py's (0 when enough epochs agree), 2 when a side produced nothing.
set -u
LOG=$(realpath "$1"); LODESTONE=$2; OUT=$3; shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
mkdir -p "$OUT"
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do "$PY" -c "import socket,sys; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
LINES=$(grep -cv '^#' "$LOG")
DELAY=0.05
# The log is played at DELAY s a sentence to gpsd; lodestone plays it at its recorded pace (epoch UTC differences).
GPSD_S=$("$PY" -c "print(int($LINES*$DELAY+8))")
LODE_S=${LODESTONE_SECONDS:-$("$PY" - "$LOG" <<'PYEOF'
import re, sys
ts = []
for line in open(sys.argv[1], 'rb'):
    m = re.match(rb'\$..(?:GGA|RMC),(\d\d)(\d\d)(\d\d(?:\.\d+)?),', line)
    if m:
        ts.append(int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3)))
span = (max(ts) - min(ts)) if ts else 30
print(int(min(span, 600) + 10))
PYEOF
)}

# 1. Debian's gpsd through gpsfake (-n: start feeding at once; -1: one pass).
P1=$(free_port)
timeout $((GPSD_S + 10)) gpsfake -n -1 -q -P "$P1" -c "$DELAY" "$LOG" >"$OUT/gpsfake.log" 2>&1 &
GF=$!
wait_port "$P1" || { echo "gpsfake did not listen on $P1" >&2; kill "$GF" 2>/dev/null; exit 2; }
timeout "$GPSD_S" gpspipe -w "127.0.0.1:$P1" >"$OUT/gpsd.json" 2>"$OUT/gpspipe-gpsd.err"
kill "$GF" 2>/dev/null; wait "$GF" 2>/dev/null

# 2. lodestone serve with the log as its receiver.
P2=$(free_port)
cat >"$OUT/board.json" <<JSON
{"format":"lodestone-board/1","name":"gpsd-side-by-side","sensors":[{"id":"gnss","chip":"nmea","bus":{"file":"$LOG"}}]}
JSON
mkdir -p "$OUT/state"
timeout $((LODE_S + 20)) "$LODESTONE" serve --board "$OUT/board.json" --socket "$OUT/s.sock" \
  --gpsd-listen "127.0.0.1:$P2" --gpsd-access full --state-dir "$OUT/state" >"$OUT/lodestone.log" 2>&1 &
LS=$!
wait_port "$P2" || { echo "lodestone serve did not listen on $P2 (see $OUT/lodestone.log)" >&2; kill "$LS" 2>/dev/null; exit 2; }
timeout "$LODE_S" gpspipe -w "127.0.0.1:$P2" >"$OUT/lodestone.json" 2>"$OUT/gpspipe-lodestone.err"
kill "$LS" 2>/dev/null; wait "$LS" 2>/dev/null

[ -s "$OUT/gpsd.json" ] || { echo "gpsd side produced nothing" >&2; exit 2; }
[ -s "$OUT/lodestone.json" ] || { echo "lodestone side produced nothing" >&2; exit 2; }
"$PY" "$HERE/compare_tpv.py" "$OUT/gpsd.json" "$OUT/lodestone.json" "$@" | tee "$OUT/summary.json"
exit "${PIPESTATUS[0]}"
