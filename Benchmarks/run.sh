#!/usr/bin/env bash
# Benchmarks (not tests): parser throughput and a one-hour replay, whole process.
# Usage: Benchmarks/run.sh   (or `make bench`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product intervalpro --product intervalpro-bench 2>&1 | tail -1
bin=$(swift build -c release --show-bin-path)

"$bin/intervalpro-bench"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A 70-minute session: HR at 1 Hz and a per-foot footpod at 2 Hz, made by the simulator.
"$bin/intervalpro" run Benchmarks/one-hour.json --simulate --fast --seed 3 --per-foot \
    --cadence-unit auto --record "$work/one-hour.jsonl" --json >/dev/null 2>&1
lines=$(wc -l < "$work/one-hour.jsonl")
echo
echo "replay of a 70-minute recording ($lines lines) scored with --fast --json, whole process:"
python3 Benchmarks/measure.py 20 "$bin/intervalpro" replay "$work/one-hour.jsonl" \
    --plan Benchmarks/one-hour.json --fast --json
