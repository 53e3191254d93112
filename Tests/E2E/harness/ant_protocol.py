"""The ANT serial protocol as a stick speaks it, for the fake sticks: the virtual USB stick of
the real-stack suite (ant_gadget.py) and the pseudo-terminal one of `make bench-ant`
(Benchmarks/ant_stick.py). Messages are `A4 length id payload checksum`, the checksum the XOR
of the bytes before it (the ANT Message Protocol and Usage document)."""


def framed(message_id, payload):
    data = bytes([0xA4, len(payload), message_id]) + bytes(payload)
    checksum = 0
    for byte in data:
        checksum ^= byte
    return data + bytes([checksum])


def split(buffer):
    """The whole messages at the start of `buffer` as (id, payload), and what is left; bytes
    before a sync byte are dropped."""
    messages = []
    while True:
        while buffer and buffer[0] != 0xA4:
            buffer = buffer[1:]
        if len(buffer) < 4 or len(buffer) < buffer[1] + 4:
            return messages, buffer
        length = buffer[1]
        messages.append((buffer[2], list(buffer[3:3 + length])))
        buffer = buffer[length + 4:]


class StickState:
    """What a stick answers, and what it was asked to set up: channels assigned and opened (or
    continuous scanning mode), and whether the client wants the sender's channel id with every
    data message."""

    def __init__(self, pod=4321):
        self.pod = pod  # the foot pod's device number, for a request of the channel id
        self.channels = 0
        self.opened = 0
        self.extended = False
        self.scanning = False  # continuous scanning mode: every device on channel 0

    @property
    def configured(self):
        return self.scanning or (self.channels > 0 and self.opened >= self.channels)

    def answer(self, message_id, payload):
        """The messages (id, payload) the stick sends back for one command."""
        if message_id == 0x4A:  # reset: a startup message once done
            self.channels = self.opened = 0
            self.scanning = False
            return [(0x6F, [0x20])]
        if message_id == 0x4D:  # a request for a message
            wanted = payload[1]
            return {
                0x54: [(0x54, [8, 3, 0, 0, 0, 0])],  # capabilities: 8 channels, 3 networks
                0x61: [(0x61, [1, 2, 3, 4])],  # serial number
                0x3E: [(0x3E, list(b"AJK3.10\0"))],  # version
                0x51: [(0x51, [payload[0], self.pod & 0xFF, self.pod >> 8, 124, 5])],  # channel id
            }.get(wanted, [])
        if message_id == 0x6E:
            self.extended = bool(payload[1] & 0x80)
        elif message_id == 0x42:
            self.channels += 1
        elif message_id == 0x4B:
            self.opened += 1
        elif message_id == 0x5B:
            self.scanning = True
        return [(0x40, [payload[0] if payload else 0, message_id, 0])]  # response: no error
