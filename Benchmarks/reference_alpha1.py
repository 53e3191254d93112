#!/usr/bin/env python3
"""The replay of a recording with beats, in a second implementation: what `intervalpro replay`
computes from a heart-rate strap's RR intervals beside the cadence, as a runner would script it
in Python with NeuroKit2. `make bench` times it beside `intervalpro replay --plan --fast --json`
on the recording with beats, as reference_replay.py is timed on the one without: the same work
on both sides.

It scores the cadence with reference_replay.py, then computes DFA alpha 1 during the run as
docs/hrv-during-the-run.md defines it, with the methods Tests/Readiness/check_alpha1.py holds
intervalpro to: every 5 s, the beats of the last 120 s (each second's RR intervals as the strap
sent them, 30-240 bpm); NeuroKit2's Kubios artifact correction pass by pass; Tarvainen et al.
2002's smoothness priors (lambda 500); `fractal_dfa` over boxes of 4 to 16 beats. A window is
scored with 64 beats or more covering 90 s of the 120 and under 3 % of them corrected. The
summary's figures follow: each step's mean alpha 1, the first crossings of 0.75 and 0.5 from
above, the beats and the artifacts of the whole series.

Runs with the test venv's Python (.build/test-venv/bin/python3: NeuroKit2 and NumPy).

Usage: reference_alpha1.py RECORDING PLAN                         prints the summary as JSON
       reference_alpha1.py RECORDING PLAN --compare SUMMARY.json  exits 1 when a figure differs
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "PythonSupport"))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Readiness"))
from checks import keep_matplotlib_out_of_home, one_thread_for_numpy  # noqa: E402

_matplotlib_folder = keep_matplotlib_out_of_home()
one_thread_for_numpy()
import neurokit2 as nk  # noqa: E402
import numpy as np  # noqa: E402

import reference_replay as cadence  # noqa: E402
from check_alpha1 import (  # noqa: E402
    ARTIFACT_LIMIT, EVERY_S, MIN_BEATS, MIN_COVERAGE, THRESHOLDS, WINDOW_S, smoothness_priors_detrended)
from check_readiness import NEUROKIT_RATE, kubios  # noqa: E402

UNITS_PER_SECOND = 1024.0


def beats_by_second(path):
    """{second: [RR intervals, 1/1024 s]}: each 0x2A37 notification's intervals in the second of
    session time it arrived in, (s - 1, s]."""
    seconds = {}
    with open(path) as f:
        f.readline()
        for text in f:
            if not text.strip():
                continue
            line = json.loads(text)
            if line.get("char", "").lower() not in ("2a37", "00002a37-0000-1000-8000-00805f9b34fb"):
                continue
            value = bytes.fromhex(line.get("hex", ""))
            flags = value[0]
            offset = 3 if flags & 0x01 else 2
            if flags & 0x08:
                offset += 2
            if not flags & 0x10:
                continue
            intervals = [int.from_bytes(value[i:i + 2], "little") for i in range(offset, len(value) - 1, 2)]
            seconds.setdefault(math.ceil(float(line["t"])), []).extend(intervals)
    return seconds


def heartbeats(units):
    """30-240 bpm: an interval of seconds (a strap finding the beat again) is beats lost."""
    return [u for u in units if 256 <= u <= 2048]


def extra_detections(units):
    """Intervals too short for a heartbeat (a beat detected twice): artifacts, not beats."""
    return sum(1 for u in units if u < 256)


def window_alpha(units):
    """(beats corrected, alpha 1 or None) of one window."""
    peaks = nk.intervals_to_peaks([u * 1000.0 / UNITS_PER_SECOND for u in units], sampling_rate=NEUROKIT_RATE)
    fixed, artifacts = kubios(peaks)
    corrected = np.diff(fixed) * 1000.0 / NEUROKIT_RATE
    if len(corrected) < 32 or np.ptp(corrected) <= 1e-6:
        return artifacts, None
    alpha, _ = nk.fractal_dfa(smoothness_priors_detrended(corrected, 500.0), scale=np.arange(4, 17), overlap=False)
    return artifacts, float(alpha)


def summary(recording, plan):
    scored = cadence.score(recording, plan)
    ends, end = [], 0
    for _, length, _ in cadence.expand(plan):
        end += length
        ends.append(end / 1e6)
    seconds = beats_by_second(recording)
    # The session's samples are its seconds before its end: what came in its last second is in none.
    beats = {s: heartbeats(units) for s, units in seconds.items() if s < ends[-1]}
    extra = {s: extra_detections(units) for s, units in seconds.items() if s < ends[-1]}
    windows = []
    for t in range(EVERY_S, math.ceil(ends[-1]), EVERY_S):
        units = [u for s in range(t - WINDOW_S + 1, t + 1) for u in beats.get(s, [])]
        if not units or t < WINDOW_S:
            continue
        artifacts, alpha = window_alpha(units)
        artifacts += sum(extra.get(s, 0) for s in range(t - WINDOW_S + 1, t + 1))
        coverage = sum(units) / UNITS_PER_SECOND / WINDOW_S
        if len(units) >= MIN_BEATS and coverage >= MIN_COVERAGE and artifacts / len(units) < ARTIFACT_LIMIT and alpha is not None:
            # The step running after the second: one that ends at t has ended.
            step = next((i for i, e in enumerate(ends) if t < e), len(ends) - 1)
            windows.append((t, step, alpha))
    every = [u for s in sorted(beats) for u in beats[s]]
    _, artifacts = kubios(nk.intervals_to_peaks([u * 1000.0 / UNITS_PER_SECOND for u in every], sampling_rate=NEUROKIT_RATE))
    for step in scored["steps"]:
        values = [alpha for _, index, alpha in windows if index == step["index"]]
        step["alpha1"] = sum(values) / len(values) if values else None
    crossings = []
    for threshold in THRESHOLDS:
        above = False
        for t, _, alpha in windows:
            if alpha >= threshold:
                above = True
            elif above:
                crossings.append({"threshold": threshold, "second": t})
                break
    scored["hrv"] = {"beats": len(every), "artifacts": artifacts + sum(extra.values()), "scored_windows": len(windows), "crossings": crossings}
    return scored


def compare(reference, summary_json):
    differences = cadence.compare(reference, summary_json)
    mine, theirs = reference["hrv"], summary_json.get("hrv") or {}
    for key in ("beats", "artifacts", "scored_windows"):
        if mine[key] != theirs.get(key):
            differences.append(f"hrv {key}: reference {mine[key]}, intervalpro {theirs.get(key)}")
    if [(c["threshold"], c["second"]) for c in mine["crossings"]] != [(c["threshold"], c["second"]) for c in theirs.get("crossings", [])]:
        differences.append(f"hrv crossings: reference {mine['crossings']}, intervalpro {theirs.get('crossings')}")
    for a, b in zip(reference["steps"], summary_json["steps"]):
        x, y = a.get("alpha1"), b.get("alpha1")
        if (x is None) != (y is None) or (x is not None and abs(x - y) > 0.0051):
            differences.append(f"step {a['index']} alpha1: reference {x}, intervalpro {y}")
    return differences


if __name__ == "__main__":
    sys.exit(cadence.main(summary, compare, __doc__))
