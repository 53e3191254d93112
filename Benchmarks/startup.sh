#!/usr/bin/env bash
# Start-up (a benchmark, not a test): the stripped release binary, as the package ships it, for
# commands that serve nothing, against a C program's floor, `bluetoothctl --version`, measured
# pair by pair in one run (Benchmarks/startup.py). Prints figures; asserts nothing.
# Usage: Benchmarks/startup.sh   (or `make bench-startup`). RUNS changes the count (20).
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with: the Makefile exports them, and a script run on its own
# asks for them (a plain release build would replace the one that ships, and measure another).
read -ra flags <<< "${RELEASE_FLAGS:-$(make -s --no-print-directory release-flags)}"
swift build "${flags[@]}" --product intervalpro 2>&1 | tail -1
bin=$(swift build "${flags[@]}" --show-bin-path)/intervalpro
command -v bluetoothctl >/dev/null || { echo "startup.sh: bluetoothctl is needed for the floor (apt install bluez)" >&2; exit 69; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Stripped as packaging/build-deb.sh strips it.
strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$work/intervalpro" "$bin"
# Never the user's own history or settings: `history` reads a store of ten saved sessions.
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
for _ in $(seq 10); do
    "$work/intervalpro" replay Recordings/cadence-ladder.jsonl --plan Plans/cadence-ladder.json --fast >/dev/null 2>&1
done
ls -la "$bin" "$work/intervalpro" | awk '{printf "  %s: %.1f MB\n", $NF, $5 / 1048576}'
python3 Benchmarks/startup.py "${RUNS:-20}" "bluetoothctl --version" \
    "$work/intervalpro --version" \
    "$work/intervalpro decode 2a53 04a802ae" \
    "$work/intervalpro plan check Plans/cadence-ladder.json" \
    "$work/intervalpro history"
