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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests/E2E/harness"))
from ant_protocol import StickState, framed, split  # noqa: E402


def main():
    channels, rate = int(sys.argv[1]), float(sys.argv[2])
    master, slave = os.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    buffer = b""
    stick = StickState()
    sent = 0

    def send(message_id, payload):
        os.write(master, framed(message_id, payload))

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
        messages, buffer = split(buffer + data)
        for message_id, payload in messages:
            for reply in stick.answer(message_id, payload):
                send(*reply)
        return True

    while stick.opened < channels:
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
                send(0x4E, [channel] + page + ([0x80] + device if stick.extended else []))
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
