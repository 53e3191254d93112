#!/usr/bin/env python3
"""A recording (format 1) without its RR intervals: each Heart Rate Measurement (0x2A37) keeps its
flags, heart rate and energy, and loses the RR field and its flag; every other line is copied as
it is. `make bench` replays it beside the Python reference, which scores cadence only: the same
work on both sides, without alpha 1 (which needs the beats).

Usage: without_beats.py RECORDING > RECORDING_WITHOUT_BEATS
"""
import json
import re
import sys

RR_PRESENT = 0x10
HR_UINT16 = 0x01
ENERGY_PRESENT = 0x08
HEX = re.compile(r'"hex":"([0-9a-fA-F]*)"')


def without_rr(payload):
    flags = payload[0]
    if not flags & RR_PRESENT:
        return payload
    end = 1 + (2 if flags & HR_UINT16 else 1) + (2 if flags & ENERGY_PRESENT else 0)
    return bytes([flags & ~RR_PRESENT]) + payload[1:end]


def main():
    with open(sys.argv[1], encoding="utf-8") as recording:
        for number, line in enumerate(recording):
            entry = json.loads(line) if number and line.strip() else {}
            if entry.get("char", "").lower() == "2a37":
                payload = without_rr(bytes.fromhex(entry["hex"]))
                line = HEX.sub(f'"hex":"{payload.hex()}"', line, count=1)
            sys.stdout.write(line)


if __name__ == "__main__":
    main()
