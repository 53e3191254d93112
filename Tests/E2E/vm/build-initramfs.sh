#!/usr/bin/env bash
# build-initramfs.sh KERNEL_DIR OUTPUT: the end-to-end VM's initramfs (busybox, the stage-1
# init and the virtio/9p/overlay modules from the unpacked kernel). Rebuilt only when
# missing or older than its inputs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kernel_dir=$1 output=$2
version=$(ls "$kernel_dir/lib/modules")
modules="$kernel_dir/lib/modules/$version/kernel"
if [ -f "$output" ] && [ "$output" -nt "$here/initramfs-init" ] && [ "$output" -nt "$0" ]; then
    exit 0
fi
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"/{bin,modules,proc,sys,dev}
cp /usr/bin/busybox "$staging/bin/busybox"
cp "$here/initramfs-init" "$staging/init"
# In dependency order (insmod does not resolve them).
for module in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
    9pnet 9pnet_virtio netfs fscache 9p overlay; do
    file=$(find "$modules" \( -name "$module.ko" -o -name "$module.ko.xz" -o -name "$module.ko.zst" \) | head -n1)
    [ -n "$file" ] || { echo "build-initramfs: module $module not found under $modules" >&2; exit 1; }
    case "$file" in
        *.xz) xz -dc "$file" >"$staging/modules/$module.ko" ;;
        *.zst) zstd -qdc "$file" >"$staging/modules/$module.ko" ;;
        *) cp "$file" "$staging/modules/$module.ko" ;;
    esac
    echo "$module" >>"$staging/modules.order"
done
mkdir -p "$(dirname "$output")"
(cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1 >"$output.tmp")
mv "$output.tmp" "$output"
