#!/usr/bin/env python3
"""Workouts and activities made by other tools, read by the built `intervalpro`.

  - FIT workouts written by fit-tool (PyPI): `plan check --json` gives the timeline the
    workout means (durations, distances, open steps, repeats, cadence low/high, kinds);
  - `plan import` of a FIT workout, a .zwo and an intervals.icu text writes plans that the
    plan format's JSON Schema (Plans/plan.schema.json) accepts;
  - `plan export --format fit` of every bundled and contract plan: Garmin's FIT SDK for Python
    decodes it with no errors and a valid CRC, its workout_step messages say what the plan
    says, and the file imports back to the same timeline;
  - FIT activities written by fit-tool and TCX activities in Garmin's form (lxml): replayed
    against a plan they score exactly as the same samples written as an IntervalPro recording
    (per-foot cadence doubled, fractional cadence kept); a run held at one cadence is 100 % in
    a zone around it and 0 % in one above;
  - `history import` of a folder of such files, gzipped and zipped by the system tools: the runs
    stored once, others left out, figures held to Garmin's FIT SDK's reading of the FIT file.

Every command runs with scratch XDG folders. Usage: check_formats.py PATH/TO/intervalpro
"""
import csv
import glob
import gzip
import json
import math
import os
import re
import resource
import struct
import subprocess
import sys
import tempfile
import zlib
from datetime import datetime, timezone

from fit_tool.fit_file_builder import FitFileBuilder
from fit_tool.profile.messages.event_message import EventMessage
from fit_tool.profile.messages.file_id_message import FileIdMessage
from fit_tool.profile.messages.record_message import RecordMessage
from fit_tool.profile.messages.session_message import SessionMessage
from fit_tool.profile.messages.workout_message import WorkoutMessage
from fit_tool.profile.messages.workout_step_message import WorkoutStepMessage
from fit_tool.profile.profile_type import (
    Event, EventType, FileType, Intensity, Manufacturer, Sport, WorkoutStepDuration, WorkoutStepTarget)
from garmin_fit_sdk import Decoder, Stream
from jsonschema import Draft202012Validator
from lxml import etree
from xml.etree import ElementTree
import gpxpy
import gpxpy.gpx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from checks import ROOT, Tally, run  # noqa: E402

tally = Tally("formats")
check = tally.check
START = datetime(2026, 3, 1, 7, 30, 0, tzinfo=timezone.utc)


def fit_file(messages):
    builder = FitFileBuilder(auto_define=True, min_string_size=50)
    builder.add_all(messages)
    return builder.build()


def file_id(kind):
    message = FileIdMessage()
    message.type = kind
    message.manufacturer = Manufacturer.DEVELOPMENT.value
    message.product = 0
    message.time_created = round(START.timestamp() * 1000)
    message.serial_number = 0x12345678
    return message


def workout_step(name=None, intensity=Intensity.ACTIVE, seconds=None, metres=None, cadence=None):
    step = WorkoutStepMessage()
    if name:
        step.workout_step_name = name
    step.intensity = intensity
    if seconds is not None:
        step.duration_type = WorkoutStepDuration.TIME
        step.duration_time = seconds
    elif metres is not None:
        step.duration_type = WorkoutStepDuration.DISTANCE
        step.duration_distance = metres
    else:
        step.duration_type = WorkoutStepDuration.OPEN
        step.duration_value = 0
    if cadence:
        step.target_type = WorkoutStepTarget.CADENCE
        step.target_value = 0
        step.custom_target_cadence_low, step.custom_target_cadence_high = cadence
    else:
        step.target_type = WorkoutStepTarget.OPEN
        step.target_value = 0
    return step


def repeat_step(from_index, times):
    step = WorkoutStepMessage()
    step.duration_type = WorkoutStepDuration.REPEAT_UNTIL_STEPS_CMPLT
    step.duration_step = from_index
    step.target_repeat_steps = times
    return step


def check_fit_workout(binary, env, scratch):
    steps = [
        workout_step("Warm up", Intensity.WARMUP, seconds=600, cadence=(160, 170)),
        workout_step("Fast 400", Intensity.ACTIVE, metres=400, cadence=(178, 186)),
        workout_step("Jog", Intensity.RECOVERY, seconds=90, cadence=(155, 165)),
        repeat_step(1, 6),
        workout_step(None, Intensity.ACTIVE, seconds=300),
        workout_step("Cool down", Intensity.COOLDOWN),
    ]
    for index, step in enumerate(steps):
        step.message_index = index
    workout = WorkoutMessage()
    workout.workout_name = "6x400"
    workout.sport = Sport.RUNNING
    workout.num_valid_steps = len(steps)
    path = os.path.join(scratch, "fit-tool-workout.fit")
    fit_file([file_id(FileType.WORKOUT), workout, *steps]).to_file(path)

    timeline = json.loads(run(binary, env, "plan", "check", path, "--json"))
    check(timeline["plan"] == "6x400", f"FIT workout name: {timeline['plan']}")
    got = [
        (s["kind"], s["label"], s["repetition"], s.get("duration_s"), s.get("distance_m"), s["low_spm"], s["high_spm"])
        for s in timeline["steps"]
    ]
    expected = [("warmup", "Warm up", None, 600, None, 160, 170)]
    for n in range(1, 7):
        expected += [
            ("work", "Fast 400", f"{n}/6", None, 400, 178, 186),
            ("rest", "Jog", f"{n}/6", 90, None, 155, 165),
        ]
    expected += [("work", None, None, 300, None, None, None), ("cooldown", "Cool down", None, "open", None, None, None)]
    check(got == expected, f"FIT workout timeline:\n  got      {got}\n  expected {expected}")


def check_imported_plans_match_the_schema(binary, env, scratch):
    with open(os.path.join(ROOT, "Plans", "plan.schema.json")) as source:
        validator = Draft202012Validator(json.load(source))
    zwo = os.path.join(scratch, "builder.zwo")
    with open(zwo, "w") as out:
        out.write('<workout_file><name>Builder</name><sportType>run</sportType><workout>'
                  '<Warmup Duration="300" Cadence="160"/><IntervalsT Repeat="4" OnDuration="30" OffDuration="60" '
                  'Cadence="185" CadenceResting="165"/><FreeRide Duration="120"/></workout></workout_file>')
    text = os.path.join(scratch, "ladder.txt")
    with open(text, "w") as out:
        out.write("Warmup\n- 10m 160rpm\n\nMain set 4x\n- Hard 2m 5:00/km Pace 180rpm\n- Jog 90s 55-65rpm\n\n- 1km press lap\n")
    for workout in (os.path.join(scratch, "fit-tool-workout.fit"), zwo, text):
        plan = workout + ".json"
        run(binary, env, "plan", "import", workout, "-o", plan)
        with open(plan) as source:
            errors = list(validator.iter_errors(json.load(source)))
        check(errors == [], f"{os.path.basename(workout)}: the imported plan fails the schema: {[e.message for e in errors][:3]}")


def decode_fit(path, name):
    decoder = Decoder(Stream.from_file(path))
    check(decoder.is_fit(), f"{name}: FIT header")
    check(Decoder(Stream.from_file(path)).check_integrity(), f"{name}: FIT CRC")
    messages, errors = Decoder(Stream.from_file(path)).read()
    check(errors == [], f"{name}: FIT SDK errors {errors}")
    return messages


def check_plan_export(binary, env, scratch):
    plans = sorted(glob.glob(os.path.join(ROOT, "Plans", "*.json")) + glob.glob(os.path.join(ROOT, "Tests", "Contracts", "plans", "*.json")))
    plans = [p for p in plans if not p.endswith("schema.json")]
    check(len(plans) >= 8, f"{len(plans)} plans to export")
    for plan in plans:
        name = os.path.relpath(plan, ROOT)
        out = os.path.join(scratch, os.path.basename(plan) + ".fit")
        run(binary, env, "plan", "export", plan, "--format", "fit", "-o", out)
        messages = decode_fit(out, name)
        original = json.loads(run(binary, env, "plan", "check", plan, "--json"))
        check(messages["file_id_mesgs"][0]["type"] == "workout", f"{name}: file type {messages['file_id_mesgs'][0]['type']}")
        workout = messages["workout_mesgs"][0]
        check(workout["sport"] == "running", f"{name}: sport {workout['sport']}")
        check(workout["wkt_name"] == original["plan"], f"{name}: wkt_name {workout['wkt_name']}")
        fit_steps = messages["workout_step_mesgs"]
        check(workout["num_valid_steps"] == len(fit_steps), f"{name}: num_valid_steps")
        unrolled = unroll(fit_steps)
        check(len(unrolled) == len(original["steps"]), f"{name}: {len(unrolled)} FIT steps unrolled for {len(original['steps'])}")
        for fit_step, step in zip(unrolled, original["steps"]):
            label = f"{name}: step {step['index']}"
            if step.get("duration_s") == "open":
                check(fit_step["duration_type"] == "open", f"{label}: duration type {fit_step['duration_type']}")
            elif "distance_m" in step:
                check(fit_step["duration_type"] == "distance", f"{label}: duration type")
                check(abs(fit_step["duration_distance"] - step["distance_m"]) < 0.006, f"{label}: distance")
            else:
                check(fit_step["duration_type"] == "time", f"{label}: duration type {fit_step['duration_type']}")
                check(abs(fit_step["duration_time"] - step["duration_s"]) < 0.0006, f"{label}: duration")
            if step["target_spm"] is None:
                check(fit_step.get("target_type") == "open", f"{label}: target {fit_step.get('target_type')}")
            else:
                check(fit_step.get("target_type") == "cadence", f"{label}: target {fit_step.get('target_type')}")
                check(fit_step.get("custom_target_cadence_low") == round(step["low_spm"]), f"{label}: cadence low {fit_step}")
                check(fit_step.get("custom_target_cadence_high") == round(step["high_spm"]), f"{label}: cadence high")
            kinds = {"warmup": "warmup", "cooldown": "cooldown", "work": "active", "rest": "rest"}
            check(fit_step.get("intensity") == kinds[step["kind"]], f"{label}: intensity {fit_step.get('intensity')}")
        # FIT repeats cannot change per repetition: such a group is written out in full and
        # reads back as the same steps without repetition numbers.
        varies = len(fit_steps) == len(unrolled) and any(s["repetition"] for s in original["steps"])
        back = json.loads(run(binary, env, "plan", "check", out, "--json"))
        strip = lambda t: [{k: v for k, v in s.items() if not (varies and k == "repetition")} for s in t["steps"]]  # noqa: E731
        check(strip(back) == strip(original) and back["plan"] == original["plan"], f"{name}: FIT workout does not import back to the same timeline")


def unroll(steps):
    """The FIT SDK's workout steps as the watch runs them (repeat steps expanded)."""
    out = []
    index = 0
    counters = {}
    while index < len(steps):
        step = steps[index]
        if step["duration_type"] == "repeat_until_steps_cmplt":
            done = counters.get(index, 1)
            if done < step["repeat_steps"]:
                counters[index] = done + 1
                index = step["duration_step"]
                continue
            counters.pop(index, None)
        else:
            out.append(step)
        index += 1
    return out


# Samples of a run: second, per-foot cadence (whole, 1/128ths), heart rate, speed m/s, distance m.
def samples():
    rows = []
    distance = 0.0
    for second in range(0, 1500):
        phase = second // 100
        per_foot = [80, 85.5, 90, 84, 92.25, 86][phase % 6] + (0.5 if second % 7 == 0 else 0)
        whole = int(per_foot)
        fraction = round((per_foot - whole) * 128)
        speed = [2.5, 3.125, 3.5, 3.0, 3.75, 3.25][phase % 6]
        distance += speed
        heart_rate = 120 + phase * 3 + second % 5
        rows.append((second, whole, fraction, heart_rate, speed, round(distance, 2)))
    return rows


def constant_samples(per_foot, seconds):
    return [(s, per_foot, 0, 140, 3.0, round(3.0 * (s + 1), 2)) for s in range(seconds)]


def write_fit_activity(path, rows, legs=None):
    """The samples as fit-tool writes an activity: a session message after each leg's records,
    legs as [(sport, rows)] (one running leg of all the rows unless given)."""
    messages = [file_id(FileType.ACTIVITY)]
    base = round(START.timestamp() * 1000)
    for sport, leg_rows in legs or [(Sport.RUNNING, rows)]:
        for second, whole, fraction, heart_rate, speed, distance in leg_rows:
            record = RecordMessage()
            record.timestamp = base + second * 1000
            record.cadence = whole
            record.fractional_cadence = fraction / 128
            record.heart_rate = heart_rate
            record.speed = speed
            record.distance = distance
            messages.append(record)
        session = SessionMessage()
        session.timestamp = base + leg_rows[-1][0] * 1000
        session.start_time = base + leg_rows[0][0] * 1000
        session.sport = sport
        messages.append(session)
    fit_file(messages).to_file(path)


def write_tcx_activity(path, rows):
    ns = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    ax = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"
    root = etree.Element(f"{{{ns}}}TrainingCenterDatabase", nsmap={None: ns, "ns3": ax})
    activity = etree.SubElement(etree.SubElement(root, f"{{{ns}}}Activities"), f"{{{ns}}}Activity", Sport="Running")
    etree.SubElement(activity, f"{{{ns}}}Id").text = START.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    lap = etree.SubElement(activity, f"{{{ns}}}Lap", StartTime=START.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
    track = etree.SubElement(lap, f"{{{ns}}}Track")
    for second, whole, fraction, heart_rate, speed, distance in rows:
        point = etree.SubElement(track, f"{{{ns}}}Trackpoint")
        moment = datetime.fromtimestamp(START.timestamp() + second, tz=timezone.utc)
        etree.SubElement(point, f"{{{ns}}}Time").text = moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        etree.SubElement(point, f"{{{ns}}}DistanceMeters").text = f"{distance:.2f}"
        hr = etree.SubElement(point, f"{{{ns}}}HeartRateBpm")
        etree.SubElement(hr, f"{{{ns}}}Value").text = str(heart_rate)
        tpx = etree.SubElement(etree.SubElement(point, f"{{{ns}}}Extensions"), f"{{{ax}}}TPX")
        etree.SubElement(tpx, f"{{{ax}}}Speed").text = f"{speed:.3f}"
        # Garmin's TCX has whole per-foot cadence only.
        etree.SubElement(tpx, f"{{{ax}}}RunCadence").text = str(whole)
    etree.ElementTree(root).write(path, xml_declaration=True, encoding="UTF-8", pretty_print=True)


# Metres in a degree of latitude on the sphere of the mean earth radius (IUGG, 6,371,008.8 m):
# the GPX track runs north along a meridian at the samples' speed.
METRES_PER_DEGREE = 6_371_008.8 * math.pi / 180


def write_gpx_activity(path, rows):
    """The samples as gpxpy writes a GPX 1.1 track, heart rate and per-foot cadence in Garmin's
    TrackPointExtension v1 (as Strava's export does), positions and no speed."""
    tpx = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    gpx = gpxpy.gpx.GPX()
    gpx.creator = "gpxpy"
    gpx.nsmap["gpxtpx"] = tpx
    track = gpxpy.gpx.GPXTrack(name="Morning Run")
    track.type = "running"
    segment = gpxpy.gpx.GPXTrackSegment()
    track.segments.append(segment)
    gpx.tracks.append(track)
    for second, whole, fraction, heart_rate, speed, distance in rows:
        point = gpxpy.gpx.GPXTrackPoint(
            latitude=47.0 + (distance - rows[0][5]) / METRES_PER_DEGREE, longitude=8.0,
            time=datetime.fromtimestamp(START.timestamp() + second, tz=timezone.utc))
        extension = ElementTree.Element(f"{{{tpx}}}TrackPointExtension")
        ElementTree.SubElement(extension, f"{{{tpx}}}hr").text = str(heart_rate)
        ElementTree.SubElement(extension, f"{{{tpx}}}cad").text = str(whole)
        point.extensions.append(extension)
        segment.points.append(point)
    with open(path, "w") as out:
        out.write(gpx.to_xml(version="1.1"))


def write_recording(path, rows, fractional=True):
    """The same samples as IntervalPro recording format v1: RSC (steps) and HR notifications."""
    lines = [json.dumps({"intervalpro_recording": 1, "started_at": START.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "devices": [{"id": "w", "cadence_unit": "steps"}]})]
    for second, whole, fraction, heart_rate, speed, distance in rows:
        # A half step to the even neighbour, as the import fills RSC (Python's round does so).
        steps = round(2 * (whole + (fraction / 128 if fractional else 0)))
        rsc = bytes([0x06]) + round(speed * 256).to_bytes(2, "little") + bytes([steps]) + round(distance * 10).to_bytes(4, "little")
        lines.append(json.dumps({"t": second, "dev": "w", "char": "2a53", "hex": rsc.hex()}))
        lines.append(json.dumps({"t": second, "dev": "w", "char": "2a37", "hex": bytes([0, heart_rate]).hex()}))
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


SCORED = ("in_zone_s", "below_s", "above_s", "no_signal_s", "avg_cadence_spm", "avg_hr_bpm", "max_hr_bpm", "duration_s")


def scored(binary, env, source, plan):
    summary = json.loads(run(binary, env, "replay", source, "--plan", plan, "--fast", "--json", "--no-save"))
    return [{k: step.get(k) for k in SCORED} for step in summary["steps"]]


def check_activities(binary, env, scratch):
    plan = os.path.join(scratch, "activity-plan.txt")
    with open(plan, "w") as out:
        out.write("Warmup\n- 5m 160-170rpm\n\nMain set 3x\n- 3m 175rpm\n- 2m 165rpm\n\nCooldown\n- 5m 168rpm\n")
    rows = samples()
    fit = os.path.join(scratch, "fit-tool-activity.fit")
    tcx = os.path.join(scratch, "garmin-form.tcx")
    jsonl = os.path.join(scratch, "same-samples.jsonl")
    jsonl_whole = os.path.join(scratch, "same-samples-whole.jsonl")
    write_fit_activity(fit, rows)
    write_tcx_activity(tcx, rows)
    write_recording(jsonl, rows)
    write_recording(jsonl_whole, rows, fractional=False)

    expected = scored(binary, env, jsonl, plan)
    check(len(expected) == 8, f"{len(expected)} steps scored")
    check(scored(binary, env, fit, plan) == expected, "the fit-tool FIT activity scores differently from the same samples as a recording")
    check(scored(binary, env, tcx, plan) == scored(binary, env, jsonl_whole, plan), "the TCX activity scores differently from the same samples as a recording")
    gpx = os.path.join(scratch, "gpxpy-activity.gpx")
    write_gpx_activity(gpx, rows)
    check(scored(binary, env, gpx, plan) == scored(binary, env, jsonl_whole, plan), "the gpxpy GPX activity scores differently from the same samples as a recording")
    # Its distances are the haversine sums of the points: each step's as the same samples'
    # (whose distances start at the first sample's), to RSC's 0.1 m and the file's digits.
    def step_distances(source):
        summary = json.loads(run(binary, env, "replay", source, "--plan", plan, "--fast", "--json", "--no-save"))
        return [step["distance_m"] or 0 for step in summary["steps"]]
    track, samples_walked = step_distances(gpx), step_distances(jsonl_whole)
    check(len(track) == len(samples_walked) and all(abs(a - b) <= 0.5 for a, b in zip(track, samples_walked))
          and sum(track) > 1000, f"the GPX track's step distances {track} against the samples' {samples_walked}")
    # Compressed as a Strava bulk export keeps them, by the system's gzip: the same scores.
    for source in (fit, tcx, gpx):
        subprocess.run(["gzip", "-k", "-f", source], check=True)
        check(scored(binary, env, source + ".gz", plan) == scored(binary, env, source, plan),
              f"{os.path.basename(source)}.gz scores differently from {os.path.basename(source)}")
    # Zipped by the system's zip, as Garmin Connect's "Export Original" hands one out (beside a
    # file that is no activity), stored or deflated: the same scores.
    readme = os.path.join(scratch, "README.txt")
    with open(readme, "w") as out:
        out.write("Exported activity\n")
    for source, options in ((fit, []), (tcx, ["-0"]), (gpx + ".gz", [])):
        packed = os.path.join(scratch, os.path.basename(source) + ".zip")
        subprocess.run(["zip", "-q", "-j", *options, packed, source, readme], check=True)
        check(scored(binary, env, packed, plan) == scored(binary, env, source, plan),
              f"{os.path.basename(packed)} scores differently from {os.path.basename(source)}")
    # Beside a video larger than any activity (its directory entry says 600 MiB; its data is
    # never taken out, so a few bytes stand in for it): the activity is read, the video passed
    # over, by `replay` and by `history import`.
    video = os.path.join(scratch, "video.mp4")
    with open(video, "wb") as out:
        out.write(b"\0\0\0\x18ftypmp42")
    with_video = os.path.join(scratch, "with-video.zip")
    subprocess.run(["zip", "-q", "-j", "-0", with_video, fit, video], check=True)
    with open(with_video, "rb") as source:
        archive = bytearray(source.read())
    entry = archive.rindex(b"PK\x01\x02")  # the video's, the last in the directory
    check(archive[entry + 46:entry + 46 + 9] == b"video.mp4", "with-video.zip: the video's directory entry is the last")
    archive[entry + 20:entry + 28] = struct.pack("<II", 600 << 20, 600 << 20)
    with open(with_video, "wb") as out:
        out.write(archive)
    check(scored(binary, env, with_video, plan) == scored(binary, env, fit, plan), "with-video.zip scores differently from its FIT file")
    # Through a pipe, which cannot be mapped: read into memory, the same scores.
    piped = subprocess.run([binary, "replay", "/dev/stdin", "--plan", plan, "--fast", "--json", "--no-save"],
                           env=env, input=bytes(archive), capture_output=True)
    piped_steps = [{k: step.get(k) for k in SCORED} for step in json.loads(piped.stdout)["steps"]] if piped.returncode == 0 else None
    check(piped_steps == scored(binary, env, fit, plan), f"with-video.zip through a pipe: exit {piped.returncode}, {piped.stderr[-200:]!r}")
    imported = json.loads(run(binary, env, "history", "import", with_video, "--json", "--db", os.path.join(scratch, "video.sqlite")))
    check(len(imported["imported"]) == 1 and imported["other_files"] == 1 and imported["unreadable"] == [],
          f"with-video.zip: the run imported, the video passed over: {imported}")
    two = os.path.join(scratch, "two.zip")
    subprocess.run(["zip", "-q", "-j", two, fit, gpx], check=True)
    with open(fit + ".gz", "rb") as source:
        fit_gz = source.read()
    with open(two, "rb") as source:
        two_zip = source.read()
    # An export's other files beside its activities: said as activities, they were listed too.
    listing = os.path.join(scratch, "activities.csv")
    with open(listing, "w") as out:
        out.write("Activity ID,Filename\n1,fit-tool-activity.fit\n")
    with_listing = os.path.join(scratch, "with-listing.zip")
    subprocess.run(["zip", "-q", "-j", with_listing, listing, fit, gpx], check=True)
    with open(with_listing, "rb") as source:
        with_listing_zip = source.read()
    with open(gpx, "rb") as source:
        gpx_bytes = source.read()
    for name, content, expected in [
        ("route.gpx", b'<gpx version="1.1">\n<rte><rtept lat="1" lon="2"/></rte></gpx>', "route.gpx:1: no <trk>"),
        ("not-an-activity.gz", gzip.compress(b"hello\n"), "not-an-activity.gz (inflated): not a recording, a FIT, TCX or GPX activity, nor RR intervals as text: it begins \"hello\""),
        ("two.zip", two_zip, "two.zip: a zip file with 2 activities (fit-tool-activity.fit, gpxpy-activity.gpx): unzip it and replay one"),
        ("listed.zip", with_listing_zip, "listed.zip: a zip file with 2 activities (fit-tool-activity.fit, gpxpy-activity.gpx): unzip it and replay one"),
        ("cut.zip", two_zip[:-30], "cut.zip: a zip file that cannot be read: no zip directory at its end"),
        ("nothing.zip", b"PK\x05\x06" + bytes(18), "nothing.zip: an empty zip file: no activity or recording in it"),
    ]:
        path = os.path.join(scratch, name)
        with open(path, "wb") as out:
            out.write(content)
        result = subprocess.run([binary, "replay", path, "--fast", "--no-save"], env=env, capture_output=True, text=True)
        check(result.returncode == 65 and expected in result.stderr.replace(scratch + "/", "")
              and "Fatal error" not in result.stderr, f"{name}: exit {result.returncode}, stderr {result.stderr!r}")
    # A gzipped activity cut short: what it inflates to before the cut is read, a FIT file up
    # to its last whole record, with both warnings; --strict refuses it.
    cut_gz = os.path.join(scratch, "cut.fit.gz")
    with open(cut_gz, "wb") as out:
        out.write(fit_gz[: len(fit_gz) // 2])
    partial = subprocess.run([binary, "replay", cut_gz, "--json"], env=env, capture_output=True, text=True)
    records = json.loads(partial.stdout)["devices"][0]["notifications"]["2a53"] if partial.returncode == 0 else 0
    check(partial.returncode == 0 and 0 < records < len(rows) and "cannot be inflated whole: the file ends inside" in partial.stderr
          and f"{records} records" in partial.stderr, f"cut.fit.gz: exit {partial.returncode}, {records} records: {partial.stderr!r}")
    # Imported, its gzip warning is said; imported again, the run is one imported before and
    # none of its warnings is said (the gzip one alone was).
    cut_db = os.path.join(scratch, "cut.sqlite")
    first = json.loads(run(binary, env, "history", "import", cut_gz, "--json", "--db", cut_db))
    again = json.loads(run(binary, env, "history", "import", cut_gz, "--json", "--db", cut_db))
    check(len(first["imported"]) == 1 and any("cannot be inflated whole" in w for w in first["warnings"])
          and again["imported"] == [] and len(again["duplicates"]) == 1 and again["warnings"] == [],
          f"cut.fit.gz imported twice: {first}, then {again}")
    strict = subprocess.run([binary, "replay", cut_gz, "--strict"], env=env, capture_output=True, text=True)
    check(strict.returncode == 65 and "cut.fit.gz: a gzip file that cannot be inflated: the file ends inside" in strict.stderr,
          f"cut.fit.gz --strict: exit {strict.returncode}, {strict.stderr!r}")
    # A gzipped recording cut short: its whole lines before the cut, as many as Python's zlib
    # inflates from the same bytes.
    with open(jsonl, "rb") as source:
        recording_gz = gzip.compress(source.read())
    cut_recording = os.path.join(scratch, "cut.jsonl.gz")
    with open(cut_recording, "wb") as out:
        out.write(recording_gz[: len(recording_gz) // 2])
    inflated = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(recording_gz[: len(recording_gz) // 2])
    whole_lines = inflated.count(b"\n") - 1  # less the header
    partial = subprocess.run([binary, "replay", cut_recording, "--json"], env=env, capture_output=True, text=True)
    notifications = sum(json.loads(partial.stdout)["devices"][0]["notifications"].values()) if partial.returncode == 0 else 0
    check(partial.returncode == 0 and notifications == whole_lines > 0,
          f"cut.jsonl.gz: exit {partial.returncode}, {notifications} notifications read, {whole_lines} whole lines: {partial.stderr[-200:]!r}")
    # A recording whose writer died part way through a line (a crash, a pulled plug): its
    # whole lines, and a warning naming the cut line; --strict refuses it.
    with open(jsonl, "rb") as source:
        recording = source.read()
    cut_at = recording.index(b"\n", len(recording) // 2) + 20
    cut_plain = os.path.join(scratch, "cut.jsonl")
    with open(cut_plain, "wb") as out:
        out.write(recording[:cut_at])
    cut_line = recording[:cut_at].count(b"\n") + 1
    partial = subprocess.run([binary, "replay", cut_plain, "--json", "--no-save"], env=env, capture_output=True, text=True)
    notifications = sum(json.loads(partial.stdout)["devices"][0]["notifications"].values()) if partial.returncode == 0 else 0
    check(partial.returncode == 0 and notifications == cut_line - 2 > 0
          and f"cut.jsonl:{cut_line}: the last line is cut short" in partial.stderr
          and f"read the {cut_line - 1} lines before it" in partial.stderr,
          f"cut.jsonl: exit {partial.returncode}, {notifications} notifications read, cut at line {cut_line}: {partial.stderr[-300:]!r}")
    strict = subprocess.run([binary, "replay", cut_plain, "--strict", "--no-save"], env=env, capture_output=True, text=True)
    check(strict.returncode == 65 and f"cut.jsonl:{cut_line}: invalid JSON" in strict.stderr,
          f"cut.jsonl --strict: exit {strict.returncode}, {strict.stderr!r}")

    stats = json.loads(run(binary, env, "replay", fit, "--json"))
    check(json.dumps(stats).find('"watch"') >= 0, "replay statistics name the activity's device")

    steady_fit = os.path.join(scratch, "steady.fit")
    write_fit_activity(steady_fit, constant_samples(85, 20 * 60))
    steady_plan = os.path.join(scratch, "steady.txt")
    with open(steady_plan, "w") as out:
        out.write("- 10m 170rpm\n- 10m 185rpm\n")
    steady = json.loads(run(binary, env, "replay", steady_fit, "--plan", steady_plan, "--fast", "--json", "--no-save"))
    check(steady["steps"][0]["in_zone_pct"] == 100, f"85 per foot is 170 steps: in zone {steady['steps'][0]['in_zone_pct']} %")
    check(steady["steps"][1]["in_zone_pct"] == 0 and steady["steps"][1]["below_s"] == 600, f"170 steps is below 180-190: {steady['steps'][1]}")

    # Stored like any session: replay with saving, then `show last`.
    run(binary, env, "replay", fit, "--plan", plan, "--fast", "--json")
    stored = json.loads(run(binary, env, "show", "last", "--json"))
    check(stored["source"] == "replay" and stored["plan"] == "activity-plan", f"stored session {stored.get('source')} {stored.get('plan')}")


def check_multisport(binary, env, scratch):
    """A brick as fit-tool writes it: a cycling session, then a running one. The run is
    scored (as its samples alone, as a recording, score); the ride is refused (65) unless
    --sport any is given."""
    rows = samples()[:600]
    brick = os.path.join(scratch, "brick.fit")
    write_fit_activity(brick, rows, legs=[(Sport.CYCLING, rows[:300]), (Sport.RUNNING, rows[300:])])
    run_part = os.path.join(scratch, "run-part.jsonl")
    write_recording(run_part, [(s - 300, *rest) for s, *rest in rows[300:]])
    plan = os.path.join(scratch, "brick-plan.txt")
    with open(plan, "w") as out:
        out.write("- 2m 170rpm\n- 3m 180rpm\n")
    result = subprocess.run([binary, "replay", brick, "--plan", plan, "--fast", "--json", "--no-save"], env=env, capture_output=True, text=True)
    check(result.returncode == 0 and [{k: step.get(k) for k in SCORED} for step in json.loads(result.stdout)["steps"]] == scored(binary, env, run_part, plan),
          f"the brick's run leg scores as its samples do: exit {result.returncode}")
    check("leg 2 (running, from 5:00) is read" in result.stderr, f"the warning says which leg: {result.stderr!r}")
    refused = subprocess.run([binary, "replay", brick, "--leg", "1", "--no-save"], env=env, capture_output=True, text=True)
    check(refused.returncode == 65 and "leg 1 (cycling, from 0:00) is not a run" in refused.stderr, f"--leg 1: {refused.returncode} {refused.stderr!r}")
    ride = subprocess.run([binary, "replay", brick, "--leg", "1", "--sport", "any", "--json"], env=env, capture_output=True, text=True)
    check(ride.returncode == 0 and json.loads(ride.stdout)["duration_s"] == 299, f"--leg 1 --sport any: {ride.returncode} {ride.stdout[:200]!r}")


def check_cut_xml_activities(binary, env, scratch):
    """A TCX or GPX file cut off part way (a watch or an app that never finished writing it)
    is read up to the cut: the points lxml's recovering parser finds whole there (a point
    with its time), or one fewer; --strict refuses it (65)."""
    rows = samples()[:600]
    for kind, write, point, time in (("gpx", write_gpx_activity, "trkpt", "time"), ("tcx", write_tcx_activity, "Trackpoint", "Time")):
        whole_path = os.path.join(scratch, f"whole.{kind}")
        write(whole_path, rows)
        with open(whole_path, "rb") as source:
            whole = source.read()
        for tenth in (3, 5, 8):
            content = whole[: len(whole) * tenth // 10]
            path = os.path.join(scratch, f"cut-{tenth}.{kind}")
            with open(path, "wb") as out:
                out.write(content)
            recovered = etree.fromstring(content, etree.XMLParser(recover=True))
            # A point counts once its time is whole (the writers end every time with Z): lxml
            # also keeps the element that was cut, with the part of its text written.
            expected = sum(1 for element in recovered.iter() if etree.QName(element).localname == point
                           and any(etree.QName(child).localname == time and (child.text or "").endswith("Z") for child in element))
            # libxml2's reader may report the cut before the end tags it read just ahead of it,
            # so the last whole point can go with it: one fewer, never more.
            result = subprocess.run([binary, "replay", path, "--json"], env=env, capture_output=True, text=True)
            read = re.search(r"read what comes before it: (\d+) points", result.stderr)
            check(result.returncode == 0 and expected > 0 and read and int(read.group(1)) in (expected - 1, expected),
                  f"cut-{tenth}.{kind}: exit {result.returncode}, lxml recovers {expected} points: {result.stderr[-300:]!r}")
            strict = subprocess.run([binary, "replay", path, "--strict"], env=env, capture_output=True, text=True)
            check(strict.returncode == 65 and "invalid XML" in strict.stderr, f"cut-{tenth}.{kind} --strict: {strict.returncode} {strict.stderr!r}")


def check_damaged_activities(binary, env, scratch):
    """A watch whose battery died: the fit-tool activity cut short at several places and with a
    wrong CRC is read up to the damage, as many records as Garmin's FIT SDK reads from the
    same bytes, with a warning; --strict refuses it (65)."""
    whole_path = os.path.join(scratch, "whole-activity.fit")
    write_fit_activity(whole_path, samples()[:600])
    with open(whole_path, "rb") as source:
        whole = source.read()
    wrong_crc = bytearray(whole)
    wrong_crc[-1] ^= 0xFF
    cases = [(f"cut-{n}.fit", whole[: len(whole) * n // 10 + 3]) for n in (1, 5, 9)] + [("wrong-crc.fit", bytes(wrong_crc))]
    for name, content in cases:
        path = os.path.join(scratch, name)
        with open(path, "wb") as out:
            out.write(content)
        messages, errors = Decoder(Stream.from_byte_array(bytearray(content))).read()
        garmin = len(messages.get("record_mesgs", []))
        result = subprocess.run([binary, "replay", path, "--json"], env=env, capture_output=True, text=True)
        ours = json.loads(result.stdout)["devices"][0]["notifications"]["2a53"] if result.returncode == 0 else None
        check(result.returncode == 0 and ours == garmin and garmin > 0 and errors,
              f"{name}: {ours} records read (exit {result.returncode}), Garmin's FIT SDK {garmin} ({errors[:1]})")
        check("read what comes before it" in result.stderr and f"{garmin} records" in result.stderr
              and "`replay --strict` refuses the file" in result.stderr, f"{name}: the warning says what was read: {result.stderr!r}")
        strict = subprocess.run([binary, "replay", path, "--strict"], env=env, capture_output=True, text=True)
        check(strict.returncode == 65 and ("is damaged" in strict.stderr or "truncated?" in strict.stderr),
              f"{name} --strict: exit {strict.returncode}, {strict.stderr!r}")


def with_start(moment, write, *arguments):
    """Writes with one of the writers above as if the run had started at `moment`."""
    global START
    saved, START = START, moment
    try:
        write(*arguments)
    finally:
        START = saved


def check_history_import(binary, env, scratch):
    """`history import` of a folder as a runner holds one: a FIT file from fit-tool gzipped by
    gzip(1), a GPX from gpxpy, a TCX gzipped, a ride, a CSV, and a Garmin-style zip holding a zip
    that holds a FIT file (zip(1)). Figures are held to Garmin's FIT SDK's reading of the FIT."""
    folder = os.path.join(scratch, "export")
    activities = os.path.join(folder, "activities")
    os.makedirs(activities)
    day = 86_400
    def at(days_back):
        return datetime.fromtimestamp(START.timestamp() - days_back * day, tz=timezone.utc)
    rows = samples()
    with_start(at(0), write_fit_activity, os.path.join(activities, "1001.fit"), rows)
    subprocess.run(["gzip", os.path.join(activities, "1001.fit")], check=True)
    with_start(at(2), write_gpx_activity, os.path.join(activities, "1002.gpx"), constant_samples(86, 600))
    with_start(at(4), write_tcx_activity, os.path.join(activities, "1003.tcx"), constant_samples(84, 600))
    subprocess.run(["gzip", os.path.join(activities, "1003.tcx")], check=True)
    with_start(at(6), write_fit_activity, os.path.join(activities, "1004.fit"), constant_samples(45, 300),
               [(Sport.CYCLING, constant_samples(45, 300))])
    # Strava's activities.csv names the runs a FIT or TCX file cannot (quoted as Python's csv
    # module writes a name with a comma and quotes in it, and a description over two lines).
    with open(os.path.join(folder, "activities.csv"), "w", newline="") as out:
        table = csv.writer(out)
        table.writerow(["Activity ID", "Activity Date", "Activity Name", "Activity Type", "Activity Description", "Filename"])
        table.writerow(["1001", "Mar 1, 2026", 'Tempo, "Tuesday"', "Run", "Felt good,\nsecond half fast", "activities/1001.fit.gz"])
        table.writerow(["1005", "Mar 9, 2026", "Manual entry", "Run", "", ""])
    garmin = os.path.join(scratch, "garmin")
    os.makedirs(garmin)
    with_start(at(8), write_fit_activity, os.path.join(garmin, "run.fit"), constant_samples(88, 300))
    subprocess.run(["zip", "-q", "UploadedFiles_0-_Part1.zip", "run.fit"], cwd=garmin, check=True)
    subprocess.run(["zip", "-q", os.path.join(folder, "garmin-export.zip"), "UploadedFiles_0-_Part1.zip"], cwd=garmin, check=True)

    db = os.path.join(scratch, "import.sqlite")
    report = json.loads(run(binary, env, "history", "import", folder, "--json", "--db", db))
    check(len(report["imported"]) == 4, f"history import: 4 runs imported: {report}")
    check([s["reason"] for s in report["not_runs"]] == ["cycling"], f"history import: the ride left out: {report['not_runs']}")
    check(report["other_files"] == 1 and report["unreadable"] == [], f"history import: the CSV left out, nothing unreadable: {report}")

    sessions = json.loads(run(binary, env, "history", "--json", "--limit", "100", "--db", db))["sessions"]
    check([s["started_at"] for s in sessions] == [at(d).strftime("%Y-%m-%dT%H:%M:%SZ") for d in (0, 2, 4, 8)],
          f"history import: listed by the watch's start: {[s['started_at'] for s in sessions]}")
    check(all(s["source"] == "imported" and s["status"] == "finished" for s in sessions), "history import: source imported")
    check([s["plan"] for s in sessions] == ['Tempo, "Tuesday"', "Morning Run", "Imported run", "Imported run"],
          f"history import: named by activities.csv, else by the file: {[s['plan'] for s in sessions]}")
    check([s["avg_cadence_spm"] for s in sessions[1:]] == [172, 168, 176], f"history import: cadence doubled per foot: {sessions}")

    # The FIT file's figures as Garmin's SDK reads it: each reading holds until the next, so the
    # last record (at the end) weighs nothing.
    with gzip.open(os.path.join(activities, "1001.fit.gz")) as source:
        messages, errors = Decoder(Stream.from_byte_array(bytearray(source.read()))).read()
    check(errors == [], f"history import: the SDK reads the FIT file: {errors}")
    records = messages["record_mesgs"][:-1]
    heart_rate = sum(r["heart_rate"] for r in records) / len(records)
    cadence = sum(round(2 * (r["cadence"] + r.get("fractional_cadence", 0))) for r in records) / len(records)
    first = sessions[0]
    check(abs(first["avg_hr_bpm"] - heart_rate) <= 0.05, f"history import: heart rate {first['avg_hr_bpm']} vs the SDK's {heart_rate:.2f}")
    check(abs(first["avg_cadence_spm"] - cadence) <= 0.05, f"history import: cadence {first['avg_cadence_spm']} vs the SDK's {cadence:.2f}")
    check(first["duration_s"] == len(records), f"history import: duration {first['duration_s']} s, {len(records)} records")
    check(abs(first["distance_m"] - (messages["record_mesgs"][-1]["distance"] - messages["record_mesgs"][0]["distance"])) <= 0.15,
          f"history import: distance {first['distance_m']}")

    # A zip inside a zip is copied to a temporary file to be read: one that could not be
    # written (the folder full, here `ulimit -f` of 1 MB for a 3 MB copy) was read as "holds no
    # activity" and its runs left out without a word.
    bulky = os.path.join(scratch, "bulky")
    os.makedirs(bulky)
    with_start(at(10), write_fit_activity, os.path.join(bulky, "run.fit"), constant_samples(88, 300))
    with open(os.path.join(bulky, "video.bin"), "wb") as out:
        out.write(os.urandom(3 << 20))
    subprocess.run(["zip", "-q", "-0", "UploadedFiles_0-_Part2.zip", "run.fit", "video.bin"], cwd=bulky, check=True)
    subprocess.run(["zip", "-q", "-0", "outer.zip", "UploadedFiles_0-_Part2.zip"], cwd=bulky, check=True)
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    limited = subprocess.run([binary, "history", "import", os.path.join(bulky, "outer.zip"), "--json", "--db",
                              os.path.join(scratch, "bulky.sqlite")], cwd=ROOT, env=dict(env, TMPDIR=bulky),
                             capture_output=True, text=True, preexec_fn=limit)
    limited_report = json.loads(limited.stdout) if limited.stdout.strip().startswith("{") else {}
    told = limited_report.get("unreadable") or []
    check(any("UploadedFiles_0-_Part2.zip" in u.get("file", "") and "cannot write" in u.get("reason", "")
              and "TMPDIR" in u.get("reason", "") for u in told),
          f"history import: a zip in a zip that cannot be copied out is said unreadable, with why and where: {limited.stdout[-600:]} {limited.stderr[-300:]}")
    # A failure here, not bad data: 74 (it was 65, or 0 beside a file imported), and counted.
    check(limited.returncode == 74 and limited_report.get("not_read_here") == 1
          and "could not be read here" in limited.stderr,
          f"history import: a copy the temporary folder could not hold exits 74: {limited.returncode} {limited.stderr[-300:]}")

    again = json.loads(run(binary, env, "history", "import", folder, "--json", "--db", db))
    check(again["imported"] == [] and len(again["duplicates"]) == 4, f"history import: a second import adds nothing: {again}")
    trends = json.loads(run(binary, env, "trends", "--weeks", "520", "--json", "--db", db))
    check(len(trends["sessions"]) == 4 and all(s["avg_work_cadence_spm"] for s in trends["sessions"]),
          f"history import: trends draws the imported runs: {trends['sessions']}")
    run(binary, env, "delete", str(sessions[0]["session_id"]), "--db", db)
    third = json.loads(run(binary, env, "history", "import", folder, "--json", "--db", db))
    check(len(third["imported"]) == 1, f"history import: a deleted run comes back: {third}")


def check_a_paused_run(binary, env, scratch):
    """A watch's run with a pause, as Garmin writes it: records each second up to the stop, the
    timer stopped a second after the last (its timer counts that second), none while paused.
    Imported, its time is the watch's timer time as the SDK reads it; imported again, it is not
    said to be a copy cut short; exported and imported again, neither its stops nor its time move."""
    path = os.path.join(scratch, "paused.fit")
    base = round(START.timestamp() * 1000)
    messages = [file_id(FileType.ACTIVITY)]

    def timer(second, kind):
        event = EventMessage()
        event.timestamp = base + second * 1000
        event.event = Event.TIMER
        event.event_type = kind
        messages.append(event)

    timer(0, EventType.START)
    for second in list(range(0, 600)) + list(range(720, 1800)):
        if second == 720:
            timer(720, EventType.START)
        record = RecordMessage()
        record.timestamp = base + second * 1000
        record.cadence = 85
        record.heart_rate = 150
        messages.append(record)
        if second == 599:
            timer(600, EventType.STOP_ALL)
    timer(1799, EventType.STOP_ALL)
    session = SessionMessage()
    session.timestamp = base + 1799 * 1000
    session.start_time = base
    session.sport = Sport.RUNNING
    session.total_timer_time = 1679
    session.total_elapsed_time = 1799
    messages.append(session)
    fit_file(messages).to_file(path)

    def timer_of(fit):
        read, errors = Decoder(Stream.from_file(fit)).read()
        check(errors == [], f"paused run: the SDK reads {os.path.basename(fit)}: {errors}")
        start = read["record_mesgs"][0]["timestamp"]
        events = [(e["event_type"], (e["timestamp"] - start).total_seconds()) for e in read["event_mesgs"] if e["event"] == "timer"]
        return read["session_mesgs"][0]["total_timer_time"], events

    watch_timer, watch_events = timer_of(path)
    db = os.path.join(scratch, "paused.sqlite")
    run(binary, env, "history", "import", path, "--db", db)
    kept = json.loads(run(binary, env, "show", "last", "--json", "--db", db))
    check(kept["duration_s"] == watch_timer == 1679, f"paused run: kept {kept['duration_s']} s, the watch's timer {watch_timer} s")
    again = json.loads(run(binary, env, "history", "import", path, "--json", "--db", db))
    check(len(again["duplicates"]) == 1 and again["longer_than_kept"] == [],
          f"paused run: imported again, skipped and not said to be cut short: {again}")
    for round_trip in (1, 2):
        exported = os.path.join(scratch, f"paused-{round_trip}.fit")
        run(binary, env, "export", "last", "--format", "fit", "-o", exported, "--db", db)
        exported_timer, exported_events = timer_of(exported)
        check((exported_timer, exported_events) == (watch_timer, watch_events),
              f"paused run: export {round_trip} has the watch's timer and stops: {exported_timer} {exported_events} vs {watch_events}")
        run(binary, env, "history", "import", exported, "--db", db)
        check(json.loads(run(binary, env, "show", "last", "--json", "--db", db))["duration_s"] == 1679,
              f"paused run: export {round_trip} imported again keeps 1679 s")


def check_a_disk_as_it_holds_its_folders(binary, env):
    """`history import` of a folder as an external disk holds one: a folder that may not be
    opened (a root-only lost+found) is named and the rest imported; a link to a folder (of runs,
    or back to a parent) is named, not followed; a file that may not be read exits 66.
    Run as an unprivileged user when the suite runs as root, since root opens anything."""
    as_user = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
    disk = tempfile.mkdtemp(prefix="intervalpro-disk-")
    try:
        os.chmod(disk, 0o777)
        folder = os.path.join(disk, "runs")
        elsewhere = os.path.join(disk, "elsewhere")
        for path in (folder, elsewhere, os.path.join(folder, "lost+found")):
            os.makedirs(path)
        write_gpx_activity(os.path.join(folder, "run.gpx"), constant_samples(86, 300))
        with_start(datetime(2026, 3, 2, 7, 30, tzinfo=timezone.utc), write_gpx_activity, os.path.join(elsewhere, "other.gpx"),
                   constant_samples(84, 300))
        os.symlink(elsewhere, os.path.join(folder, "linked"))
        os.symlink(folder, os.path.join(folder, "back-to-runs"))
        locked = os.path.join(folder, "lost+found")
        os.chmod(locked, 0)
        for root, folders, files in os.walk(disk):
            for name in folders:
                if os.path.join(root, name) != locked:
                    os.chmod(os.path.join(root, name), 0o777)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)
        user_env = dict(env, XDG_DATA_HOME=os.path.join(disk, "data"), XDG_CONFIG_HOME=os.path.join(disk, "config"))
        result = subprocess.run([binary, "history", "import", folder, "--json"], env=user_env, capture_output=True, text=True,
                                cwd=disk, **as_user)
        check(result.returncode == 0, f"a disk's folders: exit {result.returncode}: {result.stderr}")
        report = json.loads(result.stdout or "{}")
        check(len(report.get("imported", [])) == 1, f"a disk's folders: the run imported: {report}")
        unreadable = {u["file"]: u["reason"] for u in report.get("unreadable", [])}
        check(sorted(unreadable) == sorted([locked, os.path.join(folder, "linked"), os.path.join(folder, "back-to-runs")])
              and "Permission denied" in unreadable.get(locked, "")
              and "a link to a folder, not followed" in unreadable.get(os.path.join(folder, "linked"), ""),
              f"a disk's folders: the locked folder and the links to folders named: {report.get('unreadable')}")

        secret = os.path.join(folder, "run.gpx")
        os.chmod(secret, 0)
        result = subprocess.run([binary, "history", "import", secret], env=user_env, capture_output=True, text=True, cwd=disk, **as_user)
        check(result.returncode == 66 and "run.gpx" in result.stderr and "Permission denied" in result.stderr,
              f"a file that may not be read: exit {result.returncode} (66): {result.stderr!r}")
    finally:
        for root, folders, files in os.walk(disk):
            for name in folders:
                if not os.path.islink(os.path.join(root, name)):
                    os.chmod(os.path.join(root, name), 0o755)
        subprocess.run(["rm", "-rf", disk], check=False)


def check_errors(binary, env, scratch):
    cases = {
        "broken.txt": ("Warmup\n- 10m 170rpm\n- Hard stuff 180rpm\n", "broken.txt:3: no duration or distance"),
        "broken.zwo": ('<workout_file><workout>\n<SteadyState Power="0.8"/></workout></workout_file>', "broken.zwo:2: <SteadyState> needs a numeric Duration"),
        "cadence.zwo": ('<workout_file><workout>\n<SteadyState Duration="60" Cadence="400"/></workout></workout_file>', "cadence.zwo:2: cadence 400"),
        "truncated.fit": (None, "truncated.fit: byte 4: the header announces"),
    }
    for name, (text, expected) in cases.items():
        path = os.path.join(scratch, name)
        if text is None:
            with open(os.path.join(scratch, "fit-tool-workout.fit"), "rb") as source:
                data = source.read()
            with open(path, "wb") as out:
                out.write(data[: len(data) // 2])
        else:
            with open(path, "w") as out:
                out.write(text)
        result = subprocess.run([binary, "plan", "check", path], env=env, capture_output=True, text=True)
        check(result.returncode == 65, f"{name}: exit {result.returncode}")
        check(expected in result.stderr.replace(scratch + "/", ""), f"{name}: stderr {result.stderr!r} lacks {expected!r}")
        check("Fatal error" not in result.stderr and "Stack" not in result.stderr, f"{name}: crashed")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, XDG_DATA_HOME=os.path.join(scratch, "data"), XDG_CONFIG_HOME=os.path.join(scratch, "config"), NO_COLOR="1")
        check_fit_workout(binary, env, scratch)
        check_imported_plans_match_the_schema(binary, env, scratch)
        check_plan_export(binary, env, scratch)
        check_activities(binary, env, scratch)
        check_damaged_activities(binary, env, scratch)
        check_multisport(binary, env, scratch)
        check_cut_xml_activities(binary, env, scratch)
        check_history_import(binary, env, scratch)
        check_a_paused_run(binary, env, scratch)
        check_a_disk_as_it_holds_its_folders(binary, env)
        check_errors(binary, env, scratch)
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
