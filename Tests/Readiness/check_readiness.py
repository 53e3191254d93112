#!/usr/bin/env python3
"""The morning readiness measurement of the built `intervalpro`, against independent implementations.

Recordings come from make_recordings.py (beside this file), which keeps the RR intervals every
notification carried. Each is replayed with `readiness --replay REC --json --no-save`, and:

  - `rr_segments` is exactly what the recording sent once 30 s of contact had passed, one list per
    stretch of contact, and `beats` counts them;
  - the artifact correction agrees with NeuroKit2's `signal_fixpeaks(method="Kubios",
    iterative=True)` on the same intervals: the same number of corrected beats (over all passes),
    the same corrected intervals, and rMSSD, SDNN and mean heart rate from NeuroKit2's `hrv_time`
    (per contact segment, combined as the measurement combines them);
  - hrv-analysis (Aura Healthcare) computes the same rMSSD, SDNN and mean heart rate from the
    measurement's own corrected intervals, and ln rMSSD and the artifact share follow;
  - faults: a missed, an extra beat are corrected and rMSSD stays close to the fault-free one; two
    ectopic beats are corrected as NeuroKit2 corrects them; more than 4 % corrected beats is refused
    (exit 65, the share named, nothing stored); a mean heart rate over 100 bpm is refused (65, the
    heart rate named as computed here, nothing stored); a strap with no RR intervals exits 69 naming it; a
    10 s loss of contact makes two segments and a measurement 10 s longer; values with 0 and with
    9 intervals, the heart rate as uint16 and energy expended are read;
  - RR intervals as HRV apps export them (Polar Sensor Logger's table, Elite HRV's list): the
    beats after 30 s scored, the figures as NeuroKit2 computes them from the file's milliseconds;
  - public data: pyhrv's sample NN series (the SampleNNISeriesShort.npy its wheel ships) replayed
    gives the rMSSD, SDNN and mean interval pyhrv publishes for it (SampleExport.json, same wheel)
    within what the correction of its 5 irregular beats explains;
  - storage: a month of daily measurements (`--date`) is listed by `readiness history --json`, and
    every day's `assessment` is the verdict this script recomputes from the stored ln rMSSD values;
    the month ends below the normal range.

NeuroKit2 works on integer sample indices. It is given 1,024,000 samples a second, where the
strap's 1/1024 s units are whole numbers of samples and its midpoint truncation is below a
microsecond, so that it computes what the floating-point implementation computes (at 1000 Hz the
truncation decides some borderline beats differently).

Every command runs with scratch XDG folders. Usage: check_readiness.py PATH/TO/intervalpro
"""
import glob
import importlib.util
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
import zipfile
from dataclasses import dataclass, replace
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "PythonSupport"))
sys.path.insert(0, HERE)
from checks import ROOT, Tally, keep_matplotlib_out_of_home, one_thread_for_numpy, run  # noqa: E402

_matplotlib_folder = keep_matplotlib_out_of_home()
one_thread_for_numpy()
import neurokit2 as nk  # noqa: E402
from neurokit2.signal.signal_fixpeaks import _update_indices  # noqa: E402
import numpy as np
from hrvanalysis import get_time_domain_features

import make_recordings as mr  # noqa: E402

tally = Tally("readiness")


def check(condition, message):
    """Tally's check that also says whether it passed, so that dependent checks can be skipped."""
    tally.check(condition, message)
    return bool(condition)


# NeuroKit2's sampling rate: one 1/1024 s unit is 1000 samples.
NEUROKIT_RATE = 1_024_000
# Agreement with NeuroKit2 (the same algorithm): rMSSD and SDNN within 0.2 % or 0.05 ms, the mean
# heart rate within 0.1 bpm, each corrected interval within 0.05 ms: loose enough for printed
# rounding (to 0.1), tight enough to tell SDNN's n from n - 1.
FIGURE_TOLERANCE = 0.002
FIGURE_TOLERANCE_MS = 0.05
HR_TOLERANCE_BPM = 0.1
INTERVAL_TOLERANCE_MS = 0.05
# Agreement with hrv-analysis on the measurement's own corrected intervals (the formulas only):
# 0.1 % or 0.05 ms, and 0.05 bpm (printed rounding to 0.1).
FORMULA_TOLERANCE = 0.001
FORMULA_TOLERANCE_MS = 0.05
# A missed or an extra beat, corrected: rMSSD within 3 % of the same series without the fault.
FAULT_TOLERANCE = 0.03
# pyhrv's published figures are of the uncorrected series: correcting its 5 irregular beats
# (as NeuroKit2 does too) lowers rMSSD by 2.8 % and SDNN by 1.1 %.
PUBLISHED_RMSSD_TOLERANCE = 0.04
PUBLISHED_SDNN_TOLERANCE = 0.02
PUBLISHED_HR_TOLERANCE_BPM = 0.5
# The readiness refusal thresholds.
ARTIFACT_LIMIT = 0.04
RESTING_HR_LIMIT = 100.0
# Assessment figures (ln rMSSD): absolute, for printed rounding.
LN_TOLERANCE = 0.001

SETTLE_S = 30
UTC_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
KEYS = ("taken_at", "date", "source", "device", "duration_s", "settle_s", "beats", "artifacts_corrected", "artifact_share",
        "mean_hr_bpm", "rmssd_ms", "ln_rmssd", "sdnn_ms", "method", "rr_segments", "corrected_rr_ms", "assessment", "id")
ASSESSMENT_KEYS = ("verdict", "days_measured", "days_this_week", "today_ln_rmssd", "baseline_ln_rmssd", "normal_mean", "normal_low",
                   "normal_high", "drop_today", "summary", "advice")


# ------------------------------------------------------------------------------------------------
# Running the binary without ever crashing on what it prints
# ------------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def invoke(binary, env, *arguments, timeout=600):
    """Runs intervalpro; any failure to run becomes exit code None."""
    try:
        result = subprocess.run([binary, *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as error:
        return Outcome(None, "", str(error))
    return Outcome(result.returncode, result.stdout, result.stderr)


def replay(binary, env, path, minutes=None, save=False, day=None):
    arguments = ["readiness", "--replay", path, "--json"]
    if not save:
        arguments.append("--no-save")
    if minutes is not None:
        arguments += ["--duration", f"{minutes:g}"]
    if day is not None:
        arguments += ["--date", day]
    return invoke(binary, env, *arguments)


def measured(outcome, label):
    """The measurement's JSON when it exited 0 with one JSON object; otherwise a failed check and None."""
    if not check(outcome.code == 0, f"{label}: exit {outcome.code}: {outcome.stderr.strip()[:400]}"):
        return None
    try:
        value = json.loads(outcome.stdout)
    except ValueError:
        check(False, f"{label}: stdout is not JSON: {outcome.stdout[:300]!r}")
        return None
    if not check(isinstance(value, dict), f"{label}: stdout is not a JSON object"):
        return None
    missing = [k for k in KEYS if k not in value]
    check(not missing, f"{label}: keys missing: {missing}")
    return value


def number(value):
    """A finite float, or None (JSON booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def close(got, expected, relative=0.0, absolute=0.0):
    got = number(got)
    return got is not None and abs(got - expected) <= max(absolute, relative * abs(expected))


def lengths(segments):
    """Each segment's length, for messages; whatever is not a list of lists is shown as it is."""
    if isinstance(segments, list) and all(hasattr(s, "__len__") and not isinstance(s, (str, dict)) for s in segments):
        return [len(s) for s in segments]
    return repr(segments)[:120]


def segments_of(value):
    """A list of lists of numbers, or None."""
    if not isinstance(value, list) or not all(isinstance(s, list) for s in value):
        return None
    if not all(number(v) is not None for s in value for v in s):
        return None
    return [[float(v) for v in s] for s in value]


# ------------------------------------------------------------------------------------------------
# The references
# ------------------------------------------------------------------------------------------------

def combine(parts):
    """Whole-measurement figures from per-segment (n, mean, sd, rmssd) as the measurement defines
    them: successive differences within segments only; SDNN and the mean over all intervals."""
    n = sum(p[0] for p in parts)
    mean = sum(p[0] * p[1] for p in parts) / n
    squares = sum((p[0] - 1) * p[3] ** 2 for p in parts if p[0] > 1)
    differences = sum(p[0] - 1 for p in parts)
    spread = sum((p[0] - 1) * p[2] ** 2 + p[0] * (p[1] - mean) ** 2 if p[0] > 1 else (p[1] - mean) ** 2 for p in parts)
    return {"n": n, "mean_rr": mean, "mean_hr": 60000.0 / mean, "rmssd": math.sqrt(squares / differences), "sdnn": math.sqrt(spread / (n - 1))}


def kubios(peaks):
    """NeuroKit2's iterative Kubios correction, pass by pass through its public API, so that every
    pass's artifacts are counted (the `info` of an iterative call describes the last pass only).
    Returns the corrected peaks and the beats corrected: those flagged in any pass, each once,
    followed through the passes by NeuroKit2's own index bookkeeping (a beat removed as extra is
    gone; one put back for a missed beat is new)."""
    kinds = ("ectopic", "missed", "extra", "longshort")

    def one_pass(p):
        info, fixed = nk.signal_fixpeaks(p, sampling_rate=NEUROKIT_RATE, iterative=False, method="Kubios")
        return fixed, {k: list(info[k]) for k in kinds}

    identities = list(range(len(peaks)))
    next_identity = len(peaks)
    flagged = set()

    def follow(found):
        """The identities after NeuroKit2's _correct_artifacts applies `found`."""
        nonlocal identities, next_identity
        for k in kinds:
            flagged.update(identities[i] for i in found[k] if i < len(identities))
        if found["extra"]:
            identities = list(np.delete(np.array(identities), found["extra"]))
            missed = _update_indices(found["extra"], found["missed"], -1)
        else:
            missed = found["missed"]
        if missed:
            missed = np.array(missed)
            valid = missed[np.logical_and(missed > 1, missed < len(identities))]
            fresh = list(range(next_identity, next_identity + len(valid)))
            next_identity += len(valid)
            identities = list(np.insert(np.array(identities), valid, fresh))

    # As NeuroKit2 iterates: the first pass always applies; another while it finds fewer.
    fixed, found = one_pass(peaks)
    count = sum(len(found[k]) for k in kinds)
    if count:
        follow(found)
        peaks = fixed
        while True:
            again, found_again = one_pass(peaks)
            count_again = sum(len(found_again[k]) for k in kinds)
            if count_again >= count:
                break
            follow(found_again)
            peaks, count = again, count_again
    else:
        peaks = fixed
    if len(identities) != len(peaks):
        raise RuntimeError("following the beats through the passes lost count of them")
    return peaks, len(flagged)


def neurokit_reference(segments_units):
    """Per contact segment: NeuroKit2's Kubios correction and hrv_time; combined."""
    return neurokit_reference_ms([mr.to_ms(units) for units in segments_units])


def neurokit_reference_ms(segments_ms):
    corrected, parts, artifacts = [], [], 0
    for intervals_ms in segments_ms:
        peaks = nk.intervals_to_peaks(intervals_ms, sampling_rate=NEUROKIT_RATE)
        fixed, count = kubios(peaks)
        _, iterated = nk.signal_fixpeaks(peaks, sampling_rate=NEUROKIT_RATE, iterative=True, method="Kubios")
        if not np.array_equal(fixed, iterated):
            raise RuntimeError("counting NeuroKit2's passes one by one does not reproduce its iterative correction")
        artifacts += count
        intervals = np.diff(fixed) * 1000.0 / NEUROKIT_RATE
        corrected.append(intervals)
        figures = nk.hrv_time(fixed, sampling_rate=NEUROKIT_RATE)
        parts.append((len(intervals), float(figures["HRV_MeanNN"].iloc[0]), float(figures["HRV_SDNN"].iloc[0]), float(figures["HRV_RMSSD"].iloc[0])))
    out = combine(parts)
    out.update(artifacts=artifacts, corrected=corrected)
    return out


def hrv_analysis_figures(segments_ms):
    parts = []
    for segment in segments_ms:
        features = get_time_domain_features(segment)
        parts.append((len(segment), features["mean_nni"], features["sdnn"], features["rmssd"]))
    return combine(parts)


# ------------------------------------------------------------------------------------------------
# What every measurement is checked for
# ------------------------------------------------------------------------------------------------

def check_shape(label, m, recording, minutes, expected_segments):
    """Fields that follow from the recording and the command line; returns the scored segments
    when they are exactly the ones sent."""
    check(m.get("source") == "replay", f"{label}: source {m.get('source')!r}")
    check(m.get("device") == recording.device_id, f"{label}: device {m.get('device')!r}")
    check(m.get("duration_s") == round(minutes * 60), f"{label}: duration_s {m.get('duration_s')!r} for --duration {minutes}")
    check(m.get("settle_s") == SETTLE_S, f"{label}: settle_s {m.get('settle_s')!r}")
    check(m.get("method") == "lipponen-tarvainen-2019", f"{label}: method {m.get('method')!r}")
    check(m.get("id", "missing") is None, f"{label}: id {m.get('id', 'missing')!r} with --no-save")
    check(isinstance(m.get("date"), str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", m["date"]) is not None, f"{label}: date {m.get('date')!r}")
    taken = m.get("taken_at")
    check(isinstance(taken, str) and UTC_TIME.fullmatch(taken) is not None, f"{label}: taken_at {taken!r} is not a UTC time like 2026-11-25T06:32:35Z")
    got = m.get("rr_segments")
    same = got == expected_segments
    check(same, f"{label}: rr_segments are not what the recording sent after {SETTLE_S} s of contact:\n"
                f"  got      {lengths(got)} intervals: {str(got)[:120]}\n"
                f"  expected {lengths(expected_segments)} intervals: {str(expected_segments)[:120]}")
    beats = sum(len(s) for s in expected_segments) + getattr(expected_segments, "lost", 0)
    check(m.get("beats") == beats, f"{label}: beats {m.get('beats')!r}, the recording sent {beats} scored intervals")
    rmssd = number(m.get("rmssd_ms"))
    # (A printed rMSSD rounded to 0.1 ms moves its logarithm by up to 0.05 / rMSSD.)
    check(rmssd is not None and rmssd > 0 and close(m.get("ln_rmssd"), math.log(rmssd), absolute=LN_TOLERANCE + 0.05 / rmssd),
          f"{label}: ln_rmssd {m.get('ln_rmssd')!r} is not ln({m.get('rmssd_ms')!r})")
    artifacts = m.get("artifacts_corrected")
    check(isinstance(artifacts, int) and not isinstance(artifacts, bool) and artifacts >= 0, f"{label}: artifacts_corrected {artifacts!r}")
    if isinstance(artifacts, int) and beats:
        check(close(m.get("artifact_share"), artifacts / beats, absolute=1e-4), f"{label}: artifact_share {m.get('artifact_share')!r} for {artifacts}/{beats}")
    return expected_segments if same else None


def check_against_neurokit(label, m, segments_units):
    """The same intervals through NeuroKit2: the same corrections and figures."""
    try:
        ref = neurokit_reference(segments_units)
    except Exception as error:  # noqa: BLE001 (any failure of the reference is reported, not raised)
        check(False, f"{label}: NeuroKit2 reference failed: {error!r}")
        return None
    # Intervals too long for a heartbeat are left out before correction and counted with it.
    artifacts = ref["artifacts"] + getattr(segments_units, "lost", 0)
    check(m.get("artifacts_corrected") == artifacts, f"{label}: {m.get('artifacts_corrected')!r} beats corrected, NeuroKit2 corrects {artifacts}")
    check(close(m.get("rmssd_ms"), ref["rmssd"], relative=FIGURE_TOLERANCE, absolute=FIGURE_TOLERANCE_MS), f"{label}: rMSSD {m.get('rmssd_ms')!r} ms, NeuroKit2 {ref['rmssd']:.3f}")
    check(close(m.get("sdnn_ms"), ref["sdnn"], relative=FIGURE_TOLERANCE, absolute=FIGURE_TOLERANCE_MS), f"{label}: SDNN {m.get('sdnn_ms')!r} ms, NeuroKit2 {ref['sdnn']:.3f}")
    check(close(m.get("mean_hr_bpm"), ref["mean_hr"], absolute=HR_TOLERANCE_BPM), f"{label}: mean HR {m.get('mean_hr_bpm')!r}, NeuroKit2 {ref['mean_hr']:.3f}")
    corrected = segments_of(m.get("corrected_rr_ms"))
    if check(corrected is not None and lengths(corrected) == lengths(ref["corrected"]),
             f"{label}: corrected_rr_ms lengths {lengths(m.get('corrected_rr_ms'))}, NeuroKit2 {lengths(ref['corrected'])}"):
        worst = max((float(np.max(np.abs(np.array(g) - r))) for g, r in zip(corrected, ref["corrected"]) if len(r)), default=0.0)
        check(worst <= INTERVAL_TOLERANCE_MS, f"{label}: corrected intervals differ from NeuroKit2's by up to {worst:.3f} ms")
    return ref


def check_against_hrv_analysis(label, m):
    """hrv-analysis's time-domain features of the measurement's own corrected intervals."""
    corrected = segments_of(m.get("corrected_rr_ms"))
    if not check(corrected is not None and all(len(s) >= 2 for s in corrected) and corrected, f"{label}: corrected_rr_ms unusable"):
        return
    try:
        ref = hrv_analysis_figures(corrected)
    except Exception as error:  # noqa: BLE001
        check(False, f"{label}: hrv-analysis failed: {error!r}")
        return
    check(close(m.get("rmssd_ms"), ref["rmssd"], relative=FORMULA_TOLERANCE, absolute=FORMULA_TOLERANCE_MS), f"{label}: rMSSD {m.get('rmssd_ms')!r}, hrv-analysis {ref['rmssd']:.3f}")
    check(close(m.get("sdnn_ms"), ref["sdnn"], relative=FORMULA_TOLERANCE, absolute=FORMULA_TOLERANCE_MS), f"{label}: SDNN {m.get('sdnn_ms')!r}, hrv-analysis {ref['sdnn']:.3f}")
    check(close(m.get("mean_hr_bpm"), 60000.0 / ref["mean_rr"], absolute=0.05), f"{label}: mean HR {m.get('mean_hr_bpm')!r}, hrv-analysis mean_nni gives {60000.0 / ref['mean_rr']:.3f}")


def measure_and_check(binary, env, scratch, name, recording, minutes):
    """Replays `recording` and checks everything that holds for any accepted measurement."""
    path = recording.write(os.path.join(scratch, name + ".jsonl"))
    m = measured(replay(binary, env, path, minutes), name)
    if m is None:
        return None
    expected = recording.scored_segments(SETTLE_S, minutes * 60.0)
    check_shape(name, m, recording, minutes, expected)
    check_against_neurokit(name, m, expected)
    check_against_hrv_analysis(name, m)
    return m


# ------------------------------------------------------------------------------------------------
# The cases
# ------------------------------------------------------------------------------------------------

def check_clean(binary, env, scratch):
    """Fault-free recordings; returns {seed: measurement} of the 2-minute ones."""
    out = {}
    for seed, minutes, faults in [(1, 2, None), (8, 2, None), (9, 2, None), (13, 2, None), (4, 1, None), (7, 1, None), (12, 1, None),
                                  (3, 2, mr.Faults(hr_uint16_every=3, energy_every=10))]:
        recording = mr.make_recording(seed, minutes=minutes, faults=faults)
        name = f"clean-seed{seed}-{minutes}min" + ("-uint16-energy" if faults else "")
        if faults:
            # The recording has what it is meant to test, in the scored time.
            scored = scored_notifications(recording, minutes)
            check(any(n.hr_uint16 and n.rr_units for n in scored) and any(n.energy_kj is not None and n.rr_units for n in scored),
                  f"{name}: the recording lacks uint16 heart rates or energy beside RR intervals")
        m = measure_and_check(binary, env, scratch, name, recording, minutes)
        if minutes == 2:
            out[seed] = m
    return out


def rr_text_scored(intervals_ms, minutes):
    """The intervals of an RR text file the measurement scores: read from a value at the first
    beat, each beat arrives when it ends; a beat is scored once more than 30 s have passed, until
    the beat that completes the settling and the scored minutes."""
    scored, end, previous = [], 0.0, 0.0
    for interval in intervals_ms:
        end += interval / 1000.0
        if previous >= SETTLE_S + minutes * 60.0:
            break
        if end > SETTLE_S:
            scored.append(interval)
        previous = end
    return scored


def check_rr_text_with_a_gap(binary, env, scratch):
    """An exported morning where the app lost the signal for 10 s and wrote it as one interval:
    no heartbeat, so the morning is scored in two stretches either side of it, the gap counted as
    an artifact, the figures NeuroKit2's on those stretches. Scored as a beat, it gave an rMSSD of
    613 ms for a morning of 40."""
    name = "rr-text-gap"
    intervals = [round(ms) for ms in mr.resting_rr_ms(mr.subject_for(24), SETTLE_S + 150, 24)]
    gap_at = len(intervals) // 2
    intervals[gap_at] = 10000
    path = os.path.join(scratch, name + ".txt")
    with open(path, "w") as file:
        file.writelines(f"{ms}\n" for ms in intervals)
    m = measured(replay(binary, env, path, 2), name)
    if m is None:
        return
    segments = segments_of(m.get("rr_segments")) or []
    units = mr.to_units(intervals)
    check(len(segments) == 2 and segments[0][-1] == units[gap_at - 1] and segments[1][0] == units[gap_at + 1],
          f"{name}: rr_segments {lengths(m.get('rr_segments'))} are not cut at the gap")
    check(all(u <= mr.LONGEST_HEARTBEAT_UNITS for s in segments for u in s), f"{name}: the 10 s interval was scored")
    reference = neurokit_reference([[int(u) for u in s] for s in segments])
    check(m.get("artifacts_corrected") == reference["artifacts"] + 1,
          f"{name}: {m.get('artifacts_corrected')!r} artifacts, NeuroKit2 corrects {reference['artifacts']} and the gap is one")
    check(m.get("beats") == sum(len(s) for s in segments) + 1, f"{name}: beats {m.get('beats')!r}")
    check(close(m.get("rmssd_ms"), reference["rmssd"], relative=FIGURE_TOLERANCE, absolute=FIGURE_TOLERANCE_MS) and reference["rmssd"] < 100,
          f"{name}: rMSSD {m.get('rmssd_ms')!r} ms, NeuroKit2 {reference['rmssd']:.3f} on the two stretches")


def check_rr_text(binary, env, scratch):
    """A morning as HRV apps export RR intervals: Polar Sensor Logger's table (whole ms, CR LF)
    and Elite HRV's list (ms with a decimal); the figures against NeuroKit2 on the file's own
    milliseconds, whatever the conversion to the strap's 1/1024 s costs."""
    for seed, minutes, decimals in [(21, 2, 0), (22, 1, 1)]:
        intervals = [round(ms, decimals) for ms in mr.resting_rr_ms(mr.subject_for(seed), SETTLE_S + minutes * 60 + 10, seed)]
        name = f"rr-text-seed{seed}"
        path = os.path.join(scratch, name + ".txt")
        with open(path, "w", newline="") as file:
            if decimals == 0:
                file.write("Phone timestamp;RR-interval [ms]\r\n")
                file.writelines(f"2026-11-25T06:30:00.000;{ms:.0f}\r\n" for ms in intervals)
            else:
                file.writelines(f"{ms}\n" for ms in intervals)
        m = measured(replay(binary, env, path, minutes), name)
        if m is None:
            continue
        expected = rr_text_scored(intervals, minutes)
        check(m.get("device") == "rr-intervals", f"{name}: device {m.get('device')!r}")
        check(segments_of(m.get("rr_segments")) == [mr.to_units(expected)],
              f"{name}: rr_segments {lengths(m.get('rr_segments'))} are not the file's {len(expected)} intervals after {SETTLE_S} s")
        try:
            ref = neurokit_reference_ms([expected])
        except Exception as error:  # noqa: BLE001
            check(False, f"{name}: NeuroKit2 reference failed: {error!r}")
            continue
        check(m.get("artifacts_corrected") == ref["artifacts"], f"{name}: {m.get('artifacts_corrected')!r} beats corrected, NeuroKit2 corrects {ref['artifacts']}")
        check(close(m.get("rmssd_ms"), ref["rmssd"], relative=FIGURE_TOLERANCE, absolute=FIGURE_TOLERANCE_MS), f"{name}: rMSSD {m.get('rmssd_ms')!r} ms, NeuroKit2 {ref['rmssd']:.3f} on the file's milliseconds")
        check(close(m.get("sdnn_ms"), ref["sdnn"], relative=FIGURE_TOLERANCE, absolute=FIGURE_TOLERANCE_MS), f"{name}: SDNN {m.get('sdnn_ms')!r} ms, NeuroKit2 {ref['sdnn']:.3f} on the file's milliseconds")
        check(close(m.get("mean_hr_bpm"), ref["mean_hr"], absolute=HR_TOLERANCE_BPM), f"{name}: mean HR {m.get('mean_hr_bpm')!r}, NeuroKit2 {ref['mean_hr']:.3f}")
        print(f"note: {name}: rMSSD {m.get('rmssd_ms')} ms, NeuroKit2 {ref['rmssd']:.3f} ms on the file's milliseconds; "
              f"SDNN {m.get('sdnn_ms')}, NeuroKit2 {ref['sdnn']:.3f}")


def scored_notifications(recording, minutes):
    """The notifications the measurement scores (for self-checks of the recordings)."""
    return mr.scored_notifications(recording.notifications, SETTLE_S, minutes * 60.0)


def not_at_rest_recording():
    """Two minutes of a heart at 133 bpm: a run's, not a morning's."""
    return mr.make_recording(21, subject=mr.subject_for(21, mean_rr_ms=60000.0 / 133))


# Beats missed and beats seen that are not there: more than 4 % to correct.
POOR_CONTACT = mr.Faults(missed=[40.0, 80.0, 120.0], extra=[60.0, 100.0, 140.0])


def check_faults(binary, env, scratch):
    seed = 13
    base = measure_and_check(binary, env, scratch, f"fault-free-seed{seed}", mr.make_recording(seed), 2)
    base_rmssd = number(base.get("rmssd_ms")) if base else None
    for name, faults in [("missed-beat", mr.Faults(missed=[90.0])), ("extra-beat", mr.Faults(extra=[90.0]))]:
        m = measure_and_check(binary, env, scratch, name, mr.make_recording(seed, faults=faults), 2)
        if m is None:
            continue
        check(isinstance(m.get("artifacts_corrected"), int) and m["artifacts_corrected"] >= 1, f"{name}: not corrected ({m.get('artifacts_corrected')!r})")
        if base_rmssd:
            check(close(m.get("rmssd_ms"), base_rmssd, relative=FAULT_TOLERANCE), f"{name}: rMSSD {m.get('rmssd_ms')!r}, without the fault {base_rmssd:.2f}")

    # Two ectopic beats (premature, 65 % of the interval, with a full compensatory pause). NeuroKit2
    # flags both the short and the long interval and moves both beats, one after the other, which
    # does not put the beats back where they were: rMSSD of the corrected series is checked against
    # NeuroKit2's (in measure_and_check), and its distance from the fault-free one is printed.
    recording = mr.make_recording(seed, faults=mr.Faults(ectopic=[70.0, 120.0]))
    m = measure_and_check(binary, env, scratch, "ectopic-beats", recording, 2)
    if m is not None:
        check(isinstance(m.get("artifacts_corrected"), int) and m["artifacts_corrected"] >= 2, f"ectopic-beats: {m.get('artifacts_corrected')!r} corrected for 2 ectopic beats")
        rmssd = number(m.get("rmssd_ms"))
        if base_rmssd and rmssd:
            print(f"note: ectopic-beats: rMSSD {rmssd:.2f} ms after correction, {base_rmssd:.2f} ms without the ectopic beats "
                  f"({100 * (rmssd / base_rmssd - 1):+.0f} %, as NeuroKit2's correction gives)")

    # Too many: a strap that misses three beats and sees three that are not there in 2 minutes.
    recording = mr.make_recording(2, faults=POOR_CONTACT)
    path = recording.write(os.path.join(scratch, "many-artifacts.jsonl"))
    expected = recording.scored_segments(SETTLE_S, 120.0)
    share = (neurokit_reference(expected)["artifacts"] + expected.lost) / (sum(len(s) for s in expected) + expected.lost)
    check(share > ARTIFACT_LIMIT, f"many-artifacts: the recording has only {100 * share:.1f} % artifacts by NeuroKit2")
    outcome = replay(binary, env, path, 2)
    check(outcome.code == 65, f"many-artifacts: exit {outcome.code} ({100 * share:.1f} % corrected), stderr {outcome.stderr.strip()[:300]!r}")
    shares = [float(p) for p in re.findall(r"(\d+(?:\.\d+)?)\s*%", outcome.stderr)]
    check(any(abs(p - 100 * share) <= 0.6 for p in shares), f"many-artifacts: stderr does not name the share {100 * share:.1f} %: {outcome.stderr.strip()[:300]!r}")
    check("Fatal error" not in outcome.stderr, "many-artifacts: crashed")
    check(f"{path}: measurement refused" in outcome.stderr, f"many-artifacts: the refusal does not name the file: {outcome.stderr.strip()[:300]!r}")

    # A heart on the move: 133 bpm (the intervals of a run) is not a heart at rest, over the
    # 100 bpm that bounds a resting adult's heart rate (ICRP Publication 120). The mean heart rate
    # the refusal names is computed here from the scored intervals as the strap sent them.
    recording = not_at_rest_recording()
    path = recording.write(os.path.join(scratch, "not-at-rest.jsonl"))
    scored = [u for segment in recording.scored_segments(SETTLE_S, 120.0) for u in segment]
    heart_rate = 60000.0 / (sum(scored) * 1000.0 / 1024.0 / len(scored))
    check(heart_rate > RESTING_HR_LIMIT, f"not-at-rest: the recording's heart rate is only {heart_rate:.1f} bpm")
    outcome = replay(binary, env, path, 2)
    check(outcome.code == 65, f"not-at-rest: exit {outcome.code} at {heart_rate:.1f} bpm, stderr {outcome.stderr.strip()[:300]!r}")
    named = re.search(r"averaged (\d+) bpm", outcome.stderr)
    check(named is not None and int(named.group(1)) == round(heart_rate),
          f"not-at-rest: stderr does not name {round(heart_rate)} bpm: {outcome.stderr.strip()[:300]!r}")
    check(f"{path}: measurement refused" in outcome.stderr, f"not-at-rest: the refusal does not name the file: {outcome.stderr.strip()[:300]!r}")

    # A strap that sends heart rate only.
    recording = mr.make_recording(5, faults=mr.Faults(no_rr=True))
    path = recording.write(os.path.join(scratch, "no-rr.jsonl"))
    outcome = replay(binary, env, path, 2)
    check(outcome.code == 69, f"no-rr: exit {outcome.code}, stderr {outcome.stderr.strip()[:300]!r}")
    check(recording.device_id.lower() in outcome.stderr.lower(), f"no-rr: stderr does not name the strap {recording.device_id}: {outcome.stderr.strip()[:300]!r}")


def check_contact_loss(binary, env, scratch, clean):
    seed = 4
    recording = mr.make_recording(seed, faults=mr.Faults(contact_losses=[(90.0, 10.0)]))
    m = measure_and_check(binary, env, scratch, "contact-loss", recording, 2)
    if m is None:
        return
    segments = m.get("rr_segments")
    check(isinstance(segments, list) and len(segments) == 2, f"contact-loss: segments {lengths(segments)}, 2 expected")
    # The measurement ran 10 s longer: the values it scored (its rr_segments are checked to be
    # theirs) span the recording's time without the loss plus 10 s.
    plain = mr.make_recording(seed)
    longer, shorter = scored_span(recording), scored_span(plain)
    check(abs(longer - shorter - 10.0) < 1.5, f"contact-loss: the scored values span {longer:.1f} s, without the loss {shorter:.1f} s")
    base = clean.get(seed) or measured(replay(binary, env, plain.write(os.path.join(scratch, "contact-loss-plain.jsonl")), 2), "contact-loss-plain")
    if base and isinstance(m.get("beats"), int) and isinstance(base.get("beats"), int):
        check(abs(m["beats"] - base["beats"]) <= 3, f"contact-loss: {m['beats']} beats scored, {base['beats']} without the loss")


def scored_span(recording, minutes=2):
    scored = [n for n in scored_notifications(recording, minutes) if n.rr_units]
    return scored[-1].t - scored[0].t


def check_nine_in_one(binary, env, scratch):
    recording = mr.make_recording(6, faults=mr.Faults(bursts=[70.0]))
    scored = scored_notifications(recording, 2)
    check(any(len(n.rr_units) == 9 for n in scored) and any(not n.rr_units for n in scored),
          "nine-in-one: the recording lacks a value with 9 and one with 0 RR intervals in the scored time")
    measure_and_check(binary, env, scratch, "nine-in-one", recording, 2)


# ------------------------------------------------------------------------------------------------
# Public data: pyhrv's sample NN series
# ------------------------------------------------------------------------------------------------

PYHRV_SERIES = "pyhrv/files/SampleNNISeriesShort.npy"
PYHRV_FIGURES = "pyhrv/files/SampleExport.json"


def pyhrv_files():
    """(series, published figures) from an installed pyhrv (found, not imported: it pulls in
    biosppy and OpenCV) or from a pyhrv wheel in $INTERVALPRO_TEST_WHEELS (default .build/test-wheels)."""
    spec = importlib.util.find_spec("pyhrv")
    if spec and spec.submodule_search_locations:
        folder = os.path.dirname(list(spec.submodule_search_locations)[0])
        with open(os.path.join(folder, PYHRV_SERIES), "rb") as series, open(os.path.join(folder, PYHRV_FIGURES)) as figures:
            return np.load(io.BytesIO(series.read())), json.load(figures)
    wheels = os.environ.get("INTERVALPRO_TEST_WHEELS", os.path.join(ROOT, ".build", "test-wheels"))
    for wheel in sorted(glob.glob(os.path.join(wheels, "pyhrv-*.whl")), reverse=True):
        with zipfile.ZipFile(wheel) as archive:
            return np.load(io.BytesIO(archive.read(PYHRV_SERIES))), json.loads(archive.read(PYHRV_FIGURES))
    return None


def check_public_data(binary, env, scratch):
    found = pyhrv_files()
    if not check(found is not None, "pyhrv's sample data not found: install pyhrv, or `pip download --no-deps -d .build/test-wheels pyhrv==0.5.0`"):
        return
    series, published = found
    series = [float(v) for v in series]
    # The published figures are this series' (pyhrv's own export of it): raw series, ddof=1.
    raw = np.array(series)
    check(published.get("nni_counter") == len(series) and abs(published["rmssd"] - math.sqrt(np.mean(np.diff(raw) ** 2))) < 1e-6
          and abs(published["sdnn"] - np.std(raw, ddof=1)) < 1e-6, "pyhrv: SampleExport.json does not describe SampleNNISeriesShort.npy")
    # 337 intervals, 299.6 s: exactly what a 5-minute measurement scores.
    recording = mr.recording_from_intervals(series, minutes=5, seed=11)
    m = measure_and_check(binary, env, scratch, "pyhrv-sample", recording, 5)
    if m is None:
        return
    check(m.get("rr_segments") == [mr.to_units(series)], "pyhrv-sample: the scored intervals are not the sample series")
    # Quantised to 1/1024 s, uncorrected, the series still has the published figures.
    sent = np.array(mr.to_ms(mr.to_units(series)))
    check(abs(math.sqrt(np.mean(np.diff(sent) ** 2)) / published["rmssd"] - 1) < 0.002, "pyhrv-sample: 1/1024 s units change rMSSD by 0.2 % or more")
    check(close(m.get("rmssd_ms"), published["rmssd"], relative=PUBLISHED_RMSSD_TOLERANCE), f"pyhrv-sample: rMSSD {m.get('rmssd_ms')!r}, pyhrv publishes {published['rmssd']:.2f}")
    check(close(m.get("sdnn_ms"), published["sdnn"], relative=PUBLISHED_SDNN_TOLERANCE), f"pyhrv-sample: SDNN {m.get('sdnn_ms')!r}, pyhrv publishes {published['sdnn']:.2f}")
    hr = 60000.0 / published["nni_mean"]
    check(close(m.get("mean_hr_bpm"), hr, absolute=PUBLISHED_HR_TOLERANCE_BPM), f"pyhrv-sample: mean HR {m.get('mean_hr_bpm')!r}, pyhrv's mean NNI gives {hr:.2f}")
    check(isinstance(m.get("artifact_share"), (int, float)) and m["artifact_share"] <= ARTIFACT_LIMIT, f"pyhrv-sample: artifact share {m.get('artifact_share')!r}")


# ------------------------------------------------------------------------------------------------
# Storage and the baseline
# ------------------------------------------------------------------------------------------------

# The month ends eleven days ago: its last check files a morning ten days on, and a morning is
# never filed under a day to come.
TODAY = date.today() - timedelta(days=11)
MONTH_SEED = 225


def month_recording(k, day):
    """Day k of 30: the same person; the last week breathing with half the sinus arrhythmia."""
    subject = mr.subject_for(MONTH_SEED, rsa_ms=45.0)
    if k >= 23:
        subject = replace(subject, rsa_ms=20.0)
    return mr.make_recording(MONTH_SEED + 1 + k, subject=subject, started_at=f"{day.isoformat()}T06:30:00Z")


def check_date_moves_the_moment(binary, env, scratch):
    """`--date` files a replayed morning under another day at its own clock time there: kept at
    its recording's moment (two days before), a later morning of the day was judged the earlier
    one and was "not the day's value"."""
    env = dict(env, TZ="UTC")
    day, before = TODAY - timedelta(days=1), TODAY - timedelta(days=3)
    first = measured(replay(binary, env, month_recording(0, day).write(os.path.join(scratch, "date-first.jsonl")), 2, save=True), "date: first")
    later = mr.make_recording(MONTH_SEED + 40, subject=mr.subject_for(MONTH_SEED, rsa_ms=45.0), started_at=f"{before.isoformat()}T06:40:00Z")
    m = measured(replay(binary, env, later.write(os.path.join(scratch, "date-later.jsonl")), 2, save=True, day=day.isoformat()), "date: later")
    if first is None or m is None:
        return
    check(m.get("date") == day.isoformat(), f"date: filed under {m.get('date')!r}, not {day}")
    check(re.fullmatch(rf"{day.isoformat()}T06:4[2-4]:\d\dZ", str(m.get("taken_at"))) is not None,
          f"date: taken_at {m.get('taken_at')!r}: the recording's clock time (06:42-06:44) on {day}")
    check(m.get("days_value") is True, f"date: the later morning of {day} is not the day's value: {m.get('days_value')!r}")


def expected_assessment(values, today):
    """The rule, recomputed: values {date: ln rMSSD, the last of the day}."""
    window = {d: v for d, v in values.items() if today - timedelta(days=59) <= d <= today}
    week = [v for d, v in window.items() if d >= today - timedelta(days=6)]
    out = {"days_measured": len(window), "days_this_week": len(week), "today_ln_rmssd": window.get(today), "margin": math.inf}
    if len(window) < 7:
        out["verdict"] = "building"
        return out
    mean = sum(window.values()) / len(window)
    sd = math.sqrt(sum((v - mean) ** 2 for v in window.values()) / (len(window) - 1))
    out.update(normal_mean=mean, normal_low=mean - 0.5 * sd, normal_high=mean + 0.5 * sd)
    if out["today_ln_rmssd"] is not None:
        out["drop_today"] = out["today_ln_rmssd"] < mean - sd
        out["drop_margin"] = abs(out["today_ln_rmssd"] - (mean - sd))
    if len(week) < 3:
        out["verdict"] = "few_this_week"
        return out
    baseline = sum(week) / len(week)
    out["baseline_ln_rmssd"] = baseline
    out["verdict"] = "below" if baseline < out["normal_low"] else "above" if baseline > out["normal_high"] else "within"
    # How near a boundary the baseline is: a printed value's rounding may tip it there.
    out["margin"] = min(abs(baseline - out["normal_low"]), abs(baseline - out["normal_high"]))
    return out


def check_assessment(label, got, expected):
    if not check(isinstance(got, dict), f"{label}: assessment {got!r}"):
        return
    missing = [k for k in ASSESSMENT_KEYS if k not in got]
    check(not missing, f"{label}: assessment keys missing: {missing}")
    verdict_ok = got.get("verdict") == expected["verdict"] or expected["margin"] < 2 * LN_TOLERANCE
    check(verdict_ok, f"{label}: verdict {got.get('verdict')!r}, the rule gives {expected['verdict']!r} ({expected})")
    for key in ("days_measured", "days_this_week"):
        check(got.get(key) == expected[key], f"{label}: {key} {got.get(key)!r}, expected {expected[key]}")
    for key in ("today_ln_rmssd", "baseline_ln_rmssd", "normal_mean", "normal_low", "normal_high"):
        if expected.get(key) is not None:
            check(close(got.get(key), expected[key], absolute=LN_TOLERANCE), f"{label}: {key} {got.get(key)!r}, expected {expected[key]:.4f}")
    if "drop_today" in expected:
        check(got.get("drop_today") == expected["drop_today"] or expected["drop_margin"] < 2 * LN_TOLERANCE,
              f"{label}: drop_today {got.get('drop_today')!r}, expected {expected['drop_today']}")
    else:
        check(got.get("drop_today") in (False, None), f"{label}: drop_today {got.get('drop_today')!r} with no 60-day range yet")
    for key in ("summary", "advice"):
        check(isinstance(got.get(key), str) and got[key].strip() != "", f"{label}: {key} {got.get(key)!r}")


def history(binary, env, label):
    try:
        listed = json.loads(run(binary, env, "readiness", "history", "--json"))
    except SystemExit as error:  # checks.run exits on a non-zero status: a failed check here
        check(False, f"{label}: {error}")
        return None
    except ValueError:
        check(False, f"{label}: `readiness history --json` printed no JSON")
        return None
    return listed if check(isinstance(listed, list), f"{label}: history is not a list: {str(listed)[:200]}") else None


def check_month(binary, env, scratch):
    days = [TODAY - timedelta(days=29 - k) for k in range(30)]
    values, taken = {}, []
    last = None
    for k, day in enumerate(days):
        recording = month_recording(k, day)
        label = f"month day {k + 1} ({day})"
        m = measured(replay(binary, env, recording.write(os.path.join(scratch, f"month-{day}.jsonl")), 2, save=True, day=day.isoformat()), label)
        if m is None:
            continue
        check(m.get("date") == day.isoformat(), f"{label}: date {m.get('date')!r}")
        check(re.fullmatch(rf"{day.isoformat()}T06:3[2-4]:\d\dZ", str(m.get("taken_at"))) is not None,
              f"{label}: taken_at {m.get('taken_at')!r}: the recording began at 06:30Z, the measurement ends 2:30 to 4:00 later")
        check(isinstance(m.get("id"), int), f"{label}: id {m.get('id')!r} when saving")
        ln = number(m.get("ln_rmssd"))
        if not check(ln is not None, f"{label}: ln_rmssd {m.get('ln_rmssd')!r}"):
            continue
        values[day] = ln
        taken.append((day.isoformat(), ln))
        check_assessment(label, m.get("assessment"), expected_assessment(values, day))
        last = m

    listed = history(binary, env, "month")
    if listed is not None:
        check(len(listed) == 30, f"history lists {len(listed)} measurements after 30 days")
        entries = sorted((e for e in listed if isinstance(e, dict)), key=lambda e: str(e.get("date")))
        check([e.get("date") for e in entries] == [d for d, _ in taken]
              and all(close(e.get("ln_rmssd"), v, absolute=LN_TOLERANCE) for e, (_, v) in zip(entries, taken)),
              "history's dates and ln rMSSD differ from the measurements'")
        ids = [e.get("id") for e in entries]
        check(len(set(map(str, ids))) == len(ids) and all(isinstance(i, int) for i in ids), f"history ids {ids}")
        check(all(isinstance(e.get("taken_at"), str) and number(e.get("rmssd_ms")) for e in entries), "history entries lack taken_at or rmssd_ms")
    if last is not None:
        verdict = last.get("assessment", {}).get("verdict") if isinstance(last.get("assessment"), dict) else None
        check(verdict == "below", f"the month ends with verdict {verdict!r}; its last week was built below the normal range")

    # Ten days later, a single measurement in its week: too few for a verdict.
    later = TODAY + timedelta(days=10)
    m = measured(replay(binary, env, month_recording(30, later).write(os.path.join(scratch, "month-later.jsonl")), 2, save=True, day=later.isoformat()), f"day {later}")
    if m is not None and number(m.get("ln_rmssd")) is not None:
        values[later] = m["ln_rmssd"]
        expected = expected_assessment(values, later)
        check(expected["verdict"] == "few_this_week", f"(self-check) the rule gives {expected['verdict']} ten days on")
        check_assessment(f"day {later}", m.get("assessment"), expected)


def check_simulators_morning(binary, env, scratch):
    """A morning of the simulator's strap (the bundled recordings' address, 00:00:5E:00:53:xx) is
    saved and listed, but left out of the baseline: taken in, replaying it to try the command
    put a made-up morning among the runner's for the 60 days of the normal range."""
    values = {}
    for k in range(3):
        day = TODAY - timedelta(days=3 - k)
        m = measured(replay(binary, env, month_recording(k, day).write(os.path.join(scratch, f"sim-{k}.jsonl")), 2, save=True,
                            day=day.isoformat()), f"simulator: runner's morning {k + 1}")
        if m is None or number(m.get("ln_rmssd")) is None:
            return
        values[day] = m["ln_rmssd"]
        check(m.get("in_baseline") is True, f"simulator: the runner's morning {k + 1} is not in the baseline: {m.get('in_baseline')!r}")
    simulator = mr.make_recording(MONTH_SEED + 50, started_at=f"{TODAY.isoformat()}T06:30:00Z")
    simulator.device_id = mr.SIMULATOR_DEVICE_ID
    path = simulator.write(os.path.join(scratch, "sim-today.jsonl"))
    m = measured(replay(binary, env, path, 2, save=True, day=TODAY.isoformat()), "simulator: its morning")
    if m is None:
        return
    check(isinstance(m.get("id"), int), f"simulator: its morning is not saved: id {m.get('id')!r}")
    check(m.get("in_baseline") is False, f"simulator: its morning is in the baseline: {m.get('in_baseline')!r}")
    expected = expected_assessment(values, TODAY)
    check(expected["days_measured"] == 3, f"(self-check) {expected}")
    check_assessment("simulator: today's assessment, without its morning", m.get("assessment"), expected)
    listed = history(binary, env, "simulator")
    if listed is not None:
        flags = [e.get("in_baseline") for e in listed if isinstance(e, dict)]
        check(flags.count(False) == 1 and flags.count(True) == 3, f"simulator: history's in_baseline {flags}")
        check([e.get("days_value") for e in listed if e.get("in_baseline") is False] == [False],
              "simulator: its morning is listed as its day's value")
    text = invoke(binary, env, "readiness", "history")
    check(text.code == 0 and f"Left out of the baseline and the normal range, the simulator's strap (00:00:5E:00:53:…, the bundled "
          f"recordings'), no runner's morning: {m.get('id')}." in text.stdout, f"simulator: history does not say why: {text.stdout[-600:]!r}")
    again = invoke(binary, env, "readiness", "--replay", path, "--duration", "2", "--no-save")
    check(again.code == 0 and "kept        out of your baseline and normal range: the simulator's strap" in again.stdout,
          f"simulator: the measurement does not say it is left out: {again.stdout[-600:]!r}")


def check_refusals_store_nothing(binary, env, scratch):
    """A refused measurement, run with saving, leaves the store empty."""
    for name, recording, code in [("many-artifacts", mr.make_recording(2, faults=POOR_CONTACT), 65),
                                  ("no-rr", mr.make_recording(5, faults=mr.Faults(no_rr=True)), 69),
                                  ("not-at-rest", not_at_rest_recording(), 65)]:
        outcome = replay(binary, env, recording.write(os.path.join(scratch, f"saved-{name}.jsonl")), 2, save=True)
        check(outcome.code == code, f"{name} with saving: exit {outcome.code}")
    listed = history(binary, env, "after refusals")
    if listed is not None:
        check(listed == [], f"refused measurements were stored: {str(listed)[:200]}")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    binary = os.path.abspath(sys.argv[1])
    warnings.simplefilter("ignore")  # NeuroKit2's and pandas' advice on short series
    with tempfile.TemporaryDirectory() as scratch:
        def scratch_env(name):
            return dict(os.environ, XDG_DATA_HOME=os.path.join(scratch, name, "data"), XDG_CONFIG_HOME=os.path.join(scratch, name, "config"), NO_COLOR="1")

        env = scratch_env("measure")
        clean = guarded(check_clean, binary, env, scratch) or {}
        guarded(check_faults, binary, env, scratch)
        guarded(check_contact_loss, binary, env, scratch, clean)
        guarded(check_nine_in_one, binary, env, scratch)
        guarded(check_public_data, binary, env, scratch)
        guarded(check_rr_text, binary, env, scratch)
        guarded(check_rr_text_with_a_gap, binary, env, scratch)
        guarded(check_refusals_store_nothing, binary, scratch_env("refused"), scratch)
        guarded(check_month, binary, scratch_env("month"), scratch)
        guarded(check_date_moves_the_moment, binary, scratch_env("date"), scratch)
        guarded(check_simulators_morning, binary, scratch_env("simulator"), scratch)
    return tally.report()


def guarded(case, *arguments):
    """Runs one group of checks; whatever the binary printed that this script did not foresee
    fails the group instead of ending the run."""
    try:
        return case(*arguments)
    except Exception:  # noqa: BLE001
        check(False, f"{case.__name__} stopped on what intervalpro printed:\n{traceback.format_exc(limit=4)}")
        return None


if __name__ == "__main__":
    sys.exit(main())
