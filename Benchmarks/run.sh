#!/usr/bin/env bash
# Benchmarks (not tests): parser throughput and a one-hour replay, whole process.
# Usage: Benchmarks/run.sh   (or `make bench`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with: the Makefile exports them, and a script run on its own
# asks for them (a plain release build would replace the one that ships, and measure another).
read -ra flags <<< "${RELEASE_FLAGS:-$(make -s --no-print-directory release-flags)}"
# One product a build: SwiftPM builds only the last of several --product options.
for product in intervalpro intervalpro-bench; do swift build "${flags[@]}" --product "$product" 2>&1 | tail -1; done
bin=$(swift build "${flags[@]}" --show-bin-path)

"$bin/intervalpro-bench"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Never the user's own history or settings.
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"
# A 70-minute session: HR at 1 Hz and a per-foot footpod at 2 Hz, made by the simulator.
"$bin/intervalpro" run Benchmarks/one-hour.json --simulate --fast --seed 3 --per-foot \
    --cadence-unit auto --record "$work/one-hour.jsonl" --json >/dev/null 2>&1
lines=$(wc -l < "$work/one-hour.jsonl")
echo
# Scoring alone: saving to the history is measured on its own (Benchmarks/history.sh).
echo "replay of a 70-minute recording ($lines lines) scored with --fast --json --no-save:"

# The same work in a second implementation, in Python (Benchmarks/reference_replay.py): its
# figures must agree with intervalpro's, and it is timed the same way, in the same run.
"$bin/intervalpro" replay "$work/one-hour.jsonl" --plan Benchmarks/one-hour.json --fast --json --no-save \
    >"$work/summary.json" 2>/dev/null
if python3 Benchmarks/reference_replay.py "$work/one-hour.jsonl" Benchmarks/one-hour.json --compare "$work/summary.json"; then
    echo "the Python reference (Benchmarks/reference_replay.py) gives the same figures for every step;"
else
    echo "the Python reference DISAGREES with intervalpro (above);"
fi
# Taking turns, a run of each a round: a shared host's speed drifts between two series of runs.
echo "intervalpro (which also computes alpha 1 from the beats) and the reference, whole process, side by side:"
python3 Benchmarks/measure.py 20 "$bin/intervalpro" replay "$work/one-hour.jsonl" \
    --plan Benchmarks/one-hour.json --fast --json --no-save \
    --versus python3 Benchmarks/reference_replay.py "$work/one-hour.jsonl" Benchmarks/one-hour.json

# The same work on both sides for the recording with beats: the reference computes alpha 1 too,
# with NeuroKit2 (Benchmarks/reference_alpha1.py, in the test venv `make deps-test` makes). It
# takes seconds a run, so 5 rounds.
venv_python=.build/test-venv/bin/python3
echo
if [ -x "$venv_python" ]; then
    if "$venv_python" Benchmarks/reference_alpha1.py "$work/one-hour.jsonl" Benchmarks/one-hour.json --compare "$work/summary.json"; then
        echo "the reference computing alpha 1 with NeuroKit2 (Benchmarks/reference_alpha1.py) gives the same figures, alpha 1's too;"
    else
        echo "the reference computing alpha 1 with NeuroKit2 DISAGREES with intervalpro (above);"
    fi
    echo "intervalpro and that reference, whole process, side by side:"
    python3 Benchmarks/measure.py 5 "$bin/intervalpro" replay "$work/one-hour.jsonl" \
        --plan Benchmarks/one-hour.json --fast --json --no-save \
        --versus "$venv_python" Benchmarks/reference_alpha1.py "$work/one-hour.jsonl" Benchmarks/one-hour.json
else
    echo "no $venv_python (make deps-test): the reference computing alpha 1 is not run"
fi

# The reference scores cadence only; alpha 1 (above) needs the beats. The same recording without
# its RR intervals is the same work on both sides: its figures are compared, then it is timed.
python3 Benchmarks/without_beats.py "$work/one-hour.jsonl" >"$work/no-beats.jsonl"
"$bin/intervalpro" replay "$work/no-beats.jsonl" --plan Benchmarks/one-hour.json --fast --json --no-save \
    >"$work/no-beats.json" 2>/dev/null
echo
if python3 Benchmarks/reference_replay.py "$work/no-beats.jsonl" Benchmarks/one-hour.json --compare "$work/no-beats.json"; then
    echo "the same recording without RR intervals (no alpha 1: the reference's own work), same figures;"
else
    echo "without RR intervals, the Python reference DISAGREES with intervalpro (above);"
fi
# Taking turns, a run of each a round: a shared host's speed drifts between two series of runs.
echo "intervalpro and the Python reference on it, whole process, side by side:"
python3 Benchmarks/measure.py 20 "$bin/intervalpro" replay "$work/no-beats.jsonl" \
    --plan Benchmarks/one-hour.json --fast --json --no-save \
    --versus python3 Benchmarks/reference_replay.py "$work/no-beats.jsonl" Benchmarks/one-hour.json
