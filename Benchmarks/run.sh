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

# against ROUNDS RECORDING SUMMARY SAID REFERENCE...: a second implementation's figures for
# RECORDING checked against intervalpro's (SUMMARY), then the two timed the same way, whole
# process, taking turns, a run of each a round (a shared host's speed drifts between two series
# of runs). SAID names the pair in what is printed.
against() {
    local rounds=$1 recording=$2 summary=$3 said=$4
    shift 4
    if "$@" "$recording" Benchmarks/one-hour.json --compare "$summary"; then
        echo "$said: the same figures;"
    else
        echo "$said: the reference DISAGREES with intervalpro (above);"
    fi
    echo "intervalpro and the reference, whole process, side by side:"
    python3 Benchmarks/measure.py "$rounds" "$bin/intervalpro" replay "$recording" \
        --plan Benchmarks/one-hour.json --fast --json --no-save --versus "$@" "$recording" Benchmarks/one-hour.json
}

"$bin/intervalpro" replay "$work/one-hour.jsonl" --plan Benchmarks/one-hour.json --fast --json --no-save \
    >"$work/summary.json" 2>/dev/null
# The same work in a second implementation, in Python (Benchmarks/reference_replay.py), which
# scores cadence only: intervalpro also computes alpha 1 from the beats.
against 20 "$work/one-hour.jsonl" "$work/summary.json" \
    "the Python reference (Benchmarks/reference_replay.py), scoring cadence only" python3 Benchmarks/reference_replay.py

# The same work on both sides for the recording with beats: the reference computes alpha 1 too,
# with NeuroKit2 (Benchmarks/reference_alpha1.py, in the test venv `make deps-test` makes). It
# takes seconds a run, so 5 rounds.
venv_python=.build/test-venv/bin/python3
echo
if [ -x "$venv_python" ]; then
    against 5 "$work/one-hour.jsonl" "$work/summary.json" \
        "the reference computing alpha 1 with NeuroKit2 (Benchmarks/reference_alpha1.py)" \
        "$venv_python" Benchmarks/reference_alpha1.py
else
    echo "no $venv_python (make deps-test): the reference computing alpha 1 is not run"
fi

# The same recording without its RR intervals is the cadence-only reference's own work: no
# alpha 1 on either side.
python3 Benchmarks/without_beats.py "$work/one-hour.jsonl" >"$work/no-beats.jsonl"
"$bin/intervalpro" replay "$work/no-beats.jsonl" --plan Benchmarks/one-hour.json --fast --json --no-save \
    >"$work/no-beats.json" 2>/dev/null
echo
against 20 "$work/no-beats.jsonl" "$work/no-beats.json" \
    "the same recording without RR intervals and the Python reference" python3 Benchmarks/reference_replay.py
