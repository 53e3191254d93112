#!/usr/bin/env bash
# The .deb on a clean system: a fresh Debian 12 root (debootstrap minbase: no Swift toolchain,
# no build dependencies), the package installed there with apt so its Depends are resolved,
# the commands a user runs first, then removal, after which nothing of the package is left.
# Prints the package's figures. Needs root (chroot, mount) and Debian's mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls -t dist/intervalpro_*.deb | head -n 1)
version=$(dpkg-deb -f "$deb" Version)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/intervalpro-package
root=$(mktemp -d /var/tmp/intervalpro-root.XXXXXX)
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    rm -rf "$root"
}
trap cleanup EXIT

failed=0
check() {  # check DESCRIPTION COMMAND...: runs it, prints ok or FAIL
    local what=$1
    shift
    if "$@" >/tmp/intervalpro-package-check.log 2>&1; then
        echo "ok    $what"
    else
        echo "FAIL  $what"
        sed 's/^/      /' /tmp/intervalpro-package-check.log | tail -n 20
        failed=$((failed + 1))
    fi
}
inside() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    XDG_CONFIG_HOME=/tmp/user/config XDG_DATA_HOME=/tmp/user/data "$@"; }

# The base system's packages are downloaded once and kept in the cache.
mkdir -p "$cache"
tarball=$cache/bookworm-minbase.tgz
if [ ! -s "$tarball" ]; then
    debootstrap --variant=minbase --make-tarball="$tarball" bookworm "$root/make-tarball" "$mirror" >/dev/null
    rm -rf "$root/make-tarball"
fi
debootstrap --variant=minbase --unpack-tarball="$tarball" bookworm "$root" "$mirror" >/dev/null
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "deb $mirror bookworm main" > "$root/etc/apt/sources.list"
inside apt-get update -qq
# What the checks themselves use: man (for man -w) and bash-completion.
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq man-db bash-completion >/dev/null

check "the root has no Swift toolchain" inside sh -c '! command -v swift && ! command -v swiftc'
cp "$deb" "$root/tmp/"
check "apt installs $(basename "$deb") with its Depends" \
    inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "/tmp/$(basename "$deb")"
inside dpkg -L intervalpro > "$root/tmp/files"

check "intervalpro --version prints $version" inside sh -c "[ \"\$(intervalpro --version)\" = '$version' ]"
check "decode a heart-rate value" inside sh -c 'intervalpro decode 2a37 168c9a01 | grep -q 140'
check "plan check of an example plan by name" inside sh -c 'intervalpro plan check cadence-ladder | grep -q "Cadence ladder"'
check "replay --fast of a bundled recording against its plan" inside sh -c \
    'intervalpro replay --fast --json /usr/share/intervalpro/Recordings/cadence-ladder.jsonl --plan cadence-ladder | grep -q "\"completed\": true"'
check "render-audio -o writes a WAV, voice cues and all (libespeak-ng opened at run time)" inside sh -c \
    'intervalpro render-audio first-cadence-session --replay /usr/share/intervalpro/Recordings/first-cadence-session.jsonl -o /tmp/session.wav 2>/tmp/render.err && [ "$(head -c 4 /tmp/session.wav)" = RIFF ] && ! grep espeak /tmp/render.err'
check "run on a recording saves a session that history lists" inside sh -c \
    'intervalpro run pyramid --replay /usr/share/intervalpro/Recordings/pyramid.jsonl --fast --json >/dev/null && intervalpro history --json | grep -q "\"plan\": \"Cadence pyramid\""'
check "talking to a service opens libcurl at run time (a closed port: 69, the connection refused, not a missing library)" inside sh -c \
    'HOME=/tmp INTERVALPRO_INTERVALS_ICU_URL=http://127.0.0.1:9 intervalpro account add intervals.icu --athlete i1 --api-key k 2>/tmp/curl.err; [ $? = 69 ] && grep -q "connect" /tmp/curl.err && ! grep -q libcurl /tmp/curl.err'
check "plan check of a Zwift workout opens libxml2 at run time" inside sh -c \
    'printf "<workout_file><name>Z</name><workout><SteadyState Duration=\"60\" Cadence=\"85\"/></workout></workout_file>\n" >/tmp/z.zwo && intervalpro plan check /tmp/z.zwo | grep -q "1:00"'
check "replay of a gzipped recording opens zlib at run time" inside sh -c \
    'gzip -c /usr/share/intervalpro/Recordings/cadence-ladder.jsonl >/tmp/ladder.jsonl.gz && intervalpro replay --fast --json --no-save /tmp/ladder.jsonl.gz | grep -q "\"duration_s\""'
check "the docs --help points to are installed where it says, with the README" inside sh -c \
    'for page in $( (intervalpro --help; intervalpro serve --help) | tr -s " \n" "\n\n" | grep -o "^docs/[a-z/-]*\.md"); do
         [ -f "/usr/share/doc/intervalpro/$page" ] || { echo "missing: $page"; exit 1; }; done
     [ -n "$page" ] && [ -f /usr/share/doc/intervalpro/README.md ] && [ -f /usr/share/doc/intervalpro/docs/live-sensors.md ]'
check "man -w intervalpro finds the page" inside sh -c 'man -w intervalpro | grep -q "/usr/share/man/man1/intervalpro.1.gz"'
check "man -w intervalpro.record finds a subcommand's page" inside sh -c 'man -w intervalpro.record | grep -q intervalpro.record.1.gz'
check "bash completes 'intervalpro re<TAB>' to readiness, record, render-audio, replay, report" inside bash -c '
    source /usr/share/bash-completion/bash_completion
    source /usr/share/bash-completion/completions/intervalpro
    COMP_LINE="intervalpro re"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(intervalpro re); COMP_CWORD=1
    _intervalpro intervalpro re intervalpro
    [ "$(printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " ")" = "readiness record render-audio replay report " ]'
check "the udev rules and the D-Bus policy are where the system reads them" inside sh -c \
    '[ -f /usr/lib/udev/rules.d/70-intervalpro-rfkill.rules ] && [ -f /usr/lib/udev/rules.d/70-intervalpro-ant.rules ] && [ -f /usr/share/dbus-1/system.d/intervalpro-bluez.conf ]'
check "the systemd user unit is where every user's systemd reads it, and runs a command the binary has" inside sh -c \
    'grep -qx "ExecStart=intervalpro serve --listen 0.0.0.0:8417" /usr/lib/systemd/user/intervalpro.service && intervalpro serve --help | grep -q -- --listen'
check "serve goes on in /usr/libexec/intervalpro/intervalpro-web (as root it refuses there, with 77)" inside sh -c \
    'intervalpro serve --listen 127.0.0.1:8417 2>/tmp/serve.err; [ $? = 77 ] && grep -q "not served as root" /tmp/serve.err'

check "apt removes it (purge)" inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq intervalpro
check "no file of the package is left" inside sh -c \
    'while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || { echo "left: $f"; exit 1; }; done < /tmp/files; [ ! -e /usr/share/intervalpro ]'
check "the systemd user unit is gone" inside sh -c '[ ! -e /usr/lib/systemd/user/intervalpro.service ]'

# make install and make uninstall with a local prefix, staged: everything goes, and comes back out.
staged=$(mktemp -d)
make --no-print-directory install PREFIX=/usr/local DESTDIR="$staged" >/dev/null
check "make install PREFIX=/usr/local puts the binaries, pages, completions, plans, docs, udev rule, policy and user unit in place" \
    test -x "$staged/usr/local/bin/intervalpro" -a -f "$staged/usr/local/share/man/man1/intervalpro.run.1" \
    -a -f "$staged/usr/local/share/bash-completion/completions/intervalpro" \
    -a -f "$staged/usr/local/share/zsh/site-functions/_intervalpro" \
    -a -f "$staged/usr/local/share/fish/vendor_completions.d/intervalpro.fish" \
    -a -f "$staged/usr/local/share/intervalpro/Plans/pyramid.json" \
    -a -f "$staged/usr/local/share/doc/intervalpro/docs/reference/exit-codes.md" \
    -a -f "$staged/etc/udev/rules.d/70-intervalpro-rfkill.rules" -a -f "$staged/etc/dbus-1/system.d/intervalpro-bluez.conf" \
    -a -f "$staged/usr/local/lib/systemd/user/intervalpro.service" \
    -a -x "$staged/usr/local/libexec/intervalpro/intervalpro-web"
check "the installed binary finds the example plans under its prefix" \
    sh -c "cd / && '$staged/usr/local/bin/intervalpro' plan check cadence-ladder | grep -q 'Cadence ladder'"
make --no-print-directory uninstall PREFIX=/usr/local DESTDIR="$staged" >/dev/null
check "make uninstall leaves no file behind" sh -c "[ -z \"\$(find '$staged' -type f)\" ]"
rm -rf "$staged"

# Figures: sizes, and --version's start-up and peak memory (the packaged binary, on this machine).
extracted=$(mktemp -d)
dpkg-deb -x "$deb" "$extracted"
python3 - "$deb" "$extracted/usr/bin/intervalpro" "$(dpkg-deb -f "$deb" Installed-Size)" <<'PY'
import os, resource, statistics, subprocess, sys, time
deb, binary, installed = sys.argv[1], sys.argv[2], int(sys.argv[3])
walls = []
for _ in range(20):
    start = time.perf_counter()
    subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - start)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"package {os.path.getsize(deb) / 1e6:.1f} MB, installed {installed / 1024:.1f} MiB; "
      f"intervalpro --version: {statistics.median(walls) * 1000:.1f} ms wall (median of 20), "
      f"peak RSS {peak / 1024:.1f} MiB")
PY
rm -rf "$extracted"
[ "$failed" = 0 ] || { echo "test-package: $failed failed"; exit 1; }
echo "test-package: all passed"
