#!/usr/bin/env python3
"""A second implementation of replay scoring, in plain Python (standard library only), written
from the contracts (docs/reference/contracts.md: plan format 1, recording format 1, the scoring contract) and
docs/cadence.md, not from the Swift code: what a runner would otherwise script.

`make bench` times it beside `intervalpro replay --plan --fast --json` on the same recording,
and compares their figures: each step's in-zone, below, above and no-signal seconds, average
cadence and heart rate, maximum heart rate, and the total in-zone %.

Usage: reference_replay.py RECORDING PLAN            prints the summary as JSON
       reference_replay.py RECORDING PLAN --compare SUMMARY.json
                                                     exits 1 when a figure differs
"""
import json
import re
import sys

STALE_US = 3_000_000
MOVING_MPS = 1.8
STRIDE_BELOW = 120
READINGS_TO_SETTLE = 5


def microseconds(text):
    """A recording's `t` (decimal seconds, up to 6 places) as whole microseconds, exactly."""
    whole, _, fraction = text.partition(".")
    return int(whole) * 1_000_000 + int((fraction + "000000")[:6])


def duration_us(value):
    if isinstance(value, (int, float)):
        return round(value * 1_000_000)
    parts = [int(p) for p in value.split(":")]
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + part
    return seconds * 1_000_000


def expand(plan):
    """The plan's steps in order: (kind, duration in µs, (low, target, high) or None)."""
    tolerance = plan.get("tolerance", 5)
    steps = []

    def walk(items, repetition):
        for item in items:
            if "repeat" in item:
                for index in range(item["repeat"]):
                    walk(item["steps"], index)
                continue
            pick = lambda v: v[repetition] if isinstance(v, list) else v  # noqa: E731
            duration = pick(item["duration"])
            if duration == "open" or "distance" in item:
                raise SystemExit("reference_replay.py: open and distance steps are not scored here")
            cadence = pick(item.get("cadence"))
            width = item.get("tolerance", tolerance)
            if cadence is None:
                zone = None
            elif isinstance(cadence, dict):
                zone = (cadence["low"], (cadence["low"] + cadence["high"]) / 2, cadence["high"])
            else:
                zone = (cadence - width, cadence, cadence + width)
            steps.append((item["kind"], duration_us(duration), zone))

    walk(plan["steps"], 0)
    return steps


class Normaliser:
    """Steps/min from an RSC cadence: `steps`, `strides` (doubled) or `auto` (docs/cadence.md, "What
    cadence means here")."""

    def __init__(self, unit):
        self.settled = None if unit == "auto" else unit
        self.streak_unit, self.streak = None, 0

    def steps(self, cadence, speed_mps, running):
        unit = self.settled
        if unit is None:
            if not (speed_mps >= MOVING_MPS or running) or cadence == 0:
                unit = "steps"
            else:
                unit = "strides" if cadence < STRIDE_BELOW else "steps"
                self.streak = self.streak + 1 if unit == self.streak_unit else 1
                self.streak_unit = unit
                if self.streak >= READINGS_TO_SETTLE:
                    self.settled = unit
        return cadence * 2 if unit == "strides" else cadence


def readings(path):
    """Cadence and heart-rate readings, [(t µs, value)] each, in time order, one device at a
    time per kind (the first; another only once the current one's reading is stale)."""
    with open(path) as f:
        header = json.loads(f.readline())
        raw = [line for line in f if line.strip()]
    units = {d["id"]: d.get("cadence_unit", "auto") for d in header.get("devices", [])}
    # Times as written (not through a float), in time order, stable for equal times.
    lines = [(microseconds(re.search(r'"t"\s*:\s*([0-9.]+)', text).group(1)), i, json.loads(text))
             for i, text in enumerate(raw)]
    lines.sort(key=lambda entry: (entry[0], entry[1]))
    cadence, heart, normalisers = [], [], {}
    cadence_device = heart_device = None
    for t, _, line in lines:
        char = line.get("char", "").lower()
        value = bytes.fromhex(line.get("hex", ""))
        device = line.get("dev")
        if char in ("2a53", "00002a53-0000-1000-8000-00805f9b34fb") and len(value) >= 4:
            if device != cadence_device:
                if cadence_device is not None and cadence and t < cadence[-1][0] + STALE_US:
                    continue
                cadence_device = device
            flags = value[0]
            speed = int.from_bytes(value[1:3], "little") / 256
            normaliser = normalisers.setdefault(device, Normaliser(units.get(device, "auto")))
            cadence.append((t, normaliser.steps(value[3], speed, bool(flags & 0x04))))
        elif char in ("2a37", "00002a37-0000-1000-8000-00805f9b34fb") and len(value) >= 2:
            flags = value[0]
            rate = int.from_bytes(value[1:3], "little") if flags & 0x01 else value[1]
            if (flags & 0x04 and not flags & 0x02) or rate == 0:
                continue  # no skin contact, or a placeholder
            if device != heart_device:
                if heart_device is not None and heart and t < heart[-1][0] + STALE_US:
                    continue
                heart_device = device
            heart.append((t, rate))
    return cadence, heart


def segments(series, start, end):
    """(from, to, value) where a reading is current inside [start, end)."""
    out = []
    for i, (t, value) in enumerate(series):
        until = t + STALE_US
        if i + 1 < len(series):
            until = min(until, series[i + 1][0])
        lo, hi = max(t, start), min(until, end)
        if lo < hi:
            out.append((lo, hi, value))
    return out


def score(recording, plan):
    cadence, heart = readings(recording)
    steps, totals_zone, totals_in = [], 0, 0
    start = 0
    for index, (kind, length, zone) in enumerate(expand(plan)):
        end = start + length
        current = segments(cadence, start, end)
        covered = sum(hi - lo for lo, hi, _ in current)
        step = {"index": index, "kind": kind, "duration_s": length / 1e6, "no_signal_s": (length - covered) / 1e6}
        if zone:
            low, _, high = zone
            inside = sum(hi - lo for lo, hi, c in current if low <= c <= high)
            below = sum(hi - lo for lo, hi, c in current if c < low)
            step.update(in_zone_s=inside / 1e6, below_s=below / 1e6, above_s=(covered - inside - below) / 1e6,
                        in_zone_pct=100 * inside / length)
            totals_zone, totals_in = totals_zone + length, totals_in + inside
        step["avg_cadence_spm"] = sum((hi - lo) * c for lo, hi, c in current) / covered if covered else None
        beats = segments(heart, start, end)
        beat_time = sum(hi - lo for lo, hi, _ in beats)
        step["avg_hr_bpm"] = sum((hi - lo) * r for lo, hi, r in beats) / beat_time if beat_time else None
        step["max_hr_bpm"] = max((r for _, _, r in beats), default=None)
        steps.append(step)
        start = end
    return {"steps": steps, "totals": {"in_zone_pct": 100 * totals_in / totals_zone if totals_zone else None}}


def compare(reference, summary):
    """The figures that differ beyond the summary's own rounding."""
    differences = []
    rounding = {"in_zone_s": 0.0015, "below_s": 0.0015, "above_s": 0.0015, "no_signal_s": 0.0015,
                "in_zone_pct": 0.015, "avg_cadence_spm": 0.15, "avg_hr_bpm": 0.15, "max_hr_bpm": 0}
    if len(reference["steps"]) != len(summary["steps"]):
        return [f"{len(reference['steps'])} steps against {len(summary['steps'])}"]
    for mine, theirs in zip(reference["steps"], summary["steps"]):
        for key, allowed in rounding.items():
            a, b = mine.get(key), theirs.get(key)
            if (a is None) != (b is None) or (a is not None and abs(a - b) > allowed):
                differences.append(f"step {mine['index']} {key}: reference {a}, intervalpro {b}")
    a, b = reference["totals"]["in_zone_pct"], summary["totals"]["in_zone_pct"]
    if (a is None) != (b is None) or (a is not None and abs(a - b) > 0.015):
        differences.append(f"totals in_zone_pct: reference {a}, intervalpro {b}")
    return differences


def main(summarise=score, differ=compare, usage=__doc__):
    """RECORDING PLAN [--compare SUMMARY]; reference_alpha1.py runs it with its own figures."""
    if len(sys.argv) not in (3, 5):
        sys.exit(usage)
    with open(sys.argv[2]) as f:
        plan = json.load(f)
    reference = summarise(sys.argv[1], plan)
    if len(sys.argv) == 5:
        with open(sys.argv[4]) as f:
            differences = differ(reference, json.load(f))
        for line in differences:
            print(line)
        return 1 if differences else 0
    print(json.dumps(reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())
