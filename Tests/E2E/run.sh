#!/usr/bin/env bash
# The real-BlueZ end-to-end suite (make e2e): sets up the cache if needed, builds the release
# binary (or takes INTERVALPRO_E2E_BINARY), boots one VM and runs every scenario in it.
#   Tests/E2E/run.sh [--client intervalpro|standin] [SCENARIO...]
# Prints one line per scenario and the suite's wall time; exits 1 if any scenario failed.
# Results (outputs, recordings, logs of the guest and of the virtual devices) go to
#   ${INTERVALPRO_E2E_RESULTS:-.build/e2e}/<date-time>/, with a `latest` link beside them.
# See docs/README-e2e.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "$here/../.." && pwd)"
cache="${INTERVALPRO_E2E_CACHE:-$HOME/.cache/intervalpro-e2e}"
export INTERVALPRO_E2E_CACHE="$cache"
client=intervalpro
scenarios=()
while [ $# -gt 0 ]; do
    case "$1" in
        --client) client=$2; shift 2 ;;
        --client=*) client=${1#--client=}; shift ;;
        -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 64 ;;
        *) scenarios+=("$1"); shift ;;
    esac
done

"$here/setup.sh"

cd "$project"
if [ -n "${INTERVALPRO_E2E_BINARY:-}" ]; then
    binary=$(realpath "$INTERVALPRO_E2E_BINARY")
else
    swift build -c release --product intervalpro
    binary="$project/.build/release/intervalpro"
fi
[ -x "$binary" ] || { echo "run.sh: no binary at $binary" >&2; exit 66; }

results_root="${INTERVALPRO_E2E_RESULTS:-$project/.build/e2e}"
mkdir -p "$results_root"
results_root=$(realpath "$results_root")
case "$results_root" in
    /tmp/* | /run/*) echo "run.sh: the results folder must not be under /tmp or /run (the VM has its own)" >&2; exit 64 ;;
esac
results="$results_root/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
ln -sfn "$results" "$results_root/latest"

export PYTHONDONTWRITEBYTECODE=1  # nothing written into the clone
exec "$cache/venv/bin/python" -u "$here/harness/suite.py" --project "$project" --cache "$cache" \
    --results "$results" --binary "$binary" --client "$client" ${scenarios[@]+--only "${scenarios[@]}"}
