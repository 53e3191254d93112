#!/usr/bin/env python3
"""What a user would otherwise write: bleak recording the heart-rate and RSC measurements to
JSON Lines, as `intervalpro record` does. For the live benchmark only (Benchmarks/live.py).

Usage: bleak_record.py ADDRESS SECONDS OUT [--acquire]
--acquire asks bleak for AcquireNotify (bluez={"use_start_notify": False}); bleak's default
is StartNotify.
"""
import asyncio
import json
import sys
import time

from bleak import BleakClient, BleakScanner

MEASUREMENTS = ["00002a37-0000-1000-8000-00805f9b34fb", "00002a53-0000-1000-8000-00805f9b34fb"]


async def main(address, seconds, out, acquire):
    device = await BleakScanner.find_device_by_address(address, timeout=20)
    if device is None:
        sys.exit(f"bleak_record: {address} not found")
    count = 0
    start = time.monotonic()
    with open(out, "w", encoding="utf-8") as handle:
        def received(characteristic, data):
            nonlocal count
            count += 1
            handle.write(json.dumps({"t": round(time.monotonic() - start, 6), "dev": address,
                                     "char": characteristic.uuid[4:8], "hex": data.hex()}) + "\n")

        async with BleakClient(device) as client:
            for uuid in MEASUREMENTS:
                await client.start_notify(uuid, received, bluez={"use_start_notify": not acquire})
            start = time.monotonic()
            await asyncio.sleep(seconds)
    print(count)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2]), sys.argv[3], "--acquire" in sys.argv[4:]))
