#!/usr/bin/env python3
"""N real `lodestone serve --mqtt` daemons (the simulated board, real time, the default rates) against one mosquitto.

Usage: daemons.py LODESTONE PORT BROKER_PID N WARMUP_S WINDOW_S WORKDIR

Starts N daemons (board ids fleet-1 … fleet-N, each its own socket, state directory and noise seed), waits until every
board has published (or WARMUP_S), then measures over WINDOW_S seconds with one subscriber taking everything
(mosquitto_sub, QoS 1, arrival times from its %U): messages/s and payload bytes/s received, CPU (utime + stime from
/proc, per cent of one core) of the broker and of the daemons, the daemons' resident memory, and how fast each board's
session time advanced against the wall clock (1.0: the board keeps up; below: the machine no longer holds N boards).
Prints one JSON object. Every process it started is stopped (SIGTERM, then SIGKILL) before it returns.
"""
import json
import os
import signal
import subprocess
import sys
import time

CLK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK  # utime, stime
    except OSError:
        return 0.0


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def read_lines(path):
    """(arrival s, topic, payload) of each line `%U %t %p` written so far."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3:
                try:
                    out.append((float(parts[0]), parts[1], parts[2]))
                except ValueError:
                    pass
    return out


def main():
    lodestone, port, broker, n, warmup_s, window_s, work = sys.argv[1:8]
    port, broker, n, warmup_s, window_s = int(port), int(broker), int(n), float(warmup_s), float(window_s)
    os.makedirs(work, exist_ok=True)
    sub_path = os.path.join(work, f"sub-{n}.out")
    sub = subprocess.Popen(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-F", "%U %t %p", "-t", "lodestone/#"],
        stdout=open(sub_path, "w"), stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    daemons = []
    started = time.time()
    try:
        for i in range(1, n + 1):
            conf = os.path.join(work, f"fleet-{i}.toml")
            with open(conf, "w") as f:
                f.write(f'[mqtt]\nboard_id = "fleet-{i}"\n')
            daemons.append(subprocess.Popen(
                [lodestone, "serve", "--socket", os.path.join(work, f"fleet-{i}.sock"), "--gpsd-listen", "none",
                 "--state-dir", os.path.join(work, f"state-{i}"), "--mqtt", f"mqtt://127.0.0.1:{port}",
                 "--mqtt-config", conf, "--seed", str(i)],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, f"fleet-{i}.err"), "w")))
        # Up: every board has published something beyond its status (or the warm-up is over).
        while time.time() - started < warmup_s:
            boards = {t.split("/")[1] for _, t, p in read_lines(sub_path) if p.startswith("{")}
            if len(boards) >= n:
                break
            time.sleep(1)
        up_s = time.time() - started
        boards_up = len({t.split("/")[1] for _, t, p in read_lines(sub_path) if p.startswith("{")})
        time.sleep(5)  # past the start's burst (retained discovery, first plan)
        pids = [d.pid for d in daemons]
        t0 = time.time()
        load0 = open("/proc/loadavg").read().split()[0]
        c0 = {p: cpu_s(p) for p in pids}
        b0 = cpu_s(broker)
        time.sleep(window_s)
        t1 = time.time()
        c1 = {p: cpu_s(p) for p in pids}
        b1 = cpu_s(broker)
        rss = [rss_kb(p) for p in pids]
        load1 = open("/proc/loadavg").read().split()[0]
        alive = sum(1 for d in daemons if d.poll() is None)
        time.sleep(1)  # the last acknowledged messages reach the subscriber
        lines = [x for x in read_lines(sub_path) if t0 <= x[0] <= t1 and x[2].startswith("{")]
        payload_bytes = sum(len(p.encode()) for _, _, p in lines)
        # Session time against the wall clock, per board: (t_s span) / (arrival span) over its messages in the window.
        spans = {}
        for arrival, topic, p in lines:
            try:
                ts = json.loads(p).get("t_s")
            except ValueError:
                continue
            if ts is None:
                continue
            b = topic.split("/")[1]
            lo, hi = spans.get(b, ((arrival, ts), (arrival, ts)))
            spans[b] = (min(lo, (arrival, ts)), max(hi, (arrival, ts)))
        ratios = sorted((hi[1] - lo[1]) / (hi[0] - lo[0]) for lo, hi in spans.values() if hi[0] - lo[0] > window_s / 3)
        wall = t1 - t0
        daemon_cpu = sum(c1[p] - c0[p] for p in pids) / wall * 100
        print(json.dumps(dict(
            boards=n, boards_up=boards_up, up_s=round(up_s, 1), alive=alive, window_s=round(wall, 1),
            messages_per_s=round(len(lines) / wall, 2), payload_bytes_per_s=round(payload_bytes / wall, 1),
            boards_in_window=len({t.split("/")[1] for _, t, _ in lines}),
            broker_cpu_percent=round((b1 - b0) / wall * 100, 2),
            daemons_cpu_percent=round(daemon_cpu, 1), cpu_percent_per_board=round(daemon_cpu / n, 2),
            rss_mb_per_board=round(sum(rss) / len(rss) / 1024, 1) if rss else 0,
            session_speed_min=round(ratios[0], 3) if ratios else None,
            session_speed_median=round(ratios[len(ratios) // 2], 3) if ratios else None,
            loadavg_start=float(load0), loadavg_end=float(load1))))
    finally:
        for d in daemons:
            if d.poll() is None:
                d.send_signal(signal.SIGTERM)
        deadline = time.time() + 20
        for d in daemons:
            try:
                d.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                d.kill()
                d.wait()
        sub.terminate()
        sub.wait()


if __name__ == "__main__":
    main()
