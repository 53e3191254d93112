#!/usr/bin/env python3
"""What a runner would otherwise run over a folder of exports: read every activity with the
Python libraries for each format (Garmin's FIT SDK, gpxpy, tcxreader) and take each run's
average cadence and heart rate. Reading only, nothing stored. Prints the wall time.

Usage: import_reference.py FOLDER
"""
import gzip
import os
import sys
import time

import gpxpy
from garmin_fit_sdk import Decoder, Stream
from tcxreader.tcxreader import TCXReader


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as source:
        data = source.read()
    name = path[:-3] if path.endswith(".gz") else path
    if name.endswith(".fit"):
        messages, _ = Decoder(Stream.from_byte_array(bytearray(data))).read()
        records = messages.get("record_mesgs", [])
        return [2 * r["cadence"] for r in records if "cadence" in r], [r["heart_rate"] for r in records if "heart_rate" in r]
    if name.endswith(".gpx"):
        gpx = gpxpy.parse(data.decode("utf-8"))
        cadence, heart = [], []
        for track in gpx.tracks:
            for segment in track.segments:
                for point in segment.points:
                    for extension in point.extensions:
                        for child in extension:
                            if child.tag.endswith("cad"):
                                cadence.append(2 * int(child.text))
                            elif child.tag.endswith("hr"):
                                heart.append(int(child.text))
        return cadence, heart
    if name.endswith(".tcx"):
        scratch = "/tmp/import-reference.tcx"
        with open(scratch, "wb") as out:
            out.write(data)
        # Points without a position too; Garmin's per-foot run cadence is in the TPX extension.
        points = TCXReader().read(scratch, only_gps=False).trackpoints
        cadence = [2 * p.tpx_ext["RunCadence"] for p in points if p.tpx_ext and "RunCadence" in p.tpx_ext]
        return cadence, [p.hr_value for p in points if p.hr_value]
    return [], []


def main():
    folder = sys.argv[1]
    start = time.perf_counter()
    runs = 0
    for name in sorted(os.listdir(folder)):
        cadence, heart = read(os.path.join(folder, name))
        if cadence:
            runs += 1
            _ = (sum(cadence) / len(cadence), sum(heart) / len(heart) if heart else None)
    print(f"  {runs} runs read in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
