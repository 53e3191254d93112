#!/usr/bin/env bash
# make test: every suite, each module built once, independent suites side by side.
#
# One release build, with the flags the package ships with, serves everything: the Python suites,
# the package test, the real-stack test, the command-line suites' processes, the man pages, and
# `swift test`, whose suites are built on it (`--build-tests` compiles only the test modules and
# what only they use: our modules are compiled with -enable-testing, Package.swift). A debug build
# beside it compiled every module a second time, 16 of 54 minutes of processor time.
#
# `intervalpro` first: the real-stack test needs only it, and its VMs' scenarios are the longest
# step, paced in real time. The rest of the build (the page's server, generate-manual) and the
# suites' modules then build on the processor's idle time (SCHED_IDLE, which its compiler
# processes keep; they run at nice 0 whatever the build's own niceness), so that the guest, the
# browser and the suites' processes, which mostly wait, get the processor when they ask for it.
#
#   intervalpro ──┬─ e2e (two VMs, ~8-10 min) ───────────────────────────┐
#   (e2e setup) ──┘                                                         │
#   (python venv) ── intervalpro-web (idle) ─┬─ python suites ─────────────┤
#                                            └─ man ─┬─ deb, package test ──├─ summary
#                                                    └─ test build (idle) ──┤
#                                                       └─ swift test ──────┘
#
# Each step writes its own log in .build/test-logs/; a step's log is printed when it fails.
# The last lines are a table of the steps with their minutes (wall and processor) and the tests
# counted from each suite's own closing line. Exit 1 if any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

: "${RELEASE_FLAGS:?Tests/run.sh takes the release flags from the Makefile: run make test}"
read -ra release_flags <<< "$RELEASE_FLAGS"
swift=${SWIFT:-swift}
python=${TEST_PYTHON:-.build/test-venv/bin/python3}
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
logs=.build/test-logs
rm -rf "$logs"
mkdir -p "$logs"
begun=$SECONDS

# step NAME COMMAND...: runs COMMAND with its output in $logs/NAME.log and notes when it
# started and ended and how it exited in $logs/NAME.step.
step() {
    local name=$1 started=$((SECONDS - begun)) status=0
    shift
    echo "  start  $name"
    # In a subshell so that `times` gives the processor time of this step's processes alone.
    ( "$@" > "$logs/$name.log" 2>&1; status=$?; times > "$logs/$name.times"; exit $status ) || status=$?
    echo "$name $started $((SECONDS - begun)) $status $(processor_seconds "$logs/$name.times")" > "$logs/$name.step"
    local verdict=ok
    [ "$status" = 0 ] || verdict="FAILED (exit $status)"
    printf '  done   %-16s %s after %s\n' "$name" "$verdict" "$(minutes $((SECONDS - begun - started)))"
    [ "$status" = 0 ] || { echo "----- $logs/$name.log (last 80 lines)"; tail -n 80 "$logs/$name.log"; echo "-----"; }
    return "$status"
}
minutes() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
# processor_seconds TIMES: user plus system seconds of the children in the output of `times`
# (its second line, "0m12.345s 0m1.234s").
processor_seconds() {
    sed -n 2p "$1" | tr 'ms' '  ' | awk '{ printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }'
}

# A chain of steps in the background stops at its first failure; its steps log as above.
python_suites() {
    step docs /usr/bin/python3 Tests/Docs/check_links.py &&
        step imports /usr/bin/python3 Tests/Package/check_imports.py --swift "$swift" &&
        step schema "$python" Tests/Schema/check_schema.py &&
        step fake-bluez /usr/bin/python3 Tests/FakeBlueZ/smoke_test.py &&
        step fake-mpris /usr/bin/python3 Tests/FakeMPRIS/smoke_test.py &&
        step fake-services /usr/bin/python3 Tests/FakeServices/smoke_test.py &&
        step exports "$python" Tests/Exports/check_exports.py "$release" &&
        step formats "$python" Tests/Formats/check_formats.py "$release" &&
        step services "$python" Tests/Services/check_services.py "$release" &&
        step readiness "$python" Tests/Readiness/check_readiness.py "$release" &&
        step alpha1 "$python" Tests/Readiness/check_alpha1.py "$release" &&
        step report "$python" Tests/Report/check_report.py "$release" &&
        step web "$python" Tests/Web/check_web.py "$release"
}
package_tests() {
    step deb packaging/build-deb.sh "$release" && step package $sudo packaging/test-package.sh
}

pids=()
# The real-stack test's packages, kernel and venv download while the release build compiles,
# and so does the Python suites' venv (35 s that came before every build).
step e2e-setup Tests/E2E/setup.sh &
setup_pid=$!
step python-venv make -s --no-print-directory deps-test-python TEST_PYTHON="$python" &
venv_pid=$!
# The versions are settled once, before any build: a build would otherwise resolve them and write
# Package.resolved while another process (the imports check) reads it.
step resolve "$swift" package resolve
step release-build "$swift" build "${release_flags[@]}" --force-resolved-versions --product intervalpro
release_built=$?
release="$("$swift" build "${release_flags[@]}" --show-bin-path)/intervalpro"
wait "$setup_pid"
setup_done=$?
if [ "$release_built" = 0 ] && [ "$setup_done" = 0 ]; then
    INTERVALPRO_E2E_BINARY=$release step e2e Tests/E2E/run.sh & pids+=($!)
fi
# The page's server, intervalpro-web, is what `serve` and `run --web` go on in; argument-parser's
# generate-manual makes the man pages. (SwiftPM builds only the last of several --product options.)
build_rest() {
    for product in intervalpro-web generate-manual; do
        chrt --idle 0 "$swift" build "${release_flags[@]}" --product "$product" || return
    done
}
rest_built=1
if [ "$release_built" = 0 ]; then
    step web-build build_rest
    rest_built=$?
fi
wait "$venv_pid"
venv_done=$?
if [ "$rest_built" = 0 ]; then
    [ "$venv_done" = 0 ] && { python_suites & pids+=($!); }
    # Before the test build: `make man` asks SwiftPM for generate-manual, and one build at a
    # time holds the folder.
    step man make --no-print-directory man && { package_tests & pids+=($!); }
    # The suites' modules, on the release build's own. The command-line suites run the release
    # binary, the one the package ships.
    if step test-build chrt --idle 0 "$swift" build "${release_flags[@]}" --build-tests; then
        step swift-test env SWIFT="$swift" INTERVALPRO_TEST_EXECUTABLE="$release" Tests/swift-test.sh & pids+=($!)
    fi
fi
for pid in "${pids[@]}"; do wait "$pid"; done

# The table: every step that was to run, with its minutes, and what its suite counted.
expected="resolve python-venv release-build e2e-setup e2e web-build docs imports schema fake-bluez fake-mpris fake-services exports formats
          services readiness alpha1 report web test-build man deb package swift-test"
passed=0 failed=0 broken=0 total_processor=0
echo
printf '%-16s %7s %7s %9s  %s\n' step start minutes processor result
for name in $expected; do
    if [ ! -f "$logs/$name.step" ]; then
        printf '%-16s %7s %7s %9s  %s\n' "$name" - - - "not run (an earlier step failed)"
        broken=$((broken + 1))
        continue
    fi
    read -r _ started ended status processor < "$logs/$name.step"
    total_processor=$((total_processor + processor))
    result=ok
    [ "$status" = 0 ] || { result="FAILED (exit $status)"; broken=$((broken + 1)); }
    counts=$(Tests/count.sh "$logs/$name.log")
    if [ -n "$counts" ]; then
        read -r p f <<< "$counts"
        passed=$((passed + p)) failed=$((failed + f))
        result="$result, $p passed, $f failed"
    fi
    printf '%-16s %7s %7s %9s  %s\n' "$name" "$(minutes "$started")" "$(minutes $((ended - started)))" \
        "$(minutes "$processor")" "$result"
done
# What failed, by name, in the last lines: a CI page that shows only the end still says which.
for name in $expected; do
    [ -f "$logs/$name.step" ] || continue
    read -r _ _ _ status _ < "$logs/$name.step"
    [ "$status" = 0 ] && continue
    grep -aE '✘ Test [^r].* (failed|recorded an issue)|^FAIL[: ]|: error: ' "$logs/$name.log" |
        cut -c 1-240 | head -n 6 | sed "s/^/failed in $name: /"
done
echo "make test: $(minutes $((SECONDS - begun))) in all, $(minutes "$total_processor") of processor time; logs in $logs/"
[ "$broken" = 0 ] || echo "make test: $broken steps failed or did not run"
echo "tests: $passed passed, $((failed + broken)) failed"
[ "$broken" = 0 ] && [ "$failed" = 0 ]
