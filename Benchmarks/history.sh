#!/usr/bin/env bash
# Session history benchmarks (not tests): the cost of saving a session as it runs, `history`
# over 1,000 sessions, and the FIT export of a one-hour session, whole process.
# Usage: Benchmarks/history.sh   (or `make bench-history`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with: the Makefile exports them, and a script run on its own
# asks for them (a plain release build would replace the one that ships, and measure another).
read -ra flags <<< "${RELEASE_FLAGS:-$(make -s --no-print-directory release-flags)}"
swift build "${flags[@]}" --product intervalpro 2>&1 | tail -1
bin=$(swift build "${flags[@]}" --show-bin-path)/intervalpro

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_DATA_HOME="$work/data"
runs=${RUNS:-15}

echo
echo "write path: a 70-minute simulated session (--fast) saved vs --no-save, whole process:"
python3 Benchmarks/measure_save.py "$runs" "$bin" "$work/save.sqlite"

echo
echo "history over 1,000 sessions (each a 37-minute session: samples, notifications, steps), whole process:"
"$bin" replay Recordings/cadence-ladder.jsonl --plan Plans/cadence-ladder.json --fast --db "$work/thousand.sqlite" \
    >/dev/null 2>&1
python3 Benchmarks/copy_sessions.py "$work/thousand.sqlite" 1000
ls -la "$work/thousand.sqlite" | awk '{printf "  database: %.0f MB\n", $5 / 1048576}'
python3 Benchmarks/measure.py "$runs" "$bin" history --limit 1000 --db "$work/thousand.sqlite"
python3 Benchmarks/measure.py "$runs" "$bin" history --limit 1000 --json --db "$work/thousand.sqlite"

echo
echo "FIT export of a one-hour session (4,200 records), whole process (load from the store + encode + write):"
"$bin" run Benchmarks/one-hour.json --simulate --fast --seed 3 --db "$work/hour.sqlite" >/dev/null 2>&1
python3 Benchmarks/measure.py "$runs" "$bin" export last --format fit -o "$work/hour.fit" --db "$work/hour.sqlite"
ls -la "$work/hour.fit" | awk '{printf "  file: %.0f kB\n", $5 / 1024}'
echo "  for comparison, \`show last\` of the same session (load only):"
python3 Benchmarks/measure.py "$runs" "$bin" show last --db "$work/hour.sqlite"
