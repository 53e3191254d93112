#!/usr/bin/env bash
# Audio benchmarks (not tests): the render thread's mixing cost per second of audio,
# speech synthesis per cue, and `render-audio` of a 45-minute plan, whole process.
# Usage: Benchmarks/audio.sh   (or `make bench-audio`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with (the Makefile exports them), else a plain release build.
read -ra flags <<< "${RELEASE_FLAGS:--c release}"
for product in intervalpro intervalpro-audio-bench; do
    swift build "${flags[@]}" --product "$product" 2>&1 | tail -1
done
bin=$(swift build "${flags[@]}" --show-bin-path)

"$bin/intervalpro-audio-bench"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Never the user's own history or settings.
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
echo
echo "render-audio of a 45-minute plan (clicks and voice, simulated runner), whole process:"
for format in "48000 2" "16000 1"; do
    set -- $format
    echo " $1 Hz, $2 channel(s):"
    python3 Benchmarks/measure.py 3 "$bin/intervalpro" render-audio Benchmarks/forty-five-minutes.json \
        --simulate --audio-rate "$1" --audio-channels "$2" -o "$work/out.wav"
done
