#!/usr/bin/env python3
"""Serve a fixed sequence of gpsd report lines to gpsd clients, as a stand-in for `lodestone serve`.

Loopback only (127.0.0.1, an ephemeral port unless --port), bounded: it ends when the process that started it
ends (the test run; the test itself stops it when done) and in any case after --max-seconds. Not after a time of its
own: in a full test run the test's steps may be resumed minutes late (its task waits for the concurrency pool while
other tests block it), and a server that had timed out meanwhile made the clients fail with "connection refused".
Every connection gets:
the first line of LINES (the VERSION banner) at once; then, after the client's first request line (or
--wait-request seconds), the second group of lines (the reply to ?WATCH: DEVICES and WATCH); then the remaining
lines, one every --interval seconds. The connection stays open afterwards (cgps keeps showing the last fix) until
the client closes it or the run ends. LINES holds one report a line, each ending in CR LF, exactly as the Swift
builders wrote them; a line "#REPLY-END" separates the ?WATCH reply from the stream.

Usage: serve_lines.py LINES --port-file PATH [--port 0] [--interval 0.1] [--max-seconds 900]
Written for Lodestone's gpsd tests (Tests/LodestoneDaemonTests/GPSDClientsTests.swift).
"""
import argparse
import os
import socket
import sys
import threading
import time


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    lines = data.split(b'\n')
    out = [l + b'\n' for l in lines if l]
    banner = out[0]
    rest = out[1:]
    marker = [i for i, l in enumerate(rest) if l.strip() == b'#REPLY-END']
    if marker:
        reply, stream = rest[:marker[0]], rest[marker[0] + 1:]
    else:
        reply, stream = [], rest
    return banner, reply, stream


def serve_client(conn, banner, reply, stream, args, deadline):
    conn.settimeout(0.2)
    try:
        conn.sendall(banner)
        got = b''
        wait_end = time.time() + args.wait_request
        while b'\n' not in got and time.time() < wait_end:
            try:
                d = conn.recv(4096)
            except socket.timeout:
                continue
            if not d:
                return
            got += d
        for l in reply:
            conn.sendall(l)
        for l in stream:
            if time.time() > deadline:
                return
            conn.sendall(l)
            time.sleep(args.interval)
        while time.time() < deadline:
            try:
                d = conn.recv(4096)
            except socket.timeout:
                continue
            if not d:
                return
    except OSError:
        return
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('lines')
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--port-file', required=True)
    ap.add_argument('--interval', type=float, default=0.1)
    ap.add_argument('--wait-request', type=float, default=1.0)
    ap.add_argument('--max-seconds', type=float, default=900.0)
    args = ap.parse_args()
    banner, reply, stream = load(args.lines)
    deadline = time.time() + args.max_seconds
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(('127.0.0.1', args.port))
    srv.listen(8)
    srv.settimeout(0.2)
    tmp = args.port_file + '.tmp'
    with open(tmp, 'w') as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(tmp, args.port_file)
    parent = os.getppid()
    threads = []
    while time.time() < deadline and os.getppid() == parent:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        except OSError as e:  # a connection reset before it was accepted, out of descriptors: keep serving
            print(f'serve_lines.py: accept: {e}', file=sys.stderr, flush=True)
            time.sleep(0.05)
            continue
        t = threading.Thread(
            target=serve_client, args=(conn, banner, reply, stream, args, deadline), daemon=True)
        t.start()
        threads.append(t)
    srv.close()


if __name__ == '__main__':
    main()
