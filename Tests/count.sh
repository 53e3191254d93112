#!/usr/bin/env bash
# Tests/count.sh LOG: "PASSED FAILED" from a suite's own closing line, or nothing for a log
# that counts no tests (a build). Read by Tests/run.sh for its last line.
#   swift test     ✔ Test run with 464 tests in 70 suites passed ... / ✘ ... failed ...
#   Python checks  [name:] 353 passed, 0 failed   or   121/121 passed[, 2 failed]
#   e2e            e2e: 9 scenarios, 0 failed, ...
#   package        one "ok    ..." or "FAIL  ..." line per check
set -euo pipefail
log=$1

if line=$(grep -aE 'Test run with [0-9]+ tests? in [0-9]+ suites? (passed|failed)' "$log" | tail -n 1); then
    total=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<< "$line")
    failed=$(grep -acE '✘ Test [^r].* failed' "$log" || true)
    echo "$((total - failed)) $failed"
elif line=$(grep -aE '^e2e: [0-9]+ scenarios, [0-9]+ failed' "$log" | tail -n 1); then
    read -r total failed < <(sed -E 's/^e2e: ([0-9]+) scenarios, ([0-9]+) failed.*/\1 \2/' <<< "$line")
    echo "$((total - failed)) $failed"
elif line=$(grep -aE '(^|: )[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1); then
    sed -E 's/.*(^|: )([0-9]+) passed, ([0-9]+) failed.*/\2 \3/' <<< "$line"
elif line=$(grep -aE '^[0-9]+/[0-9]+ passed' "$log" | tail -n 1); then
    read -r passed failed < <(sed -E 's#^([0-9]+)/[0-9]+ passed(, ([0-9]+) failed)?.*#\1 \3#' <<< "$line")
    echo "$passed ${failed:-0}"
elif grep -qaE '^(ok|FAIL)  ' "$log"; then
    echo "$(grep -caE '^ok  ' "$log") $(grep -caE '^FAIL  ' "$log" || true)"
fi
