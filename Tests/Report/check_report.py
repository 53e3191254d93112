#!/usr/bin/env python3
"""The HTML report renders in a real browser.

Saves a bundled session into a scratch data directory, writes its report, checks that
the page is self-contained (no scripts, nothing fetched) and that its SVG holds what the
session holds, then renders it in headless Chromium and checks the screenshot shows the
zone bands, the cadence and heart-rate traces and the step bars in their colours.

Usage: check_report.py PATH/TO/intervalpro [SCREENSHOT.png]
  With SCREENSHOT, the rendered page is also written there (for docs/history.md).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from checks import Tally, home_within, run  # noqa: E402


tally = Tally("report")
check = tally.check


def png_pixels(path):
    """Width, height and rows of (r, g, b) from an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    assert depth == 8 and colour in (2, 6), f"unexpected PNG format {depth}/{colour}"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def count_colour(rows, hex_colour, tolerance=12):
    target = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return sum(1 for row in rows for pixel in row
               if all(abs(a - b) <= tolerance for a, b in zip(pixel, target)))


def main():
    binary = os.path.abspath(sys.argv[1])
    screenshot_copy = sys.argv[2] if len(sys.argv) > 2 else None
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("FAIL: chromium is not installed (it is in .ci/packages.txt: run `make deps`)")
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, XDG_DATA_HOME=scratch)
        run(binary, env, "replay", "Recordings/cadence-ladder.jsonl", "--plan", "Plans/cadence-ladder.json", "--fast")
        stored = json.loads(run(binary, env, "show", "last", "--json"))
        page = os.path.join(scratch, "report.html")
        run(binary, env, "report", "last", "-o", page)
        html = open(page, encoding="utf-8").read()

        check("<script" not in html.lower(), "no scripts")
        check(not re.search(r'(src|href)\s*=\s*"(https?:)?//', html), "nothing loaded from the network")
        # Cadence and heart rate, the steps' bars, and alpha 1 where a window was scored (the
        # bundled recordings carry every beat).
        scored = (stored.get("hrv") or {}).get("scored_windows", 0) > 0
        check(scored, "the ladder's beats score alpha 1")
        check(html.count("<svg") == (4 if scored else 3), f"{4 if scored else 3} SVG charts: {html.count('<svg')}")
        zoned = [s for s in stored["steps"] if s["target_spm"] is not None]
        check(html.count('class="zone"') == len(zoned), "a zone band per step with a zone")
        check(html.count('class="in-zone"') == sum(1 for s in zoned if s["in_zone_s"] > 0), "an in-zone bar per step")
        check('class="cadence"' in html and 'class="heart-rate"' in html, "cadence and heart-rate traces")
        check(f'{stored["totals"]["in_zone_pct"]:.1f}%' in html, "the in-zone figure")
        check(stored["plan"] in html, "the plan name")

        shot = os.path.join(scratch, "report.png")
        profile = os.path.join(scratch, "chromium-profile")
        result = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             f"--user-data-dir={profile}", "--window-size=1000,1800", f"--screenshot={shot}", "file://" + page],
            capture_output=True, text=True, timeout=120,
            env=home_within(os.path.join(scratch, "chromium")))
        check(result.returncode == 0 and os.path.exists(shot), f"chromium rendered the page: {result.stderr[-500:]}")
        if os.path.exists(shot):
            width, height, rows = png_pixels(shot)
            check((width, height) == (1000, 1800), f"screenshot size {width}x{height}")
            for name, colour, at_least in [("in-zone bars", "#2e9d5b", 2000), ("below bars", "#e0a526", 500),
                                           ("above bars", "#d64545", 500), ("cadence trace", "#1f5fbf", 500),
                                           ("heart-rate trace", "#c2185b", 500)]:
                found = count_colour(rows, colour)
                check(found >= at_least, f"{name} drawn ({found} pixels of {colour})")
            if screenshot_copy:
                shutil.copyfile(shot, screenshot_copy)
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
