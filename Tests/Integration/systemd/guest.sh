#!/bin/sh
# Guest side of Tests/Integration/systemd-vm.sh: runs as root under a real systemd (PID 1), in /payload (read-only).
# Two ways in:
#   lodestone.deb                  the package, installed with `dpkg -i` (its postinst creates the user, enables and
#                                  starts the sockets); removed and purged at the end, with checks
#   bin/lodestone, lib/, units/,   the daemon and the units installed as a package would (shared libraries copied when
#   sysusers.d/, board.json,       missing), lodestone.socket enabled here
#   policy.toml
# `kind` says which daemon: real or standin. Checks activation, a clean stop, reload, the watchdog, the shipped policy
# for two unprivileged users, state kept over a stop of everything. Prints PASS/FAIL lines; exits with the number of
# failures. Every wait is bounded.
set -u
FAILS=0
pass() { echo "PASS $1${2:+ ($2)}"; }
fail() { echo "FAIL $1${2:+ ($2)}"; FAILS=$((FAILS + 1)); }
now_ms() { echo $(( $(cut -d' ' -f1 /proc/uptime | tr -d .) * 10 )); }
prop() { systemctl show -p "$2" --value "$1"; }
# wait_for SECONDS COMMAND...: polls every 0.2 s; 0 as soon as COMMAND succeeds, 1 when the time is up
wait_for() {
  _limit=$(( $1 * 5 )); shift; _i=0
  while [ $_i -lt $_limit ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; _i=$((_i + 1)); done
  return 1
}
is_active() { [ "$(systemctl is-active "$1")" = active ]; }
journal_since() { _c=$1; shift; journalctl --no-pager -o cat --after-cursor="$_c" "$@" 2>/dev/null; }
cursor() { journalctl -n 0 --show-cursor --no-pager 2>/dev/null | sed -n 's/^-- cursor: //p'; }
# oneline TEXT: on one line, at most 400 characters (for a FAIL's details)
oneline() { echo "$1" | tr '\n' ' ' | cut -c1-400; }
KIND=$(cat kind)
DEB=""; [ -f lodestone.deb ] && DEB=lodestone.deb
HOW="as files"; [ -n "$DEB" ] && HOW="by dpkg -i from the package"
echo "guest: $(systemctl --version | head -1), kernel $(uname -r), daemon: $KIND, installed $HOW"

if [ -n "$DEB" ]; then
  # ---- install the package: dpkg -i, its dependencies already in the image (no network)
  T=$(now_ms)
  DPKG_OUT=$(dpkg -i "$DEB" 2>&1); DPKG_RC=$?
  DPKG_MS=$(( $(now_ms) - T ))
  echo "$DPKG_OUT" | sed 's/^/  dpkg: /'
  if [ "$DPKG_RC" = 0 ] && [ "$(dpkg-query -W -f='${Status}' lodestone 2>/dev/null)" = "install ok installed" ]; then
    pass dpkg-install "lodestone $(dpkg-query -W -f='${Version}' lodestone) in $DPKG_MS ms"
  else fail dpkg-install "exit $DPKG_RC, status $(dpkg-query -W -f='${Status}' lodestone 2>&1)"; fi
  # What postinst did: the sockets enabled and listening (not the service), the state directory made for the user.
  POSTINST="socket $(systemctl is-enabled lodestone.socket)/$(systemctl is-active lodestone.socket), gpsd socket \
$(systemctl is-enabled lodestone-gpsd.socket)/$(systemctl is-active lodestone-gpsd.socket), service \
$(systemctl is-active lodestone.service); /var/lib/lodestone $(stat -c '%U:%G %a' /var/lib/lodestone 2>&1)"
  if [ "$(systemctl is-enabled lodestone.socket)" = enabled ] && [ "$(systemctl is-enabled lodestone-gpsd.socket)" = enabled ] \
     && is_active lodestone.socket && is_active lodestone-gpsd.socket && ! is_active lodestone.service \
     && [ "$(stat -c '%U:%G %a' /var/lib/lodestone 2>/dev/null)" = "lodestone:lodestone 750" ] \
     && [ -f /etc/lodestone/policy.toml ] && [ -f /etc/lodestone/board.json ] && [ -x /usr/bin/lodestone ]; then
    pass package-postinst "$POSTINST"
  else fail package-postinst "$POSTINST; $(ls -l /etc/lodestone /usr/bin/lodestone 2>&1 | tr '\n' ' ')"; fi
else
  # ---- install, as a package's files and postinst would
  [ -d lib ] && ( cd lib && find . -type f ) | while read -r f; do
    target="/${f#./}"; [ -e "$target" ] || { mkdir -p "$(dirname "$target")"; cp "lib/$f" "$target"; }
  done
  install -m 0755 bin/lodestone /usr/bin/lodestone
  install -m 0644 units/* /usr/lib/systemd/system/
  install -m 0644 sysusers.d/lodestone.conf /usr/lib/sysusers.d/lodestone.conf
  systemd-sysusers
  mkdir -p /etc/lodestone && install -m 0644 board.json /etc/lodestone/board.json
  [ -f policy.toml ] && install -m 0644 policy.toml /etc/lodestone/policy.toml
  systemctl daemon-reload
  systemctl enable lodestone.socket 2>&1 | sed 's/^/  /'
  systemctl start lodestone.socket lodestone-gpsd.socket
fi
if out=$(systemd-analyze verify lodestone.socket lodestone-gpsd.socket lodestone.service 2>&1); then pass verify-units
else fail verify-units "$(echo "$out" | tr '\n' ';')"; fi
if id lodestone | grep -q lodestone && getent group i2c spi gpio dialout >/dev/null; then pass sysusers "$(id lodestone)"
else fail sysusers "$(id lodestone 2>&1); groups: $(getent group i2c spi gpio dialout | cut -d: -f1 | tr '\n' ' ')"; fi

if is_active lodestone.socket && is_active lodestone-gpsd.socket && [ "$(systemctl is-enabled lodestone-gpsd.socket)" = enabled ] \
   && ! is_active lodestone.service && [ "$(stat -c %a /run/lodestone/lodestone.sock 2>/dev/null)" = 666 ]; then
  pass sockets-listen "service $(systemctl is-active lodestone.service), $(stat -c '%A %U' /run/lodestone/lodestone.sock)"
else
  fail sockets-listen "socket $(systemctl is-active lodestone.socket), gpsd socket $(systemctl is-active lodestone-gpsd.socket) \
$(systemctl is-enabled lodestone-gpsd.socket), service $(systemctl is-active lodestone.service), $(ls -l /run/lodestone 2>&1 | tr '\n' ' ')"
fi

# ---- (a) the first gpsd client starts the daemon
T=$(now_ms)
# VERSION, DEVICES, WATCH and a TPV: the shipped policy gives the gpsd endpoint reduced accuracy (a 5 km cell's
# centre, then nothing for 15 minutes), so one TPV is all a client gets within the minute.
LINES=$(timeout 90 gpspipe -w -n 4 127.0.0.1:2947 2>/tmp/gpspipe.err | tee /tmp/gpspipe.out | grep -c '"class"')
if [ "$LINES" -ge 4 ] && grep -q '"class":"TPV"' /tmp/gpspipe.out && wait_for 15 is_active lodestone.service; then
  pass activation-gpsd-ipv4 "$LINES JSON lines in $(( $(now_ms) - T )) ms; lodestone.service active, MainPID $(prop lodestone.service MainPID)"
else
  fail activation-gpsd-ipv4 "$LINES lines; service $(systemctl is-active lodestone.service); $(head -c 300 /tmp/gpspipe.err)"
  journalctl -u lodestone.service --no-pager -n 30 | sed 's/^/  /'
fi
head -4 /tmp/gpspipe.out | cut -c1-160 | sed 's/^/  /'
# The shipped policy's [gpsd] (reduced accuracy): a TPV with a position and none of altitude, speed, course or climb.
if [ "$KIND" = real ] && [ -f /etc/lodestone/policy.toml ]; then
  TPV=$(grep -m1 '"class":"TPV"' /tmp/gpspipe.out)
  if echo "$TPV" | grep -q '"lat":' && echo "$TPV" | grep -q '"lon":' \
     && ! echo "$TPV" | grep -qE '"(alt|altHAE|altMSL|speed|track|climb|epv)":'; then
    pass policy-gpsd-reduced "TPV with lat/lon only: $(echo "$TPV" | cut -c1-200)"
  else fail policy-gpsd-reduced "TPV: $(oneline "$TPV")"; fi
fi
LINES6=$(timeout 30 gpspipe -w -n 3 '[::1]:2947' 2>/dev/null | grep -c '"class"')
if [ "$LINES6" -ge 3 ]; then pass gpsd-ipv6 "$LINES6 lines from [::1]:2947"; else fail gpsd-ipv6 "$LINES6 lines"; fi
NATIVE=$(timeout 15 python3 -c '
import socket
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect("/run/lodestone/lodestone.sock")
print(len(s.recv(4096)))' 2>&1 | tail -1)
if [ "${NATIVE:-0}" -gt 0 ] 2>/dev/null; then pass native-socket "$NATIVE bytes first read as root"
else fail native-socket "$NATIVE"; fi
# STATUS= as `systemctl status` shows it: the board and its clients (refreshed every 5 s).
status_has_clients() { prop lodestone.service StatusText | grep -q "client"; }
if [ "$KIND" != real ] || wait_for 20 status_has_clients; then pass status-text "$(prop lodestone.service StatusText)"
else fail status-text "StatusText: $(prop lodestone.service StatusText)"; fi

PID=$(prop lodestone.service MainPID)
if [ "${PID:-0}" -gt 0 ]; then
  STATUS=$(cat /proc/"$PID"/status)
  GROUPS_OF=$(ps -o supgrp= -p "$PID")
  WHO="$(ps -o user=,group= -p "$PID" | tr -s ' ') [$GROUPS_OF]"
  if [ "$(ps -o user= -p "$PID")" = lodestone ] && echo "$GROUPS_OF" | grep -q i2c && echo "$GROUPS_OF" | grep -q gpio; then
    pass sandbox-account "$WHO"
  else fail sandbox-account "$WHO"; fi
  SANDBOX="$(echo "$STATUS" | grep -E '^(NoNewPrivs|Seccomp|CapBnd|CapEff):' | tr -s '\t ' ' ' | tr '\n' ' ')"
  if echo "$STATUS" | grep -q '^NoNewPrivs:.1' && echo "$STATUS" | grep -q '^Seccomp:.2' \
     && echo "$STATUS" | grep -q '^CapBnd:.0000000000000000'; then pass sandbox-kernel "$SANDBOX"
  else fail sandbox-kernel "$SANDBOX"; fi
else
  fail sandbox-account "no MainPID"
fi
# The variables were unset (unsetenv leaves /proc/PID/environ as it was at exec, so ask the stand-in, which logs them)
if [ "$KIND" = standin ]; then
  if journalctl -u lodestone.service -o cat --no-pager | grep -q 'LISTEN_\* left: \[\]'; then pass activation-env-unset "stand-in: no LISTEN_* after listeningSockets()"
  else fail activation-env-unset "$(journalctl -u lodestone.service -o cat --no-pager | grep 'LISTEN_' | tail -1)"; fi
fi
# DevicePolicy=/DeviceAllow= as written in the unit, in a transient service: a sensor bus opens, a disk does not
modprobe -q i2c-dev; modprobe -q i2c-stub chip_addr=0x76; modprobe -q spidev; modprobe -q industrialio
echo "  /proc/devices: $(grep -E ' (i2c|spi|iio|ttyS|gpiochip|ttyUSB|ttyACM|ttyAMA)$' /proc/devices | tr -s ' \n' ' ')"
I2C=$(ls /dev/i2c-* 2>/dev/null | head -1)
set --
while read -r line; do set -- "$@" -p "$line"; done <<UNIT
$(grep -E '^(DevicePolicy|DeviceAllow)=' /usr/lib/systemd/system/lodestone.service)
UNIT
DEVOUT=$(timeout 30 systemd-run --quiet --wait --pipe "$@" sh -c "
  (exec 3<>$I2C) && echo i2c-open; (exec 4<>/dev/ttyS0) && echo ttyS-open; (exec 5</dev/vda) && echo disk-open" 2>&1)
if echo "$DEVOUT" | grep -q i2c-open && echo "$DEVOUT" | grep -q ttyS-open && ! echo "$DEVOUT" | grep -q disk-open; then
  pass sandbox-devices "$I2C and /dev/ttyS0 open, /dev/vda refused"
else fail sandbox-devices "$(echo "$DEVOUT" | tr '\n' ' ')"; fi
# journald took the <N> prefixes: no message of the daemon starts with '<' or a timestamp, priorities were recorded
MSGS=$(journalctl -u lodestone.service _UID="$(id -u lodestone)" -o json --no-pager 2>/dev/null)
N=$(echo "$MSGS" | grep -c '"MESSAGE"')
BAD=$(journalctl -u lodestone.service _UID="$(id -u lodestone)" -o cat --no-pager 2>/dev/null | grep -cE '^(<[0-9]>|[0-9]{4}-[0-9]{2}-[0-9]{2}T)')
PRIOS=$(echo "$MSGS" | grep -oE '"PRIORITY":"[0-9]"' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
if [ "$N" -gt 0 ] && [ "$BAD" = 0 ]; then pass journal-format "$N messages, priorities: $PRIOS"
else fail journal-format "$N messages, $BAD with a prefix or timestamp left in"; fi

# ---- reload: SIGHUP, RELOADING=1 then READY=1, same process
PID=$(prop lodestone.service MainPID)
if timeout 30 systemctl reload lodestone.service && is_active lodestone.service && [ "$(prop lodestone.service MainPID)" = "$PID" ]; then
  pass reload "systemctl reload returned; MainPID $PID still active"
else fail reload "$(systemctl is-active lodestone.service), MainPID $(prop lodestone.service MainPID) (was $PID)"; fi

# ---- monitors outlive the daemon (issue 16): a region added as root goes to the store under StateDirectory= and the
# daemon started again by the socket still has it
if timeout 20 lodestone monitor add vm-test --id far --lat 48 --lon 8.5 --radius 1000 >/tmp/monitor-add.txt 2>&1; then MON_ADDED=1
else MON_ADDED=0; fi

# ---- (b) SIGTERM: STOPPING=1, exit status 0, within a few seconds; the sockets stay and start it again
C=$(cursor)
systemd-analyze log-level debug
T=$(now_ms)
timeout 30 systemctl stop lodestone.service
STOP_MS=$(( $(now_ms) - T ))
systemd-analyze log-level info
RESULT="Result=$(prop lodestone.service Result) ExecMainCode=$(prop lodestone.service ExecMainCode) ExecMainStatus=$(prop lodestone.service ExecMainStatus)"
STOPPING=$(journal_since "$C" | grep -c "lodestone.service: Got notification message from PID .*STOPPING=1")
if [ "$RESULT" = "Result=success ExecMainCode=1 ExecMainStatus=0" ] && [ "$STOPPING" -ge 1 ] && [ "$STOP_MS" -lt 10000 ]; then
  pass stop-sigterm "$STOP_MS ms, $RESULT, STOPPING=1 received"
else
  fail stop-sigterm "$STOP_MS ms, $RESULT, STOPPING=1 messages: $STOPPING"
  journal_since "$C" | grep lodestone | tail -15 | sed 's/^/  /'
fi
if is_active lodestone.socket && [ -S /run/lodestone/lodestone.sock ] && LINES=$(timeout 60 gpspipe -w -n 3 127.0.0.1:2947 2>/dev/null | grep -c '"class"') \
   && [ "$LINES" -ge 3 ] && wait_for 15 is_active lodestone.service; then
  pass reactivation "socket file kept (RuntimeDirectoryPreserve=yes); a new client started the daemon again"
else fail reactivation "socket $(systemctl is-active lodestone.socket), $(ls -l /run/lodestone 2>&1 | tr '\n' ' '), service $(systemctl is-active lodestone.service)"; fi
DB=/var/lib/lodestone/lodestone.sqlite
LISTED=$(timeout 20 lodestone monitor list vm-test 2>&1 | head -3 | tr '\n' ' ')
if [ "$MON_ADDED" = 1 ] && [ "$(stat -c %U "$DB" 2>/dev/null)" = lodestone ] && head -c 15 "$DB" | grep -q "SQLite format 3" \
   && echo "$LISTED" | grep -q far; then
  pass monitor-persisted "added before the stop, listed by the daemon the socket started again: $LISTED; $DB owned by lodestone"
else fail monitor-persisted "add: $MON_ADDED $(head -c 200 /tmp/monitor-add.txt), $(ls -l $DB 2>&1), list: $LISTED"; fi

# ---- (c) the watchdog restarts a daemon whose engine stopped stepping
mkdir -p /etc/systemd/system/lodestone.service.d
printf '[Service]\nEnvironment=LODESTONE_TEST_STALL_ENGINE_AFTER_S=3\nWatchdogSec=4s\n' > /etc/systemd/system/lodestone.service.d/stall.conf
systemctl daemon-reload
C=$(cursor)
T=$(now_ms)
timeout 60 systemctl restart lodestone.service
R0=$(prop lodestone.service NRestarts)
restarted() { [ "$(prop lodestone.service NRestarts)" -gt "$R0" ]; }
if wait_for 60 restarted; then
  WD=$(journal_since "$C" | grep -m1 "lodestone.service: Watchdog timeout")
  if [ -n "$WD" ]; then pass watchdog-restart "NRestarts $R0 -> $(prop lodestone.service NRestarts) after $(( $(now_ms) - T )) ms; journal: $WD"
  else fail watchdog-restart "restarted, but no 'Watchdog timeout' in the journal"; fi
else
  fail watchdog-restart "NRestarts $(prop lodestone.service NRestarts) after 60 s; $(systemctl is-active lodestone.service)"
  journal_since "$C" | grep lodestone | tail -15 | sed 's/^/  /'
fi
rm -r /etc/systemd/system/lodestone.service.d
systemctl daemon-reload
timeout 60 systemctl restart lodestone.service
if wait_for 15 is_active lodestone.service; then pass watchdog-recovered "running again without the stall"
else fail watchdog-recovered "$(systemctl is-active lodestone.service)"; fi

# ---- (d) the shipped policy (/etc/lodestone/policy.toml), for two ordinary users the daemon knows only by SO_PEERCRED:
# alice (no group): [default], location denied and no motion; bob (group lodestone): the group's rule, motion but still
# no location. Root, the control, gets coordinates from the same daemon.
if [ "$KIND" = real ] && [ -f /etc/lodestone/policy.toml ]; then
  useradd -m -s /bin/sh alice && useradd -m -s /bin/sh -G lodestone bob
  # as USER COMMAND...: the user's uid, gid and groups (setpriv: no PAM, no login session)
  as() { _u=$1; shift; env HOME="/home/$_u" USER="$_u" setpriv --reuid="$_u" --regid="$_u" --init-groups "$@"; }
  echo "  users: $(id alice); $(id bob)"
  OUTA=$(as alice timeout 60 lodestone watch --location --heading --json --count 5 2>/tmp/alice.err); RCA=$?
  if [ "$RCA" = 0 ] && [ "$(echo "$OUTA" | grep -c .)" = 1 ] && echo "$OUTA" | grep -q '"authorizationDenied":true' \
     && ! echo "$OUTA" | grep -qE 'latitude|longitude|"heading"'; then
    pass policy-user-location-denied "alice: watch --location --heading printed one update, denied, no coordinate, no heading"
  else fail policy-user-location-denied "alice: exit $RCA, out: $(oneline "$OUTA"), err: $(oneline "$(cat /tmp/alice.err)")"; fi
  OUTM=$(as alice timeout 60 lodestone watch --motion --altitude --json --count 2 2>/tmp/alice.err); RCM=$?
  if [ "$RCM" != 0 ] && [ -z "$OUTM" ] && grep -q denied /tmp/alice.err; then
    pass policy-user-motion-denied "alice: exit $RCM, nothing printed, $(oneline "$(cat /tmp/alice.err)")"
  else fail policy-user-motion-denied "alice: exit $RCM, out: $(oneline "$OUTM"), err: $(oneline "$(cat /tmp/alice.err)")"; fi
  OUTC=$(as alice timeout 30 lodestone clients 2>/tmp/alice.err); RCC=$?
  if [ "$RCC" != 0 ] && ! echo "$OUTC" | grep -q uid; then
    pass policy-user-clients-refused "alice: exit $RCC, $(oneline "$(cat /tmp/alice.err)")"
  else fail policy-user-clients-refused "alice: exit $RCC, out: $(oneline "$OUTC")"; fi
  # The gpsd endpoint as alice: what [gpsd] gives every local user, no attitude (motion = false) in 6 s of watching.
  as alice timeout 6 gpspipe -w 127.0.0.1:2947 >/tmp/alice.gpsd 2>&1
  if grep -q '"class":"VERSION"' /tmp/alice.gpsd && ! grep -q '"class":"ATT"' /tmp/alice.gpsd \
     && ! grep '"class":"TPV"' /tmp/alice.gpsd | grep -qE '"(alt|altHAE|altMSL|speed|track)":'; then
    pass policy-gpsd-user "alice on 127.0.0.1:2947: $(grep -o '"class":"[A-Z]*"' /tmp/alice.gpsd | sort | uniq -c | tr -s ' \n' ' ')"
  else fail policy-gpsd-user "$(oneline "$(cut -c1-160 /tmp/alice.gpsd)")"; fi
  OUTB=$(as bob timeout 60 lodestone watch --heading --json --count 2 2>/tmp/bob.err); RCB=$?
  if [ "$RCB" = 0 ] && [ "$(echo "$OUTB" | grep -c '"heading"')" = 2 ]; then
    pass policy-group-motion "bob (group lodestone): 2 headings: $(echo "$OUTB" | head -1 | cut -c1-160)"
  else fail policy-group-motion "bob: exit $RCB, out: $(oneline "$OUTB"), err: $(oneline "$(cat /tmp/bob.err)")"; fi
  OUTB=$(as bob timeout 60 lodestone watch --location --json --count 3 2>/tmp/bob.err); RCB=$?
  if [ "$RCB" = 0 ] && [ "$(echo "$OUTB" | grep -c .)" = 1 ] && echo "$OUTB" | grep -q '"authorizationDenied":true' \
     && ! echo "$OUTB" | grep -qE 'latitude|longitude'; then
    pass policy-group-location-denied "bob: one update, denied"
  else fail policy-group-location-denied "bob: exit $RCB, out: $(oneline "$OUTB"), err: $(oneline "$(cat /tmp/bob.err)")"; fi
  OUTR=$(timeout 90 lodestone watch --location --json --count 1 2>/tmp/root.err); RCR=$?
  if [ "$RCR" = 0 ] && echo "$OUTR" | grep -q latitudeDeg; then
    pass policy-root-location "root: $(echo "$OUTR" | cut -c1-160)"
  else fail policy-root-location "root: exit $RCR, out: $(oneline "$OUTR"), err: $(oneline "$(cat /tmp/root.err)")"; fi
fi

# ---- (e) state over a stop of everything: the service and both sockets stopped, started again, the region still there
if [ "$KIND" = real ]; then
  timeout 60 systemctl stop lodestone.service lodestone.socket lodestone-gpsd.socket
  STOPPED="service $(systemctl is-active lodestone.service), sockets $(systemctl is-active lodestone.socket) $(systemctl is-active lodestone-gpsd.socket)"
  timeout 60 systemctl start lodestone.socket lodestone-gpsd.socket
  LISTED=$(timeout 60 lodestone monitor list vm-test 2>&1 | head -3 | tr '\n' ' ')
  if [ "$STOPPED" = "service inactive, sockets inactive inactive" ] && echo "$LISTED" | grep -q far \
     && [ "$(stat -c %U "$DB" 2>/dev/null)" = lodestone ]; then
    pass state-kept-over-stop "$STOPPED, then the sockets started again: $LISTED"
  else fail state-kept-over-stop "$STOPPED; list: $LISTED; $(ls -l "$DB" 2>&1)"; fi
fi

echo "security exposure: $(systemd-analyze security lodestone.service 2>/dev/null | tail -1)"
journalctl -u lodestone.service --no-pager -o short-monotonic > "$OUT/lodestone-journal.txt" 2>&1

# ---- (f) dpkg -r: the program, units and sockets gone, the conffiles and the state kept; dpkg --purge: those too, the
# user and groups kept (Debian keeps system accounts: packaging/README.md)
if [ -n "$DEB" ]; then
  T=$(now_ms)
  RM_OUT=$(dpkg -r lodestone 2>&1); RM_RC=$?
  RM_MS=$(( $(now_ms) - T ))
  echo "$RM_OUT" | sed 's/^/  dpkg: /'
  LEFT=$(ls /usr/bin/lodestone /usr/lib/systemd/system/lodestone* /usr/lib/sysusers.d/lodestone.conf /run/lodestone/lodestone.sock 2>/dev/null | tr '\n' ' ')
  KEPT=$(ls /etc/lodestone/policy.toml /etc/lodestone/board.json "$DB" 2>&1 | tr '\n' ' ')
  PORT=$(python3 -c '
import socket
s = socket.socket(); s.settimeout(5)
try:
    s.connect(("127.0.0.1", 2947)); print("open")
except OSError as e:
    print("closed:", e.strerror)' 2>&1)
  if [ "$RM_RC" = 0 ] && [ "$(dpkg-query -W -f='${Status}' lodestone 2>/dev/null)" = "deinstall ok config-files" ] \
     && [ -z "$LEFT" ] && ! is_active lodestone.service && ! is_active lodestone.socket && ! is_active lodestone-gpsd.socket \
     && [ -f /etc/lodestone/policy.toml ] && [ -f /etc/lodestone/board.json ] && [ -f "$DB" ] && echo "$PORT" | grep -q closed; then
    pass dpkg-remove "$RM_MS ms; units, binary and sockets gone, port 2947 $PORT; kept: $KEPT"
  else fail dpkg-remove "exit $RM_RC, status $(dpkg-query -W -f='${Status}' lodestone 2>&1); left: $LEFT; kept: $KEPT; port $PORT; \
service $(systemctl is-active lodestone.service), sockets $(systemctl is-active lodestone.socket) $(systemctl is-active lodestone-gpsd.socket)"; fi
  T=$(now_ms)
  PURGE_OUT=$(dpkg --purge lodestone 2>&1); PURGE_RC=$?
  PURGE_MS=$(( $(now_ms) - T ))
  echo "$PURGE_OUT" | sed 's/^/  dpkg: /'
  # (the package's units only: the image's own lodestone-harness.service stays)
  LEFT=$(for d in /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked; do
    ls -d "$d"/lodestone.s* "$d"/lodestone-gpsd.s* "$d"/*/lodestone.s* "$d"/*/lodestone-gpsd.s* 2>/dev/null; done
    ls -d /etc/lodestone /var/lib/lodestone /usr/share/doc/lodestone 2>/dev/null)
  LEFT=$(echo "$LEFT" | tr '\n' ' ' | sed 's/ *$//')
  if [ "$PURGE_RC" = 0 ] && [ -z "$(dpkg-query -W -f='${Status}' lodestone 2>/dev/null | grep -v not-installed)" ] \
     && [ -z "$LEFT" ] && id lodestone >/dev/null 2>&1 && getent group lodestone i2c spi iio gpio >/dev/null; then
    pass dpkg-purge "$PURGE_MS ms; /etc/lodestone, /var/lib/lodestone and the units' state gone; kept: $(id lodestone)"
  else fail dpkg-purge "exit $PURGE_RC, status $(dpkg-query -W -f='${Status}' lodestone 2>&1); left: $LEFT; user: $(id lodestone 2>&1)"; fi
fi
echo "guest: $FAILS failed"
exit "$FAILS"
