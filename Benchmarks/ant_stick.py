#!/usr/bin/env python3
"""A fake ANT USB stick on a pseudo-terminal, for `make bench-ant` (not a test).

Usage: ant_stick.py CHANNELS RATE

Prints the terminal's path on stdout, then answers what a client sends as the ANT Message
Protocol says a stick does (a reset with a startup message, requests for capabilities, serial
number and version, every configuration command with its response) and, once CHANNELS
channels are open, broadcasts RATE data pages a second on each: a foot pod's page 2 on
channel 0, a heart-rate page (a beat a second) on channel 1, with the sender's channel id
when the client asked for it (lib config 0x80). Runs until SIGTERM, then prints how many data
messages it sent on stderr. (It keeps the terminal's other end open: a pseudo-terminal's
master reads EIO while no one holds it.)
"""
import os
import select
import signal
import sys
import time
import tty


def framed(message_id, payload):
    data = bytes([0xA4, len(payload), message_id]) + bytes(payload)
    checksum = 0
    for byte in data:
        checksum ^= byte
    return data + bytes([checksum])


def main():
    channels, rate = int(sys.argv[1]), float(sys.argv[2])
    master, slave = os.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    buffer = b""
    opened = 0
    extended = False
    sent = 0

    def send(message_id, payload):
        os.write(master, framed(message_id, payload))

    def serve(message_id, payload):
        nonlocal opened, extended
        if message_id == 0x4A:
            send(0x6F, [0x20])
        elif message_id == 0x4D:  # request
            wanted = payload[1]
            if wanted == 0x54:
                send(0x54, [8, 3, 0, 0, 0, 0])
            elif wanted == 0x61:
                send(0x61, [1, 2, 3, 4])
            elif wanted == 0x3E:
                send(0x3E, list(b"AJK3.10\0"))
            elif wanted == 0x51:
                send(0x51, [payload[0], 0xE1, 0x10, 124, 5])
        else:
            if message_id == 0x6E:
                extended = bool(payload[1] & 0x80)
            send(0x40, [payload[0] if payload else 0, message_id, 0])
            if message_id == 0x4B:
                opened += 1

    def stop(signum, frame):
        print(f"sent {sent}", file=sys.stderr, flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)

    def readable(timeout):
        nonlocal buffer
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(master, 4096)
        except OSError:
            return False  # the client closed the terminal
        if not data:
            return False
        buffer += data
        while len(buffer) >= 4 and buffer[0] == 0xA4 and len(buffer) >= buffer[1] + 4:
            length = buffer[1]
            serve(buffer[2], list(buffer[3 : 3 + length]))
            buffer = buffer[length + 4 :]
        while buffer and buffer[0] != 0xA4:
            buffer = buffer[1:]
        return True

    while opened < channels:
        if not readable(None):
            print(f"sent 0", file=sys.stderr)
            return
    period = 1 / rate
    tick = 0
    next_time = time.monotonic()
    alive = True
    while alive:
        beats = tick // max(1, int(rate))
        beat_time = (beats * 1024) & 0xFFFF
        pages = [(0, [0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11], [0xE1, 0x10, 124, 5]),
                 (1, [0x00, 0, 0, 0, beat_time & 0xFF, beat_time >> 8, beats & 0xFF, 61], [0x39, 0x30, 120, 1])]
        for channel, page, device in pages[:channels]:
            try:
                send(0x4E, [channel] + page + ([0x80] + device if extended else []))
                sent += 1
            except OSError:
                alive = False
                break
        tick += 1
        next_time += period
        while alive and time.monotonic() < next_time:
            alive = readable(max(0, next_time - time.monotonic()))
    print(f"sent {sent}", file=sys.stderr)


if __name__ == "__main__":
    main()
