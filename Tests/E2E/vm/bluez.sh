#!/bin/bash
# bluez.sh start|stop|kill|restart: bluetoothd in the VM, for the agent and for scenarios.
# start waits until hci0 exists and org.bluez reports it Powered (up to 60 s); stop and kill
# end it with SIGTERM or SIGKILL (a crash, as a scenario wants). Logs go to
# $E2E_GUEST_LOGS/bluetoothd.log, appended across restarts. E2E_BLUEZ_DEBUG=1 adds
# bluetoothd's debug log and an HCI trace (hci.btsnoop, read it with btmon -r).
set -u
logs=${E2E_GUEST_LOGS:-/run}
pid_file=/run/e2e-bluetoothd.pid

powered() {
    dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci0 \
        org.freedesktop.DBus.Properties.Get string:org.bluez.Adapter1 string:Powered 2>/dev/null |
        grep -q 'boolean true'
}

wait_for() {
    local what=$1 tries=600
    while [ $tries -gt 0 ]; do
        "${@:2}" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "bluez.sh: $what did not happen within 60 s" >&2
    return 1
}

start() {
    # A fresh adapter state each time: no remembered devices from an earlier scenario.
    rm -rf /var/lib/bluetooth
    mkdir -p /var/lib/bluetooth
    chmod 700 /var/lib/bluetooth
    local options=(-n)
    if [ -n "${E2E_BLUEZ_DEBUG:-}" ]; then
        options+=(-d)
        pgrep -x btmon >/dev/null || { btmon -w "$logs/hci.btsnoop" >/dev/null 2>&1 & }
    fi
    echo "--- bluetoothd starting at $(cut -d' ' -f1 /proc/uptime)" >>"$logs/bluetoothd.log"
    /usr/libexec/bluetooth/bluetoothd "${options[@]}" >>"$logs/bluetoothd.log" 2>&1 &
    echo $! >"$pid_file"
    wait_for "hci0 registration" test -e /sys/class/bluetooth/hci0 && wait_for "hci0 Powered" powered
}

stop() {
    local signal=$1
    [ -f "$pid_file" ] || return 0
    local pid
    pid=$(cat "$pid_file")
    kill "-$signal" "$pid" 2>/dev/null
    # Gone, or a zombie waiting for PID 1 to reap it: either way bluetoothd has stopped.
    while [ -n "$(awk '$3 != "Z"' "/proc/$pid/stat" 2>/dev/null)" ]; do sleep 0.05; done
    rm -f "$pid_file"
}

case "${1:-}" in
    start) start ;;
    stop) stop TERM ;;
    kill) stop KILL ;;
    restart) stop TERM && start ;;
    *) echo "usage: bluez.sh start|stop|kill|restart" >&2; exit 64 ;;
esac
