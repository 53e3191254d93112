#!/usr/bin/env bash
# Benchmarks (not tests): parser throughput and a one-hour replay, whole process.
# Usage: Benchmarks/run.sh   (or `make bench`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with (the Makefile exports them), else a plain release build.
read -ra flags <<< "${RELEASE_FLAGS:--c release}"
# One product a build: SwiftPM builds only the last of several --product options.
for product in intervalpro intervalpro-bench; do swift build "${flags[@]}" --product "$product" 2>&1 | tail -1; done
bin=$(swift build "${flags[@]}" --show-bin-path)

"$bin/intervalpro-bench"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Never the user's own history or settings.
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
# A 70-minute session: HR at 1 Hz and a per-foot footpod at 2 Hz, made by the simulator.
"$bin/intervalpro" run Benchmarks/one-hour.json --simulate --fast --seed 3 --per-foot \
    --cadence-unit auto --record "$work/one-hour.jsonl" --json >/dev/null 2>&1
lines=$(wc -l < "$work/one-hour.jsonl")
echo
# Scoring alone: saving to the history is measured on its own (Benchmarks/history.sh).
echo "replay of a 70-minute recording ($lines lines) scored with --fast --json --no-save, whole process:"
python3 Benchmarks/measure.py 20 "$bin/intervalpro" replay "$work/one-hour.jsonl" \
    --plan Benchmarks/one-hour.json --fast --json --no-save

# The same work in a second implementation, in Python (Benchmarks/reference_replay.py): its
# figures must agree with intervalpro's, and it is timed the same way, in the same run.
"$bin/intervalpro" replay "$work/one-hour.jsonl" --plan Benchmarks/one-hour.json --fast --json --no-save \
    >"$work/summary.json" 2>/dev/null
if python3 Benchmarks/reference_replay.py "$work/one-hour.jsonl" Benchmarks/one-hour.json --compare "$work/summary.json"; then
    echo "the Python reference (Benchmarks/reference_replay.py) gives the same figures for every step; its time, whole process:"
else
    echo "the Python reference DISAGREES with intervalpro (above); its time, whole process:"
fi
python3 Benchmarks/measure.py 20 python3 Benchmarks/reference_replay.py "$work/one-hour.jsonl" Benchmarks/one-hour.json
