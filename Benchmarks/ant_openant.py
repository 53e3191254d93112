#!/usr/bin/env python3
"""openant (PyPI) reading the fake stick of ant_stick.py for SECONDS, a foot pod on channel 0
and a heart-rate monitor on channel 1, as its own examples open them: what a runner would
otherwise script. Its serial driver is given the terminal's path. Prints the data pages it got.

Usage: ant_openant.py PATH|usb SECONDS
"""
import sys
import threading
import time

from openant.base import driver
from openant.easy.channel import Channel
from openant.easy.node import Node

PATH, SECONDS = sys.argv[1], float(sys.argv[2])
if PATH == "usb":
    # Its USB driver (pyusb on libusb), as a runner with an ANTUSB2 uses it: the real-stack
    # suite's virtual stick (make bench-ant-usb).
    driver.drivers[:] = [driver.USB2Driver]
else:
    driver.SerialDriver.get_url = classmethod(lambda cls: PATH)
    # The serial driver only: no USB stick is looked for.
    driver.drivers[:] = [driver.SerialDriver]

ANTPLUS_NETWORK_KEY = [0xB9, 0xA5, 0x21, 0xFB, 0xBD, 0x72, 0xC3, 0x45]
received = 0


def on_data(data):
    global received
    received += 1


node = Node()
node.set_network_key(0x00, ANTPLUS_NETWORK_KEY)
for device_type, period in ((124, 8134), (120, 8070)):
    channel = node.new_channel(Channel.Type.BIDIRECTIONAL_RECEIVE)
    channel.on_broadcast_data = on_data
    channel.set_period(period)
    channel.set_search_timeout(12)
    channel.set_rf_freq(57)
    channel.set_id(0, device_type, 0)
    channel.open()
threading.Timer(SECONDS, node.stop).start()
node.start()
print(f"received {received}")
