#!/usr/bin/env python3
"""Exports checked by third-party decoders against the stored session.

Runs the built `intervalpro` on bundled and simulated sessions (saved into a scratch
data directory), exports each as FIT, TCX and jsonl, and checks:
  - FIT: Garmin's FIT SDK for Python (garmin-fit-sdk) decodes it with no errors and a
    valid CRC; records, laps, session and developer fields equal the stored session; its hrv
    messages give back every RR interval (to the millisecond), and the file replays with them;
  - TCX: tcxreader reads every trackpoint and lap; lxml sees the TCX v2 structure in
    schema order, per-foot RunCadence and the ActivityExtension v2 lap figures;
  - jsonl: replayed against the stored plan, it gives the stored summary.

Usage: check_exports.py PATH/TO/intervalpro
"""
import json
import math
import os
import sys
import tempfile
from datetime import datetime, timezone

from garmin_fit_sdk import Decoder, Stream
from lxml import etree
from tcxreader.tcxreader import TCXReader

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from checks import Tally, run  # noqa: E402

TCX = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"
AX = "{http://www.garmin.com/xmlschemas/ActivityExtension/v2}"

tally = Tally("exports")
check = tally.check


def strides_to_spm(whole, fraction):
    return 2 * (whole + (fraction or 0))


def check_fit(path, stored, name):
    stream = Stream.from_file(path)
    decoder = Decoder(stream)
    check(decoder.is_fit(), f"{name}: FIT header")
    check(decoder.check_integrity(), f"{name}: FIT CRC")
    messages, errors = Decoder(Stream.from_file(path)).read()
    check(errors == [], f"{name}: FIT SDK errors {errors}")

    start = datetime.strptime(stored["started_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    samples = stored["samples"]
    records = messages["record_mesgs"]
    # One a second, and one at the session's end with the last second's values: a reader takes
    # the activity's time from its first record to its last (without it, a second short).
    check(len(records) == len(samples) + 1, f"{name}: {len(records)} records for {len(samples)} samples and the end")
    if records and samples:
        closing, last = records[-1], samples[-1]
        check(closing["timestamp"].timestamp() == start.timestamp() + last["t"] + 1 and closing.get("heart_rate") == last["hr_bpm"]
              and (records[-1]["timestamp"] - records[0]["timestamp"]).total_seconds() == math.ceil(stored["duration_s"]),
              f"{name}: the last record closes the session at its end, {stored['duration_s']} s from the first, with the last second's values")
    steps = {s["index"]: s for s in stored["steps"]}
    mismatches = 0
    for record, sample in zip(records, samples):
        expected_time = start.timestamp() + sample["t"]
        ok = record["timestamp"].timestamp() == expected_time
        ok &= record.get("heart_rate") == sample["hr_bpm"]
        if sample["cadence_spm"] is None:
            ok &= record.get("cadence") is None
        else:
            ok &= strides_to_spm(record["cadence"], record.get("fractional_cadence")) == sample["cadence_spm"]
        if sample["speed_mps"] is not None:
            ok &= abs(record["speed"] - sample["speed_mps"]) <= 0.0006
        if sample["distance_m"] is not None:
            ok &= abs(record["distance"] - sample["distance_m"]) <= 0.006
        developer = record.get("developer_fields", {})
        step = steps[sample["step"]]
        if step["target_spm"] is None:
            ok &= developer.get(0) is None and developer.get(1) is None
        else:
            ok &= developer.get(0) == round(step["target_spm"])
            ok &= developer.get(1) == (1 if sample["zone"] == "in_zone" else 0)
        if not ok:
            mismatches += 1
            if mismatches <= 3:
                print(f"  record {record} != sample {sample}")
    check(mismatches == 0, f"{name}: {mismatches} FIT records differ from the stored samples")

    laps = messages["lap_mesgs"]
    check(len(laps) == len(stored["steps"]), f"{name}: {len(laps)} laps for {len(stored['steps'])} steps")
    for lap, step in zip(laps, stored["steps"]):
        label = f"{name}: lap {step['index']}"
        check(abs(lap["total_timer_time"] - step["duration_s"]) < 0.001, f"{label} time {lap['total_timer_time']}")
        # Elapsed counts pauses too, so it is never less than the timer (a step that ended
        # mid-second was 135.0 elapsed against 135.25 timed).
        check(lap["total_elapsed_time"] >= lap["total_timer_time"],
              f"{label} elapsed {lap['total_elapsed_time']} < timer {lap['total_timer_time']}")
        if step["avg_hr_bpm"] is not None:
            # The summary's average has one decimal already: allow for rounding twice.
            check(abs(lap["avg_heart_rate"] - step["avg_hr_bpm"]) <= 0.55, f"{label} avg HR {lap['avg_heart_rate']}")
            check(lap["max_heart_rate"] == step["max_hr_bpm"], f"{label} max HR {lap['max_heart_rate']}")
        if step["avg_cadence_spm"] is not None:
            cadence = strides_to_spm(lap["avg_running_cadence"], lap.get("avg_fractional_cadence"))
            check(abs(cadence - step["avg_cadence_spm"]) <= 1 / 64 + 0.05, f"{label} avg cadence {cadence}")
            in_step = [s["cadence_spm"] for s in samples if s["step"] == step["index"] and s["cadence_spm"]]
            if in_step:
                maximum = strides_to_spm(lap["max_running_cadence"], lap.get("max_fractional_cadence"))
                check(maximum == max(in_step), f"{label} max cadence {maximum}")
                strides = (sum(in_step) + 60) // 120
                check(lap["total_strides"] == strides, f"{label} strides {lap['total_strides']} != {strides}")
        if step["distance_m"] is not None:
            check(abs(lap["total_distance"] - step["distance_m"]) <= 0.06, f"{label} distance")
        check(lap["sport"] == "running", f"{label} sport")

    session = messages["session_mesgs"][0]
    totals = stored["totals"]
    check(session["sport"] == "running", f"{name}: session sport {session['sport']}")
    check(abs(session["total_timer_time"] - stored["duration_s"]) < 0.001, f"{name}: session time")
    cadence = strides_to_spm(session["avg_running_cadence"], session.get("avg_fractional_cadence"))
    check(abs(cadence - totals["avg_cadence_spm"]) <= 1 / 64 + 0.05, f"{name}: session avg cadence {cadence}")
    all_cadence = [s["cadence_spm"] for s in samples if s["cadence_spm"]]
    check(session["total_strides"] == (sum(all_cadence) + 60) // 120, f"{name}: session strides")
    check(abs(session["avg_heart_rate"] - totals["avg_hr_bpm"]) <= 0.55, f"{name}: session avg HR")
    check(session["max_heart_rate"] == totals["max_hr_bpm"], f"{name}: session max HR")
    check(session["num_laps"] == len(stored["steps"]), f"{name}: session laps")
    check(len(messages["activity_mesgs"]) == 1, f"{name}: one activity")
    # The runner's clock at the end, as a watch writes it: within a time zone of UTC.
    activity = messages["activity_mesgs"][0]
    def fit_seconds(value):
        if isinstance(value, datetime):
            return (value - datetime(1989, 12, 31, tzinfo=timezone.utc)).total_seconds()
        return value
    check("local_timestamp" in activity, f"{name}: activity local_timestamp")
    if "local_timestamp" in activity:
        offset = fit_seconds(activity["local_timestamp"]) - fit_seconds(activity["timestamp"])
        check(abs(offset) <= 14 * 3600 and offset % 60 == 0, f"{name}: local_timestamp {offset:+} s from UTC")
    check(messages["file_id_mesgs"][0]["type"] == "activity", f"{name}: file type")
    check(len(messages["device_info_mesgs"]) >= 1, f"{name}: device_info")
    events = messages["event_mesgs"]
    check(events[0]["event"] == "timer" and events[0]["event_type"] == "start", f"{name}: timer start event")
    names = {d["field_definition_number"]: d["field_name"] for d in messages["field_description_mesgs"]}
    check(names == {0: "target_cadence", 1: "in_cadence_zone"}, f"{name}: developer fields {names}")

    # Beat to beat: the hrv messages give back every RR interval the strap sent, in order, to the
    # millisecond FIT keeps (the strap's 1/1024 s rounded, halves up: 576 units are 563 ms).
    sent = [math.floor(u * 1000 / 1024 + 0.5) / 1000 for s in samples for u in s["rr"]]
    decoded = []
    for message in messages.get("hrv_mesgs", []):
        times = message.get("time")
        times = times if isinstance(times, list) else [times]
        decoded += [t for t in times if t is not None]
    check(len(decoded) == len(sent) and all(abs(a - b) < 1e-9 for a, b in zip(decoded, sent)),
          f"{name}: the FIT SDK reads {len(decoded)} RR intervals from the hrv messages, the session has {len(sent)}"
          + (f" (first difference at {next(i for i, (a, b) in enumerate(zip(decoded, sent)) if abs(a - b) >= 1e-9)})"
             if any(abs(a - b) >= 1e-9 for a, b in zip(decoded, sent)) else ""))
    check(not sent or len(messages.get("hrv_mesgs", [])) >= len(sent) / 5, f"{name}: hrv messages hold more than five times")


def check_tcx(path, stored, name):
    exercise = TCXReader().read(path, only_gps=False)
    samples = stored["samples"]
    check(len(exercise.trackpoints) == len(samples) + 1, f"{name}: {len(exercise.trackpoints)} trackpoints, a second and the end")
    check(exercise.activity_type == "Running", f"{name}: activity type {exercise.activity_type}")
    wrong = 0
    for point, sample in zip(exercise.trackpoints, samples):
        ok = point.hr_value == sample["hr_bpm"]
        cadence = point.tpx_ext.get("RunCadence")
        # Per foot, half to even (153 spm is 76 strides, 155 is 78), as the exporter rounds.
        ok &= cadence == (None if sample["cadence_spm"] is None else round(sample["cadence_spm"] / 2))
        wrong += 0 if ok else 1
    check(wrong == 0, f"{name}: {wrong} trackpoints differ from the samples")
    check(len(exercise.laps) == len(stored["steps"]), f"{name}: {len(exercise.laps)} TCX laps")
    for lap, step in zip(exercise.laps, stored["steps"]):
        if step["avg_cadence_spm"] is not None:
            expected = round(step["avg_cadence_spm"] / 2 + 1e-9)
            check(abs(lap.lx_ext.get("AvgRunCadence", -1) - expected) <= 1, f"{name}: lap AvgRunCadence")
            check("MaxRunCadence" in lap.lx_ext, f"{name}: lap MaxRunCadence")

    tree = etree.parse(path)
    root = tree.getroot()
    check(root.tag == TCX + "TrainingCenterDatabase", f"{name}: root element {root.tag}")
    lap_order = ["TotalTimeSeconds", "DistanceMeters", "MaximumSpeed", "Calories", "AverageHeartRateBpm",
                 "MaximumHeartRateBpm", "Intensity", "Cadence", "TriggerMethod", "Track", "Notes", "Extensions"]
    point_order = ["Time", "Position", "AltitudeMeters", "DistanceMeters", "HeartRateBpm", "Cadence",
                   "SensorState", "Extensions"]
    out_of_order = 0
    for lap in root.iter(TCX + "Lap"):
        tags = [child.tag.replace(TCX, "") for child in lap]
        positions = [lap_order.index(t) for t in tags]
        out_of_order += positions != sorted(positions)
        for required in ("TotalTimeSeconds", "Calories", "Intensity", "TriggerMethod"):
            out_of_order += required not in tags
        check(lap.find(TCX + "Intensity").text in ("Active", "Resting"), f"{name}: Intensity value")
        for point in lap.iter(TCX + "Trackpoint"):
            tags = [child.tag.replace(TCX, "") for child in point]
            positions = [point_order.index(t) for t in tags]
            out_of_order += positions != sorted(positions)
    check(out_of_order == 0, f"{name}: {out_of_order} TCX elements out of schema order")
    run_cadence = root.findall(f".//{TCX}Trackpoint/{TCX}Extensions/{AX}TPX/{AX}RunCadence")
    check(len(run_cadence) == sum(1 for s in samples if s["cadence_spm"] is not None) + (samples[-1]["cadence_spm"] is not None),
          f"{name}: RunCadence per trackpoint (and the closing one) in the ActivityExtension v2 namespace")
    times = [point.findtext(TCX + "Time") for point in root.iter(TCX + "Trackpoint")]
    if times:
        span = (datetime.strptime(times[-1], "%Y-%m-%dT%H:%M:%SZ") - datetime.strptime(times[0], "%Y-%m-%dT%H:%M:%SZ")).total_seconds()
        check(span == math.ceil(stored["duration_s"]), f"{name}: the trackpoints span the session, {span} s for {stored['duration_s']}")
    check(len(root.findall(f".//{TCX}Lap/{TCX}Extensions/{AX}LX/{AX}AvgRunCadence")) ==
          sum(1 for s in stored["steps"] if s["avg_cadence_spm"] is not None), f"{name}: AvgRunCadence per lap")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, XDG_DATA_HOME=scratch)
        env.pop("NO_COLOR", None)
        # Steps that end between two seconds: a distance step, and a duration with a fraction.
        mid_second = os.path.join(scratch, "mid-second.json")
        with open(mid_second, "w") as f:
            json.dump({"name": "Mid-second ends", "steps": [
                {"kind": "warmup", "duration": 60.25, "cadence": 160},
                {"kind": "work", "distance": "400m", "cadence": 172},
                {"kind": "cooldown", "duration": 30.5, "cadence": 160}]}, f)
        sessions = [
            ("ladder replay", ["replay", "Recordings/cadence-ladder.jsonl", "--plan", "Plans/cadence-ladder.json"]),
            ("simulation with a dropout", ["run", "Plans/first-cadence-session.json", "--simulate", "--per-foot",
                                           "--dropout", "300:40", "--seed", "7"]),
            ("steps ending mid-second", ["run", mid_second, "--simulate", "--seed", "3"]),
        ]
        for name, arguments in sessions:
            summary = json.loads(run(binary, env, *arguments, "--fast", "--json"))
            stored = json.loads(run(binary, env, "show", "last", "--json", "--samples"))
            stored_summary = {k: v for k, v in stored.items()
                              if k not in ("session_id", "started_at", "status", "simulated", "devices", "samples", "alpha1_windows")}
            check(stored_summary == summary, f"{name}: stored summary equals the run's summary")
            fit, tcx, jsonl, plan = (os.path.join(scratch, f"{name}.{ext}") for ext in ("fit", "tcx", "jsonl", "json"))
            run(binary, env, "export", "last", "--format", "fit", "-o", fit)
            run(binary, env, "export", "last", "--format", "tcx", "-o", tcx)
            run(binary, env, "export", "last", "--format", "jsonl", "-o", jsonl)
            check_fit(fit, stored, name)
            check_tcx(tcx, stored, name)
            plan_path = arguments[arguments.index("--plan") + 1] if "--plan" in arguments else arguments[1]
            replayed = json.loads(run(binary, env, "replay", jsonl, "--plan", plan_path, "--fast", "--json",
                                      "--no-save"))
            expected = dict(summary, source="replay")
            check(replayed == expected, f"{name}: the jsonl export replays to the stored summary")
            # The FIT export replays with its beats: every one, alpha 1 within what milliseconds change.
            from_fit = json.loads(run(binary, env, "replay", fit, "--plan", plan_path, "--fast", "--json", "--no-save"))
            if summary.get("hrv"):
                check(from_fit.get("hrv") and from_fit["hrv"]["beats"] == summary["hrv"]["beats"],
                      f"{name}: the FIT export replays with {from_fit.get('hrv')} beats, the session had {summary['hrv']['beats']}")
                for got, want in zip(from_fit["steps"], summary["steps"]):
                    if want.get("alpha1") is not None:
                        check(got.get("alpha1") is not None and abs(got["alpha1"] - want["alpha1"]) <= 0.03,
                              f"{name}: step {want['index'] + 1} alpha 1 {got.get('alpha1')} from the FIT export, {want['alpha1']} stored")
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
