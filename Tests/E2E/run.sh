#!/usr/bin/env bash
# The real-BlueZ end-to-end suite (make e2e): sets up the cache if needed, builds the release
# binary (or takes INTERVALPRO_E2E_BINARY), boots two VMs and runs every scenario in one of them.
#   Tests/E2E/run.sh [--client intervalpro|standin] [--lanes N] [SCENARIO...]
# Prints one line per scenario and the suite's wall time; exits 1 if any scenario failed.
# --lanes: how many VMs run scenarios side by side (INTERVALPRO_E2E_LANES, 2 unless set).
# Results (outputs, recordings, logs of the guest and of the virtual devices) go to
#   ${INTERVALPRO_E2E_RESULTS:-.build/e2e}/<date-time>/, with a `latest` link beside them.
# See docs/dev/real-stack-test.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "$here/../.." && pwd)"
cache="${INTERVALPRO_E2E_CACHE:-$HOME/.cache/intervalpro-e2e}"
export INTERVALPRO_E2E_CACHE="$cache"
client=intervalpro
lanes=${INTERVALPRO_E2E_LANES:-2}
scenarios=()
while [ $# -gt 0 ]; do
    case "$1" in
        --client) client=$2; shift 2 ;;
        --client=*) client=${1#--client=}; shift ;;
        --lanes) lanes=$2; shift 2 ;;
        --lanes=*) lanes=${1#--lanes=}; shift ;;
        -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 64 ;;
        *) scenarios+=("$1"); shift ;;
    esac
done

"$here/setup.sh"

cd "$project"
if [ -n "${INTERVALPRO_E2E_BINARY:-}" ]; then
    binary=$(realpath "$INTERVALPRO_E2E_BINARY")
else
    # The flags the package is built with (the Makefile exports them; run on its own, the
    # script asks for them), so the suite tests the binary that ships.
    read -ra flags <<< "${RELEASE_FLAGS:-$(make -s --no-print-directory release-flags)}"
    swift build "${flags[@]}" --product intervalpro
    binary="$(swift build "${flags[@]}" --show-bin-path)/intervalpro"
fi
[ -x "$binary" ] || { echo "run.sh: no binary at $binary" >&2; exit 66; }

# The guest sees the host's / but has its own /tmp and /run. A clone there (a CI checkout,
# say) is staged into the cache: the suite, its plans and timelines, and the binary.
under_private_folder() { case "$1" in /tmp/* | /run/*) return 0 ;; *) return 1 ;; esac; }
if under_private_folder "$project/"; then
    under_private_folder "$cache/" && { echo "run.sh: the cache $cache must not be under /tmp or /run" >&2; exit 64; }
    stage="$cache/stage"
    rm -rf "$stage"
    mkdir -p "$stage/Tests" "$stage/.build/release"
    cp -a "$project/Tests/E2E" "$stage/Tests/"
    cp "$binary" "$stage/.build/release/intervalpro"
    binary="$stage/.build/release/intervalpro"
    project="$stage"
    here="$stage/Tests/E2E"
    echo "e2e: the clone is under /tmp or /run, which the VM cannot see; staged into $stage"
fi

results_root="${INTERVALPRO_E2E_RESULTS:-$project/.build/e2e}"
mkdir -p "$results_root"
results_root=$(realpath "$results_root")
under_private_folder "$results_root/" && {
    echo "run.sh: the results folder must not be under /tmp or /run (the VM has its own)" >&2
    exit 64
}
results="$results_root/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
ln -sfn "$results" "$results_root/latest"

export PYTHONDONTWRITEBYTECODE=1  # nothing written into the clone
exec "$cache/venv/bin/python" -u "$here/harness/suite.py" --project "$project" --cache "$cache" \
    --results "$results" --binary "$binary" --client "$client" --lanes "$lanes" ${scenarios[@]+--only "${scenarios[@]}"}
