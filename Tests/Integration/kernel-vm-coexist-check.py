#!/usr/bin/env python3
"""Host-side check of the coexistence round of the kernel-VM run (kernel-vm-coexist-guest.sh): with a stand-in for
iio-sensor-proxy holding the LIS3MDL's IIO buffer, `lodestone read --iio lis3mdl` fails with one line that names the
device, the holder (its full name and pid, found in /proc/*/fd) and what to do; once it lets go, the read works."""
import os, sys

out = sys.argv[1]
failures = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def text(name):
    p = os.path.join(out, name)
    return open(p).read().strip() if os.path.exists(p) else None


check(text("setup-error") is None, "the guest found the lis3mdl IIO device (%s)" % (text("setup-error") or text("device")))
check(text("buffer-enable") == "1", "the stand-in enabled the device's buffer (buffer/enable = %r)" % text("buffer-enable"))
check(text("holder.comm") == "iio-sensor-prox", "the holder's comm is the real daemon's (%r)" % text("holder.comm"))
pid, device, err = text("holder.pid"), text("device"), text("held.err") or ""
lines = [l for l in err.splitlines() if l.strip()]
check(text("held.rc") not in (None, "0"), "lodestone read fails while the buffer is held (exit %s)" % text("held.rc"))
check(len(lines) == 1, "it says so in one line (%d lines: %r)" % (len(lines), err))
line = lines[0] if lines else ""
check(device is not None and ("device %s (lis3mdl)" % device) in line, "the line names the device: %r" % line)
check("[errno 16]" in line, "the line gives EBUSY")
check(("iio-sensor-proxy (pid %s) holds its buffer" % pid) in line, "the line names the holder and its pid")
check("sudo systemctl stop iio-sensor-proxy" in line, "the line says what to do")
check(text("after.rc") == "0" and '"mag_x_ut"' in (text("after.json") or ""),
      "after the holder lets go the same read works (exit %s)" % text("after.rc"))
print("coexistence round: %s s in the guest" % text("seconds"))
if failures:
    print("kernel-vm coexistence: %d check(s) failed" % len(failures))
    sys.exit(1)
print("kernel-vm coexistence: all checks passed")
