#!/bin/bash
# guest-agent.sh RUN_DIR GUEST: inside the VM. Brings up the real Bluetooth stack on the virtual
# controller that the host serves on the second serial port (hci_uart, H4), the system
# D-Bus and bluetoothd, then runs the host's requests one at a time until told to stop (the
# host rings on the third serial port when it has put one in):
#   RUN_DIR/GUEST/requests/NAME.sh   a request (the host writes it, then renames it in)
#   RUN_DIR/GUEST/requests/NAME.rc   its exit status and a newline, written when it has finished
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

# Between requests the agent sleeps in a read of the third serial port, where the host rings
# (a newline) once it has put a request in; a second at most, should a ring be missed. Under
# TCG, looking for requests ten times a second cost 0.55 s of host processor a second with
# sleep(1), 0.20 with a read that timed out; sleeping on the doorbell, 0.023 (a guest with no
# agent loop at all, 0.004).
if stty -F /dev/ttyS2 raw -echo clocal 2>/dev/null && exec 3</dev/ttyS2; then
    nap() { read -r -t 1 -u 3 _; }
else
    say "no doorbell on /dev/ttyS2: looking for requests ten times a second"
    mkfifo /run/agent-wait
    exec 3<>/run/agent-wait
    nap() { read -r -t 0.1 -u 3 _; }
fi

while [ ! -e "$requests/stop" ]; do
    next=
    for request in "$requests"/*.sh; do
        [ -e "$request" ] && [ ! -e "${request%.sh}.rc" ] && { next=$request; break; }
    done
    if [ -z "$next" ]; then
        nap
        continue
    fi
    bash "$next" 3<&-  # the doorbell is the agent's alone
    status=$?
    # Written in place, one write (mv would start a process): the host reads it once it
    # holds a whole line.
    echo "$status" >"${next%.sh}.rc"
done
say "stopping"
