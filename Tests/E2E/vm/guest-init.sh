#!/bin/bash
# Stage 2: PID 1 of the end-to-end VM. The root filesystem is the host's own (read-only 9p
# under a tmpfs overlay), so every host path works here unchanged: the project, its release
# binary, the Swift runtime, bluez. Mounts the pseudo filesystems, the guest kernel's modules
# and the suite's run folder (read-write, at its host path), runs guest-agent.sh, powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

power_off() { sync; busybox poweroff -f; sleep 10; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p /run/lock /run/user
stty -F /dev/console -onlcr 2>/dev/null || true

kernel_dir= run_dir= agent= guest=guest
for word in $(cat /proc/cmdline); do
    case "$word" in
        e2e.kernel=*) kernel_dir="${word#e2e.kernel=}" ;;
        e2e.run=*) run_dir="${word#e2e.run=}" ;;
        e2e.guest=*) guest="${word#e2e.guest=}" ;;
        e2e.agent=*) agent="${word#e2e.agent=}" ;;
    esac
done

# The guest kernel's modules (Debian's, from the cache), so modprobe and request_module work.
version=$(uname -r)
mkdir -p "/lib/modules/$version"
mount --bind "$kernel_dir/lib/modules/$version" "/lib/modules/$version"

mkdir -p "$run_dir"
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=512000 e2erun "$run_dir" || {
    echo "e2e guest: cannot mount the run folder at $run_dir" >/dev/console
    power_off
}
hostname e2e-guest 2>/dev/null
ip link set lo up 2>/dev/null

cd /root
bash "$agent" "$run_dir" "$guest" </dev/null >/dev/console 2>&1
power_off
