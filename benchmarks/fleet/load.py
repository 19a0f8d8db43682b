#!/usr/bin/env python3
"""Many simulated boards against one MQTT broker (benchmarks/fleet, issue 20).

Each board is one MQTT 3.1.1 connection (its own TCP socket, client id lodestone-<board>, a retained last will on
lodestone/<board>/status) that publishes, at QoS 1 with at most 16 messages awaiting PUBACK as `lodestone serve` does,
the payloads `lodestone serve --mqtt` really published in phase 1 (one recorded message per line, `topic payload`),
cycled, with its own board id in the topic and its own `seq`. Standard library only: the MQTT framing is the
protocol's own (CONNECT, CONNACK, PUBLISH with a packet id, PUBACK), written here so that the load generator needs
nothing beyond Debian's python3.

Usage: load.py PORT BOARDS RATE_HZ SECONDS RECORDED_FILE BROKER_PID
The measured window starts when every board is connected and lasts SECONDS. Prints one JSON line: boards connected,
messages sent and acknowledged in the window, acknowledged per second, payload bytes, errors, and the broker's CPU over
the window (utime + stime of /proc/BROKER_PID/stat, per cent of one core).
"""
import asyncio
import os
import json
import sys
import time


def remaining_length(n):
    out = bytearray()
    while True:
        b = n % 128
        n //= 128
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def cpu_s(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def utf8(s):
    b = s.encode()
    return len(b).to_bytes(2, "big") + b


def connect_packet(client_id, will_topic):
    # Protocol name, level 4 (3.1.1), flags: clean session, will (QoS 1, retained), keep-alive 30 s.
    flags = 0x02 | 0x04 | 0x08 | 0x20
    variable = utf8("MQTT") + bytes([4, flags]) + (30).to_bytes(2, "big")
    payload = utf8(client_id) + utf8(will_topic) + utf8("offline")
    body = variable + payload
    return bytes([0x10]) + remaining_length(len(body)) + body


def publish_packet(topic, payload, packet_id):
    body = utf8(topic) + packet_id.to_bytes(2, "big") + payload
    return bytes([0x32]) + remaining_length(len(body)) + body  # PUBLISH, QoS 1


async def read_packet(reader):
    head = await reader.readexactly(1)
    multiplier, length = 1, 0
    while True:
        b = (await reader.readexactly(1))[0]
        length += (b & 0x7F) * multiplier
        multiplier *= 128
        if not b & 0x80:
            break
    return head[0], await reader.readexactly(length)


async def board(index, port, rate_hz, seconds, recorded, stats, all_connected):
    name = "sim-%05d" % index
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(connect_packet("lodestone-" + name, "lodestone/%s/status" % name))
        kind, body = await read_packet(reader)
        if kind != 0x20 or body[1] != 0:
            raise OSError("CONNACK refused")
        stats["connected"] += 1
        if stats["connected"] + stats["errors"] == stats["boards"]:
            stats["publishing_from"] = time.monotonic()
            stats["cpu_from"] = cpu_s(stats["broker_pid"])
            all_connected.set()
        # The measured window starts when every board is connected (connecting thousands takes a while).
        await all_connected.wait()
        end = stats["publishing_from"] + seconds
        window = asyncio.Semaphore(16)

        async def acks():
            while True:
                kind, _ = await read_packet(reader)
                if kind == 0x40:  # PUBACK
                    stats["acknowledged"] += 1
                    window.release()

        ack_task = asyncio.create_task(acks())
        seq, packet_id = 0, 0
        period = 1.0 / rate_hz
        # Boards start spread over one period, as a fleet's do.
        next_t = stats["publishing_from"] + period * (index % 997) / 997
        while time.monotonic() < end:
            await asyncio.sleep(max(0.0, next_t - time.monotonic()))
            next_t += period
            suffix, before, after = recorded[seq % len(recorded)]
            seq += 1
            payload = before + str(seq).encode() + after
            packet_id = packet_id % 65535 + 1
            await window.acquire()
            writer.write(publish_packet("lodestone/%s/%s" % (name, suffix), payload, packet_id))
            stats["payload_bytes"] += len(payload)
            stats["sent"] += 1
        if "cpu_to" not in stats:
            stats["cpu_to"] = cpu_s(stats["broker_pid"])
            stats["acknowledged_in_window"] = stats["acknowledged"]
        await asyncio.sleep(1.0)  # the last PUBACKs
        ack_task.cancel()
        writer.write(bytes([0xE0, 0]))  # DISCONNECT
        writer.close()
    except (OSError, asyncio.IncompleteReadError):
        stats["errors"] += 1
        if stats["connected"] + stats["errors"] == stats["boards"] and not all_connected.is_set():
            stats["publishing_from"] = time.monotonic()
            stats["cpu_from"] = cpu_s(stats["broker_pid"])
            all_connected.set()


async def main():
    port, boards, rate_hz, seconds, recorded_file, broker_pid = (
        int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
    recorded = []
    for line in open(recorded_file):
        topic, _, payload = line.rstrip("\n").partition(" ")
        parts = topic.split("/")
        if len(parts) == 3 and parts[0] == "lodestone" and parts[2] != "status" and payload.startswith("{"):
            # Each payload as recorded, its seq to be replaced by the board's own.
            m = json.loads(payload)
            m["seq"] = "@SEQ@"
            text = json.dumps(m, separators=(",", ":"), sort_keys=True).encode()
            before, _, after = text.partition(b'"@SEQ@"')
            recorded.append((parts[2], before, after))
    stats = dict(connected=0, sent=0, acknowledged=0, payload_bytes=0, errors=0, boards=boards,
                 broker_pid=broker_pid)
    all_connected = asyncio.Event()
    start = time.monotonic()
    await asyncio.gather(*(board(i, port, rate_hz, seconds, recorded, stats, all_connected) for i in range(boards)))
    stats.update(rate_hz=rate_hz, connect_s=round(stats.get("publishing_from", start) - start, 1), seconds=seconds,
                 acknowledged_per_s=round(stats.get("acknowledged_in_window", 0) / seconds, 1),
                 broker_cpu_percent=round(100 * (stats.get("cpu_to", 0) - stats.get("cpu_from", 0)) / seconds, 1))
    for k in ("publishing_from", "cpu_from", "cpu_to", "broker_pid"):
        stats.pop(k, None)
    print(json.dumps(stats))


asyncio.run(main())
