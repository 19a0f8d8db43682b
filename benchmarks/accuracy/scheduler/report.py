#!/usr/bin/env python3
"""The scheduler evaluation's report: reads what scheduler-harness wrote (summaries.json and the per-second timelines)
and writes results.md (the table, the targets met or not with their numbers, the exact command) and plan_day.png (the
adaptive plan over the day) beside this script.

    python3 benchmarks/accuracy/scheduler/report.py /tmp/sched [--command "…the harness command…"]
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = ["adaptive", "always-on", "duty-cycle", "raps"]



# Heading of the section report.py leaves as it is (see main()).
MONITORING_SECTION = "## Monitoring alone against always-on (issue 16)"

def fmt(v, digits=1, unit=""):
    if v is None:
        return "–"
    return f"{v:.{digits}f}{unit}"


def pair(a, b, digits=1):
    return f"{fmt(a, digits)} / {fmt(b, digits)}"


def share(v):
    return "–" if v is None else f"{100 * v:.1f} %"


def table(summaries):
    head = ("| demand | policy | GNSS mAh | IMU, mag, baro mAh | total mAh | mean mW | battery life h (sensors only / "
            "with board) | delivered | error p50 / p95 m | meeting accuracy (true error / claimed) | stale-marked | "
            "too old, unmarked | heading error p50 / p95 ° | activity delay p50 / p90 s (missed of changes) | "
            "wake: plan p50 / max s | wake: fix p50 / max s (stops in the open) | fix after leaving a building p50 / max s | "
            "stationary draw mA (sensors / "
            "with GNSS) | GNSS off after a stop p50 / max s | plans per hour |")
    lines = [head, "|" + "|".join(["---"] * (head.count("|") - 1)) + "|"]
    for s in summaries:
        per = s["sensorMilliAmpHours"]
        sensors = ", ".join(f"{per[k]:.1f}" for k in ["imu", "mag", "baro"] if k in per)
        life_sensors = s.get("batteryLifeSensorsOnlyH")
        lines.append(
            f"| {s['demand']} | {s['policy']} | {s['gnssMilliAmpHours']:.1f} | {sensors} | {s['totalMilliAmpHours']:.1f} | "
            f"{s['meanMilliWatt']:.2f} | {fmt(life_sensors, 0)} / {s['batteryLifeWithBaselineH']:.1f} | {s['delivered']} | "
            f"{pair(s.get('deliveredErrorP50M'), s.get('deliveredErrorP95M'))} | "
            f"{share(s.get('shareMeetingByTrueError'))} / {share(s.get('shareMeetingByClaim'))} | {s['staleMarked']} | "
            f"{s['olderThanAllowedUnmarked']} | {pair(s.get('headingErrorP50Deg'), s.get('headingErrorP95Deg'))} | "
            f"{pair(s.get('activityDelayP50S'), s.get('activityDelayP90S'))} ({s['activityMissed']} of {s['activityChanges']}) | "
            f"{pair(s.get('wakePlanP50S'), s.get('wakePlanMaxS'))} | "
            f"{pair(s.get('wakeFixP50S'), s.get('wakeFixMaxS'))} ({len(s['wakeFixDelaysS'])} of {s['wakeFixStarts']}) | "
            f"{pair(s.get('wakeFixAfterOutageP50S'), s.get('wakeFixAfterOutageMaxS'))} "
            f"({len(s['wakeFixAfterOutageDelaysS'])} of {s['wakeFixAfterOutageStarts']}) | "
            f"{pair(s.get('stationarySensorsMilliAmp'), s.get('stationaryTotalMilliAmp'), 3)} | "
            f"{pair(s.get('gnssOffAfterStopP50S'), s.get('gnssOffAfterStopMaxS'))} | {s['replansPerHour']:.1f} |")
    return "\n".join(lines)


ACTIVITIES = ["stationary", "walk", "run", "cycle", "drive"]


def heading_by_activity(summaries):
    """Heading error p50 / p95 per true activity (1 Hz samples while heading is wanted), one row per run."""
    rows = [s for s in summaries if s.get("headingErrorByActivity")]
    if not rows:
        return "(no run wanted heading)"
    head = ("| demand | policy | seed | " + " | ".join(f"{a}: p50 / p95 ° (samples; within stated)" for a in ACTIVITIES)
            + " | all: within stated | magnetic only (no fix yet) |")
    lines = [head, "|" + "|".join(["---"] * (len(ACTIVITIES) + 5)) + "|"]

    def cell(f):
        within = f" {f['withinStatedShare'] * 100:.0f} %" if "withinStatedShare" in f else ""
        return f"{pair(f['p50Deg'], f['p95Deg'])} ({f['samples']};{within})"

    for s in rows:
        by = s["headingErrorByActivity"]
        cells = [cell(by[a]) if a in by else "–" for a in ACTIVITIES]
        share = s.get("headingWithinStatedShare")
        lines.append(f"| {s['demand']} | {s['policy']} | {s.get('seed', '')} | " + " | ".join(cells)
                     + f" | {'–' if share is None else f'{share * 100:.1f} %'} | {s.get('headingMagneticOnlySamples', '–')} |")
    return "\n".join(lines)


def verdict(ok):
    return "**met**" if ok else "**not met**"


def targets(summaries):
    out = []
    by = {(s["demand"], s["policy"]): s for s in summaries}
    for demand in sorted({s["demand"] for s in summaries}):
        a, on = by.get((demand, "adaptive")), by.get((demand, "always-on"))
        if not a:
            continue
        out.append(f"\n**{demand}** (adaptive):\n")
        if on:
            g = on["gnssMilliAmpHours"] / a["gnssMilliAmpHours"] if a["gnssMilliAmpHours"] > 0 else float("inf")
            t = on["totalMilliAmpHours"] / a["totalMilliAmpHours"] if a["totalMilliAmpHours"] > 0 else float("inf")
            out.append(f"- GNSS energy ≥ 4× lower than always-on: {g:.1f}× ({a['gnssMilliAmpHours']:.1f} vs "
                       f"{on['gnssMilliAmpHours']:.1f} mAh) — {verdict(g >= 4)}")
            out.append(f"- total sensor energy (GNSS included) ≥ 3× lower: {t:.1f}× ({a['totalMilliAmpHours']:.1f} vs "
                       f"{on['totalMilliAmpHours']:.1f} mAh) — {verdict(t >= 3)}")
        m = a.get("shareMeetingByTrueError")
        out.append(f"- ≥ 95 % of delivered locations meet the requested accuracy "
                   f"({fmt(a.get('requiredAccuracyM'), 0)} m) by their true error: {share(m)} of {a['delivered']} "
                   f"(by claimed accuracy {share(a.get('shareMeetingByClaim'))}, by construction: less accurate ones are "
                   f"withheld, {a['withheldInaccurate']} were) — {verdict(m is not None and m >= 0.95)}")
        out.append(f"- no delivered location older than allowed without the stale mark (age by the time since the "
                   f"engine's last fix): {a['olderThanAllowedUnmarked']} ({a['staleMarked']} marked stale) — "
                   f"{verdict(a['olderThanAllowedUnmarked'] == 0)}")
        st = a.get("stationaryTotalMilliAmp")
        out.append(f"- stationary draw ≤ 0.5 mA (modelled, sensors and receiver, from 30 s after each stop): "
                   f"{fmt(st, 3)} mA (sensors alone {fmt(a.get('stationarySensorsMilliAmp'), 3)} mA) — "
                   f"{verdict(st is not None and st <= 0.5)}")
        wp, wf = a.get("wakePlanMaxS"), a.get("wakeFixMaxS")
        fix_ok = wf is not None and wf <= 2 and len(a["wakeFixDelaysS"]) == a["wakeFixStarts"]
        out.append(f"- wake to full service ≤ 2 s after motion starts ({a['motionStarts']} starts after stops ≥ 60 s): "
                   f"plan for a moving carrier applied after p50 {fmt(a.get('wakePlanP50S'), 2)} s, max {fmt(wp, 2)} s — "
                   f"{verdict(wp is not None and wp <= 2)}; first delivered location meeting the accuracy after stops "
                   f"in the open ({a['wakeFixStarts']}, reached in {len(a['wakeFixDelaysS'])}): p50 "
                   f"{fmt(a.get('wakeFixP50S'), 1)} s, max {fmt(wf, 1)} s — {verdict(fix_ok)}. Leaving a building "
                   f"({a['wakeFixAfterOutageStarts']} starts) the receiver reacquires after the outage, whatever the "
                   f"policy: p50 {fmt(a.get('wakeFixAfterOutageP50S'), 1)} s, max "
                   f"{fmt(a.get('wakeFixAfterOutageMaxS'), 1)} s (not held to the 2 s target)")
        off = a.get("gnssOffAfterStopMaxS")
        out.append(f"- GNSS off or power-save within 30 s of stopping: max {fmt(off, 1)} s, stops ≥ 60 s where it never "
                   f"was: {a['gnssNeverOffStops']} — {verdict(off is not None and off <= 30 and a['gnssNeverOffStops'] == 0)}")
    return "\n".join(out)


def read_timeline(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def plot(timelines, demand, out_png, sensors):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_timeline(timelines[f"timeline-{demand}-adaptive.csv"])
    always = timelines.get(f"timeline-{demand}-always-on.csv")
    always_rows = read_timeline(always) if always else []
    h = [float(r["t_s"]) / 3600 for r in rows]
    fig, ax = plt.subplots(5, 1, figsize=(14, 12), sharex=True,
                           gridspec_kw={"height_ratios": [1.2, 1.4, 1, 1.6, 0.8]})
    kinds = ["stationary", "walk", "run", "cycle", "drive", "unknown"]
    y = {k: i for i, k in enumerate(kinds)}
    ax[0].plot(h, [y[r["truth_activity"]] for r in rows], "k-", lw=2.5, label="truth")
    ax[0].plot(h, [y.get(r["classifier"], 5) for r in rows], "C1-", lw=1, label="classifier")
    ax[0].plot(h, [y.get(r["motion"], 5) + 0.15 for r in rows], "C2-", lw=0.8, label="scheduler motion")
    outage = [r["truth_outage"] == "1" for r in rows]
    ax[0].fill_between(h, -0.5, 5.5, where=outage, color="0.85", step="post", label="no GNSS signal (indoors, tunnel)")
    ax[0].set_yticks(range(len(kinds)), kinds)
    ax[0].set_ylim(-0.5, 5.5)
    ax[0].legend(loc="upper right", fontsize=7, ncol=4)
    ax[0].set_title(f"Adaptive plan over the day ({demand})")
    for i, name in enumerate(sensors):
        ax[1].plot(h, [max(float(r["rates_hz"].split(";")[i]), 0.05) for r in rows], lw=1, label=f"{name} read rate")
    ax[1].set_yscale("log")
    ax[1].set_ylabel("read rate, Hz\n(0.05 = suspended)")
    ax[1].legend(loc="upper right", fontsize=7)
    states = ["off", "powerSaveIdle", "acquiring", "tracking", "unknown"]
    # The planned mode drawn beside the state it leads to: off, power-save (idle between fixes), continuous (tracking).
    mode_level = {"off": 0, "power-save": 1, "continuous": 3, "none": 4}
    ax[2].plot(h, [states.index(r["gnss_state"]) if r["gnss_state"] in states else 4 for r in rows], "C3-", lw=1, label="receiver state")
    ax[2].plot(h, [mode_level.get(r["gnss_mode"], 4) - 0.12 for r in rows], "C0-", lw=0.8,
               label="planned mode (off / power-save / continuous, drawn at the state it aims for)")
    ax[2].set_yticks(range(len(states)), states)
    ax[2].legend(loc="upper right", fontsize=7)
    ax[3].plot(h, [max(float(r["drawn_ma"]), 1e-3) for r in rows], "C0-", lw=0.8, label="adaptive: drawn (1 s mean)")
    ax[3].plot(h, [max(float(r["predicted_ma"]), 1e-3) for r in rows], "C2-", lw=0.6, alpha=0.7, label="adaptive: plan's prediction")
    if always_rows:
        ax[3].plot([float(r["t_s"]) / 3600 for r in always_rows], [max(float(r["drawn_ma"]), 1e-3) for r in always_rows],
                   "C3-", lw=0.8, alpha=0.6, label="always-on: drawn")
    ax[3].set_yscale("log")
    ax[3].set_ylim(bottom=0.1)
    ax[3].set_ylabel("sensors + GNSS, mA")
    ax[3].legend(loc="upper right", fontsize=7)
    ax[4].plot(h, [float(r["battery_percent"]) if r["battery_percent"] else float("nan") for r in rows], "C4-")
    ax[4].set_ylabel("battery %\n(sensors only)")
    ax[4].set_xlabel("hours into the scenario")
    fig.tight_layout()
    fig.savefig(out_png, dpi=90)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directories", nargs="+", help="the harness's --out directories (runs split over several processes)")
    p.add_argument("--command", default="", help="the harness command, for results.md")
    p.add_argument("--plot-demand", default="foreground-best")
    args = p.parse_args()
    summaries = []
    timelines = {}
    for d in args.directories:
        with open(os.path.join(d, "summaries.json")) as f:
            summaries += json.load(f)
        for name in os.listdir(d):
            if name.startswith("timeline-"):
                timelines[name] = os.path.join(d, name)
    summaries.sort(key=lambda s: (s["demand"], POLICIES.index(s["policy"]) if s["policy"] in POLICIES else 9))
    first = summaries[0]
    sensors = [k for k in ["imu", "mag", "baro"] if k in first["sensorMilliAmpHours"]]
    plot(timelines, args.plot_demand, os.path.join(HERE, "plan_day.png"), sensors)
    battery = first["battery"]
    md = f"""# Scheduler evaluation (issue 8)

Simulated board (`boards/simulated.json`: MPU-9250 + AK8963, LIS3MDL, BMP280, simulated GNSS receiver modelled as
`{first.get('receiverModel', 'the board runtime’s receiver model')}`), scenario `{first['scenario']}`
({first['durationS'] / 3600:.2f} h including a minute at rest after the last segment), seed {first['seed']}. Each policy
runs the whole scenario through `RunJob` — the code of `lodestone run`, scheduler glue (`ScheduledSampling`), fusion and
location delivery included — headless on a manual clock, on the same scenario and seed, with the same demand:

- **foreground-best**: one foreground client wanting `best` locations (≤ 10 m, maximum age 10 s), heading (filter 1°),
  activity and altitude;
- **background-100m**: one background client wanting `100m` locations (maximum age 30 s) and activity.

Energies are modelled (`EnergyModel`, data-sheet figures): each sensor at its plan's predicted current, the receiver at
the current of the power state it was really in. Battery life: a {battery['capacityMilliAmpHour']:.0f} mAh,
{battery['nominalV']} V Li-ion cell ({battery['capacityMilliAmpHour'] * battery['nominalV'] / 1000:.1f} Wh), sensors and
receiver alone, and with a board baseline of {first['boardBaselineMilliWatt']:.0f} mW (Raspberry Pi Zero 2 W idle, 120 mA
at 5 V: CNX Software, "A deep dive into Raspberry Pi Zero 2 W's power consumption", 2021-12-09); converter losses are
ignored. During the runs the simulated battery is drained by the sensors alone, so every policy plans in the normal tier.

Position error: delivered locations against the simulation's truth. "Too old, unmarked": delivered locations older than
the client allows by an independent clock (time since the engine's last receiver fix) that were not marked stale.
Heading error: 1 Hz samples while heading is wanted. Activity delay: from each true change to the classifier reporting
it. Wake: from each true motion start after a stop of at least 60 s to the first applied plan made for a moving carrier,
and (starts in the open only) to the first delivered location whose true error meets the requested accuracy. Stationary
draw: mean modelled current while truly stationary, from 30 s after each stop.

## Results

{table(summaries)}

Heading error by the true activity at the sample (the board's y axis projected on the horizontal plane, against the
truth's, as `lodestone` defines heading; a magnetic heading given alone, before the first fix gives a declination, against
the truth's magnetic heading), and the share of samples whose error is within the accuracy stated with them:

{heading_by_activity(summaries)}

## Targets
{targets(summaries)}
- re-planning allocates nothing on the per-sample path: benchmark `Scheduling.ScheduledSampling.observeAndReplanCheck`
  (malloc count 0 at p90, `scripts/benchmarks`).

![The adaptive plan over the day](plan_day.png)

## Command

```sh
{args.command or '(see README.md)'}
python3 benchmarks/accuracy/scheduler/report.py {' '.join(args.directories)}
```
"""
    # The monitoring section (issue 16) is written by the harness's --monitoring mode, not from these summaries: keep it.
    path = os.path.join(HERE, "results.md")
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        marker = old.find(MONITORING_SECTION)
        if marker >= 0:
            md = md.rstrip("\n") + "\n\n" + old[marker:]
    with open(path, "w") as f:
        f.write(md)
    print(f"wrote {os.path.join(HERE, 'results.md')} and plan_day.png")


if __name__ == "__main__":
    sys.exit(main())
