#!/usr/bin/env bash
# Run Debian's cgps against 127.0.0.1:PORT in a detached tmux session (private tmux socket) and print its screen
# once it contains every EXPECTED text, or after SECONDS (the last screen; exit 1). Bounded; loopback only.
# Usage: cgps_screen.sh PORT SECONDS [EXPECTED…]
set -u
PORT=$1; SECONDS_MAX=$2; shift 2
DIR=$(mktemp -d /tmp/cgps-screen.XXXXXX)
SOCK="$DIR/tmux.sock"
export TERM=${TERM:-xterm}
trap 'tmux -S "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$DIR"' EXIT
tmux -S "$SOCK" new-session -d -s cgps -x 100 -y 45 "cgps -s 127.0.0.1:$PORT" || exit 2
END=$((SECONDS + SECONDS_MAX))
while [ "$SECONDS" -lt "$END" ]; do
  sleep 0.5
  SCREEN=$(tmux -S "$SOCK" capture-pane -p -t cgps 2>/dev/null)
  ok=1
  for e in "$@"; do case "$SCREEN" in *"$e"*) ;; *) ok=0 ;; esac; done
  [ "$ok" = 1 ] && { printf '%s\n' "$SCREEN"; exit 0; }
done
printf '%s\n' "${SCREEN:-}"
exit 1
