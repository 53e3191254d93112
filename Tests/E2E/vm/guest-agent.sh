#!/bin/bash
# guest-agent.sh RUN_DIR GUEST: inside the VM. Brings up the real Bluetooth stack on the virtual
# controller that the host serves on the second serial port (hci_uart, H4), the system
# D-Bus and bluetoothd, then runs the host's requests one at a time until told to stop:
#   RUN_DIR/GUEST/requests/NAME.sh   a request (the host writes it, then renames it in)
#   RUN_DIR/GUEST/requests/NAME.rc   its exit status, written when it has finished
#   RUN_DIR/GUEST/requests/stop      power off
# RUN_DIR/GUEST/ready (or failed) tells the host that the stack is up (or why not). GUEST is
# this VM's own folder (guest-1, guest-2...): the suite runs its scenarios in several VMs at once.
run_dir=$1
guest="$run_dir/${2:-guest}"
requests="$guest/requests"
mkdir -p "$requests"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export E2E_GUEST_LOGS="$guest"
uptime() { cut -d' ' -f1 /proc/uptime; }
say() { echo "guest $(uptime) $*"; }

modprobe hci_uart
btattach -B /dev/ttyS1 -P h4 >"$guest/btattach.log" 2>&1 &
say "hci_uart loaded, btattach on /dev/ttyS1"
mkdir -p /run/dbus
dbus-daemon --system --fork --print-pid >"$guest/dbus.pid"
if ! "$here/bluez.sh" start; then
    say "bluetooth stack did not come up"
    tail -n 20 "$guest"/*.log
    echo "bluetooth stack did not come up" >"$guest/failed"
    exit 1
fi
uptime >"$guest/ready.tmp"
mv "$guest/ready.tmp" "$guest/ready"  # whole, or not there: the host polls for it
say "ready: hci0 powered"

while [ ! -e "$requests/stop" ]; do
    next=
    for request in "$requests"/*.sh; do
        [ -e "$request" ] && [ ! -e "${request%.sh}.rc" ] && { next=$request; break; }
    done
    if [ -z "$next" ]; then
        sleep 0.1
        continue
    fi
    bash "$next"
    status=$?
    echo "$status" >"${next%.sh}.rc.tmp"
    mv "${next%.sh}.rc.tmp" "${next%.sh}.rc"
done
say "stopping"
