#!/usr/bin/env bash
# `history import` of a year of runs (not a test): 1,000 activities of 45 minutes (a third FIT,
# a third gzipped TCX, a third GPX; Benchmarks/make_activities.py), imported into an empty
# store, then again (every one a duplicate); whole process, wall time and peak RSS. Beside it,
# the Python libraries a runner would otherwise use reading the same files (reading only).
# Usage: Benchmarks/import.sh [COUNT]   (or `make bench-import`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with: the Makefile exports them, and a script run on its own
# asks for them (a plain release build would replace the one that ships, and measure another).
read -ra flags <<< "${RELEASE_FLAGS:-$(make -s --no-print-directory release-flags)}"
swift build "${flags[@]}" --product intervalpro 2>&1 | tail -1
bin=$(swift build "${flags[@]}" --show-bin-path)/intervalpro
python=${TEST_PYTHON:-python3}
count=${1:-1000}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"

python3 Benchmarks/make_activities.py "$count" "$work/runs" 45
du -sh "$work/runs" | awk -v n="$count" '{print "  " n " activities of 45 minutes, " $1 " on disk"}'
measure() {
    /usr/bin/time -f "  %e s wall, %U s user + %S s system, peak RSS %M kB" "$bin" history import "$work/runs" --db "$work/h.sqlite" \
        | head -2 | sed 's/^/  /'
}
echo "history import, into an empty store:"
measure 2>&1
ls -la "$work/h.sqlite" | awk '{printf "  database: %.0f MB\n", $5 / 1048576}'
echo "history import again (each one imported before):"
measure 2>&1
# A Strava bulk export as it comes: the activities in one zip beside a gigabyte of photos and
# videos (stored, as zip stores what is already compressed). The archive is mapped, not read
# into memory: what the import holds is the entries it takes out.
mkdir -p "$work/export/media"
head -c $((1 << 30)) /dev/urandom > "$work/export/media/video.mp4"
(cd "$work/export" && cp -r "$work/runs" activities && zip -q -r -n .mp4 ../export.zip activities media)
ls -la "$work/export.zip" | awk '{printf "history import of a Strava-style export zip (%.0f MiB: the activities and 1 GiB of video), into an empty store:\n", $5 / 1048576}'
python3 Benchmarks/peak_memory.py "$bin" history import "$work/export.zip" --db "$work/export.sqlite"
# Garmin Connect's export keeps the FIT files in zips inside the zip, up to gigabytes: the
# activities and 600 MiB of other files in UploadedFiles_0-_Part1.zip, deflated in the outer one.
# An inner zip is written to a temporary file and mapped, never held in memory.
mkdir -p "$work/garmin/in" "$work/garmin/out/DI_CONNECT/DI-Connect-Uploaded-Files"
head -c $((600 << 20)) /dev/urandom > "$work/garmin/in/monitoring.bin"
(cd "$work/garmin/in" && cp -r "$work/runs" activities && zip -q -r -0 ../out/DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip activities monitoring.bin)
(cd "$work/garmin/out" && zip -q -r -n .none ../garmin.zip DI_CONNECT)
inner=$(stat -c %s "$work/garmin/out/DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip")
rm -rf "$work/garmin/in" "$work/garmin/out" "$work/export"
ls -la "$work/garmin/garmin.zip" | awk -v inner="$inner" '{printf "history import of a Garmin-style export (%.0f MiB: a zip of %.0f MiB inside, deflated), into an empty store:\n", $5 / 1048576, inner / 1048576}'
python3 Benchmarks/peak_memory.py "$bin" history import "$work/garmin/garmin.zip" --db "$work/garmin.sqlite"
if "$python" -c "import gpxpy, garmin_fit_sdk, tcxreader" 2>/dev/null; then
    echo "the same files read by Garmin's FIT SDK, gpxpy and tcxreader in Python (reading only):"
    "$python" Benchmarks/import_reference.py "$work/runs"
else
    echo "(the Python comparison needs the test venv: make deps-test)"
fi
