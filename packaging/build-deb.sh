#!/usr/bin/env bash
# Builds dist/intervalpro_VERSION_ARCH.deb from the release binary given as $1 (and intervalpro-web
# beside it, the page's server it hands `serve` to): stages
# `make install PREFIX=/usr` into a tree, adds what Debian asks of a package (control data
# with Depends computed by dpkg-shlibdeps, copyright, changelog, md5sums, compressed man
# pages, stripped binaries), builds it with dpkg-deb and checks it with lintian (errors fail).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1
# dpkg-shlibdeps computes Depends; without dpkg-dev the script ended at it without a word.
command -v dpkg-shlibdeps >/dev/null ||
    { echo "build-deb: dpkg-shlibdeps not found: sudo apt-get install dpkg-dev" >&2; exit 1; }
version=$("$binary" --version)   # the one place the version is written: Sources/IntervalProCLI/IntervalPro.swift
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

# The binary given, not one `make install` would ask SwiftPM for (a running `swift test` holds .build).
make --no-print-directory install PREFIX=/usr DESTDIR="$root" BUILT_BIN="$(realpath "$binary")" >/dev/null
for program in "$root/usr/bin/intervalpro" "$root/usr/libexec/intervalpro/intervalpro-web"; do
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$program"
done
gzip -9n "$root"/usr/share/man/man1/*.1

doc=$root/usr/share/doc/intervalpro
install -d "$doc"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: intervalpro
Comment: The project has not chosen a licence yet: all rights reserved by its authors.
 The Swift runtime and Foundation linked into the binary are Apache-2.0 with the Runtime
 Library Exception (swift.org); GRDB.swift and swift-argument-parser are MIT and Apache-2.0.

Files: *
Copyright: 2026 IntervalPro authors
License: all-rights-reserved
 No licence has been granted yet.
COPYRIGHT
date=$(date -u -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
cat > "$work/changelog" <<CHANGELOG
intervalpro ($version) unstable; urgency=medium

  * Release $version: see README.md for what it does.

 -- IntervalPro developers <developers@example.org>  $date
CHANGELOG
gzip -9n -c "$work/changelog" > "$doc/changelog.gz"

# Depends from what the binaries really link (dpkg-shlibdeps reads debian/control).
mkdir -p "$work/src/debian"
printf 'Source: intervalpro\n\nPackage: intervalpro\nArchitecture: any\n' > "$work/src/debian/control"
# Its messages are kept for a failure: under `set -e` one ended the script without a word.
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/intervalpro" \
    -e"$root/usr/libexec/intervalpro/intervalpro-web" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') ||
    { echo "build-deb: dpkg-shlibdeps failed:" >&2; cat "$work/shlibdeps.log" >&2; exit 1; }
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; cat "$work/shlibdeps.log" >&2; exit 1; }
# Voice cues open libespeak-ng at run time (Sources/CEspeak/shim.h): not in the ELF's needs.
depends="$depends, libespeak-ng1"
# So does talking to intervals.icu and Strava (Sources/CCurl/shim.h): either build of libcurl.
depends="$depends, libcurl4 | libcurl3-gnutls"
# And reading .zwo workouts and TCX and GPX activities (Sources/CXML/shim.h), compressed ones
# (Sources/CZlib/shim.h), playing sound (Sources/CALSA/shim.h) and talking to bluetoothd and
# music players (Sources/CDBus/shim.h), and ANT sticks (Sources/CLibUSB/shim.h).
depends="$depends, libxml2, zlib1g, libasound2, libdbus-1-3, libusb-1.0-0"

install -d "$root/DEBIAN"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
cat > "$root/DEBIAN/control" <<CONTROL
Package: intervalpro
Version: $version
Architecture: $arch
Maintainer: IntervalPro developers <developers@example.org>
Installed-Size: $(du -sk --apparent-size "$root/usr" | cut -f1)
Depends: $depends
Recommends: bluez
Section: utils
Priority: optional
Description: cadence interval training with Bluetooth running sensors
 IntervalPro runs interval plans against a heart-rate strap, a footpod or a
 watch through BlueZ, scores the time spent in each step's cadence zone, gives
 live feedback and plays metronome clicks and voice cues at the target cadence.
 Without a sensor it replays a recording or simulates a runner. Sessions are
 kept in a local history with FIT and TCX export.
CONTROL
find "$root" -type d -exec chmod 755 {} +

mkdir -p dist
deb=dist/intervalpro_${version}_${arch}.deb
# xz at level 1: the default (6) made the package 36 MB instead of 42 but took five times the
# processor (61 s against 12 for the two binaries here), at every `make deb` and CI run.
dpkg-deb --root-owner-group -Zxz -z1 --build "$root" "$deb" >/dev/null
echo "built $deb ($(du -h "$deb" | cut -f1), Depends: $depends)"
if command -v lintian >/dev/null; then
    lintian --fail-on error "$deb"
fi
