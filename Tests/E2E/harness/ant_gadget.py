#!/usr/bin/env python3
"""A virtual ANT USB stick in the guest kernel: a USB gadget with the ANTUSB2's ids
(0fcf:1008) on dummy_hcd's virtual controller, whose two bulk endpoints this program serves
through FunctionFS, speaking the ANT serial protocol. The guest's own USB stack enumerates
it and Linux's usb_serial_simple driver makes it /dev/ttyUSBn, exactly as it does a real
stick. IntervalPro opens it through libusb (detaching that driver) or, named with
--ant-stick, reads the serial device.

Usage (as root in the guest): ant_gadget.py LOG TIMELINE

TIMELINE is "pod=NUMBER,hr=NUMBER,silent=FROM-TO,replug=FROM-TO,rate=PAGES" (seconds after the
channels first open; silent, replug and rate optional, rate 4 pages a second by default; replug unbinds the gadget from the controller, as
pulling the stick out does, and binds it again): what the stick broadcasts once a client has opened its channels, four pages a
second a device: the foot pod's page 2 (85.5 strides/min) and the strap's page (a beat a
second, 61 bpm), each with the sender's channel id when the client asked for it. Writes
"READY /dev/ttyUSBn" to LOG once the kernel made the serial device, and then one JSON line
per data page sent ({"t", "channel", "device", "hex"}), so a test can hold a recording to the
bytes the devices sent.
"""
import glob
import json
import os
import struct
import subprocess
import sys
import threading
import time

from ant_protocol import StickState, framed, split

GADGET = "/sys/kernel/config/usb_gadget/ant"
FFS = "/dev/ffs-ant"


def sh(command):
    subprocess.run(command, shell=True, check=True)


def write(path, text):
    with open(path, "w") as out:
        out.write(text)


def gadget():
    """The gadget, through configfs: the ANTUSB2's ids and one FunctionFS function."""
    for module in ("dummy_hcd", "libcomposite", "usb_f_fs", "usbserial", "usb_serial_simple"):
        sh(f"modprobe {module}")
    if not os.path.ismount("/sys/kernel/config"):
        sh("mount -t configfs none /sys/kernel/config")
    os.makedirs(GADGET, exist_ok=True)
    write(f"{GADGET}/idVendor", "0x0fcf")
    write(f"{GADGET}/idProduct", "0x1008")
    os.makedirs(f"{GADGET}/strings/0x409", exist_ok=True)
    write(f"{GADGET}/strings/0x409/manufacturer", "Dynastream Innovations")
    write(f"{GADGET}/strings/0x409/product", "ANT USBStick2")
    write(f"{GADGET}/strings/0x409/serialnumber", "123")
    os.makedirs(f"{GADGET}/configs/c.1", exist_ok=True)
    os.makedirs(f"{GADGET}/functions/ffs.ant", exist_ok=True)
    if not os.path.exists(f"{GADGET}/configs/c.1/ffs.ant"):
        os.symlink(f"{GADGET}/functions/ffs.ant", f"{GADGET}/configs/c.1/ffs.ant")
    os.makedirs(FFS, exist_ok=True)
    if not os.path.ismount(FFS):
        sh(f"mount -t functionfs ant {FFS}")


def descriptors():
    """FunctionFS descriptors (v2): one vendor interface, a bulk IN (ep1) and a bulk OUT (ep2)
    endpoint, for full and high speed; then the interface's string."""
    def interface():
        return struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0, 0, 1)

    def endpoint(address, size):
        return struct.pack("<BBBBHB", 7, 5, address, 2, size, 0)

    full = interface() + endpoint(0x81, 64) + endpoint(0x02, 64)
    high = interface() + endpoint(0x81, 512) + endpoint(0x02, 512)
    body = struct.pack("<II", 3, 3) + full + high  # three descriptors each
    head = struct.pack("<III", 3, 12 + len(body), 1 | 2)  # v2 magic, length, full and high speed
    strings_body = struct.pack("<H", 0x0409) + b"ANT\0"
    strings = struct.pack("<IIII", 2, 16 + len(strings_body), 1, 1) + strings_body
    return head + body, strings


def main():
    log_path, timeline = sys.argv[1], sys.argv[2]
    plan = dict(item.split("=") for item in timeline.split(","))
    pod, strap = int(plan["pod"]), int(plan["hr"])
    silent = tuple(float(x) for x in plan["silent"].split("-")) if "silent" in plan else None
    replug = tuple(float(x) for x in plan["replug"].split("-")) if "replug" in plan else None
    rate = float(plan.get("rate", 4))  # pages a second from each device; a real one sends 4
    log = open(log_path, "a", buffering=1)

    gadget()
    ep0 = os.open(f"{FFS}/ep0", os.O_RDWR)
    head, strings = descriptors()
    os.write(ep0, head)
    os.write(ep0, strings)
    before = set(glob.glob("/dev/ttyUSB*"))
    udc = os.listdir("/sys/class/udc")[0]
    write(f"{GADGET}/UDC", udc)

    enabled = threading.Event()

    def events():
        while True:
            event = os.read(ep0, 12)
            if len(event) >= 9 and event[8] == 2:  # FUNCTIONFS_ENABLE
                enabled.set()

    threading.Thread(target=events, daemon=True).start()
    enabled.wait(60)  # the host's enumeration, slow in a guest under TCG on a loaded machine
    source = os.open(f"{FFS}/ep1", os.O_RDWR)  # IN: to the host
    sink = os.open(f"{FFS}/ep2", os.O_RDWR)  # OUT: from the host
    deadline = time.monotonic() + 30
    tty = None
    while tty is None and time.monotonic() < deadline:
        made = set(glob.glob("/dev/ttyUSB*")) - before
        tty = sorted(made)[0] if made else None
        time.sleep(0.1)
    log.write(f"READY {tty}\n")

    lock = threading.Lock()
    stick = StickState(pod)

    def send(message_id, payload):
        with lock:
            try:
                os.write(source, framed(message_id, payload))
                return True
            except OSError:
                return False  # unplugged: the host is not there to read it

    def commands():
        buffer = b""
        while True:
            try:
                data = os.read(sink, 512)
            except OSError:
                buffer = b""  # unplugged: wait to be plugged in again
                time.sleep(0.1)
                continue
            messages, buffer = split(buffer + data)
            for message_id, payload in messages:
                for reply in stick.answer(message_id, payload):
                    send(*reply)

    threading.Thread(target=commands, daemon=True).start()
    while not stick.configured:
        time.sleep(0.05)
    start = time.monotonic()
    tick = 0
    unplugged = False
    while True:
        now = time.monotonic() - start
        if replug and not unplugged and replug[0] <= now < replug[1]:
            write(f"{GADGET}/UDC", "\n")
            unplugged = True
            log.write(json.dumps({"t": round(now, 3), "event": "unplugged"}) + "\n")
        elif replug and unplugged and now >= replug[1]:
            stick.channels = stick.opened = 0
            write(f"{GADGET}/UDC", udc)
            unplugged = False
            replug = None
            log.write(json.dumps({"t": round(now, 3), "event": "plugged in"}) + "\n")
        if stick.configured and not unplugged and not (silent and silent[0] <= now < silent[1]):
            beats = int(tick / rate)  # a beat a second
            beat_time = (beats * 1024) & 0xFFFF
            pod_page = [0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11]
            strap_page = [0x00, 0, 0, 0, beat_time & 0xFF, beat_time >> 8, beats & 0xFF, 61]
            # Who made them, as real devices interleave it: Garmin (1). The strap's page 2 comes
            # once its page bit has toggled (below), or a receiver may not read it as a page.
            if tick % 65 == 1:
                pod_page = [0x50, 0xFF, 0xFF, 1, 1, 0, 0x0B, 0]  # common page 80, model 11
            if tick % 65 == 5:
                strap_page = [0x02, 1, 0x34, 0x12] + strap_page[4:]  # heart rate page 2
            # A current strap toggles its page bit every fourth message (a legacy one never does,
            # and its first four bytes are no page).
            if (tick // 4) % 2:
                strap_page[0] |= 0x80
            pages = [(0, pod_page, pod, 124, 5), (1, strap_page, strap, 120, 1)]
            if stick.scanning:
                pages = [(0, page, number, kind, transmission) for _, page, number, kind, transmission in pages]
            for channel, page, number, kind, transmission in pages[:2 if stick.scanning else stick.channels]:
                extended = stick.extended or stick.scanning
                extension = [0x80, number & 0xFF, number >> 8, kind, transmission] if extended else []
                if send(0x4E, [channel] + page + extension):
                    log.write(json.dumps({"t": round(now, 3), "channel": channel, "device": f"ant:{number}",
                                          "hex": bytes(page).hex()}) + "\n")
        tick += 1
        time.sleep(max(0.0, start + tick / rate - time.monotonic()))


if __name__ == "__main__":
    main()
