#!/usr/bin/env python3
"""Synthetic morning readiness recordings: a chest strap's RR intervals while lying still.

A resting RR model (per-subject mean interval; respiratory sinus arrhythmia at about 0.25 Hz with
a 20-60 ms amplitude; a small 0.1 Hz Mayer wave; AR(1) and 1/f noise), deterministic for a seed,
packaged as the strap sends it: one Heart Rate Measurement (0x2A37) notification a second,
carrying the RR intervals (1/1024 s) of the beats completed since the previous one, contact
detected. Faults a strap or a heart produces can be put in: a missed beat (two intervals merged),
an extra beat (one split 40/60), ectopic beats (a premature short beat and its compensatory long
one), a loss of skin contact, a strap that sends no RR intervals, several seconds' intervals held
back and sent together (nine in one value), the heart rate as uint16 and energy expended in some
values.

Every recording keeps its ground truth: the RR intervals each notification actually carried
(`Recording.sent_units()`, `Recording.sent_ms()`) and, by the counting rule of the measurement,
the ones it scores (`scored_segments`).

Standard library only. As a module: `make_recording(seed, ...)`, `recording_from_intervals(...)`.
As a script: `make_recordings.py FOLDER` writes a set of recordings there, each with a
NAME.truth.json beside it.
"""
import argparse
import json
import math
import os
import random
from collections import deque
from dataclasses import dataclass, field, replace

# A runner's strap: the simulator's address (00:00:5E:00:53:xx, RFC 7042's documentation range)
# marks a morning no runner measured, which the baseline leaves out.
DEVICE_ID = "D0:5F:B8:4C:21:01"
SIMULATOR_DEVICE_ID = "00:00:5E:00:53:01"
DEVICE_NAME = "Simulated HRM"
STARTED_AT = "2026-11-25T06:30:00Z"
RR_UNITS_PER_SECOND = 1024
# A notification's value fits in the default ATT MTU (23 bytes less the 3 of the header).
MAX_VALUE_BYTES = 20
# The measurement's counting rule (IntervalProHRV.ReadinessMeasurement): time counts while the
# strap reports contact and values keep arriving; a silence longer than this is a loss of signal.
STALE_AFTER_S = 3.0
SETTLE_S = 30.0

# Heart Rate Measurement flags (Bluetooth Heart Rate Service 1.0, 3.1.1.1).
FLAG_HR_UINT16 = 0x01
FLAG_CONTACT_DETECTED = 0x02
FLAG_CONTACT_SUPPORTED = 0x04
FLAG_ENERGY = 0x08
FLAG_RR = 0x10


# ------------------------------------------------------------------------------------------------
# The resting RR model
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Subject:
    """One person lying still in the morning."""

    mean_rr_ms: float = 1000.0
    # Peak amplitude of the respiratory sinus arrhythmia; rMSSD comes out close to it at four
    # beats a breath.
    rsa_ms: float = 40.0
    breathing_hz: float = 0.25
    # The slow (baroreflex) oscillation.
    mayer_ms: float = 15.0
    mayer_hz: float = 0.1
    # AR(1) noise: stationary SD and coefficient.
    ar_sd_ms: float = 10.0
    ar_coefficient: float = 0.6
    # 1/f noise, stationary SD.
    pink_sd_ms: float = 12.0


def subject_for(seed, **overrides):
    """A subject drawn from `seed` (the same seed, the same person), with any field overridden."""
    rng = random.Random(f"subject-{seed}")
    subject = Subject(
        mean_rr_ms=min(1250.0, max(800.0, rng.gauss(1000.0, 90.0))),
        rsa_ms=rng.uniform(20.0, 60.0),
        breathing_hz=rng.uniform(0.22, 0.28),
        mayer_ms=rng.uniform(10.0, 20.0),
        ar_sd_ms=rng.uniform(7.0, 12.0),
        ar_coefficient=rng.uniform(0.5, 0.7),
        pink_sd_ms=rng.uniform(10.0, 18.0),
    )
    return replace(subject, **overrides)


class _PinkNoise:
    """1/f noise by the Voss-McCartney method: octave rows, row r redrawn every 2^r steps."""

    ROWS = 8

    def __init__(self, rng):
        self.rng = rng
        self.rows = [rng.gauss(0.0, 1.0) for _ in range(self.ROWS)]
        self.step = 0

    def next(self):
        self.step += 1
        for row in range(self.ROWS):
            if self.step % (1 << row) == 0:
                self.rows[row] = self.rng.gauss(0.0, 1.0)
        # ROWS + 1 unit-variance terms: divided back to unit variance.
        return (sum(self.rows) + self.rng.gauss(0.0, 1.0)) / math.sqrt(self.ROWS + 1)


def resting_rr_ms(subject, seconds, seed):
    """RR intervals (ms, floats) of `seconds` of lying still, deterministic for `seed`."""
    rng = random.Random(f"rr-{seed}")
    pink = _PinkNoise(rng)
    breathing_phase = rng.uniform(0.0, 2.0 * math.pi)
    mayer_phase = rng.uniform(0.0, 2.0 * math.pi)
    # Each breath takes its own time and depth.
    breathing_hz = subject.breathing_hz
    depth = 1.0
    ar = rng.gauss(0.0, subject.ar_sd_ms)
    innovation = subject.ar_sd_ms * math.sqrt(1.0 - subject.ar_coefficient ** 2)
    now = 0.0
    intervals = []
    while now < seconds:
        rr = (
            subject.mean_rr_ms
            + depth * subject.rsa_ms * math.sin(breathing_phase)
            + subject.mayer_ms * math.sin(2.0 * math.pi * subject.mayer_hz * now + mayer_phase)
            + ar
            + subject.pink_sd_ms * pink.next()
        )
        rr = min(2000.0, max(300.0, rr))
        intervals.append(rr)
        now += rr / 1000.0
        old_cycle = int(breathing_phase // (2.0 * math.pi))
        breathing_phase += 2.0 * math.pi * breathing_hz * rr / 1000.0
        if int(breathing_phase // (2.0 * math.pi)) != old_cycle:
            breathing_hz = subject.breathing_hz * min(1.4, max(0.7, rng.gauss(1.0, 0.15)))
            depth = min(1.5, max(0.5, rng.gauss(1.0, 0.2)))
        ar = subject.ar_coefficient * ar + rng.gauss(0.0, innovation)
    return intervals


def to_units(intervals_ms):
    """Milliseconds to the characteristic's 1/1024 s, rounded."""
    return [max(1, min(0xFFFF, round(ms * RR_UNITS_PER_SECOND / 1000.0))) for ms in intervals_ms]


def to_ms(units):
    return [u * 1000.0 / RR_UNITS_PER_SECOND for u in units]


# ------------------------------------------------------------------------------------------------
# Faults in the beat series
# ------------------------------------------------------------------------------------------------

@dataclass
class Faults:
    """Where things go wrong, in seconds since the recording's start. A beat fault hits the first
    beat completing at or after its time."""

    # The strap misses a beat: its interval and the next reach it as one.
    missed: list = field(default_factory=list)
    # The strap sees a beat that is not there: one interval split 40/60.
    extra: list = field(default_factory=list)
    # A premature (ectopic) beat: a short interval and a compensatory long one, adding up to the two
    # normal ones they replace.
    ectopic: list = field(default_factory=list)
    # (start, seconds): contact supported but not detected, no RR intervals; the beats in it are lost
    # (and the first after it, whose interval starts at an undetected beat).
    contact_losses: list = field(default_factory=list)
    # From each of these times the strap holds its intervals back (values with none) until nine are
    # pending, then sends the nine in one value.
    bursts: list = field(default_factory=list)
    # The strap sends heart rate only (flag bit 4 never set).
    no_rr: bool = False
    # Every n-th value writes the heart rate as uint16 (0: never).
    hr_uint16_every: int = 0
    # Every n-th value carries energy expended (0: never).
    energy_every: int = 0


def _beat_index_at(units, first_beat_s, time_s):
    """The index of the first interval whose beat completes at or after `time_s`."""
    now = first_beat_s
    for index, u in enumerate(units):
        now += u / RR_UNITS_PER_SECOND
        if now >= time_s:
            return index
    raise ValueError(f"no beat at {time_s} s: the series ends at {now:.1f} s")


def apply_beat_faults(units, first_beat_s, faults):
    """The interval series (1/1024 s) with the faults' beats changed, and what was done where:
    [(kind, beat time in s)]. Beat times after a fault stay where they were (sums are kept)."""
    units = list(units)
    done = []
    events = [("missed", t) for t in faults.missed] + [("extra", t) for t in faults.extra] + [("ectopic", t) for t in faults.ectopic]
    # From the latest, so the earlier times still find their beats.
    for kind, time_s in sorted(events, key=lambda e: -e[1]):
        i = _beat_index_at(units, first_beat_s, time_s)
        if i + 1 >= len(units):
            raise ValueError(f"{kind} at {time_s} s: too close to the end")
        if kind == "missed":
            units[i:i + 2] = [units[i] + units[i + 1]]
        elif kind == "extra":
            first = round(units[i] * 0.4)
            units[i:i + 1] = [first, units[i] - first]
        else:
            short = round(units[i] * 0.65)
            units[i:i + 2] = [short, units[i + 1] + units[i] - short]
        done.append((kind, round(first_beat_s + sum(units[:i + 1]) / RR_UNITS_PER_SECOND, 3)))
    return units, sorted(done, key=lambda e: e[1])


# ------------------------------------------------------------------------------------------------
# Notifications
# ------------------------------------------------------------------------------------------------

@dataclass
class Notification:
    t: float
    heart_rate: int
    contact: bool
    rr_units: list
    energy_kj: int = None
    hr_uint16: bool = False
    contact_supported: bool = True

    @property
    def flags(self):
        flags = 0
        if self.hr_uint16:
            flags |= FLAG_HR_UINT16
        if self.contact_supported:
            flags |= FLAG_CONTACT_SUPPORTED
            if self.contact:
                flags |= FLAG_CONTACT_DETECTED
        if self.energy_kj is not None:
            flags |= FLAG_ENERGY
        if self.rr_units:
            flags |= FLAG_RR
        return flags

    def value(self):
        """The characteristic's value, as the strap writes it."""
        out = bytes([self.flags])
        out += self.heart_rate.to_bytes(2, "little") if self.hr_uint16 else bytes([self.heart_rate])
        if self.energy_kj is not None:
            out += self.energy_kj.to_bytes(2, "little")
        for u in self.rr_units:
            out += u.to_bytes(2, "little")
        return out


def rr_capacity(hr_uint16, energy):
    """How many RR intervals fit beside the other fields."""
    return (MAX_VALUE_BYTES - 1 - (2 if hr_uint16 else 1) - (2 if energy else 0)) // 2


class ContactClock:
    """The measurement's counting rule, as IntervalProHRV.ReadinessMeasurement has it: the time
    between two values counts when the earlier said contact (or could not tell), up to
    STALE_AFTER_S after it; a value's RR intervals are scored when the time counted at its arrival
    exceeds the settling time and the measurement was not complete before it; a value without
    contact, or after a silence, ends a segment."""

    def __init__(self, settle_s, duration_s):
        # Whole milliseconds, as `t` is written, so that no rounding decides a boundary.
        self.settle = round(settle_s * 1000)
        self.total = round((settle_s + duration_s) * 1000)
        self.counted = 0
        self.last_event = None
        self.last_value = None
        self.in_contact = False

    @property
    def complete(self):
        return self.counted >= self.total

    def receive(self, t_ms, contact):
        """Returns (was complete before, silence before)."""
        was_complete = self.complete
        silence_before = self.last_value is None or t_ms - self.last_value > STALE_AFTER_S * 1000
        if self.last_event is not None and self.in_contact and t_ms > self.last_event:
            until = min(t_ms, self.last_value + round(STALE_AFTER_S * 1000))
            if until > self.last_event:
                self.counted = min(self.total, self.counted + until - self.last_event)
        self.last_event = t_ms if self.last_event is None else max(self.last_event, t_ms)
        self.last_value = t_ms
        self.in_contact = contact
        return was_complete, silence_before


def _t_ms(notification):
    return round(notification.t * 1000)


# The longest interval that is one heartbeat, 2,000 ms in 1/1024 s (hrv-analysis's
# remove_outliers high_rri): a longer one is beats lost, left out and counted as an artifact.
LONGEST_HEARTBEAT_UNITS = 2048


class ScoredSegments(list):
    """The scored stretches of intervals, and `lost`: the intervals over a heartbeat's longest
    that ended a stretch, which the measurement counts among its intervals and artifacts."""
    lost = 0


def scored_segments(notifications, settle_s=SETTLE_S, duration_s=120.0, longest=LONGEST_HEARTBEAT_UNITS):
    """The RR intervals (1/1024 s) the measurement scores, one list per stretch of contact or
    between intervals too long for a heartbeat (over `longest`; None: every interval is one)."""
    clock = ContactClock(settle_s, duration_s)
    segments = ScoredSegments()
    open_segment = False
    for n in notifications:
        was_complete, silence_before = clock.receive(_t_ms(n), n.contact or not n.contact_supported)
        if not clock.in_contact:
            open_segment = False
            continue
        if was_complete:
            continue
        if silence_before:
            open_segment = False
        if clock.counted <= clock.settle:
            continue
        for units in n.rr_units:
            if longest is not None and units > longest:
                segments.lost += 1
                open_segment = False
                continue
            if not open_segment:
                segments.append([])
                open_segment = True
            segments[-1].append(units)
    return segments


def scored_notifications(notifications, settle_s=SETTLE_S, duration_s=120.0):
    """The notifications whose RR intervals the measurement scores (those with none included)."""
    clock = ContactClock(settle_s, duration_s)
    out = []
    for n in notifications:
        was_complete, _ = clock.receive(_t_ms(n), n.contact or not n.contact_supported)
        if clock.in_contact and not was_complete and clock.counted > clock.settle:
            out.append(n)
    return out


def contact_times(notifications, settle_s=SETTLE_S, duration_s=120.0):
    """The time counted (s) at each notification's arrival, uncapped past completion."""
    clock = ContactClock(settle_s, 10 ** 6)
    out = []
    for n in notifications:
        clock.receive(_t_ms(n), n.contact or not n.contact_supported)
        out.append(clock.counted / 1000.0)
    return out


def _notification_times(count, first_s, seed):
    """One a second, each a little early or late (10-40 ms), the first on time."""
    rng = random.Random(f"times-{seed}")
    times = [first_s]
    for j in range(1, count):
        times.append(round(first_s + j + rng.choice((-1, 1)) * rng.randint(10, 40) / 1000.0, 3))
    return times


def package(units, times, first_beat_s, faults, settle_s, duration_s, tail_s=5.0):
    """The notifications a strap sends for the beat series `units` (1/1024 s, the first interval
    ending at first_beat_s + units[0]) at `times`, up to `tail_s` of counted time past the
    measurement's end."""
    beats = []
    now = first_beat_s
    for u in units:
        now += u / RR_UNITS_PER_SECOND
        beats.append((now, u))
    clock = ContactClock(settle_s, duration_s + tail_s)
    notifications = []
    pending = deque()
    next_beat = 0
    previous_in_contact = True
    recent = deque(maxlen=4)
    heart_rate = round(60000.0 / (sum(units[:4]) * 1000.0 / RR_UNITS_PER_SECOND / len(units[:4])))
    bursts = sorted(faults.bursts)
    holding = False
    for j, t in enumerate(times):
        contact = not any(start <= t < start + length for start, length in faults.contact_losses)
        while next_beat < len(beats) and beats[next_beat][0] <= t:
            _, u = beats[next_beat]
            next_beat += 1
            if contact:
                recent.append(u)
                # Two detected beats make an interval.
                if previous_in_contact and not faults.no_rr:
                    pending.append(u)
            previous_in_contact = contact
        if recent and contact:
            heart_rate = round(60000.0 * len(recent) / (sum(recent) * 1000.0 / RR_UNITS_PER_SECOND))
        hr_uint16 = faults.hr_uint16_every > 0 and j % faults.hr_uint16_every == faults.hr_uint16_every - 1
        energy = None
        if faults.energy_every > 0 and j % faults.energy_every == 0:
            energy = int(t * 0.085)  # about 5 kJ a minute at rest
        if bursts and t >= bursts[0] and not holding:
            bursts.pop(0)
            holding = True
        sent = []
        if contact:
            if holding:
                # None go until nine are pending; then the nine go together.
                if len(pending) >= 9:
                    hr_uint16, energy = False, None  # so that all nine fit
                    sent = [pending.popleft() for _ in range(9)]
                    holding = False
            else:
                capacity = rr_capacity(hr_uint16, energy is not None)
                while pending and len(sent) < capacity:
                    sent.append(pending.popleft())
        else:
            pending.clear()
        notifications.append(Notification(t=t, heart_rate=heart_rate, contact=contact, rr_units=sent, energy_kj=energy, hr_uint16=hr_uint16))
        clock.receive(round(t * 1000), contact)
        if clock.complete:
            return notifications
    raise ValueError("the notification times end before the measurement does")


# ------------------------------------------------------------------------------------------------
# Recordings
# ------------------------------------------------------------------------------------------------

@dataclass
class Recording:
    notifications: list
    started_at: str = STARTED_AT
    device_id: str = DEVICE_ID
    device_name: str = DEVICE_NAME
    # What the beat faults did: [(kind, beat time s)].
    faults_applied: list = field(default_factory=list)
    subject: Subject = None
    seed: int = None

    def header(self):
        return {"intervalpro_recording": 1, "started_at": self.started_at, "devices": [{"id": self.device_id, "name": self.device_name}]}

    def lines(self):
        yield json.dumps(self.header(), separators=(",", ":"))
        for n in self.notifications:
            yield f'{{"t":{n.t:.3f},"dev":"{self.device_id}","char":"2a37","hex":"{n.value().hex()}"}}'

    def write(self, path):
        with open(path, "w") as out:
            out.write("\n".join(self.lines()) + "\n")
        return path

    def sent_units(self):
        """The RR intervals each notification carried (1/1024 s), one list per notification."""
        return [list(n.rr_units) for n in self.notifications]

    def sent_ms(self):
        """The same in milliseconds."""
        return [to_ms(n.rr_units) for n in self.notifications]

    def scored_segments(self, settle_s=SETTLE_S, duration_s=120.0):
        return scored_segments(self.notifications, settle_s, duration_s)

    def truth(self, settle_s=SETTLE_S, duration_s=120.0):
        """Ground truth as JSON: what was sent, where the faults are, what the measurement scores."""
        return {
            "device": self.device_id,
            "seed": self.seed,
            "subject": None if self.subject is None else self.subject.__dict__,
            "faults": self.faults_applied,
            "settle_s": settle_s,
            "duration_s": duration_s,
            "sent_rr_ms": [[n.t, to_ms(n.rr_units)] for n in self.notifications],
            "scored_rr_segments": self.scored_segments(settle_s, duration_s),
        }


def _boundary_safe(notifications, settle_s, duration_s):
    """No value arrives within 2 ms of counted time of the settling's or the measurement's end, so
    that whether `>` or `>=` is meant at a boundary cannot matter."""
    for counted in contact_times(notifications, settle_s, duration_s):
        if abs(counted - settle_s) < 0.002 or abs(counted - settle_s - duration_s) < 0.002:
            return False
    return True


def _build(units, first_beat_s, faults, settle_s, duration_s, seed, tail_s):
    losses = sum(length for _, length in faults.contact_losses)
    count = int(settle_s + duration_s + tail_s + losses + 20 * len(faults.bursts) + 30)
    for attempt in range(50):
        times = _notification_times(count, 0.25, f"{seed}-{attempt}")
        notifications = package(units, times, first_beat_s, faults, settle_s, duration_s, tail_s)
        if _boundary_safe(notifications, settle_s, duration_s):
            return notifications
    raise ValueError("no boundary-safe notification times found")


def make_recording(seed, minutes=2.0, faults=None, subject=None, settle_s=SETTLE_S, started_at=STARTED_AT, tail_s=5.0):
    """A morning measurement of `minutes` scored after `settle_s`, from the resting model."""
    faults = faults or Faults()
    subject = subject or subject_for(seed)
    duration_s = minutes * 60.0
    losses = sum(length for _, length in faults.contact_losses)
    seconds = settle_s + duration_s + tail_s + losses + 20 * len(faults.bursts) + 40
    units = to_units(resting_rr_ms(subject, seconds, seed))
    first_beat_s = -0.6
    units, applied = apply_beat_faults(units, first_beat_s, faults)
    notifications = _build(units, first_beat_s, faults, settle_s, duration_s, seed, tail_s)
    return Recording(notifications, started_at=started_at, faults_applied=applied, subject=subject, seed=seed)


def recording_from_intervals(intervals_ms, minutes, seed=0, settle_s=SETTLE_S, started_at=STARTED_AT, tail_s=5.0):
    """A recording whose scored time holds exactly `intervals_ms` (rounded to 1/1024 s) as one
    segment: synthetic beats while settling, the given ones from the first scored value on, then
    values with contact and no RR intervals until the measurement ends. The scored values span a
    little more than `minutes`, so intervals adding up to `minutes` fit."""
    scored = to_units(intervals_ms)
    duration_s = minutes * 60.0
    mean_ms = sum(intervals_ms) / len(intervals_ms)
    subject = subject_for(seed, mean_rr_ms=mean_ms)
    first_beat_s = -0.6
    count = int(settle_s + duration_s + tail_s + 30)
    for attempt in range(50):
        times = _notification_times(count, 0.25, f"{seed}-{attempt}")
        # The first value scored: the first whose counted time exceeds the settling.
        first_scored = next(j for j, t in enumerate(times) if t - times[0] > settle_s)
        # The last settling beat falls just before the value before it (which carries it), so the
        # first given interval completes within the scored time.
        needed = math.floor((times[first_scored - 1] - 0.01 - first_beat_s) * RR_UNITS_PER_SECOND)
        settle_units = []
        for u in to_units(resting_rr_ms(subject, settle_s + 10, seed)):
            if sum(settle_units) + u > needed:
                break
            settle_units.append(u)
        rest = needed - sum(settle_units)
        if settle_units and rest < 0.6 * mean_ms * 1.024:
            rest += settle_units.pop()
        settle_units.append(rest)
        notifications = package(settle_units + scored, times, first_beat_s, Faults(), settle_s, duration_s, tail_s)
        # All the given intervals as sent, a heartbeat's longest aside: a run's recording (alpha 1)
        # scores every one.
        if _boundary_safe(notifications, settle_s, duration_s) and scored_segments(notifications, settle_s, duration_s, longest=None) == [scored]:
            return Recording(notifications, started_at=started_at, seed=seed)
    raise ValueError(f"{len(scored)} intervals ({sum(scored) / RR_UNITS_PER_SECOND:.1f} s) do not fit a {minutes}-minute measurement")


# ------------------------------------------------------------------------------------------------
# The script: a set of recordings in a folder
# ------------------------------------------------------------------------------------------------

def standard_set():
    """name -> (recording, minutes scored)."""
    return {
        "clean-seed1": (make_recording(1), 2),
        "clean-seed2-1min": (make_recording(2, minutes=1), 1),
        "clean-seed3-uint16-energy": (make_recording(3, faults=Faults(hr_uint16_every=3, energy_every=10)), 2),
        "missed-beat": (make_recording(13, faults=Faults(missed=[90.0])), 2),
        "extra-beat": (make_recording(13, faults=Faults(extra=[90.0])), 2),
        "ectopic-beats": (make_recording(13, faults=Faults(ectopic=[70.0, 120.0])), 2),
        "many-artifacts": (make_recording(2, faults=Faults(missed=[40.0, 80.0, 120.0], extra=[60.0, 100.0, 140.0])), 2),
        "contact-loss": (make_recording(4, faults=Faults(contact_losses=[(90.0, 10.0)])), 2),
        "no-rr": (make_recording(5, faults=Faults(no_rr=True)), 2),
        "nine-in-one": (make_recording(6, faults=Faults(bursts=[70.0])), 2),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    arguments = parser.parse_args()
    os.makedirs(arguments.folder, exist_ok=True)
    for name, (recording, minutes) in standard_set().items():
        recording.write(os.path.join(arguments.folder, name + ".jsonl"))
        with open(os.path.join(arguments.folder, name + ".truth.json"), "w") as out:
            json.dump(recording.truth(duration_s=minutes * 60.0), out)
        beats = sum(len(s) for s in recording.scored_segments(duration_s=minutes * 60.0))
        print(f"{name}.jsonl: {len(recording.notifications)} values, {beats} scored RR intervals, faults {recording.faults_applied}")


if __name__ == "__main__":
    main()
