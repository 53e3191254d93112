#!/usr/bin/env python3
"""DFA alpha 1 during a session, from the built `intervalpro`, against NeuroKit2.

Sessions are saved to a scratch store and read back with `show last --json --samples`, which gives
each second's RR intervals (1/1024 s, as the strap sent them) and every alpha 1 window. For each
window this script takes the beats of the seconds in (t - 120, t], and computes with NeuroKit2
0.2.13, an implementation written apart from intervalpro's:

  - the artifacts: `signal_fixpeaks(method="Kubios")` pass by pass (as check_readiness.py does);
  - the detrending: Tarvainen et al. 2002's smoothness priors, lambda 500, written here from the
    paper's formula with numpy's dense solver. NeuroKit2 0.2.13's own
    `signal_detrend(method="tarvainen2002")` is not used: it builds the second-difference matrix
    with scipy's `dia_matrix` from data one row per diagonal, which drops the last two rows'
    off-diagonal entries, so its trend is pulled towards zero at the end of the series (436 ms
    off on a two-minute window of running beats);
  - alpha 1: `fractal_dfa(scale=range(4, 17), overlap=False)`, and nolds' `dfa` (a third
    implementation) on the same detrended series.

It then checks the window's status (settling before 120 s; unreliable with 3 % corrected beats or
more, fewer than 64 beats, or beats covering less than 90 s of the 120), its beats and artifacts
exactly, and alpha 1 within ALPHA_TOLERANCE. The session's figures follow from the windows: each
step's mean alpha 1 of its scored windows, the first crossings of 0.75 and 0.5 from above, the
artifacts of the whole series; `run --json` printed the same figures `show` gives later.

The sessions: a simulated cadence ladder (its strap sends every beat, correlated at easy effort
and less so as heart rate rises); pyhrv's public sample NN series (SampleNNISeriesShort.npy, found
as check_readiness.py finds it) replayed against an open step; and the same series with every
20th beat missed, which no window scores; and with 100 ms of every 20th beat sent as an interval of
its own, too short for a heartbeat, counted among the artifacts.

Every command runs with scratch XDG folders. Usage: check_alpha1.py PATH/TO/intervalpro
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "PythonSupport"))
sys.path.insert(0, HERE)
from checks import ROOT, Tally, keep_matplotlib_out_of_home, one_thread_for_numpy  # noqa: E402

_matplotlib_folder = keep_matplotlib_out_of_home()
one_thread_for_numpy()
import neurokit2 as nk  # noqa: E402
import nolds
import numpy as np

import make_recordings as mr  # noqa: E402
from check_readiness import NEUROKIT_RATE, kubios, pyhrv_files  # noqa: E402

tally = Tally("alpha1")

WINDOW_S = 120
EVERY_S = 5
MIN_BEATS = 64
MIN_COVERAGE = 0.75
ARTIFACT_LIMIT = 0.03
THRESHOLDS = (0.75, 0.5)
# The same method on the same intervals: only floating-point order differs.
ALPHA_TOLERANCE = 1e-6
OPEN_PLAN = {"name": "Open run", "steps": [{"kind": "work", "duration": "open"}]}


def check(condition, message):
    tally.check(condition, message)
    return bool(condition)


def invoke(binary, env, *arguments):
    result = subprocess.run([binary, *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout, result.stderr


def json_of(binary, env, label, *arguments):
    code, out, err = invoke(binary, env, *arguments)
    if not check(code == 0, f"{label}: `{' '.join(arguments)}` exited {code}: {err.strip()[:400]}"):
        return None
    return json.loads(out)


# ------------------------------------------------------------------------------------------------
# NeuroKit2's figures for one window
# ------------------------------------------------------------------------------------------------

def reference_window(units):
    """(artifacts, alpha 1 or None, mean HR) of one window's intervals (1/1024 s units)."""
    peaks = nk.intervals_to_peaks(mr.to_ms(units), sampling_rate=NEUROKIT_RATE)
    fixed, artifacts = kubios(peaks)
    corrected = np.diff(fixed) * 1000.0 / NEUROKIT_RATE
    heart_rate = 60000.0 / float(np.mean(corrected))
    if len(corrected) < 32 or np.ptp(corrected) <= 1e-6:
        return artifacts, None, heart_rate
    detrended = smoothness_priors_detrended(corrected, 500.0)
    alpha, _ = nk.fractal_dfa(detrended, scale=np.arange(4, 17), overlap=False)
    other = nolds.dfa(detrended, nvals=list(range(4, 17)), overlap=False, order=1, fit_exp="poly")
    if abs(other - alpha) > ALPHA_TOLERANCE:
        raise RuntimeError(f"NeuroKit2 ({alpha}) and nolds ({other}) disagree on one window's alpha 1")
    return artifacts, float(alpha), heart_rate


def smoothness_priors_detrended(series, regularization):
    """z - (I + lambda^2 D2' D2)^-1 z (Tarvainen et al. 2002, equation 7)."""
    n = len(series)
    identity = np.eye(n)
    second_difference = np.diff(identity, 2, axis=0)
    trend = np.linalg.solve(identity + regularization ** 2 * second_difference.T @ second_difference, series)
    return series - trend


def heartbeats(sample):
    """A second's RR intervals a heart beats at, 30-240 bpm (256-2048 units); one of seconds
    (a strap finding the beat again after losing contact) is beats lost, not a beat: the upper
    bound of hrv-analysis's remove_outliers (high_rri=2000 ms). None while paused: the runner
    stands."""
    if sample.get("zone") == "paused":
        return []
    return [u for u in sample["rr"] if 256 <= u <= 2048]


def extra_detections(sample):
    """A second's intervals too short for a heartbeat (over 240 bpm: a beat a strap detected
    twice, or noise): left out of the beats and counted among the artifacts, as a morning's
    are. None while paused."""
    if sample.get("zone") == "paused":
        return 0
    return sum(1 for u in sample["rr"] if u < 256)


def expected_windows(samples):
    """Every window the session should show, recomputed from its samples."""
    out = []
    for sample in samples:
        t = sample["t"]
        if t <= 0 or t % EVERY_S or sample.get("zone") == "paused":
            continue
        seconds = [s for s in samples if t - WINDOW_S < s["t"] <= t]
        units = [u for s in seconds for u in heartbeats(s)]
        if not units:
            continue
        cadences = [s["cadence_spm"] for s in seconds if s["cadence_spm"] is not None]
        window = {"t": t, "step": sample["step"], "beats": len(units),
                  "cadence_spm": sum(cadences) / len(cadences) if cadences else None}
        if t < WINDOW_S:
            window.update(status="settling", artifacts=0, alpha1=None)
        else:
            artifacts, alpha, heart_rate = reference_window(units)
            artifacts += sum(extra_detections(s) for s in seconds)
            coverage = sum(units) / 1024.0 / WINDOW_S
            scored = len(units) >= MIN_BEATS and coverage >= MIN_COVERAGE and artifacts / len(units) < ARTIFACT_LIMIT and alpha is not None
            window.update(status="scored" if scored else "unreliable", artifacts=artifacts, alpha1=alpha if scored else None,
                          hr_bpm=heart_rate)
        out.append(window)
    return out


def check_windows(label, shown, samples):
    expected = expected_windows(samples)
    if not check(len(shown) == len(expected), f"{label}: {len(shown)} windows shown, {len(expected)} expected"):
        return expected
    worst = 0.0
    for got, want in zip(shown, expected):
        where = f"{label}: window at {want['t']} s"
        check(got["t"] == want["t"] and got["step"] == want["step"], f"{where}: shown at {got['t']} s, step {got['step']}")
        check(got["status"] == want["status"], f"{where}: {got['status']}, expected {want['status']} ({want['artifacts']}/{want['beats']} corrected)")
        check(got["beats"] == want["beats"] and got["artifacts"] == want["artifacts"],
              f"{where}: {got['artifacts']}/{got['beats']} corrected, NeuroKit2 {want['artifacts']}/{want['beats']}")
        if want["alpha1"] is None:
            check(got["alpha1"] is None, f"{where}: alpha 1 {got['alpha1']} where none is scored")
        elif check(isinstance(got["alpha1"], (int, float)), f"{where}: no alpha 1, NeuroKit2 {want['alpha1']:.4f}"):
            worst = max(worst, abs(got["alpha1"] - want["alpha1"]))
            check(abs(got["alpha1"] - want["alpha1"]) <= ALPHA_TOLERANCE,
                  f"{where}: alpha 1 {got['alpha1']:.6f}, NeuroKit2 {want['alpha1']:.6f}")
        if want.get("hr_bpm") is not None and got.get("hr_bpm") is not None:
            check(abs(got["hr_bpm"] - want["hr_bpm"]) <= 0.05 + 1e-9, f"{where}: HR {got['hr_bpm']}, NeuroKit2 {want['hr_bpm']:.2f}")
        if want["cadence_spm"] is not None:
            check(got["cadence_spm"] is not None and abs(got["cadence_spm"] - want["cadence_spm"]) <= 0.05 + 1e-9,
                  f"{where}: cadence {got['cadence_spm']}, expected {want['cadence_spm']:.2f}")
    scored = [w for w in expected if w["status"] == "scored"]
    print(f"{label}: {len(expected)} windows, {len(scored)} scored, largest alpha 1 difference from NeuroKit2 {worst:.2e}")
    return expected


def check_summary(label, session, windows, samples):
    """The session's figures from the windows NeuroKit2 recomputed."""
    hrv = session.get("hrv")
    if not check(isinstance(hrv, dict), f"{label}: no hrv in the summary"):
        return
    units = [u for s in samples for u in heartbeats(s)]
    peaks = nk.intervals_to_peaks(mr.to_ms(units), sampling_rate=NEUROKIT_RATE)
    _, artifacts = kubios(peaks)
    artifacts += sum(extra_detections(s) for s in samples)
    check(hrv["beats"] == len(units), f"{label}: {hrv['beats']} beats, the samples hold {len(units)}")
    check(hrv["artifacts"] == artifacts, f"{label}: {hrv['artifacts']} artifacts, NeuroKit2 corrects {artifacts} of the whole series")
    check(hrv["trusted"] == (artifacts / len(units) < ARTIFACT_LIMIT), f"{label}: trusted {hrv['trusted']} with {artifacts}/{len(units)}")
    scored = [w for w in windows if w["status"] == "scored"]
    check(hrv["scored_windows"] == len(scored), f"{label}: {hrv['scored_windows']} scored windows, expected {len(scored)}")
    for step in session["steps"]:
        values = [w["alpha1"] for w in scored if w["step"] == step["index"]]
        want = round(sum(values) / len(values), 2) if values else None
        check(step.get("alpha1") == want or (want is not None and step.get("alpha1") is not None and abs(step["alpha1"] - want) <= 0.0051),
              f"{label}: step {step['index'] + 1} alpha 1 {step.get('alpha1')}, expected {want}")
    crossings = []
    for threshold in THRESHOLDS:
        above = False
        for w in scored:
            if w["alpha1"] >= threshold:
                above = True
            elif above:
                crossings.append((threshold, w["t"]))
                break
    check([(c["threshold"], c["second"]) for c in hrv["crossings"]] == crossings,
          f"{label}: crossings {[(c['threshold'], c['second']) for c in hrv['crossings']]}, expected {crossings}")
    return hrv


def saved_session(binary, env, label, *arguments):
    """Runs a session that is saved, then reads it back with its samples."""
    printed = json_of(binary, env, label, *arguments, "--json")
    shown = json_of(binary, env, label, "show", "last", "--json", "--samples")
    if printed is None or shown is None:
        return None, None
    # Stored so that `show` gives what the session printed as it ended.
    check(printed.get("hrv") == shown.get("hrv"), f"{label}: `show` gives hrv {shown.get('hrv')}, the session printed {printed.get('hrv')}")
    check([s.get("alpha1") for s in printed["steps"]] == [s.get("alpha1") for s in shown["steps"]],
          f"{label}: `show` gives other step alpha 1 figures than the session printed")
    return printed, shown


# ------------------------------------------------------------------------------------------------
# The sessions
# ------------------------------------------------------------------------------------------------

def check_simulated_ladder(binary, env, scratch):
    label = "simulated ladder"
    _, shown = saved_session(binary, env, label, "run", "Plans/cadence-ladder.json", "--simulate", "--fast", "--seed", "3")
    if shown is None:
        return
    windows = check_windows(label, shown["alpha1_windows"], shown["samples"])
    hrv = check_summary(label, shown, windows, shown["samples"])
    check(sum(w["status"] == "scored" for w in windows) > 300, f"{label}: fewer than 300 windows scored")
    # The simulated strap's beats lose correlation with effort: easy steps read higher than hard ones.
    steps = {s["index"]: s for s in shown["steps"]}
    easy, hard = steps[0].get("alpha1"), steps[7].get("alpha1")
    check(easy is not None and hard is not None and easy > hard, f"{label}: warm-up alpha 1 {easy}, 180 spm rung {hard}")
    if hrv:
        check(any(c["threshold"] == 0.75 for c in hrv["crossings"]), f"{label}: alpha 1 never crossed 0.75: {hrv['crossings']}")


def open_plan(scratch):
    path = os.path.join(scratch, "open.json")
    with open(path, "w") as out:
        json.dump(OPEN_PLAN, out)
    return path


def replayed_series(binary, env, scratch, label, intervals, seed):
    """A recording of `intervals` replayed against an open step and saved; what `show` gives, checked
    window by window; None when it did not run."""
    recording = mr.recording_from_intervals(intervals, minutes=5, seed=seed).write(os.path.join(scratch, f"{seed}.jsonl"))
    _, shown = saved_session(binary, env, label, "replay", recording, "--plan", open_plan(scratch), "--fast")
    if shown is None:
        return None, None
    windows = check_windows(label, shown["alpha1_windows"], shown["samples"])
    check_summary(label, shown, windows, shown["samples"])
    return shown, windows


def check_public_series(binary, env, scratch):
    found = pyhrv_files()
    if not check(found is not None, "pyhrv's sample data not found (see check_readiness.py)"):
        return
    series = [float(v) for v in found[0]]
    label = "pyhrv sample series"
    shown, windows = replayed_series(binary, env, scratch, label, series, seed=11)
    if shown is None:
        return
    check(sum(w["status"] == "scored" for w in windows) >= 25, f"{label}: fewer than 25 windows scored")
    sent = [u for s in shown["samples"] for u in s["rr"]]
    given = mr.to_units(series)
    check(any(sent[i:i + len(given)] == given for i in range(len(sent) - len(given) + 1)),
          f"{label}: the stored beats do not hold the series as sent")


def check_missed_beats(binary, env, scratch):
    found = pyhrv_files()
    if found is None:
        return
    series = [float(v) for v in found[0]]
    # Every 20th beat missed: the strap sends the two intervals as one (5 % artifacts).
    damaged, i = [], 0
    while i < len(series):
        if i % 20 == 10 and i + 1 < len(series):
            damaged.append(series[i] + series[i + 1])
            i += 2
        else:
            damaged.append(series[i])
            i += 1
    label = "missed beats"
    if not replayed_untrusted(binary, env, scratch, label, damaged, seed=12):
        return
    code, out, _ = invoke(binary, env, "show", "last")
    check(code == 0 and "too many to trust alpha 1" in out, f"{label}: `show` does not say the beats are not to be trusted:\n{out[-400:]}")


def check_extra_detections(binary, env, scratch):
    """Every 20th beat detected twice: 100 ms of it sent as an interval of its own, too short for
    a heartbeat. Left out without a word, the session read as trusted."""
    found = pyhrv_files()
    if found is None:
        return
    damaged = []
    for i, interval in enumerate(float(v) for v in found[0]):
        damaged += [100.0, interval - 100.0] if i % 20 == 10 else [interval]
    replayed_untrusted(binary, env, scratch, "extra detections", damaged, seed=13)


def replayed_untrusted(binary, env, scratch, label, damaged, seed):
    """A series with 5 % of its beats damaged, replayed and checked window by window: no window
    from 150 s on is scored, and the session's beats are not to be trusted. False when it did
    not run."""
    shown, windows = replayed_series(binary, env, scratch, label, damaged, seed=seed)
    if shown is None:
        return False
    late = [w for w in windows if w["t"] >= 150]
    check(late and all(w["status"] == "unreliable" for w in late), f"{label}: a window with 5 % damaged beats was scored")
    check(shown["hrv"]["trusted"] is False, f"{label}: the session's beats are called trustworthy")
    return True


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    binary = os.path.abspath(sys.argv[1])
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as scratch:
        def scratch_env(name):
            return dict(os.environ, XDG_DATA_HOME=os.path.join(scratch, name, "data"),
                        XDG_CONFIG_HOME=os.path.join(scratch, name, "config"), NO_COLOR="1")

        for case in (check_simulated_ladder, check_public_series, check_missed_beats, check_extra_detections):
            try:
                case(binary, scratch_env(case.__name__), scratch)
            except Exception:  # noqa: BLE001
                check(False, f"{case.__name__} stopped on what intervalpro printed:\n{traceback.format_exc(limit=4)}")
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
