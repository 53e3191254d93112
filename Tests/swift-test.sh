#!/usr/bin/env bash
# Tests/swift-test.sh: every Swift suite, from the build `swift build --build-tests` made (make
# test's: on the release build, RELEASE_FLAGS), in a few test processes side by side.
#
# Why not one `swift test`: the command-line suites spend their time waiting on the
# processes they start (a session paced in real time, a fake player, a private bus), and
# Swift Testing runs them on the concurrency pool, which has one thread per core. On two
# cores one process ran two waits at a time and used 31 % of the processor for 4:24; each
# process brings its own pool, so the slowest suites get processes of their own.
#
# Each process writes .build/test-logs/swift-test-N.log; this prints them one after the other,
# then one closing line in swift test's words (Tests/count.sh reads it). Exit 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

swift=${SWIFT:-swift}
# make test builds the suites on the release build (RELEASE_FLAGS, from the Makefile); without
# them, the bundle is the one a plain `swift build --build-tests` makes.
read -ra build_flags <<< "${RELEASE_FLAGS:-}"
bundle="$("$swift" build ${build_flags[@]+"${build_flags[@]}"} --show-bin-path)/IntervalProPackageTests.xctest"
[ -x "$bundle" ] || {
    echo "Tests/swift-test.sh: no $bundle: build it first (swift build ${build_flags[*]} --build-tests)" >&2
    exit 1
}
logs=.build/test-logs
mkdir -p "$logs"

# A test runs in the first process whose pattern matches its id (Module.Type/function()); the
# last process runs every test no pattern matches. The readiness suite's three one-minute
# measurements (live, the strap beside a footpod, from the page) take 1:30 to 1:40 each here: one
# left to the last process made it the longest, 2:06 of 2:07 alone on two cores (1:41 without).
# Alone, the live sensors take 1:33, music 1:11, the last process 1:23.
patterns=(
    '^IntervalProCLITests\.ReadinessCommandTests/(live|liveWithoutRR)\('
    '^IntervalProCLITests\.ReadinessCommandTests/(fromThePage|liveInterrupted|liveLeavesTheFootpodAlone)\('
    '^IntervalProCLITests\.LiveSensorTests/'
    '^IntervalProCLITests\.MusicTests/'
)

# Sessions and settings the tests' commands keep go to a folder of this run's, never the user's.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/intervalpro-swift-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"

selections=() earlier=()
for pattern in "${patterns[@]}"; do
    selections+=("--filter $pattern ${earlier[*]}")
    earlier+=(--skip "$pattern")
done
selections+=("${earlier[*]}")

pids=()
for n in "${!selections[@]}"; do
    read -ra args <<< "${selections[$n]}"
    "$bundle" --testing-library swift-testing "${args[@]}" > "$logs/swift-test-$n.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

total=0 suites=0
for n in "${!selections[@]}"; do
    echo "----- test process $((n + 1)) of ${#selections[@]}: ${selections[$n]}"
    cat "$logs/swift-test-$n.log"
    line=$(grep -aE 'Test run with [0-9]+ tests? in [0-9]+ suites? (passed|failed)' "$logs/swift-test-$n.log" | tail -n 1)
    [ -n "$line" ] || { echo "Tests/swift-test.sh: process $((n + 1)) ended without its closing line"; status=1; continue; }
    total=$((total + $(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<< "$line")))
    suites=$((suites + $(sed -E 's/.* in ([0-9]+) suites?.*/\1/' <<< "$line")))
done
verdict=passed
[ "$status" = 0 ] || verdict=failed
echo "Test run with $total tests in $suites suites $verdict in ${#selections[@]} processes."
exit "$status"
