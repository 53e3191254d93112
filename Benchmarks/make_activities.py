#!/usr/bin/env python3
"""Writes a year of runs as a watch owner holds them, for `make bench-import`.

Usage: make_activities.py COUNT FOLDER [MINUTES]

COUNT runs of MINUTES minutes (default 45) at 1 Hz, one every 8.76 hours back from
2026-11-01, spread over a year: a third FIT files (as a Garmin writes them: file_id,
record messages with heart rate, cadence per foot, speed and distance, a running session),
a third gzipped TCX (as Strava's bulk export keeps them), a third GPX with Garmin's
TrackPointExtension. Standard library only; the FIT encoder follows the FIT protocol's
file header, definition and data messages and its CRC-16.
"""

import datetime
import gzip
import math
import os
import struct
import sys

FIT_EPOCH = datetime.datetime(1989, 12, 31, tzinfo=datetime.timezone.utc)
CRC_TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]


def fit_crc(data, crc=0):
    for byte in data:
        for nibble in (byte & 0x0F, byte >> 4):
            tmp = CRC_TABLE[crc & 0x0F]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ CRC_TABLE[nibble]
    return crc


def definition(local, global_number, fields):
    """fields: [(number, size, base_type)]"""
    body = struct.pack("<BBHB", 0, 0, global_number, len(fields))
    for number, size, base in fields:
        body += struct.pack("<BBB", number, size, base)
    return bytes([0x40 | local]) + body


def samples(index, seconds):
    """Per second: (heart rate, cadence per foot, speed m/s, distance m)."""
    base = 80 + (index % 7)  # per foot: 160 to 172 steps/min
    distance = 0.0
    for second in range(seconds):
        speed = 2.8 + 0.4 * math.sin(second / 300)
        distance += speed
        cadence = base + (3 if (second // 240) % 2 else 0)
        heart_rate = 130 + min(40, second // 60)
        yield second, heart_rate, cadence, speed, distance


def write_fit(path, start, index, seconds):
    uint8, uint16, uint32, enum = 0x02, 0x84, 0x86, 0x00
    data = bytearray()
    data += definition(0, 0, [(0, 1, enum), (1, 2, uint16), (2, 2, uint16), (3, 4, 0x8C)])
    data += struct.pack("<BBHHI", 0, 4, 1, 3121, 3_900_000_000 + index % 3)
    data += definition(1, 20, [(253, 4, uint32), (3, 1, uint8), (4, 1, uint8), (6, 2, uint16), (5, 4, uint32)])
    fit_start = int((start - FIT_EPOCH).total_seconds())
    for second, heart_rate, cadence, speed, distance in samples(index, seconds):
        data += struct.pack("<BIBBHI", 1, fit_start + second, heart_rate, cadence, round(speed * 1000), round(distance * 100))
    data += definition(2, 18, [(253, 4, uint32), (2, 4, uint32), (5, 1, enum)])
    data += struct.pack("<BIIB", 2, fit_start + seconds, fit_start, 1)
    header = struct.pack("<BBHI4s", 14, 0x20, 2132, len(data), b".FIT")
    header += struct.pack("<H", fit_crc(header))
    body = header + bytes(data)
    with open(path, "wb") as out:
        out.write(body + struct.pack("<H", fit_crc(body)))


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_tcx_gz(path, start, index, seconds):
    points = []
    for second, heart_rate, cadence, speed, distance in samples(index, seconds):
        points.append(
            f"<Trackpoint><Time>{iso(start + datetime.timedelta(seconds=second))}</Time>"
            f"<DistanceMeters>{distance:.1f}</DistanceMeters><HeartRateBpm><Value>{heart_rate}</Value></HeartRateBpm>"
            f"<Extensions><TPX xmlns=\"http://www.garmin.com/xmlschemas/ActivityExtension/v2\"><Speed>{speed:.3f}</Speed>"
            f"<RunCadence>{cadence}</RunCadence></TPX></Extensions></Trackpoint>")
    text = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\">"
            f"<Activities><Activity Sport=\"Running\"><Id>{iso(start)}</Id><Lap StartTime=\"{iso(start)}\"><Track>"
            + "\n".join(points) +
            "</Track></Lap><Creator><Name>Forerunner 255</Name><UnitId>3900000001</UnitId></Creator></Activity></Activities>"
            "</TrainingCenterDatabase>\n")
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as out:
        out.write(text)


def write_gpx(path, start, index, seconds):
    points = []
    lat, lon = 52.0, 4.3
    for second, heart_rate, cadence, speed, distance in samples(index, seconds):
        north = distance * math.cos(distance / 800) / 111_320
        east = distance * math.sin(distance / 800) / (111_320 * math.cos(math.radians(lat)))
        points.append(
            f"<trkpt lat=\"{lat + north:.7f}\" lon=\"{lon + east:.7f}\"><time>{iso(start + datetime.timedelta(seconds=second))}</time>"
            f"<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{heart_rate}</gpxtpx:hr><gpxtpx:cad>{cadence}</gpxtpx:cad>"
            "</gpxtpx:TrackPointExtension></extensions></trkpt>")
    text = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<gpx creator=\"StravaGPX\" version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\" "
            "xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\">"
            f"<metadata><time>{iso(start)}</time></metadata><trk><name>Morning Run</name><type>9</type><trkseg>\n"
            + "\n".join(points) + "\n</trkseg></trk></gpx>\n")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def main():
    count, folder = int(sys.argv[1]), sys.argv[2]
    seconds = int(sys.argv[3]) * 60 if len(sys.argv) > 3 else 45 * 60
    os.makedirs(folder, exist_ok=True)
    last = datetime.datetime(2026, 11, 1, 6, 30, tzinfo=datetime.timezone.utc)
    for index in range(count):
        start = last - datetime.timedelta(hours=8.76 * index)
        name = os.path.join(folder, f"{index:05d}")
        [write_fit, write_tcx_gz, write_gpx][index % 3](
            name + [".fit", ".tcx.gz", ".gpx"][index % 3], start, index, seconds)


if __name__ == "__main__":
    main()
