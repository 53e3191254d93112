#!/usr/bin/env bash
# Audio benchmarks (not tests): the render thread's mixing cost per second of audio,
# speech synthesis per cue, and `render-audio` of a 45-minute plan, whole process.
# Usage: Benchmarks/audio.sh   (or `make bench-audio`). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The flags `make release` builds with: the Makefile exports them, and a script run on its own
# asks for them (a plain release build would replace the one that ships, and measure another).
read -ra flags <<< "${RELEASE_FLAGS:-$(make -s --no-print-directory release-flags)}"
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

# Wake-ups: a device that takes samples as fast as they come (the tests' `file` PCM over
# `null`) never blocks the render thread, so it waits for the session side at its horizon;
# the voluntary context switches of the whole process say whether it waits or looks again.
export ALSA_CONFIG_PATH="$PWD/Tests/Audio/asound.conf" INTERVALPRO_TEST_AUDIO=/dev/null
echo '{"name": "Twelve seconds", "steps": [{"kind": "work", "duration": 12, "cadence": 170}]}' > "$work/short.json"
echo
echo "wake-ups through a device that does not pace its writes (voluntary context switches, whole process):"
python3 - "$bin/intervalpro" "$work/short.json" <<'PYTHON'
import resource, subprocess, sys, time
binary, short = sys.argv[1:]
for label, arguments in [
        ("render-audio of the 45-minute plan through the device", ["render-audio", "Benchmarks/forty-five-minutes.json", "--simulate", "--audio-device", "intervalpro_test"]),
        ("a 12-second simulated run in real time, clicks and voice", ["run", short, "--simulate", "--no-save", "--json", "--audio-device", "intervalpro_test"])]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
    started = time.monotonic()
    subprocess.run([binary, *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.monotonic() - started
    switches = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - before
    print(f"  {label}: {switches} in {elapsed:.1f} s ({switches / elapsed:.0f}/s)")
PYTHON
