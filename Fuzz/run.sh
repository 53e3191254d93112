#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets and runs each for RUNS inputs.
#
#   Fuzz/run.sh [RUNS] [TARGET...]
#
# RUNS defaults to 1000000; TARGET defaults to all of them (see Fuzz/README.md). Targets
# are built one at a time into .build-fuzz/bin/ (each is Sources/IntervalProCore/*.swift
# plus one target file, compiled as one module with -sanitize=fuzzer,address) and run one
# at a time. Each run starts from a fresh copy of Fuzz/Corpus/<TARGET>/ under
# .build-fuzz/corpus/, so the committed seeds never change. Crash inputs are written to
# .build-fuzz/artifacts/<TARGET>/.
#
# Environment: FUZZ_ARGS adds libFuzzer flags to every run (e.g. FUZZ_ARGS=-seed=1);
# SWIFTC picks the compiler (default: swiftc on PATH).
#
# Exits 0 when every target ran its inputs without a crash, 1 when any target crashed,
# timed out, ran out of memory or failed to build, 2 on a usage error.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2

ALL_TARGETS=(HeartRate RSC RSCFeature BodySensorLocation BatteryLevel PlanFile RecordingFile WorkoutText FITFile MarkupFile ANTStream HRVSeries ArchiveFile ActivitiesCSV)
JSON_TARGETS=" PlanFile RecordingFile "
# The workout and activity readers: built with IntervalProFIT, IntervalProFormats and the XML
# reader as well (their imports of each other removed, as they become one module).
FORMAT_TARGETS=" WorkoutText FITFile MarkupFile ActivitiesCSV "
# The ANT stick's messages and profiles: built with IntervalProANT as well.
ANT_TARGETS=" ANTStream "
# RR intervals through the HRV pipeline: the format sources (for RR text) and IntervalProHRV.
HRV_TARGETS=" HRVSeries "
# Zip archives and gzip files: built with their readers in IntervalProIO (zlib opened at run time).
ARCHIVE_TARGETS=" ArchiveFile "

usage() {
    echo "usage: Fuzz/run.sh [RUNS] [TARGET...]" >&2
    echo "targets: ${ALL_TARGETS[*]}" >&2
    exit 2
}

RUNS=1000000
if [[ $# -gt 0 && "$1" =~ ^[0-9]+$ ]]; then
    RUNS="$1"
    shift
elif [[ $# -gt 0 && ( "$1" == "-h" || "$1" == "--help" ) ]]; then
    usage
fi
TARGETS=("$@")
[[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=("${ALL_TARGETS[@]}")
for target in "${TARGETS[@]}"; do
    [[ -f "Fuzz/Targets/$target.swift" && " ${ALL_TARGETS[*]} " == *" $target "* ]] || {
        echo "unknown target '$target'" >&2
        usage
    }
done

SWIFTC="${SWIFTC:-swiftc}"
OUT=.build-fuzz
SWIFT_FLAGS=(
    -sanitize=fuzzer,address -parse-as-library -O -g -wmo
    -swift-version 6
    -enable-upcoming-feature ExistentialAny
    -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature MemberImportVisibility
    -module-name IntervalProCore
    -module-cache-path "$ROOT/$OUT/module-cache"
    -use-ld=lld
)
mkdir -p "$OUT/bin" "$OUT/logs" "$OUT/corpus" "$OUT/artifacts"

# The Swift runtime's own crash backtracer would race libFuzzer's and ASan's handlers
# (and can hang for its 30 s timeout); let the sanitizers report crashes.
export SWIFT_BACKTRACE=enable=no
# Keep libFuzzer's and the user's choices; symbolise stacks and keep leak checking on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-symbolize=1:detect_leaks=1}"

# The sources a target is built from besides its own file and Fuzz/Support.
FORMAT_SOURCES=(Sources/IntervalProFIT/*.swift Sources/IntervalProFormats/*.swift Sources/IntervalProIO/MarkupReader.swift)
ANT_SOURCES=(Sources/IntervalProANT/*.swift)
HRV_SOURCES=("${FORMAT_SOURCES[@]}" Sources/IntervalProHRV/*.swift)
ARCHIVE_SOURCES=(Sources/IntervalProIO/Zip.swift Sources/IntervalProIO/Gzip.swift)
# What only the format targets share (it needs the format sources).
FORMAT_SUPPORT=(Fuzz/FormatSupport/*.swift)
sources() {
    printf '%s\n' Sources/IntervalProCore/*.swift
    [[ "$FORMAT_TARGETS" == *" $1 "* ]] && printf '%s\n' "${FORMAT_SOURCES[@]}" "${FORMAT_SUPPORT[@]}"
    [[ "$ANT_TARGETS" == *" $1 "* ]] && printf '%s\n' "${ANT_SOURCES[@]}"
    [[ "$HRV_TARGETS" == *" $1 "* ]] && printf '%s\n' "${HRV_SOURCES[@]}" "${FORMAT_SUPPORT[@]}"
    [[ "$ARCHIVE_TARGETS" == *" $1 "* ]] && printf '%s\n' "${ARCHIVE_SOURCES[@]}"
    return 0
}

# Copies of the format (or ANT) sources without imports of the modules they are compiled into, nor
# of swift-numerics' RealModule (FormatSupport/RealFunctions.swift stands in for what they use).
stage_sources() {
    local stage="$OUT/src"
    rm -rf "$stage"
    mkdir -p "$stage"
    for f in "$@"; do
        sed -E '/^(public |internal |@testable )?import (IntervalPro(Core|FIT|Formats|HRV)|RealModule)$/d' "$f" >"$stage/$(basename "$f")"
    done
}

# Fingerprint of what a target binary is made of: flags, compiler, sources, target.
fingerprint() {
    {
        echo "${SWIFT_FLAGS[*]}"
        "$SWIFTC" --version 2>&1 | head -1
        for f in $(sources "$1") Fuzz/Support/*.swift "Fuzz/Targets/$1.swift"; do
            echo "$f"
            cat "$f"
        done
    } | sha1sum | cut -d' ' -f1
}

# Builds .build-fuzz/bin/$1 unless it was built from the same fingerprint.
build() {
    local target="$1" bin="$OUT/bin/$1" stamp="$OUT/bin/$1.fingerprint" log="$OUT/logs/$1.build.log"
    local print
    print="$(fingerprint "$target")"
    if [[ -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$print" ]]; then
        echo "build: $bin is up to date"
        return 0
    fi
    echo "build: $bin"
    rm -f "$stamp"
    # Compile from a directory of its own: with -g, swiftc leaves a .swiftmodule (and
    # .swiftdoc, .swiftsourceinfo) for the executable in the current directory.
    local work="$OUT/obj/$target"
    mkdir -p "$work"
    local extra=()
    if [[ "$FORMAT_TARGETS" == *" $target "* ]]; then
        stage_sources "${FORMAT_SOURCES[@]}"
        # MarkupReader opens libxml2 through Sources/CXML's module.
        extra=("$ROOT/$OUT"/src/*.swift "${FORMAT_SUPPORT[@]/#/$ROOT/}" -I "$ROOT/Sources/CXML")
    elif [[ "$ANT_TARGETS" == *" $target "* ]]; then
        stage_sources "${ANT_SOURCES[@]}"
        extra=("$ROOT/$OUT"/src/*.swift)
    elif [[ "$HRV_TARGETS" == *" $target "* ]]; then
        stage_sources "${HRV_SOURCES[@]}"
        extra=("$ROOT/$OUT"/src/*.swift "${FORMAT_SUPPORT[@]/#/$ROOT/}" -I "$ROOT/Sources/CXML")
    elif [[ "$ARCHIVE_TARGETS" == *" $target "* ]]; then
        extra=("${ARCHIVE_SOURCES[@]/#/$ROOT/}" -I "$ROOT/Sources/CZlib")
    fi
    if ! (cd "$work" && "$SWIFTC" "${SWIFT_FLAGS[@]}" "$ROOT"/Sources/IntervalProCore/*.swift "${extra[@]}" \
        "$ROOT"/Fuzz/Support/*.swift "$ROOT/Fuzz/Targets/$target.swift" -lm -o "$ROOT/$bin") >"$log" 2>&1; then
        grep -E "error:" "$log" | head -20
        tail -5 "$log"
        echo "build: FAILED (log: $log)"
        return 1
    fi
    echo "$print" >"$stamp"
}

now_ns() { date +%s%N; }

demangle() {
    if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi
}

sources_id() {
    local head
    head=$(git rev-parse --short HEAD 2>/dev/null) || { echo "(not a git checkout)"; return; }
    if [[ -n "$(git status --porcelain -- Sources/IntervalProCore 2>/dev/null)" ]]; then
        echo "$head + uncommitted changes in Sources/IntervalProCore"
    else
        echo "$head"
    fi
}

passed=0
failed=0
summary=()
declare -A built=()

# Build everything first, so that all targets see the same core sources (others may be
# editing them) and a build failure shows up before any fuzzing time is spent.
echo "=== build (sources: $(sources_id))"
before=$(cat Sources/IntervalProCore/*.swift | sha1sum)
for target in "${TARGETS[@]}"; do
    if build "$target"; then
        built[$target]=1
    else
        failed=$((failed + 1))
        summary+=("$target: BUILD FAILED (log: $OUT/logs/$target.build.log)")
    fi
done
if [[ "$(cat Sources/IntervalProCore/*.swift | sha1sum)" != "$before" ]]; then
    echo "warning: Sources/IntervalProCore changed during the build; targets may have been built from different versions"
fi

for target in "${TARGETS[@]}"; do
    [[ -n "${built[$target]:-}" ]] || continue
    echo "=== $target"

    corpus="$OUT/corpus/$target"
    artifacts="$OUT/artifacts/$target"
    log="$OUT/logs/$target.log"
    rm -rf "$corpus"
    mkdir -p "$corpus" "$artifacts"
    cp -R "Fuzz/Corpus/$target/." "$corpus/"

    args=(-runs="$RUNS" -print_final_stats=1 -timeout=30 -artifact_prefix="$artifacts/")
    if [[ "$JSON_TARGETS" == *" $target "* ]]; then
        args+=(-max_len=4096 -dict=Fuzz/json.dict -use_value_profile=1)
    elif [[ "$FORMAT_TARGETS" == *" $target "* ]]; then
        args+=(-max_len=4096 -use_value_profile=1)
    elif [[ "$ARCHIVE_TARGETS" == *" $target "* ]]; then
        args+=(-max_len=4096 -use_value_profile=1)
    elif [[ "$HRV_TARGETS" == *" $target "* ]]; then
        # A few thousand beats: past alpha 1's two-minute windows, and a session long enough
        # to be cut into pieces (`AlphaOneTracker.minimumPieceSeconds`).
        args+=(-max_len=8000)
    else
        args+=(-max_len=64)
    fi
    # shellcheck disable=SC2206
    [[ -n "${FUZZ_ARGS:-}" ]] && args+=(${FUZZ_ARGS})

    start=$(now_ns)
    ASAN_OPTIONS="$ASAN_OPTIONS" "$OUT/bin/$target" "${args[@]}" "$corpus" >"$log" 2>&1
    status=$?
    end=$(now_ns)
    wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", (e - s) / 1e9 }')

    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # Executions / wall time (libFuzzer's own average divides by whole seconds).
    rate=$([[ -n "$execs" ]] && awk -v n="$execs" -v s="$start" -v e="$end" 'BEGIN { printf "%d", n / ((e - s) / 1e9) }')
    # The last status line ("#N DONE cov: C ft: F corp: ..." or the last one before a crash).
    status_line=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status_line")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$status_line")
    line="$target: ${execs:-?} execs, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, ${wall} s"

    if [[ $status -eq 0 ]]; then
        passed=$((passed + 1))
        echo "$line, ok"
        summary+=("$line, ok")
    else
        failed=$((failed + 1))
        crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        echo "$line, CRASHED (exit $status)"
        {
            grep -E "Fatal error|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|^SUMMARY:|ALARM|out-of-memory" "$log" | head -4
            grep -oE "Swift runtime failure: .*" "$log" | sed 's| */<compiler-generated>$||' | head -1
        } | sed 's/^/  /'
        # Stack summary: the frames in the core and the target, demangled.
        frames=$(grep -E '^ +#[0-9]+ .* in ' "$log" | grep -E 'Sources/IntervalProCore/|\.build-fuzz/src/|Fuzz/Targets/' | head -12)
        [[ -z "$frames" ]] && frames=$(grep -E '^ +#[0-9]+ .* in ' "$log" | head -12)
        sed -E 's/^ +(#[0-9]+) 0x[0-9a-f]+ in /\1 /' <<<"$frames" | demangle | sed "s|$ROOT/||; s/^/  /"
        if [[ -n "$crash" ]]; then
            echo "  input: $crash ($(wc -c <"$crash") bytes) hex: $(od -An -v -tx1 "$crash" | tr -d ' \n' | cut -c1-400)"
            echo "  reproduce: SWIFT_BACKTRACE=enable=no $OUT/bin/$target $crash"
        fi
        echo "  log: $log"
        summary+=("$line, CRASHED${crash:+ ($crash)}")
    fi
done

echo "=== summary ($RUNS runs per target)"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
