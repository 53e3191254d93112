#!/usr/bin/env bash
# Installs what the real-BlueZ end-to-end suite needs. Idempotent: a warm cache does nothing.
#  * the Debian packages in Tests/E2E/packages.txt (QEMU, BlueZ, busybox for the initramfs...);
#  * Debian's stock kernel, unpacked (not installed) into the cache with its modules indexed;
#  * a Python venv in the cache with bumble, the virtual controllers and devices.
# The cache lives outside the clone so CI and later clones reuse it:
#   ${INTERVALPRO_E2E_CACHE:-$HOME/.cache/intervalpro-e2e}
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${INTERVALPRO_E2E_CACHE:-$HOME/.cache/intervalpro-e2e}"
bumble_version=0.0.236
dbus_fast_version=5.2.0  # for the stand-in client that checks the harness itself
export DEBIAN_FRONTEND=noninteractive
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
started=$SECONDS
apt_updated=0
apt_update() {
    [ "$apt_updated" = 1 ] && return
    $sudo timeout 300 apt-get update -qq
    apt_updated=1
}

missing=()
for package in $(grep -v '^\s*#' "$here/packages.txt"); do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "e2e setup: installing ${missing[*]}"
    apt_update
    $sudo timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$cache"
# The kernel: the package linux-image-amd64 points at, unpacked into $cache/kernel.
if ! ls "$cache"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
    [ -n "$(apt-cache policy linux-image-amd64 | awk '/Candidate:/ && $2 != "(none)" {print $2}')" ] || apt_update
    kernel_package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ {print $2; exit}')
    [ -n "$kernel_package" ] || { echo "e2e setup: cannot tell which kernel linux-image-amd64 depends on" >&2; exit 1; }
    echo "e2e setup: unpacking $kernel_package into $cache/kernel"
    staging=$(mktemp -d "$cache/kernel.XXXXXX")
    # apt-get download as root warns that its sandbox user cannot write here; harmless.
    (cd "$staging" && timeout 600 apt-get download -q "$kernel_package" 2>&1 | grep -v '_apt' || true)
    ls "$staging"/"$kernel_package"_*.deb >/dev/null
    dpkg -x "$staging"/"$kernel_package"_*.deb "$staging/root"
    # An unpacked kernel has no modules.dep (an install writes it); modprobe in the guest needs one.
    depmod -b "$staging/root" "$(ls "$staging/root/lib/modules")"
    rm -rf "$cache/kernel"
    mv "$staging/root" "$cache/kernel"
    rm -rf "$staging"
fi

# The venv: Debian's python3 (not a pyenv one), bumble pinned.
if ! "$cache/venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('bumble') != '$bumble_version' or m.version('dbus-fast') != '$dbus_fast_version')" 2>/dev/null; then
    echo "e2e setup: creating $cache/venv with bumble $bumble_version"
    rm -rf "$cache/venv"
    /usr/bin/python3 -m venv "$cache/venv"
    timeout 900 "$cache/venv/bin/pip" install -q --disable-pip-version-check "bumble==$bumble_version" "dbus-fast==$dbus_fast_version"
fi

echo "e2e setup: ready in $((SECONDS - started)) s (kernel $(ls "$cache/kernel/lib/modules"), $(qemu-system-x86_64 --version | head -n1), bluez $(bluetoothctl --version | awk '{print $2}'), bumble $bumble_version; cache $cache)"
