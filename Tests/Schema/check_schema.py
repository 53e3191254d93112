#!/usr/bin/env python3
"""Check Plans/plan.schema.json (IntervalPro plan format, versions 1 and 2).

- the schema itself is a valid draft 2020-12 schema;
- every Plans/*.json except the schema validates against it;
- every contract plan (Tests/Contracts/plans/*.json: valid under a published version, so
  valid for good) validates against it: the schema may widen, never narrow;
- a set of valid edge cases is accepted;
- a set of invalid plans (written inline below) is each rejected.

Every inline case is a copy of BASE with one change, and BASE itself is
checked first, so a rejection can only come from that one change.

Run from the repository root:  python3 Tests/Schema/check_schema.py
Prints one line per check, then "N passed, M failed"; exits 1 if any failed.
"""

import copy
import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match

ROOT = Path(__file__).resolve().parents[2]
PLANS = ROOT / "Plans"
SCHEMA_PATH = PLANS / "plan.schema.json"
CONTRACT_PLANS = ROOT / "Tests" / "Contracts" / "plans"

# A small valid plan that each inline case modifies in one place.
BASE = {
    "name": "Base",
    "tolerance": 5,
    "steps": [
        {"kind": "warmup", "duration": "10:00", "cadence": 160},
        {"repeat": 2, "steps": [
            {"kind": "work", "duration": "2:00", "cadence": 170},
            {"kind": "rest", "duration": 60},
        ]},
        {"kind": "cooldown", "duration": "open"},
    ],
}


def variant(change):
    """Deep copy of BASE with `change(plan)` applied."""
    plan = copy.deepcopy(BASE)
    change(plan)
    return plan


def work(plan):
    """The work step inside BASE's repeat group."""
    return plan["steps"][1]["steps"][0]


def setter(get, key, value):
    def change(plan):
        get(plan)[key] = value
    return change


def deleter(get, key):
    def change(plan):
        del get(plan)[key]
    return change


def top(plan):
    return plan


def group(plan):
    return plan["steps"][1]


# (description, plan) pairs that must be REJECTED.
INVALID = [
    ('unknown key "durration" on a step',
     variant(lambda p: work(p).update({"durration": work(p).pop("duration")}))),
    ("repeat 0", variant(setter(group, "repeat", 0))),
    ("cadence 300", variant(setter(work, "cadence", 300))),
    ('duration "1:75"', variant(setter(work, "duration", "1:75"))),
    ("both duration and distance", variant(setter(work, "distance", 400))),
    ("missing name", variant(deleter(top, "name"))),
    ('cadence object missing "high"', variant(setter(work, "cadence", {"low": 170}))),
    ('kind "sprint"', variant(setter(work, "kind", "sprint"))),
    # Further cases.
    ("neither duration nor distance", variant(deleter(work, "duration"))),
    ("empty name", variant(setter(top, "name", ""))),
    ("empty steps", variant(setter(top, "steps", []))),
    ("empty group steps", variant(setter(group, "steps", []))),
    ("unknown top-level key", variant(setter(top, "author", "me"))),
    ("repeat 101", variant(setter(group, "repeat", 101))),
    ("repeat 2.5", variant(setter(group, "repeat", 2.5))),
    ('kind on a group', variant(setter(group, "kind", "work"))),
    ("tolerance 31 (top level)", variant(setter(top, "tolerance", 31))),
    ("tolerance -1 (step)", variant(setter(work, "tolerance", -1))),
    ("cadence 59", variant(setter(work, "cadence", 59))),
    ('cadence "170" (string)', variant(setter(work, "cadence", "170"))),
    ("cadence object with extra key", variant(setter(work, "cadence", {"low": 170, "high": 176, "mid": 173}))),
    ("cadence object low 50", variant(setter(work, "cadence", {"low": 50, "high": 176}))),
    ("empty cadence array", variant(setter(work, "cadence", []))),
    ("cadence array with 300", variant(setter(work, "cadence", [170, 300]))),
    ("duration 0", variant(setter(work, "duration", 0))),
    ("duration 86401", variant(setter(work, "duration", 86401))),
    ('duration "0:00"', variant(setter(work, "duration", "0:00"))),
    ('duration "1:60:00"', variant(setter(work, "duration", "1:60:00"))),
    ('duration "2:0"', variant(setter(work, "duration", "2:0"))),
    ('duration "90"', variant(setter(work, "duration", "90"))),
    # Over 24 hours as the program refuses them (the pattern took any number of digits).
    ('duration "24:00:01"', variant(setter(work, "duration", "24:00:01"))),
    ('duration "25:00:00"', variant(setter(work, "duration", "25:00:00"))),
    ('duration "1441:00"', variant(setter(work, "duration", "1441:00"))),
    ('duration "1440:01"', variant(setter(work, "duration", "1440:01"))),
    ('duration "Open"', variant(setter(work, "duration", "Open"))),
    ("empty duration array", variant(setter(work, "duration", []))),
    ('duration array with "1:75"', variant(setter(work, "duration", ["1:00", "1:75"]))),
    ('distance "400"', variant(lambda p: work(p).update({"distance": "400"}) or work(p).pop("duration"))),
    ('distance "0m"', variant(lambda p: work(p).update({"distance": "0m"}) or work(p).pop("duration"))),
    ("distance -400", variant(lambda p: work(p).update({"distance": -400}) or work(p).pop("duration"))),
    ("distance 1e9 (over 1,000 km)", variant(lambda p: work(p).update({"distance": 1e9}) or work(p).pop("duration"))),
    ("label 5", variant(setter(work, "label", 5))),
    ("description 5", variant(setter(top, "description", 5))),
    # Version 2 and the metronome object.
    ("version 3", variant(setter(top, "version", 3))),
    ('version "2" (string)', variant(setter(top, "version", "2"))),
    ("metronome true (version 2)", variant(lambda p: p.update({"version": 2, "metronome": True}))),
    ("metronome unknown key (version 2)", variant(lambda p: p.update({"version": 2, "metronome": {"bpm": 170}}))),
    ('metronome mode "sometimes"', variant(lambda p: p.update({"version": 2, "metronome": {"mode": "sometimes"}}))),
    ('metronome accent "both"', variant(lambda p: p.update({"version": 2, "metronome": {"accent": "both"}}))),
    ("metronome volume 1.5", variant(lambda p: p.update({"version": 2, "metronome": {"volume": 1.5}}))),
    ('metronome voice "fr"', variant(lambda p: p.update({"version": 2, "metronome": {"voice": "fr"}}))),
    ("metronome voice true", variant(lambda p: p.update({"version": 2, "metronome": {"voice": True}}))),
    ("metronome grace 601", variant(lambda p: p.update({"version": 2, "metronome": {"grace": 601}}))),
    ("metronome coaching_cooldown -1", variant(lambda p: p.update({"version": 2, "metronome": {"coaching_cooldown": -1}}))),
    # null is an optional key left out, never a required one, nor a step's only end.
    ("name null", variant(setter(top, "name", None))),
    ("steps null", variant(setter(top, "steps", None))),
    ("kind null", variant(setter(work, "kind", None))),
    ("duration null, no distance", variant(setter(work, "duration", None))),
    ("duration null, distance null", variant(lambda p: work(p).update({"duration": None, "distance": None}))),
    ("null inside a cadence array", variant(setter(work, "cadence", [170, None]))),
]

# (description, plan) pairs that must be ACCEPTED.
VALID = [
    ("base plan", copy.deepcopy(BASE)),
    # Plan format version 1 promised that a top-level "metronome" object is accepted.
    ("metronome in a plan without version (version 1)", variant(setter(top, "metronome", {"mode": "always"}))),
    ("metronome in an explicit version 1", variant(lambda p: p.update({"version": 1, "metronome": {}}))),
    # ... any object: what version 2 does not know is passed over there (it was refused).
    ("version 1: metronome keys version 2 does not know", variant(setter(top, "metronome", {"enabled": True, "bpm": 170}))),
    ("version 1: metronome values version 2 refuses", variant(setter(top, "metronome", {"volume": 1.5, "mode": "sometimes"}))),
    ('duration "h:mm:ss"', variant(setter(work, "duration", "1:05:30"))),
    ('duration "m:ss" with 3 minute digits', variant(setter(work, "duration", "120:00"))),
    ("duration 86400", variant(setter(work, "duration", 86400))),
    *[(f'duration "{text}"', variant(setter(work, "duration", text)))
      for text in ["24:00:00", "1440:00", "23:59:59", "0:30:00", "1439:59", "007:30", "999:59", "1000:00"]],
    ('"$schema" null (an optional key)', variant(setter(top, "$schema", None))),
    ("duration 0.5", variant(setter(work, "duration", 0.5))),
    ('duration array with "open"', variant(setter(work, "duration", ["1:00", 90, "open"]))),
    ('distance "400m"', variant(lambda p: work(p).update({"distance": "400m"}) or work(p).pop("duration"))),
    ('distance "1.5km"', variant(lambda p: work(p).update({"distance": "1.5km"}) or work(p).pop("duration"))),
    ("distance array", variant(lambda p: work(p).update({"distance": [400, "800m", "1.2km"]}) or work(p).pop("duration"))),
    ("cadence array of numbers and zones", variant(setter(work, "cadence", [170, {"low": 172, "high": 178}]))),
    ("cadence bounds 60 and 260", variant(setter(work, "cadence", {"low": 60, "high": 260}))),
    ("no cadence", variant(deleter(work, "cadence"))),
    ("tolerance 0 and 30", variant(lambda p: (p.update({"tolerance": 0}), work(p).update({"tolerance": 30})))),
    ("explicit version 1", variant(setter(top, "version", 1))),
    ("version 2 without metronome", variant(setter(top, "version", 2))),
    ("version 2 with an empty metronome", variant(lambda p: p.update({"version": 2, "metronome": {}}))),
    ("version 2 with every metronome setting", variant(lambda p: p.update({"version": 2, "metronome": {
        "mode": "off-target", "accent": "alternate", "volume": 0.5, "grace": 3, "voice": "es",
        "coaching_grace": 12, "coaching_cooldown": 30}}))),
    ("metronome voice false", variant(lambda p: p.update({"version": 2, "metronome": {"voice": False}}))),
    # An optional key given as null is the key left out (what Python's None writes).
    ("null optional keys", variant(lambda p: (
        p.update({"version": None, "description": None, "tolerance": None, "metronome": None}),
        work(p).update({"cadence": None, "tolerance": None, "label": None, "distance": None})))),
    ("duration null beside a distance", variant(lambda p: work(p).update({"duration": None, "distance": 400}))),
    ("version 2 with null metronome settings", variant(lambda p: p.update({"version": 2, "metronome": {
        "mode": None, "accent": None, "volume": None, "grace": None, "voice": None,
        "coaching_grace": None, "coaching_cooldown": None}}))),
    ("nested groups", variant(setter(group, "steps", [
        {"repeat": 3, "steps": [{"kind": "work", "duration": [30, 45, 60], "cadence": 180}]},
        {"kind": "rest", "duration": "2:00"},
    ]))),
]


def main():
    passed = failed = 0

    def report(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
        print(f"{'PASS' if ok else 'FAIL'}  {what}")

    try:
        schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, SchemaError) as exc:
        report(False, f"schema {SCHEMA_PATH.relative_to(ROOT)} is a valid draft 2020-12 schema: {exc}")
        print(f"{passed} passed, {failed} failed")
        return 1
    report(True, f"schema {SCHEMA_PATH.relative_to(ROOT)} is a valid draft 2020-12 schema")
    validator = Draft202012Validator(schema)

    def first_error(instance):
        e = best_match(validator.iter_errors(instance))
        if e is None:
            return None
        where = "/".join(str(x) for x in e.absolute_path) or "(root)"
        message = e.message if len(e.message) <= 100 else e.message[:97] + "..."
        return f"{where}: {message}"

    plan_files = sorted(p for p in PLANS.glob("*.json") if p.resolve() != SCHEMA_PATH.resolve())
    report(bool(plan_files), f"found {len(plan_files)} example plan(s) in Plans/")
    contract_files = sorted(CONTRACT_PLANS.glob("*.json"))
    report(bool(contract_files), f"found {len(contract_files)} contract plan(s) in Tests/Contracts/plans/")
    for path in plan_files + contract_files:
        name = path.relative_to(ROOT)
        try:
            plan = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            report(False, f"valid:    {name} (not JSON: {exc})")
            continue
        err = first_error(plan)
        report(err is None, f"valid:    {name}" + (f" -- {err}" if err else ""))

    for what, plan in VALID:
        err = first_error(plan)
        report(err is None, f"accepted: {what}" + (f" -- {err}" if err else ""))

    for what, plan in INVALID:
        err = first_error(plan)
        report(err is not None, f"rejected: {what}" + (f" -- {err}" if err else " -- but it was accepted"))

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
