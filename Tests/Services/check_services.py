#!/usr/bin/env python3
"""The commands that talk to intervals.icu and Strava, end to end, against the stand-in.

Runs the built `intervalpro` against Tests/FakeServices/stand_in.py (a fresh stand-in on a
free loopback port, with --keep-uploads, per scenario; every command with its own scratch
XDG_CONFIG_HOME and XDG_DATA_HOME, and INTERVALPRO_INTERVALS_ICU_URL / INTERVALPRO_STRAVA_URL
pointing at the stand-in) and checks:
  - the requests in the stand-in's log: intervals.icu's Basic auth (base64 of API_KEY:key),
    Strava's Bearer token, the calendar query, multipart parts and filenames, data_type=fit,
    the token exchange's and refresh's form fields; the uploaded file (kept by the stand-in)
    decodes with Garmin's FIT SDK and is byte-identical to `intervalpro export N --format fit`;
  - `account add|list|remove`, `today`, `run today|icu:ID`, `upload`, `upload --pending` and
    `doctor --json`: exit codes and messages for success and each failure (refused key,
    denied or forged authorization, no callback, unreachable or slow service, 5xx, 429,
    rejected file, revoked app, bad accounts.json);
  - Strava: the upload status polls, the activity URL, the duplicate refused, --force,
    the token refreshed before expiry and after a 401 and saved at once;
  - the queue: failed uploads stay pending (also when the program is killed mid-upload)
    and `upload --pending` completes them; `run --upload` saves the session whatever
    happens to the upload;
  - retries: 5xx twice then success (pauses of 1 s and 2 s), 429 with Retry-After;
  - no secret (API key, client secret, access or refresh token, the Basic credentials) in
    the output of any command run here, -v included.

Scenario groups run side by side (most of the time is spent in the program's retry pauses);
each group's lines are printed when it ends. About 25 s.

Usage: check_services.py PATH/TO/intervalpro
"""
import base64
import concurrent.futures
import datetime
import errno
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from garmin_fit_sdk import Decoder, Stream

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from checks import ROOT, Tally  # noqa: E402

STAND_IN = os.path.join(ROOT, "Tests", "FakeServices", "stand_in.py")
# The stand-in is standard library only and is run with Debian's python3, as its README says.
STAND_IN_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

ATHLETE = "i12345"
ICU_KEY = "icu-secret-key"
CLIENT_ID = "4242"
CLIENT_SECRET = "strava-client-secret"
ICU_BASIC = base64.b64encode(f"API_KEY:{ICU_KEY}".encode()).decode()
ACTIVITIES = f"/api/v1/athlete/{ATHLETE}/activities"

TODAY = datetime.date.today()


def day(offset):
    return (TODAY + datetime.timedelta(days=offset)).isoformat()


LADDER_TEXT = "Warmup\n- 1m 160-170rpm\n\nMain set 2x\n- 1m 175rpm\n- 30s 165rpm\n\nCooldown\n- 1m 165rpm\n"
LADDER_DURATIONS = [60, 60, 30, 60, 30, 60]
# Only a workout_doc (the description has no steps): 1 min warm-up, 2 x (30 s, 30 s), 1 min.
STRIDES_DOC = {"duration": 240, "steps": [
    {"duration": 60, "cadence": {"start": 160, "end": 170, "units": "cadence"}, "warmup": True},
    {"reps": 2, "steps": [{"duration": 30, "cadence": {"value": 180, "units": "cadence"}},
                          {"duration": 30, "cadence": {"value": 165, "units": "cadence"}}]},
    {"duration": 60, "cadence": {"start": 160, "end": 170, "units": "cadence"}, "cooldown": True}]}
STRIDES_DURATIONS = [60, 30, 30, 30, 30, 60]


def event(event_id, date, name, description, kind="Run", category="WORKOUT", **extra):
    return dict({"id": event_id, "start_date_local": f"{date}T00:00:00", "category": category, "name": name,
                 "description": description, "type": kind}, **extra)


CALENDAR = [
    event(101, day(0), "Cadence ladder", LADDER_TEXT),
    event(102, day(0), "Spin", "- 30m 90rpm", kind="Ride"),
    event(103, day(0), "Shoes to buy", "new shoes", category="NOTE"),
    event(104, day(10), "Hill cadence", "- 5m 170rpm\n- 5m 180rpm", kind="TrailRun"),
    event(105, day(12), "Structured strides", "", workout_doc=STRIDES_DOC),
]

# A plan for sessions that only need to exist (each run with its own --seed: other bytes).
SHORT_PLAN = "Steady\n- 2m 170rpm\n- 1m 180rpm\n"

tally = Tally("services")
tally_lock = threading.Lock()
BINARY = None
SCRATCH = None
COMMANDS = []  # (group title, command text, stdout, stderr) of every intervalpro run here
SECRETS = {}  # secret -> what it is
SECRETS_LOCK = threading.Lock()


def add_secret(value, what):
    if isinstance(value, str) and len(value) >= 6:
        with SECRETS_LOCK:
            SECRETS.setdefault(value, what)


add_secret(ICU_KEY, "the intervals.icu API key")
add_secret(CLIENT_SECRET, "the Strava client secret")
add_secret(ICU_BASIC, "the Basic credentials (base64)")


# ---------------------------------------------------------------------------- output

class Group:
    """A scenario group's checks and notes, printed together when the group ends."""

    def __init__(self, title):
        self.title = title
        self.entries = []
        self.scenarios = []

    def check(self, condition, message, detail=""):
        self.entries.append((bool(condition), message, detail))
        return bool(condition)

    def note(self, text):
        self.entries.append((None, text, ""))

    def flush(self):
        with tally_lock:
            print(f"# {self.title}")
            for ok, message, detail in self.entries:
                if ok is None:
                    print(f"  ({message})")
                elif ok:
                    print(f"ok: {message}")
                    tally.check(True, message)
                else:
                    tally.check(False, message + (f"\n      {detail}" if detail else ""))
            sys.stdout.flush()


# ---------------------------------------------------------------------------- running intervalpro

class Result:
    def __init__(self, arguments, returncode, stdout, stderr, elapsed):
        self.arguments = arguments
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.elapsed = elapsed

    @property
    def command(self):
        return "intervalpro " + " ".join(self.arguments)

    def describe(self):
        return (f"`{self.command}` exited {self.returncode} after {self.elapsed:.1f} s; "
                f"stdout {self.stdout[-400:]!r}; stderr {self.stderr[-600:]!r}")

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None


def start_binary(arguments, env, **options):
    """Popen of intervalpro; waits while the other engineer's build relinks it (missing or busy)."""
    for attempt in range(40):
        try:
            return subprocess.Popen([BINARY, *arguments], cwd=ROOT, env=env, text=True, **options)
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.ETXTBSY, errno.ENOEXEC, errno.EACCES) or attempt == 39:
                raise
            time.sleep(1.5)
    raise AssertionError("unreachable")


def wait_for_binary():
    for _ in range(60):
        if os.access(BINARY, os.X_OK):
            return
        time.sleep(1)
    raise SystemExit(f"{BINARY}: not found (build it first)")


# ---------------------------------------------------------------------------- a scenario: stand-in + scratch XDG

class Scenario:
    """A fresh stand-in (with --keep-uploads) and fresh XDG folders; runs intervalpro against them."""

    def __init__(self, group, name, *options, events=None, stand_in=True):
        self.group = group
        self.name = name
        self.dir = tempfile.mkdtemp(prefix=re.sub(r"\W+", "-", name) + "-", dir=SCRATCH)
        self.config = os.path.join(self.dir, "config")
        self.data = os.path.join(self.dir, "data")
        os.makedirs(self.config)
        os.makedirs(self.data)
        self.kept = os.path.join(self.dir, "kept")
        self.log_path = os.path.join(self.dir, "services.jsonl")
        self.process = None
        self.port = None
        env = {k: v for k, v in os.environ.items() if not k.startswith("INTERVALPRO_")}
        for name_ in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
            env.pop(name_, None)
        env.update(XDG_CONFIG_HOME=self.config, XDG_DATA_HOME=self.data, NO_COLOR="1")
        if stand_in:
            options = list(options)
            if events is not None:
                path = os.path.join(self.dir, "events.json")
                with open(path, "w", encoding="utf-8") as handle:
                    json.dump(events, handle)
                options += ["--icu-events", path]
            self.process = subprocess.Popen(
                [STAND_IN_PYTHON, STAND_IN, "--log", self.log_path, "--keep-uploads", self.kept, *options],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            watchdog = threading.Timer(15, self.process.kill)
            watchdog.start()
            line = self.process.stdout.readline().strip()
            watchdog.cancel()
            if not line.startswith("listening on 127.0.0.1:"):
                self.process.kill()
                raise RuntimeError(f"stand-in {name}: no 'listening on' line: {line!r} {self.process.stderr.read()}")
            self.port = int(line.rsplit(":", 1)[1])
            self.base = f"http://127.0.0.1:{self.port}"
        else:
            self.base = f"http://127.0.0.1:{closed_port()}"
        env.update(INTERVALPRO_INTERVALS_ICU_URL=self.base, INTERVALPRO_STRAVA_URL=self.base)
        self.env = env
        group.scenarios.append(self)

    # -- intervalpro

    def run(self, *arguments, stdin=None, timeout=90, env=None):
        environment = dict(self.env, **(env or {}))
        started = time.monotonic()
        process = start_binary(arguments, environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
        try:
            stdout, stderr = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
            stderr += f"\n[killed by the check after {timeout} s]"
        result = Result(list(arguments), process.returncode, stdout, stderr, time.monotonic() - started)
        self.record(result)
        return result

    def record(self, result):
        COMMANDS.append((self.group.title, result.command, result.stdout, result.stderr))
        self.harvest()

    def harvest(self):
        """Every key and token in accounts.json is a secret no output may show."""
        accounts = self.accounts()
        if not isinstance(accounts, dict):
            return
        for service, account in (accounts.get("accounts") or {}).items():
            if isinstance(account, dict):
                add_secret(account.get("api_key"), f"{service} API key")
                add_secret(account.get("client_secret"), f"{service} client secret")
                add_secret(account.get("access_token"), f"{service} access token")
                add_secret(account.get("refresh_token"), f"{service} refresh token")

    @property
    def accounts_path(self):
        return os.path.join(self.config, "intervalpro", "accounts.json")

    def accounts(self):
        try:
            with open(self.accounts_path, encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return None

    def account(self, service):
        return ((self.accounts() or {}).get("accounts") or {}).get(service)

    def upload_rows(self):
        """(session, service) -> status, from the store's upload table."""
        path = os.path.join(self.data, "intervalpro", "intervalpro.sqlite")
        connection = sqlite3.connect(path, timeout=10)
        try:
            return {(row[0], row[1]): row[2] for row in
                    connection.execute("SELECT session_id, service, status FROM upload")}
        finally:
            connection.close()

    def recording(self, plan, seed, simulator=False):
        """A recording of the simulated runner on `plan` (the sensors' notifications, as a run
        records them), not saved as a session, its sensors given a runner's addresses: replayed,
        it is a run to upload, where a simulation is refused. `simulator`: the recording as the
        simulator wrote it, its sensors at RFC 7042's documentation addresses (00:00:5E:00:53:xx),
        which no real device has: refused like a simulation."""
        name = re.sub(r'[^a-z0-9]', '-', plan.lower())[-24:]
        simulated = os.path.join(self.dir, f"simulated-{name}-{seed}.jsonl")
        if not os.path.exists(simulated):
            result = self.run("run", plan, "--simulate", "--fast", "--seed", str(seed), "--no-save", "--record", simulated)
            if result.returncode != 0:
                raise RuntimeError(f"could not record a session: {result.describe()}")
        if simulator:
            return simulated
        path = os.path.join(self.dir, f"recording-{name}-{seed}.jsonl")
        if not os.path.exists(path):
            with open(simulated, encoding="utf-8") as source, open(path, "w", encoding="utf-8") as target:
                target.write(source.read().replace("00:00:5E:00:53:", "D0:5F:B8:4C:21:"))
        return path

    def session(self, seed, plan_text=SHORT_PLAN):
        """A saved session to upload: a recorded run of a short plan, replayed; returns its id."""
        plan = os.path.join(self.dir, "steady.txt")
        if not os.path.exists(plan):
            with open(plan, "w", encoding="utf-8") as handle:
                handle.write(plan_text)
        result = self.run("run", plan, "--replay", self.recording(plan, seed), "--fast", "--json")
        found = re.search(r"saved as session (\d+)", result.stderr)
        if result.returncode != 0 or not found:
            raise RuntimeError(f"could not make a session: {result.describe()}")
        return int(found.group(1))

    def export(self, session):
        path = os.path.join(self.dir, f"export-{session}.fit")
        result = self.run("export", str(session), "--format", "fit", "-o", path)
        if result.returncode != 0:
            raise RuntimeError(f"export failed: {result.describe()}")
        with open(path, "rb") as handle:
            return path, handle.read()

    # -- the stand-in

    def control(self, path, value=None):
        body = None if value is None else json.dumps(value).encode()
        request = urllib.request.Request(f"{self.base}/_control/{path}", data=body,
                                         method="GET" if value is None else "POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def fault(self, **fault):
        return self.control("fault", fault)

    def held(self, within=30):
        """Whether the request a fault waits for reached the stand-in within `within` s (the fault used up)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and self.state()["faults"]:
            time.sleep(0.1)
        return not self.state()["faults"]

    def clear(self):
        return self.control("clear", {})

    def state(self):
        return self.control("state")

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8") as handle:
                records = [json.loads(line) for line in handle if line.strip()]
        except OSError:
            return []
        for record in records:  # what the app sent is a secret too
            scheme, _, value = (record.get("headers") or {}).get("authorization", "").partition(" ")
            if value:
                add_secret(value.strip(), f"{scheme} credentials sent")
            for field in ("refresh_token", "client_secret", "access_token"):
                add_secret((record.get("form") or {}).get(field), f"a {field} sent")
        return records

    def requests(self, method, path, since=0.0, prefix=False):
        """The logged requests to METHOD PATH (a prefix with prefix=True) received after since."""
        return [r for r in requests_in(self.log(), method, path, prefix) if r.get("received", 0) >= since]

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log()  # harvest what was sent
        stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        self.group.check(self.process.returncode == 0 and "Traceback" not in stderr,
                         f"{self.name}: the stand-in ran without an error and exited 0 on SIGTERM",
                         f"status {self.process.returncode}, stderr {stderr[-500:]!r}")
        self.process = None


def stop(process, sig, timeout):
    """Sends `sig` and waits `timeout` s for `process` to end (then kills it): its output, and
    how long it took to end."""
    stopped_at = time.monotonic()
    process.send_signal(sig)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    return stdout, stderr, time.monotonic() - stopped_at


def closed_port():
    """A loopback port where nothing listens (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def requests_in(records, method, path, prefix=False):
    return [r for r in records if r.get("method") == method
            and ((r.get("path") or "").startswith(path) if prefix else r.get("path") == path)]


def parts_of(record):
    return {p["name"]: p for p in record.get("parts") or []}


# ---------------------------------------------------------------------------- shared checks

def lifts_in_minutes(stderr):
    """The wait a rate-limit message gives ("it lifts in 14 min", under 90 s "it lifts in 84 s"),
    in minutes; None when there is none. Read as minutes only, a check 84 s before a quarter
    hour failed."""
    found = re.search(r"it lifts in (\d+) (s|min)\b", stderr)
    if not found:
        return None
    return int(found.group(1)) / (60 if found.group(2) == "s" else 1)


def wait_for_window_turn(window, margin=75):
    """Sleeps into the next UTC window of `window` seconds when fewer than `margin` are left."""
    left = window - time.time() % window
    if left < margin:
        print(f"  (waiting {left:.0f} s for the rate-limit window to turn)", flush=True)
        time.sleep(left + 1)


def expect(g, result, code, what, stdout_has=(), stderr_has=(), stdout_empty=False):
    """Exit code and message check of one command; returns whether all held."""
    problems = []
    if result.returncode != code:
        problems.append(f"exit {result.returncode}, expected {code}")
    for text in stdout_has:
        if text not in result.stdout:
            problems.append(f"stdout lacks {text!r}")
    for text in stderr_has:
        if text not in result.stderr:
            problems.append(f"stderr lacks {text!r}")
    if stdout_empty and result.stdout.strip():
        problems.append("stdout is not empty")
    if "Fatal error" in result.stderr or result.returncode < 0:
        problems.append("crashed")
    return g.check(not problems, f"{what} (`{result.command}`: exit {code})",
                   "; ".join(problems) + " — " + result.describe())


def check_fit_file(g, path, what):
    """Garmin's FIT SDK decodes it: header, CRC, no errors; an activity with one running session."""
    try:
        decoder = Decoder(Stream.from_file(path))
        header, integrity = decoder.is_fit(), decoder.check_integrity()
        messages, errors = Decoder(Stream.from_file(path)).read()
    except Exception as error:  # the SDK raises on some broken files
        g.check(False, f"{what}: Garmin's FIT SDK decodes it", f"{type(error).__name__}: {error}")
        return None
    g.check(header and integrity and errors == [], f"{what}: Garmin's FIT SDK decodes it (header, CRC, no errors)",
            f"header {header}, integrity {integrity}, errors {errors}")
    file_ids = messages.get("file_id_mesgs") or [{}]
    sessions = messages.get("session_mesgs") or []
    g.check(file_ids[0].get("type") == "activity" and len(sessions) == 1 and sessions[0].get("sport") == "running",
            f"{what}: a FIT activity with one running session",
            f"file_id {file_ids[0]}, {len(sessions)} sessions")
    return messages


def check_uploaded_file(g, s, record, session, what):
    """The file part the stand-in kept is the session's FIT export, byte for byte, and decodes."""
    part = parts_of(record).get("file")
    if not g.check(part is not None, f"{what}: the request has a part named file", str(record.get("parts"))):
        return
    g.check(part["filename"] == f"intervalpro-session-{session}.fit",
            f"{what}: the file part's filename is intervalpro-session-{session}.fit", str(part))
    kept = os.path.join(s.kept, part["sha256"] + ".fit")
    if not g.check(os.path.exists(kept), f"{what}: the stand-in kept the uploaded file ({part['sha256'][:12]}….fit)",
                   str(os.listdir(s.kept) if os.path.isdir(s.kept) else "no folder")):
        return
    with open(kept, "rb") as handle:
        sent = handle.read()
    g.check(hashlib.sha256(sent).hexdigest() == part["sha256"] and len(sent) == part["size"],
            f"{what}: the kept file has the logged size and SHA-256")
    _, exported = s.export(session)
    g.check(sent == exported, f"{what}: the uploaded bytes equal `intervalpro export {session} --format fit`",
            f"{len(sent)} bytes sent, {len(exported)} exported")
    check_fit_file(g, kept, f"{what}: the uploaded file")


def strava_authorize(s, *extra, wait="30", forged_state=False, secret=CLIENT_SECRET, secret_on_stdin=False):
    """`account add strava --no-browser`, played as the browser would: GET the address it
    prints (the stand-in approves and redirects to the callback, which urllib follows).
    `secret_on_stdin`: the client secret written to its standard input, not given as an option.
    Returns (result, authorize URL or None, final callback URL or None, notes)."""
    arguments = ["account", "add", "strava", "--client-id", CLIENT_ID,
                 *([] if secret_on_stdin else ["--client-secret", secret]), "--no-browser", "--wait", wait, *extra]
    started = time.monotonic()
    options = {"stdin": subprocess.PIPE} if secret_on_stdin else {}
    process = start_binary(arguments, s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options)
    if secret_on_stdin:
        process.stdin.write(secret + "\n")
        process.stdin.flush()
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    head, url, final, notes = [], None, None, {}
    try:
        while True:
            line = process.stderr.readline()
            if not line:
                break
            head.append(line)
            found = re.search(r"(http://\S+/oauth/authorize\?\S+)", line)
            if found:
                url = found.group(1)
                break
        if url and forged_state:
            redirect = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("redirect_uri", [""])[0]
            try:
                with urllib.request.urlopen(f"{redirect}?state=forged&code={'0' * 40}", timeout=10) as answer:
                    notes["forged"] = answer.status
            except urllib.error.HTTPError as error:
                notes["forged"] = error.code
            except OSError as error:
                notes["forged"] = repr(error)
        if url:
            try:
                with urllib.request.urlopen(url, timeout=20) as answer:
                    notes["callback"] = answer.status
                    notes["page"] = answer.read().decode("utf-8", "replace")
                    final = answer.geturl()
            except urllib.error.HTTPError as error:
                notes["callback"] = error.code
                final = error.geturl()
            except OSError as error:
                notes["callback"] = repr(error)
        stdout, rest = process.communicate(timeout=60)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    result = Result(arguments, process.returncode, stdout, "".join(head) + rest, time.monotonic() - started)
    s.record(result)
    return result, url, final, notes


def add_icu(g, s):
    result = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", ICU_KEY)
    if result.returncode != 0:
        raise RuntimeError(f"adding the intervals.icu account failed: {result.describe()}")


def add_strava(g, s, what):
    result, url, final, notes = strava_authorize(s)
    expect(g, result, 0, what, stdout_has=["strava: added Test Runner"])
    return result


# ---------------------------------------------------------------------------- groups

def group_icu(g):
    """intervals.icu: the account, today's calendar, run today / icu:ID, upload."""
    s = Scenario(g, "intervals.icu", events=CALENDAR)
    # Without an account there is no calendar, but a morning's readiness is still the day's
    # news: said, with how to connect one (it was exit 77 and nothing else).
    expect(g, s.run("today"), 0, "today without an account says there is no calendar",
           stdout_has=["No planned runs: no intervals.icu account gives a calendar"])
    g.check((s.run("today", "--json").json() or {}).get("calendar") is False, "today --json without an account: calendar false")
    # A day that does not exist is a usage error, said before any account or calendar is asked.
    expect(g, s.run("today", "--date", "2026-13-01"), 64, "today --date 2026-13-01: a usage error (64), not the account's",
           stderr_has=["--date must be a day written YYYY-MM-DD"])
    expect(g, s.run("run", "today", "--simulate", "--fast"), 77, "run today without an account is refused")

    wrong = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", "wrong-key-123")
    add_secret("wrong-key-123", "a refused API key")
    expect(g, wrong, 77, "a refused API key: exit 77, a message on stderr", stdout_empty=True)
    g.check(wrong.stderr.strip() != "", "the refused key's message is on stderr", wrong.describe())
    g.check(s.account("intervals.icu") is None, "a refused key is not saved", str(s.accounts()))
    refused = s.requests("GET", f"/api/v1/athlete/{ATHLETE}")
    g.check(refused and refused[-1]["headers"].get("authorization")
            == "Basic " + base64.b64encode(b"API_KEY:wrong-key-123").decode() and refused[-1]["status"] == 401,
            "the key is checked with GET /api/v1/athlete/ID and Basic base64(API_KEY:key)",
            str([(r["headers"].get("authorization"), r["status"]) for r in refused]))

    # The athlete id without its "i": refused as a wrong key is, and the key was blamed.
    bare = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE.lstrip("i"), "--api-key", ICU_KEY)
    g.check(bare.returncode == 77 and f"athlete ids begin with i ({ATHLETE}?)" in bare.stderr,
            "an athlete id without its i: 77, and the id is named as what to check", bare.describe())

    # Behind a Wi-Fi sign-in page (200, HTML) a wrong key was "added" and saved.
    s.fault(match="GET /api/v1/athlete/", times=1, status=200, body="<html>Sign in</html>",
            headers={"Content-Type": "text/html"})
    portal = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", "wrong-key-123")
    expect(g, portal, 69, "a key checked against a sign-in page's 200 (HTML): 69, not added",
           stderr_has=["text/html that is not intervals.icu's answer"])
    g.check(s.account("intervals.icu") is None, "... and not saved", str(s.accounts()))
    after_portal = time.monotonic()

    added = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, stdin=ICU_KEY + "\n")
    expect(g, added, 0, "account add intervals.icu reads the key from stdin",
           stdout_has=[f"intervals.icu: added Test Runner ({ATHLETE})"])
    account = s.account("intervals.icu") or {}
    g.check(account.get("api_key") == ICU_KEY and account.get("athlete_id") == ATHLETE,
            "accounts.json keeps the athlete and the key", str(account.keys()))
    folder = os.path.dirname(s.accounts_path)
    if os.path.exists(s.accounts_path):
        g.check(stat.S_IMODE(os.stat(s.accounts_path).st_mode) == 0o600, "accounts.json has mode 0600",
                oct(os.stat(s.accounts_path).st_mode))
        g.check(stat.S_IMODE(os.stat(folder).st_mode) == 0o700, "its folder has mode 0700",
                oct(os.stat(folder).st_mode))
    verbose = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", ICU_KEY, "-v")
    expect(g, verbose, 0, "account add intervals.icu --api-key -v", stderr_has=[f"/api/v1/athlete/{ATHLETE}"])
    again = s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", "wrong-key-123")
    expect(g, again, 77, "a refused key over a working account: exit 77")
    g.check((s.account("intervals.icu") or {}).get("api_key") == ICU_KEY, "... the working key stays saved")
    checks = [r for r in s.requests("GET", f"/api/v1/athlete/{ATHLETE}", after_portal) if r["status"] == 200]
    g.check(len(checks) == 2 and all(r["headers"].get("authorization") == "Basic " + ICU_BASIC for r in checks),
            "intervals.icu requests carry Authorization: Basic base64(API_KEY:key)",
            str([r["headers"].get("authorization") for r in checks]))

    listing = s.run("account", "list")
    expect(g, listing, 0, "account list", stdout_has=["intervals.icu", "Test Runner"])
    listed = s.run("account", "list", "--json", "-v").json() or {}
    g.check([a.get("service") for a in listed.get("accounts", [])] == ["intervals.icu"],
            "account list --json names the account", str(listed))

    today = s.run("today", "-v")
    expect(g, today, 0, "today lists today's run", stdout_has=["icu:101", "Cadence ladder"])
    g.check("Spin" not in today.stdout and "icu:102" not in today.stdout and "Shoes" not in today.stdout,
            "today lists runs only (not the ride, not the note)", today.stdout)
    listed = s.run("today", "--json")
    expected = {"date": day(0), "runs": [{"id": "101", "reference": "icu:101", "date": day(0),
                                          "name": "Cadence ladder", "type": "Run", "steps": 6,
                                          "duration_s": 300, "problem": None}],
                "readiness": None, "readiness_last_measured": None,
                "intervals_icu_wellness": {"hrv_ms": None, "hrv_sdnn_ms": None,
                                           "resting_hr_bpm": None, "sleep_s": None,
                                           "sleep_score": None, "readiness": None},
                "calendar": True, "calendar_error": None}
    g.check(listed.returncode == 0 and listed.json() == expected,
            "today --json: the run, its steps and duration (no readiness measured yet)",
            f"{listed.json()} != {expected}")
    calendar = [r for r in s.requests("GET", f"/api/v1/athlete/{ATHLETE}/events") if r["status"] == 200]
    g.check(calendar and calendar[-1]["query"] == {"oldest": day(0), "newest": day(0), "category": "WORKOUT"},
            "the calendar is read with oldest=newest=today and category=WORKOUT",
            str([r["query"] for r in calendar]))
    other = s.run("today", "--date", day(10), "--json").json() or {}
    g.check(other.get("date") == day(10) and [(r.get("id"), r.get("type")) for r in other.get("runs", [])]
            == [("104", "TrailRun")], "today --date: another day's run (TrailRun is a run)", str(other))
    g.check("intervalpro run today" in today.stdout, "today's hint for today's one run: `intervalpro run today`",
            today.stdout)
    other = s.run("today", "--date", day(10))
    g.check(other.returncode == 0 and "icu:104" in other.stdout and "run today" not in other.stdout,
            "today --date ANOTHER-DAY does not suggest `intervalpro run today` (which runs today's plan, "
            "not that day's)", other.describe())

    # Replays of a recorded run, not simulations: these sessions are uploaded below.
    run = s.run("run", "today", "--replay", s.recording("today", 1), "--fast", "--json")
    summary = run.json()
    expect(g, run, 0, "run today --replay --fast --json", stderr_has=["saved as session 1"])
    g.check(isinstance(summary, dict) and summary.get("plan") == "Cadence ladder",
            "run today: stdout is one JSON summary, of the plan named as the event",
            run.stdout[:300])
    shown = s.run("show", "last", "--json").json() or {}
    g.check(shown.get("session_id") == 1 and shown.get("plan") == "Cadence ladder"
            and [st.get("duration_s") for st in shown.get("steps", [])] == LADDER_DURATIONS,
            "show last: the session's plan is the event's (name and steps)",
            f"{shown.get('plan')} {[st.get('duration_s') for st in shown.get('steps', [])]}")
    history = s.run("history", "--json").json() or {}
    g.check([(x.get("session_id"), x.get("plan")) for x in history.get("sessions", [])] == [(1, "Cadence ladder")],
            "history --json: the session under the event's name", str(history))

    run = s.run("run", "icu:105", "--replay", s.recording("icu:105", 2), "--fast", "--json")
    expect(g, run, 0, "run icu:105 (workout_doc only)", stderr_has=["saved as session 2"])
    shown = s.run("show", "2", "--json").json() or {}
    g.check(shown.get("plan") == "Structured strides"
            and [st.get("duration_s") for st in shown.get("steps", [])] == STRIDES_DURATIONS,
            "run icu:ID with only a workout_doc: its steps are the plan",
            f"{shown.get('plan')} {[st.get('duration_s') for st in shown.get('steps', [])]}")
    expect(g, s.run("run", "icu:999", "--simulate", "--fast"), 66, "run icu:999 (no such event)",
           stderr_has=["999"])
    # A typo in the id was asked an account for (77 where there was none): said as the usage it is.
    expect(g, s.run("run", "icu:abc", "--simulate", "--fast"), 64, "run icu:abc (no event id): 64, said",
           stderr_has=["names no intervals.icu event"])

    since = time.monotonic()
    upload = s.run("upload", "1", "--to", "intervals.icu", "-v")
    expect(g, upload, 0, "upload 1 --to intervals.icu",
           stdout_has=[f"session 1 → intervals.icu: {s.base}/activities/i9001"])
    posts = s.requests("POST", ACTIVITIES, since)
    if g.check(len(posts) == 1 and posts[0]["status"] == 201, "one POST /api/v1/athlete/ID/activities",
               str([r["status"] for r in posts])):
        post = posts[0]
        g.check(post["headers"].get("authorization") == "Basic " + ICU_BASIC, "the upload carries the Basic credentials")
        g.check(post["headers"].get("content-type", "").startswith("multipart/form-data")
                and list(parts_of(post)) == ["file"], "the upload is multipart/form-data with one part, file",
                str(post.get("parts")))
        query = post["query"]
        g.check("Cadence ladder" in (query.get("name") or "") and (query.get("external_id") or "").strip() != "",
                "the query has name (with the plan's name) and external_id", str(query))
        check_uploaded_file(g, s, post, 1, "intervals.icu upload")

    again = s.run("upload", "1", "--to", "intervals.icu")
    expect(g, again, 65, "the same session again is refused, the message says --force", stderr_has=["--force"])
    forced = s.run("upload", "last", "--to", "intervals.icu", "--json")
    expect(g, forced, 0, "upload last --to intervals.icu --json (session 2)")
    forced = s.run("upload", "1", "--to", "intervals.icu", "--force", "--json")
    outcome = (forced.json() or {}).get("uploads") or [{}]
    g.check(forced.returncode == 0 and len(outcome) == 1 and outcome[0].get("outcome") == "uploaded"
            and outcome[0].get("status") == "done" and outcome[0].get("activity_id") == "i9001"
            and outcome[0].get("url") == f"{s.base}/activities/i9001" and outcome[0].get("session") == 1
            and outcome[0].get("service") == "intervals.icu" and outcome[0].get("error") is None,
            "--force uploads again (--json: uploaded, done, activity, URL)", forced.describe())
    g.check(len(s.requests("POST", ACTIVITIES, since)) == 3, "--force sent the file again")
    expect(g, s.run("upload", "1", "--to", "strava"), 77, "--to strava without a Strava account (no credential: 77)")

    session = s.session(3)
    all_ = s.run("upload", str(session), "--to", "all", "--json")
    services = [u.get("service") for u in (all_.json() or {}).get("uploads", [])]
    g.check(all_.returncode == 0 and services == ["intervals.icu"], "--to all: every account added (only intervals.icu)",
            all_.describe())

    run = s.run("run", "icu:101", "--replay", s.recording("icu:101", 4), "--fast", "--json", "--upload", "intervals.icu")
    expect(g, run, 0, "run icu:101 --json --upload intervals.icu", stderr_has=["→ intervals.icu: http"])
    g.check(isinstance(run.json(), dict) and "→" not in run.stdout,
            "run --json --upload: stdout is the JSON summary only, the upload line on stderr", run.stdout[-300:])

    # A run with no sensor falls back to a simulated runner: its figures were uploaded as the
    # runner's activity, with nothing to tell them apart.
    since = time.time()
    simulated = s.run("run", "icu:101", "--simulate", "--fast", "--json", "--seed", "6", "--upload", "intervals.icu")
    expect(g, simulated, 65, "run --simulate --upload: the simulation is not uploaded (65, said)",
           stderr_has=["is a simulation, no sensor's: not a run to upload"])
    found = re.search(r"saved as session (\d+)", simulated.stderr)
    g.check(isinstance(simulated.json(), dict) and found is not None, "the simulated session is still saved and summed up",
            simulated.stderr[-300:])
    if found:
        again = s.run("upload", found.group(1), "--to", "intervals.icu", "--force")
        expect(g, again, 65, "upload --force of a simulated session: refused too", stderr_has=["is a simulation"])
    # The simulator's recording replayed (the bundled Recordings/ are such), or imported on
    # another machine, is the simulator's run too: it was uploaded as the runner's.
    replayed = s.run("run", "icu:101", "--replay", s.recording("icu:101", 6, simulator=True), "--fast", "--json",
                     "--upload", "intervals.icu")
    expect(g, replayed, 65, "run --replay of the simulator's recording --upload: not uploaded (65, said)",
           stderr_has=["is a recording of the simulator's sensors (00:00:5E:00:53:…), no runner's: not a run to upload"])
    other = Scenario(g, "simulator-import")
    imported = other.run("history", "import", s.recording("icu:101", 6, simulator=True))
    expect(g, imported, 0, "history import of the simulator's recording on another machine")
    add_icu(g, other)
    expect(g, other.run("upload", "1", "--to", "intervals.icu"), 65,
           "... whose session is not uploaded from there either (65, said)", stderr_has=["is a recording of the simulator's sensors"])
    g.check(not other.requests("POST", ACTIVITIES), "no simulator's session reached the service",
            str(other.requests("POST", ACTIVITIES))[:300])
    g.check(not s.requests("POST", ACTIVITIES, since=since), "no simulated session reached the service",
            str(s.requests("POST", ACTIVITIES, since=since))[:300])

    # Ctrl-C while the upload after a session hangs: the session's handler took it and nothing
    # read it, so the runner waited out four 30 s attempts.
    s.fault(match=f"POST {ACTIVITIES}", delay=60)
    replay = s.recording("icu:101", 5)
    process = start_binary(["run", "icu:101", "--replay", replay, "--fast", "--upload", "intervals.icu"],
                           s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    held = s.held()
    stdout, stderr, stopped = stop(process, signal.SIGINT, 10)
    s.record(Result(["run", "icu:101", "--upload", "intervals.icu", "(Ctrl-C while uploading)"],
                    process.returncode, stdout, stderr, stopped))
    s.clear()
    queued = [key for key, status in s.upload_rows().items() if key[1] == "intervals.icu" and status == "pending"]
    g.check(held and stopped < 3 and process.returncode in (-signal.SIGINT, 130) and len(queued) == 1,
            "run --upload: Ctrl-C while the upload hangs stops at once, the upload kept queued",
            f"held {held}, stopped after {stopped:.1f} s, exit {process.returncode}, queued {queued}")
    sent = s.run("upload", "--pending")
    expect(g, sent, 0, "... and upload --pending sends it",
           stdout_has=[f"session {queued[0][0] if queued else '?'} → intervals.icu: http"])

    expect(g, s.run("upload", "--pending"), 0, "upload --pending with nothing queued", stdout_has=["No uploads queued."])
    pending = s.run("upload", "--pending", "--json", "-v")
    # Both lists, empty: `jq '.wellness[]'` failed on every run without a readiness write.
    g.check(pending.returncode == 0 and pending.json() == {"uploads": [], "wellness": []},
            "upload --pending --json: no uploads, no wellness writes (both lists there)", pending.describe())

    # An upload queued when the account is removed stays queued, untried, until one is added
    # again (each --pending was refused for want of an account, 77, for ever).
    queued = s.session(6)
    s.fault(match=f"POST {ACTIVITIES}", status=503, times=-1)
    expect(g, s.run("upload", str(queued), "--to", "intervals.icu"), 69, "an upload that fails: queued")
    s.clear()
    expect(g, s.run("account", "remove", "intervals.icu"), 0, "account remove intervals.icu")
    g.check(s.account("intervals.icu") is None, "the key is gone from accounts.json", str(s.accounts()))
    sent_before = len(s.requests("POST", ACTIVITIES))
    waiting = s.run("upload", "--pending", "--json")
    listed = ((waiting.json() or {}).get("uploads") or [{}])[0]
    g.check(waiting.returncode == 0 and listed.get("outcome") == "queued" and listed.get("status") == "pending"
            and "stays queued: no intervals.icu account to send it with" in waiting.stderr
            and len(s.requests("POST", ACTIVITIES)) == sent_before,
            "upload --pending with the account removed: its queued upload said to wait for one, not tried, 0",
            waiting.describe())
    add_icu(g, s)
    expect(g, s.run("upload", "--pending"), 0, "the account added again: upload --pending sends it",
           stdout_has=[f"session {queued} → intervals.icu: http"])
    expect(g, s.run("account", "remove", "intervals.icu"), 0, "account remove intervals.icu (again)")
    expect(g, s.run("account", "remove", "intervals.icu"), 66, "account remove of an absent account")
    expect(g, s.run("account", "remove", "strava"), 66, "account remove strava (never added)")
    expect(g, s.run("today"), 0, "today after the account is removed: no calendar, said",
           stdout_has=["No planned runs: no intervals.icu account gives a calendar"])


def group_calendar(g):
    """run today with 0 or 2+ runs, an event without steps, a bad accounts.json."""
    two = Scenario(g, "two runs today", events=[
        event(201, day(0), "Easy run", "- 20m 165rpm"),
        event(202, day(0), "Treadmill strides", "- 10m 170rpm\n- 1m 185rpm", kind="VirtualRun"),
        event(203, day(0), "Spin", "- 30m 90rpm", kind="Ride"),
        event(204, day(3), "Run by feel", "Easy, no structure at all"),
    ])
    add_icu(g, two)
    listed = two.run("today", "--json").json() or {}
    g.check([r.get("reference") for r in listed.get("runs", [])] == ["icu:201", "icu:202"],
            "today: both runs (Run and VirtualRun), not the ride", str(listed))
    several = two.run("run", "today", "--simulate", "--fast")
    expect(g, several, 64, "run today with two runs planned names them", stderr_has=["icu:201", "icu:202"])
    g.check(not os.path.exists(os.path.join(two.data, "intervalpro", "intervalpro.sqlite"))
            or (two.run("history", "--json").json() or {}).get("sessions") == [], "nothing was run or saved")
    vague = (two.run("today", "--date", day(3), "--json").json() or {}).get("runs") or [{}]
    g.check(isinstance(vague[0].get("problem"), str) and vague[0]["problem"],
            "today --json: an event whose text has no steps has a problem", str(vague))
    bad = two.run("run", "icu:204", "--simulate", "--fast")
    g.check(bad.returncode not in (0,) and bad.returncode > 0 and bad.stderr.strip(),
            "run icu:ID of an event without steps fails with a message", bad.describe())
    # A ride was run with 90rpm as a running cadence, and its FIT uploaded as a run.
    expect(g, two.run("run", "icu:203", "--simulate", "--fast", "--no-save"), 65, "run icu:ID of a ride is refused",
           stderr_has=["is a Ride workout, not a run"])

    # Two runs today, one without steps: the one that can be run is run (64 named both).
    one = Scenario(g, "one runnable run today", events=[
        event(301, day(0), "Intervals", "- 5m 170rpm"),
        event(304, day(0), "Easy jog", "Easy, no structure at all"),
    ])
    add_icu(g, one)
    ran = one.run("run", "today", "--simulate", "--fast", "--no-save", "--json")
    g.check(ran.returncode == 0 and (ran.json() or {}).get("plan") == "Intervals",
            "run today with one of two runs runnable runs it", ran.describe())

    empty = Scenario(g, "empty calendar", events=[])
    add_icu(g, empty)
    listed = empty.run("today", "--json")
    g.check(listed.returncode == 0 and (listed.json() or {}).get("runs") == [], "today --json: no runs",
            listed.describe())
    expect(g, empty.run("run", "today", "--simulate", "--fast"), 66, "run today with no run planned")

    # A bad accounts.json: every command that reads it says which file and where.
    with open(empty.accounts_path, "w", encoding="utf-8") as handle:
        handle.write('{"version": 1, "accounts": {"intervals.icu": ')
    for arguments in (["account", "list"], ["today"], ["run", "today", "--simulate", "--fast"],
                      ["account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", ICU_KEY]):
        expect(g, empty.run(*arguments), 65, "accounts.json not JSON: the message names the file",
               stderr_has=[empty.accounts_path])
    cases = [
        ({"intervals.icu": {"athlete_id": ATHLETE, "name": "Test Runner"}},
         '$.accounts["intervals.icu"].api_key', ["today"]),
        ({"intervals.icu": {"api_key": ICU_KEY, "name": "Test Runner"}},
         '$.accounts["intervals.icu"].athlete_id', ["account", "list"]),
        ({"strava": {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "access_token": "a" * 40,
                     "expires_at": int(time.time()) + 3600, "athlete": "Test Runner"}},
         '$.accounts.strava.refresh_token', ["account", "list"]),
    ]
    for accounts, path, arguments in cases:
        with open(empty.accounts_path, "w", encoding="utf-8") as handle:
            json.dump({"version": 1, "accounts": accounts}, handle)
        os.chmod(empty.accounts_path, 0o600)
        result = empty.run(*arguments)
        # A name that is not an identifier needs brackets; strava may be written either way.
        spelled = path.replace(".strava.", '["strava"].')
        expect(g, result, 65, f"accounts.json without a field: the message names {path}",
               stderr_has=[empty.accounts_path] + ([] if spelled in result.stderr else [path]))


def group_strava(g):
    """Strava: OAuth (forged state, deny, no callback), upload and its polls, duplicates,
    a rejected file, a 401 refreshed, rate limits."""
    s = Scenario(g, "strava")
    # The client secret on standard input: on the command line, any local user's ps saw it.
    result, url, final, notes = strava_authorize(s, "-v", forged_state=True, secret_on_stdin=True)
    expect(g, result, 0, "account add strava, the client secret on standard input: the browser comes back, "
           "the account is added", stdout_has=["strava: added Test Runner"])
    g.check(CLIENT_SECRET not in " ".join(result.arguments), "the client secret is not on the command line")
    split = urllib.parse.urlsplit(url or "")
    query = urllib.parse.parse_qs(split.query)
    redirect = urllib.parse.urlsplit(query.get("redirect_uri", [""])[0])
    g.check(url and url.startswith(f"{s.base}/oauth/authorize?") and query.get("client_id") == [CLIENT_ID]
            and query.get("response_type") == ["code"] and "activity:write" in query.get("scope", [""])[0]
            and query.get("state", [""])[0] and redirect.scheme == "http" and redirect.hostname == "127.0.0.1"
            and redirect.port and redirect.path == "/callback",
            "the address printed: /oauth/authorize with client_id, response_type=code, activity:write, "
            "state and redirect_uri http://127.0.0.1:PORT/callback", str(url))
    g.check(notes.get("forged") == 400, "a callback with another state is answered 400", str(notes.get("forged")))
    g.check(notes.get("callback") == 200 and "is connected to Strava" in notes.get("page", ""),
            "the real callback is answered 200, the page saying connected", str(notes))
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(final or "").query).get("code", [None])[0]
    exchanges = s.requests("POST", "/oauth/token")
    g.check(len(exchanges) == 1, "one token exchange: the forged callback exchanged nothing",
            str([r["form"] for r in exchanges]))
    if exchanges:
        form = exchanges[0]["form"] or {}
        g.check(form.get("grant_type") == "authorization_code" and form.get("code") == code and code
                and form.get("client_id") == CLIENT_ID and form.get("client_secret") == CLIENT_SECRET,
                "the exchange's form: grant_type=authorization_code, the code, client_id, client_secret",
                str({k: v for k, v in form.items() if k != "client_secret"}))
        g.check(exchanges[0]["headers"].get("content-type", "").startswith("application/x-www-form-urlencoded"),
                "the exchange is a form body")
    account = s.account("strava") or {}
    g.check(all(account.get(k) for k in ("access_token", "refresh_token", "expires_at"))
            and account.get("client_secret") == CLIENT_SECRET, "accounts.json keeps the tokens", str(list(account)))
    g.check(os.path.exists(s.accounts_path) and stat.S_IMODE(os.stat(s.accounts_path).st_mode) == 0o600,
            "accounts.json has mode 0600 after the Strava account")
    tokens = (account.get("access_token"), account.get("refresh_token"))

    s.control("deny", {"deny": True})
    denied, _, _, notes = strava_authorize(s)
    expect(g, denied, 77, "the user denies access: exit 77")
    s.control("deny", {"deny": False})
    account = s.account("strava") or {}
    g.check((account.get("access_token"), account.get("refresh_token")) == tokens,
            "a denied authorization changes nothing saved")
    started = time.monotonic()
    waited = s.run("account", "add", "strava", "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET,
                   "--no-browser", "--wait", "1")
    expect(g, waited, 69, "no callback within --wait 1: exit 69")
    unsaid = s.run("account", "add", "strava", "--client-id", CLIENT_ID, "--no-browser", "--wait", "1", stdin="")
    expect(g, unsaid, 64, "no client secret, as an option or on standard input: exit 64",
           stderr_has=["no client secret given"])
    g.check(time.monotonic() - started < 10, "--wait 1 gives up soon", f"{time.monotonic() - started:.1f} s")
    g.check(len(s.requests("POST", "/oauth/token")) == 1, "neither the denial nor the wait exchanged a code")
    add_secret("wrong-client-secret", "a refused client secret")
    refused, _, _, notes = strava_authorize(s, secret="wrong-client-secret")
    expect(g, refused, 77, "a client secret Strava refuses: exit 77")
    # The page said "connected" before the code was exchanged.
    page = notes.get("page", "")
    g.check("is not connected" in page and "connected to Strava" not in page,
            "... and the browser's page says it is not connected", page)
    account = s.account("strava") or {}
    g.check((account.get("access_token"), account.get("client_secret")) == (tokens[0], CLIENT_SECRET),
            "... nothing saved over the working account")

    session = s.session(1)
    since = time.monotonic()
    upload = s.run("upload", str(session), "--to", "strava", "-v")
    expect(g, upload, 0, "upload --to strava", stdout_has=[f"session {session} → strava: {s.base}/activities/8001"])
    log = [r for r in s.log() if r.get("received", 0) >= since]
    posts = requests_in(log, "POST", "/api/v3/uploads")
    polls = requests_in(log, "GET", "/api/v3/uploads/", prefix=True)
    if g.check(len(posts) == 1 and posts[0]["status"] == 201, "one POST /api/v3/uploads", str(len(posts))):
        post = posts[0]
        g.check(post["headers"].get("authorization") == f"Bearer {tokens[0]}",
                "Strava requests carry Authorization: Bearer <the saved access token>")
        parts = parts_of(post)
        g.check(parts.get("data_type", {}).get("text") == "fit", "the part data_type is fit", str(parts.get("data_type")))
        g.check((parts.get("name", {}).get("text") or "").strip() and (parts.get("external_id", {}).get("text") or "").strip(),
                "parts name and external_id are sent", str(list(parts)))
        check_uploaded_file(g, s, post, session, "Strava upload")
        g.check(len(polls) >= 2 and all(p["path"] == "/api/v3/uploads/5001" and p["received"] > post["t"] for p in polls)
                and all(p["headers"].get("authorization") == f"Bearer {tokens[0]}" for p in polls),
                "then at least 2 polls GET /api/v3/uploads/5001 (Bearer)", str([p["path"] for p in polls]))
        gaps = [b["received"] - a["received"] for a, b in zip([post] + polls, polls)]
        g.check(gaps and all(0.6 <= gap <= 2.5 for gap in gaps), "the polls come about once a second",
                str([round(x, 2) for x in gaps]))
    state = s.state()
    g.check(state["uploads"].get("5001", {}).get("activity_id") == 8001, "the stand-in made activity 8001")

    again = s.run("upload", str(session), "--to", "strava", "--json")
    outcome = ((again.json() or {}).get("uploads") or [{}])[0]
    expect(g, again, 65, "a second upload to Strava is refused", stderr_has=["--force"])
    g.check(outcome.get("outcome") == "refused-duplicate" and outcome.get("url") == f"{s.base}/activities/8001",
            "--json: refused-duplicate, with the URL kept", str(outcome))
    forced = s.run("upload", str(session), "--to", "strava", "--force", "--json")
    outcome = ((forced.json() or {}).get("uploads") or [{}])[0]
    expect(g, forced, 0, "--force to Strava: the duplicate is reported as already there")
    g.check(outcome.get("outcome") == "already-there" and outcome.get("status") == "done"
            and str(outcome.get("activity_id")) == "8001" and outcome.get("url") == f"{s.base}/activities/8001",
            "--json: already-there, done, activity 8001", str(outcome))
    g.check(len(s.state()["uploads"]) == 2, "--force sent the file again (upload 5002)")

    # A file Strava cannot read: the status answers with an error.
    session = s.session(2)
    upload_id = 5001 + len(s.state()["uploads"])
    s.fault(match=f"GET /api/v3/uploads/{upload_id}", times=-1, status=200,
            body={"id": upload_id, "id_str": str(upload_id), "external_id": "x", "error": "Improperly formatted data.",
                  "status": "There was an error processing your activity.", "activity_id": None})
    rejected = s.run("upload", str(session), "--to", "strava", "--json")
    outcome = ((rejected.json() or {}).get("uploads") or [{}])[0]
    expect(g, rejected, 65, "Strava rejects the file: exit 65")
    g.check(outcome.get("outcome") == "rejected" and outcome.get("status") == "rejected"
            and "Improperly formatted" in (outcome.get("error") or ""), "--json: rejected, with Strava's error",
            str(outcome))
    s.clear()
    g.check(s.upload_rows().get((session, "strava")) == "rejected", "the store marks it rejected")
    since = time.monotonic()
    expect(g, s.run("upload", "--pending"), 0, "a rejected upload is not retried by --pending",
           stdout_has=["No uploads queued."])
    g.check(not s.requests("POST", "/api/v3/uploads", since), "(no new POST)")

    # A 401 from the API: one refresh, one retry.
    session = s.session(3)
    before = s.account("strava") or {}
    s.fault(match="POST /api/v3/uploads", status=401, times=1)
    since = time.monotonic()
    refreshed = s.run("upload", str(session), "--to", "strava")
    expect(g, refreshed, 0, "a 401 from Strava: the token is refreshed and the upload retried")
    after = s.account("strava") or {}
    log = [r for r in s.log() if r.get("received", 0) >= since]
    refreshes = [r for r in requests_in(log, "POST", "/oauth/token") if (r["form"] or {}).get("grant_type") == "refresh_token"]
    g.check(len(refreshes) == 1 and refreshes[0]["form"].get("refresh_token") == before.get("refresh_token")
            and refreshes[0]["form"].get("client_id") == CLIENT_ID
            and refreshes[0]["form"].get("client_secret") == CLIENT_SECRET,
            "one refresh: grant_type=refresh_token with the saved refresh token, client_id, client_secret",
            str([{k: v for k, v in (r["form"] or {}).items() if k != "client_secret"} for r in refreshes]))
    posts = requests_in(log, "POST", "/api/v3/uploads")
    g.check([p["status"] for p in posts] == [401, 201]
            and posts[-1]["headers"].get("authorization") == f"Bearer {after.get('access_token')}"
            and after.get("access_token") != before.get("access_token")
            and after.get("refresh_token") != before.get("refresh_token"),
            "the retry uses the new access token, saved in accounts.json with the new refresh token",
            str([p["status"] for p in posts]))
    g.check(s.state()["refreshes"] == 1, "the stand-in counted one refresh")

    # Rate limits: a used-up window without Retry-After gives up at once.
    session = s.session(4)
    # A limit that lifts within a minute is waited out and the call tried again (RetryPolicy's
    # longestWait): in the last 75 s of a UTC day or quarter hour these checks would see that
    # instead of the give-up they are about, so they start once the window has turned.
    wait_for_window_turn(86_400)
    now = datetime.datetime.now(datetime.timezone.utc)
    midnight = (now + datetime.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    to_midnight = (midnight - now).total_seconds() / 60
    s.fault(match="POST /api/v3/uploads", status=429, times=1, headers={"X-RateLimit-Usage": "120,2000"})
    limited = s.run("upload", str(session), "--to", "strava")
    expect(g, limited, 69, "429 with the daily window used up: exit 69 at once",
           stderr_has=["rate limit reached; it lifts in"])
    lifts = lifts_in_minutes(limited.stderr)
    g.check(lifts is not None and abs(lifts - to_midnight) <= 2 and limited.elapsed < 5,
            "... in the minutes left to midnight UTC, without waiting",
            f"{lifts}, {to_midnight:.1f} min left, {limited.elapsed:.1f} s")
    wait_for_window_turn(900)
    to_quarter = 900 - (time.time() % 900)
    s.fault(match="POST /api/v3/uploads", status=429, times=1, headers={"X-RateLimit-Usage": "200,450"})
    limited = s.run("upload", "--pending")
    expect(g, limited, 69, "429 with the 15-minute window used up: exit 69 at once (upload --pending)",
           stderr_has=["rate limit reached; it lifts in"])
    lifts = lifts_in_minutes(limited.stderr)
    g.check(lifts is not None and abs(lifts - to_quarter / 60) <= 1.5 and limited.elapsed < 5,
            "... in the minutes left in the quarter hour",
            f"{lifts}, {to_quarter / 60:.1f} min left, {limited.elapsed:.1f} s")
    g.check(s.upload_rows().get((session, "strava")) == "pending", "rate-limited: the upload stays queued")
    pending = s.run("upload", "--pending", "--json")
    outcome = (pending.json() or {}).get("uploads") or []
    g.check(pending.returncode == 0 and [(u.get("session"), u.get("outcome")) for u in outcome] == [(session, "uploaded")],
            "upload --pending then uploads it", pending.describe())

    # Killed while Strava processes: --pending asks about that upload instead of sending the file again.
    session = s.session(5)
    since = time.monotonic()
    process = start_binary(["upload", str(session), "--to", "strava"], s.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Killed once Strava took the file and the client kept its upload id (not between the two:
    # on a loaded host the 201 can be logged well before the client has written the row).
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not ([p for p in s.requests("POST", "/api/v3/uploads", since)
                                                 if p["status"] == 201]
                                               and s.upload_rows().get((session, "strava")) == "processing"):
        time.sleep(0.05)
    process.kill()
    stdout, stderr = process.communicate()
    s.record(Result(["upload", str(session), "--to", "strava", "(killed)"], process.returncode, stdout, stderr, 0))
    upload_id = max(int(k) for k in s.state()["uploads"])
    g.check(s.upload_rows().get((session, "strava")) == "processing",
            "killed after Strava took the file: the upload is kept as processing", str(s.upload_rows()))
    since = time.monotonic()
    pending = s.run("upload", "--pending", "--json")
    outcome = (pending.json() or {}).get("uploads") or [{}]
    g.check(pending.returncode == 0 and outcome[0].get("session") == session and outcome[0].get("outcome") == "uploaded"
            and outcome[0].get("url") == f"{s.base}/activities/{s.state()['uploads'][str(upload_id)]['activity_id']}",
            "upload --pending completes the processing upload", pending.describe())
    g.check(not s.requests("POST", "/api/v3/uploads", since)
            and {p["path"] for p in s.requests("GET", "/api/v3/uploads/", since, prefix=True)}
            == {f"/api/v3/uploads/{upload_id}"}, f"... by polling upload {upload_id}, without sending the file again",
            str([(r["method"], r["path"]) for r in s.log() if r.get("received", 0) >= since]))

    # A 5xx while asking about a processing upload keeps its id, and `upload N` again asks about
    # it: the row went back to pending without the id, and either command sent the file again.
    session = s.session(6)
    s.fault(match="GET /api/v3/uploads/", times=-1, status=503)
    since = time.monotonic()
    failed = s.run("upload", str(session), "--to", "strava")
    s.clear()
    sent = [p for p in s.requests("POST", "/api/v3/uploads", since) if p["status"] == 201]
    g.check(failed.returncode == 69 and len(sent) == 1 and s.upload_rows().get((session, "strava")) == "processing",
            "a 5xx while Strava processes: 69, the upload kept as processing", f"{failed.describe()} {s.upload_rows()}")
    upload_id = max(int(k) for k in s.state()["uploads"])
    since = time.monotonic()
    again = s.run("upload", str(session), "--to", "strava", "--json")
    outcome = (again.json() or {}).get("uploads") or [{}]
    g.check(again.returncode == 0 and outcome[0].get("outcome") == "uploaded"
            and not s.requests("POST", "/api/v3/uploads", since)
            and {p["path"] for p in s.requests("GET", "/api/v3/uploads/", since, prefix=True)} == {f"/api/v3/uploads/{upload_id}"},
            f"upload {session} again asks about upload {upload_id}, without sending the file again",
            f"{again.describe()} {[(r['method'], r['path']) for r in s.log() if r.get('received', 0) >= since]}")

    # An upload Strava no longer knows (404 for its id): asked about at every --pending, it stayed
    # queued for good (exit 66). The file is sent anew, once.
    session = s.session(7)
    s.fault(match="GET /api/v3/uploads/", times=-1, status=200,
            body={"id": 7777, "id_str": "7777", "error": None, "status": "Your activity is still being processed.",
                  "activity_id": None})
    stuck = s.run("upload", str(session), "--to", "strava")
    s.clear()
    since = time.monotonic()
    pending = s.run("upload", "--pending", "--json")
    outcome = (pending.json() or {}).get("uploads") or [{}]
    g.check(stuck.returncode == 69 and pending.returncode == 0 and outcome[0].get("outcome") == "uploaded"
            and len([p for p in s.requests("POST", "/api/v3/uploads", since) if p["status"] == 201]) == 1,
            "an upload Strava no longer knows (404): the file is sent anew and uploaded",
            f"{stuck.describe()} {pending.describe()}")

    # Strava's token endpoint down while the access token has half an hour left: renewed early,
    # the renewal failed the upload (69) though the token worked. It is used as it is.
    accounts = s.accounts()
    accounts["accounts"]["strava"]["expires_at"] = int(time.time()) + 1800
    with open(s.accounts_path, "w", encoding="utf-8") as handle:
        json.dump(accounts, handle)
    token = accounts["accounts"]["strava"]["access_token"]
    session = s.session(8)
    s.fault(match="POST /oauth/token", times=-1, status=503)
    since = time.monotonic()
    early = s.run("upload", str(session), "--to", "strava")
    s.clear()
    posts = s.requests("POST", "/api/v3/uploads", since)
    g.check(early.returncode == 0 and posts and posts[-1]["headers"].get("authorization") == f"Bearer {token}",
            "the token endpoint down, the token valid for 30 min more: uploaded with it", early.describe())
    # Renewed once: each call (the upload, its status checks) renewed first, four attempts each.
    renewals = s.requests("POST", "/oauth/token", since)
    g.check(len(renewals) <= 4, "the early renewal that failed is not tried again by the upload's other calls",
            f"{len(renewals)} renewals")

    saved = s.account("strava") or {}
    expect(g, s.run("account", "remove", "strava", "-v"), 0, "account remove strava")
    with open(s.accounts_path, encoding="utf-8") as handle:
        left = handle.read()
    g.check("strava" not in (s.accounts() or {}).get("accounts", {}) and saved.get("access_token")
            and saved["access_token"] not in left and saved["refresh_token"] not in left
            and CLIENT_SECRET not in left, "its tokens and secret are gone from accounts.json", left)


def group_refresh(g):
    """Strava tokens near expiry are refreshed first and saved at once; a revoked app."""
    s = Scenario(g, "strava tokens", "--strava-expires-in", "60", "--strava-processing-polls", "0")
    add_strava(g, s, "account add strava (tokens valid for 60 s)")
    first = s.account("strava") or {}
    session = s.session(1)
    # The upload request is held while we look at accounts.json, then the program is killed.
    s.fault(match="POST /api/v3/uploads", delay=60)
    since = time.monotonic()
    process = start_binary(["upload", str(session), "--to", "strava"], s.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    held = s.held(20)
    saved = s.account("strava") or {}
    process.kill()
    stdout, stderr = process.communicate()
    s.record(Result(["upload", str(session), "--to", "strava", "(killed)"], process.returncode, stdout, stderr, 0))
    g.check(held, "the upload request reached the stand-in (held by a delay)")
    refreshes = [r for r in s.requests("POST", "/oauth/token", since) if (r["form"] or {}).get("grant_type") == "refresh_token"]
    g.check(len(refreshes) == 1 and refreshes[0]["form"].get("refresh_token") == first.get("refresh_token")
            and refreshes[0]["form"].get("client_id") == CLIENT_ID
            and refreshes[0]["form"].get("client_secret") == CLIENT_SECRET,
            "a token expiring within the hour is refreshed first (grant_type=refresh_token, the saved token)",
            str(len(refreshes)))
    g.check(saved.get("refresh_token") and saved.get("refresh_token") != first.get("refresh_token")
            and saved.get("access_token") != first.get("access_token"),
            "the new tokens are in accounts.json at once (before the upload ends)")
    g.check(s.upload_rows().get((session, "strava")) == "pending", "killed mid-upload: the upload stays pending")
    s.clear()
    since = time.monotonic()
    pending = s.run("upload", "--pending")
    expect(g, pending, 0, "upload --pending after the kill: refreshed with the saved token, uploaded",
           stdout_has=[f"session {session} → strava: {s.base}/activities/"])
    now = s.account("strava") or {}
    log = [r for r in s.log() if r.get("received", 0) >= since]
    api = [r for r in log if (r.get("path") or "").startswith("/api/v3/")]
    refreshes = [r for r in requests_in(log, "POST", "/oauth/token")]
    g.check(api and api[-1]["headers"].get("authorization") == f"Bearer {now.get('access_token')}",
            "its last request uses the access token saved in accounts.json",
            str([(r["method"], r["path"], r["headers"].get("authorization", "")[:14]) for r in log])
            + f" saved {now.get('access_token', '')[:7]}")
    g.check(refreshes and log[0] is refreshes[0]
            and (refreshes[0]["form"] or {}).get("refresh_token") == saved.get("refresh_token"),
            "the next command refreshes first, with the refresh token saved during the killed one",
            str([(r["method"], r["path"]) for r in log]))

    # Three commands renewing at once: each takes its turn and the tokens the one before it
    # saved (Strava replaces the refresh token at each renewal: sent twice, it was refused,
    # and the losers said access was revoked, 77).
    sessions = [s.session(seed) for seed in (7, 8, 9)]
    processes = [start_binary(["upload", str(n), "--to", "strava"], s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for n in sessions]
    results = []
    for n, process in zip(sessions, processes):
        stdout, stderr = process.communicate(timeout=120)
        results.append(Result(["upload", str(n), "--to", "strava", "(at once)"], process.returncode, stdout, stderr, 0))
        s.record(results[-1])
    g.check(all(r.returncode == 0 for r in results),
            "three uploads renewing the token at once all upload", " | ".join(r.describe() for r in results))

    s.control("revoke", {"service": "strava"})
    session = s.session(2)
    revoked = s.run("upload", str(session), "--to", "strava")
    expect(g, revoked, 77, "the app was revoked: the refresh is refused, exit 77")
    g.check(s.upload_rows().get((session, "strava")) == "pending", "the upload stays queued")
    pending = s.run("upload", "--pending", "--json")
    outcome = (pending.json() or {}).get("uploads") or [{}]
    g.check(pending.returncode == 77 and outcome[0].get("outcome") == "queued" and outcome[0].get("status") == "pending",
            "upload --pending --json while revoked: 77, queued", pending.describe())
    add_strava(g, s, "account add strava again")
    pending = s.run("upload", "--pending", "--json")
    outcome = (pending.json() or {}).get("uploads") or [{}]
    g.check(pending.returncode == 0 and outcome[0].get("session") == session and outcome[0].get("outcome") == "uploaded",
            "after adding the account again, upload --pending completes it", pending.describe())


def group_queue(g):
    """The upload queue: 503s, a killed program, run --upload against a failing service."""
    s = Scenario(g, "queue")
    add_icu(g, s)
    first = s.session(1)
    s.fault(match=f"POST {ACTIVITIES}", status=503, times=-1)
    failed = s.run("upload", str(first), "--to", "intervals.icu")
    expect(g, failed, 69, "intervals.icu answers 503: exit 69, the message mentions --pending",
           stderr_has=["--pending"])
    g.check(len(s.requests("POST", ACTIVITIES)) == 4, "4 attempts", str(len(s.requests("POST", ACTIVITIES))))
    g.check(s.upload_rows().get((first, "intervals.icu")) == "pending", "the upload is queued (pending)")
    pending = s.run("upload", "--pending", "--json")
    outcome = (pending.json() or {}).get("uploads") or [{}]
    g.check(pending.returncode == 69 and len(outcome) == 1 and outcome[0].get("session") == first
            and outcome[0].get("service") == "intervals.icu" and outcome[0].get("outcome") == "queued"
            and outcome[0].get("status") == "pending" and outcome[0].get("error"),
            "upload --pending --json while the fault stays: 69, still queued", pending.describe())
    s.clear()

    second = s.session(2)
    s.fault(match=f"POST {ACTIVITIES}", delay=60)
    process = start_binary(["upload", str(second), "--to", "intervals.icu"], s.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    held = s.held(20)
    process.send_signal(signal.SIGKILL)
    stdout, stderr = process.communicate()
    s.record(Result(["upload", str(second), "--to", "intervals.icu", "(killed)"], process.returncode, stdout, stderr, 0))
    g.check(held and process.returncode == -signal.SIGKILL, "kill -9 while the upload request is held")
    g.check(s.upload_rows().get((second, "intervals.icu")) == "pending", "after kill -9 the upload is still pending",
            str(s.upload_rows()))
    pending = s.run("upload", "--pending", "--json", "-v")
    outcome = {u.get("session"): u for u in (pending.json() or {}).get("uploads", [])}
    g.check(pending.returncode == 0 and set(outcome) == {first, second}
            and all(u.get("outcome") == "uploaded" and u.get("status") == "done" for u in outcome.values()),
            "upload --pending (fault cleared) uploads both", pending.describe())
    rows = s.upload_rows()
    g.check(rows.get((first, "intervals.icu")) == "done" and rows.get((second, "intervals.icu")) == "done",
            "the store marks them done", str(rows))

    s.fault(match=f"POST {ACTIVITIES}", status=503, times=-1)
    plan = os.path.join(s.dir, "steady.txt")
    run = s.run("run", plan, "--replay", s.recording(plan, 3), "--fast", "--json", "--upload", "intervals.icu")
    found = re.search(r"saved as session (\d+)", run.stderr)
    expect(g, run, 69, "run --upload against a failing service: exit 69", stderr_has=["--pending"])
    g.check(isinstance(run.json(), dict) and run.json().get("steps"), "the summary is still printed (--json)",
            run.stdout[:200])
    third = int(found.group(1)) if found else None
    history = (s.run("history", "--json").json() or {}).get("sessions", [])
    g.check(third is not None and third in [h.get("session_id") for h in history], "the session is saved",
            run.stderr[-300:])
    s.clear()
    pending = s.run("upload", "--pending")
    expect(g, pending, 0, "upload --pending then uploads it",
           stdout_has=[f"session {third} → intervals.icu: {s.base}/activities/"])

    # The key is regenerated on intervals.icu: 77, queued; the new key added, --pending uploads.
    new_key = s.control("revoke", {"service": "intervals.icu"})["key"]
    add_secret(new_key, "the regenerated intervals.icu key")
    fourth = s.session(4)
    refused = s.run("upload", str(fourth), "--to", "intervals.icu")
    expect(g, refused, 77, "a key refused by intervals.icu: exit 77")
    g.check("intervals.icu refused the API key: add the account again" in refused.stderr,
            "... saying the key was refused and what fixes it", refused.describe())
    g.check(refused.elapsed < 5 and len([r for r in s.requests("POST", ACTIVITIES) if r["status"] == 401]) == 1,
            "... at once (a 401 is not retried)")
    g.check(s.upload_rows().get((fourth, "intervals.icu")) == "pending", "the upload stays queued")
    expect(g, s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", new_key), 0,
           "account add intervals.icu with the new key")
    pending = s.run("upload", "--pending")
    expect(g, pending, 0, "upload --pending with the new key uploads it",
           stdout_has=[f"session {fourth} → intervals.icu: {s.base}/activities/"])

    # Two `upload --pending` at once (a cron's beside a hand's): the queued session is sent
    # once, the second command finding it done (both sent it).
    fifth = s.session(5)
    s.fault(match=f"POST {ACTIVITIES}", status=503, times=-1)
    s.run("upload", str(fifth), "--to", "intervals.icu")
    s.clear()
    s.fault(match=f"POST {ACTIVITIES}", delay=2)
    since = time.monotonic()
    processes = [start_binary(["upload", "--pending"], s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    codes = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=120)
        codes.append(process.returncode)
        s.record(Result(["upload", "--pending", "(two at once)"], process.returncode, stdout, stderr, 0))
    s.clear()
    g.check(codes == [0, 0] and len(s.requests("POST", ACTIVITIES, since)) == 1
            and s.upload_rows().get((fifth, "intervals.icu")) == "done",
            "two upload --pending at once send the queued session once",
            f"{codes} {len(s.requests('POST', ACTIVITIES, since))} POSTs")


def group_retries(g):
    """Retries: 5xx twice then success, 429 with Retry-After, a dropped connection, a slow server."""
    s = Scenario(g, "retries")
    add_icu(g, s)
    session = s.session(1)
    s.fault(match=f"POST {ACTIVITIES}", status=502, times=2)
    since = time.monotonic()
    expect(g, s.run("upload", str(session), "--to", "intervals.icu"), 0, "502 twice, then success")
    posts = s.requests("POST", ACTIVITIES, since)
    gaps = [b["received"] - a["t"] for a, b in zip(posts, posts[1:])]
    g.check([p["status"] for p in posts] == [502, 502, 201], "3 POSTs: 502, 502, 201", str([p["status"] for p in posts]))
    g.check(len(gaps) == 2 and 0.95 <= gaps[0] <= 1.8 and 1.95 <= gaps[1] <= 3.0,
            "the retries come after pauses of about 1 s and 2 s", str([round(x, 2) for x in gaps]))

    session = s.session(2)
    s.fault(match=f"POST {ACTIVITIES}", status=429, times=1, headers={"Retry-After": "1"})
    since = time.monotonic()
    expect(g, s.run("upload", str(session), "--to", "intervals.icu"), 0, "429 with Retry-After: 1, then success")
    posts = s.requests("POST", ACTIVITIES, since)
    gap = posts[1]["received"] - posts[0]["t"] if len(posts) == 2 else None
    g.check(gap is not None and 1.0 <= gap <= 3.0 and [p["status"] for p in posts] == [429, 201],
            "retried once, after at least 1 s", f"{[p['status'] for p in posts]} gap {gap}")

    session = s.session(3)
    s.fault(match=f"POST {ACTIVITIES}", drop=True, times=1)
    since = time.monotonic()
    expect(g, s.run("upload", str(session), "--to", "intervals.icu"), 0, "a dropped connection is retried")
    g.check([p["status"] for p in s.requests("POST", ACTIVITIES, since)] == [None, 201], "dropped, then 201")

    session = s.session(5)
    s.fault(match=f"POST {ACTIVITIES}", status=429, times=1, headers={"Retry-After": "900"})
    later = s.run("upload", str(session), "--to", "intervals.icu")
    expect(g, later, 69, "429 with Retry-After: 900 (over 60 s): exit 69 without waiting",
           stderr_has=["rate limit reached; it lifts in 15 min"])
    g.check(later.elapsed < 5 and s.upload_rows().get((session, "intervals.icu")) == "pending",
            "... at once, and the upload stays queued", f"{later.elapsed:.1f} s")

    session = s.session(4)
    s.fault(match=f"POST {ACTIVITIES}", delay=3, times=-1)
    slow = s.run("upload", str(session), "--to", "intervals.icu", env={"INTERVALPRO_HTTP_TIMEOUT": "1"})
    expect(g, slow, 69, "a server slower than INTERVALPRO_HTTP_TIMEOUT=1: exit 69 after the retries",
           stderr_has=["--pending"])
    g.check(slow.elapsed < 20, "... well under 30 s", f"{slow.elapsed:.1f} s")
    g.check(s.upload_rows().get((session, "intervals.icu")) == "pending", "the slow upload stays queued")
    # Under a millisecond, the limit reached curl as 0 ms: no limit at all, and `today` hung.
    s.fault(match="GET /api/v1/athlete/", delay=3, times=-1)
    tiny = s.run("today", timeout=20, env={"INTERVALPRO_HTTP_TIMEOUT": "0.0001"})
    g.check(tiny.returncode == 69 and "killed by the check" not in tiny.stderr and tiny.elapsed < 15,
            "INTERVALPRO_HTTP_TIMEOUT=0.0001 is a limit (a millisecond), not none: the slow calendar gives up",
            tiny.describe())
    s.clear()
    # A proxy's endless answer filled memory (157 MB for 100 MB; a stack trace under a memory
    # limit): an answer over 16 MB is refused, once.
    s.fault(match="GET /api/v1/athlete/", times=-1, status=200, body=" " * (17 << 20))
    since = time.monotonic()
    huge = s.run("today", "-v")
    s.clear()
    asked = s.requests("GET", f"/api/v1/athlete/{ATHLETE}/events", since)
    g.check("larger than 16 MB" in huge.stderr and "Fatal error" not in huge.stderr and len(asked) == 1,
            "an answer over 16 MB: said, not asked again, no crash", huge.describe()[-400:] + f"; {len(asked)} asked")
    # A value that is no time limit is said, and the standard 30 s used (inf trapped; abc was
    # passed over without a word).
    for value in ("inf", "abc", "0"):
        told = s.run("today", env={"INTERVALPRO_HTTP_TIMEOUT": value})
        expect(g, told, 0, f"INTERVALPRO_HTTP_TIMEOUT={value}: said, and 30 s used",
               stderr_has=[f"INTERVALPRO_HTTP_TIMEOUT={value} is not a time limit"])
    check_serve_stops_while_a_service_is_silent(g, s)
    check_a_session_dated_before_the_clock_was_set(g, s)


def check_a_session_dated_before_the_clock_was_set(g, s):
    """A Pi without a real-time clock runs at 1970 until the network sets its clock: such a
    session's FIT dated it 2106, and it was uploaded as a run of that day."""
    session = s.session(7)
    path = os.path.join(s.data, "intervalpro", "intervalpro.sqlite")
    connection = sqlite3.connect(path, timeout=10)
    with connection:
        connection.execute("UPDATE session SET started_at = '1970-01-01T00:05:00Z' WHERE id = ?", (session,))
    connection.close()
    since = time.monotonic()
    sent = s.run("upload", str(session), "--to", "intervals.icu")
    expect(g, sent, 65, "a session dated 1970 (the clock not yet set) is not uploaded, and why",
           stderr_has=["before the system clock was set", "not uploaded"])
    g.check(not s.requests("POST", ACTIVITIES, since), "... nothing reached the service")
    fit = s.run("export", str(session), "--format", "fit", "-o", os.path.join(s.dir, "1970.fit"))
    expect(g, fit, 65, "... nor exported as FIT, which would date it 2106", stderr_has=["TCX and jsonl exports keep its date"])
    tcx = s.run("export", str(session), "--format", "tcx", "-o", os.path.join(s.dir, "1970.tcx"))
    expect(g, tcx, 0, "... its TCX keeps the date it has")


def check_serve_stops_while_a_service_is_silent(g, s):
    """SIGTERM to `serve` while the page waits on a calendar that does not answer: the request
    held the stop for its tries (125 s, past systemd's 90 s stop timeout); it is now given up."""
    s.fault(match="GET /api/v1/athlete/", delay=60, times=1)
    port = closed_port()
    server = start_binary(["serve", "--listen", f"127.0.0.1:{port}", *(["--allow-root"] if os.geteuid() == 0 else [])],
                          s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    asked = {}

    def ask_today():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/today", timeout=200) as answer:
                asked["status"] = answer.status
        except Exception as error:  # noqa: BLE001 - the server stopping closes the request
            asked["error"] = repr(error)

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    waiting = threading.Thread(target=ask_today, daemon=True)
    waiting.start()
    held = s.held()
    stdout, stderr, stopped = stop(server, signal.SIGTERM, 150)
    s.record(Result(["serve", "(SIGTERM while /api/today waits on a silent calendar)"],
                    server.returncode, stdout, stderr, stopped))
    s.clear()
    g.check(held and server.returncode == 0 and stopped < 20,
            "serve stops on SIGTERM within its 5 s grace while a page request waits on a silent service",
            f"request held: {held}; exit {server.returncode} after {stopped:.1f} s; {stderr[-300:]!r}")


def group_unreachable(g):
    """Nothing listening, and doctor's account checks."""
    gone = Scenario(g, "unreachable", stand_in=False)
    added = gone.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", ICU_KEY)
    expect(g, added, 69, "account add intervals.icu with the service unreachable: exit 69")
    g.check(gone.account("intervals.icu") is None, "nothing saved")

    s = Scenario(g, "doctor")
    plain = s.run("doctor", "--json")
    report = plain.json() or {}
    entries = {c.get("check"): c for c in report.get("checks", []) if isinstance(c, dict)}
    if "intervals.icu" not in entries and "strava" not in entries:
        g.note("doctor --json has no intervals.icu/strava checks yet: not checked")
        return
    base_status = plain.returncode
    g.check(all(entries.get(n, {}).get("ok") is True and "no account" in (entries.get(n, {}).get("detail") or "")
                for n in ("intervals.icu", "strava")), "doctor: no account is ok, and the detail says so",
            str([entries.get(n) for n in ("intervals.icu", "strava")]))
    add_icu(g, s)
    add_strava(g, s, "account add strava (for doctor)")
    working = s.run("doctor", "--json", env={})
    entries = {c.get("check"): c for c in (working.json() or {}).get("checks", [])}
    g.check(all(entries.get(n, {}).get("ok") is True for n in ("intervals.icu", "strava")),
            "doctor: both accounts work", str([entries.get(n) for n in ("intervals.icu", "strava")]))
    g.check(working.returncode == base_status, "... the exit status is the same as without accounts",
            f"{working.returncode} vs {base_status}")
    session = s.session(1)
    both = s.run("upload", str(session), "--to", "all", "--json")
    outcome = {u.get("service"): u.get("outcome") for u in (both.json() or {}).get("uploads", [])}
    g.check(both.returncode == 0 and outcome == {"intervals.icu": "uploaded", "strava": "uploaded"},
            "upload --to all with both accounts: both uploaded", both.describe())
    # accounts.json readable by others (a copy, an editor) was not said.
    os.chmod(s.accounts_path, 0o644)
    loose = s.run("doctor", "--json")
    os.chmod(s.accounts_path, 0o600)
    found = {c.get("check"): c for c in (loose.json() or {}).get("checks", [])}.get("accounts") or {}
    g.check(found.get("ok") is False and "chmod 600" in (found.get("fix") or "") and loose.returncode == base_status,
            "doctor: accounts.json readable by others is said, with chmod 600, not blocking", str(found))
    # A service failing on its side was "check the network".
    s.fault(match="GET /api/v1/athlete/", times=-1, status=503)
    failing = s.run("doctor", "--json")
    s.clear()
    fix = {c.get("check"): c for c in (failing.json() or {}).get("checks", [])}.get("intervals.icu", {}).get("fix") or ""
    g.check("failing on its side" in fix and "network" not in fix,
            "doctor: intervals.icu answering 503 is said to fail on its side, not the runner's network", fix)
    # A Wi-Fi sign-in page answers 200 with HTML: each account was said to work.
    portal = "<html><body>Sign in to the hotel Wi-Fi</body></html>"
    for match in ("GET /api/v1/athlete/", "GET /api/v3/athlete"):
        s.fault(match=match, times=-1, status=200, body=portal, headers={"Content-Type": "text/html"})
    behind = s.run("doctor", "--json")
    s.clear()
    found = {c.get("check"): c for c in (behind.json() or {}).get("checks", [])}
    g.check(all(found.get(n, {}).get("ok") is False and "not " + n + "'s answer" in found.get(n, {}).get("detail", "")
                and "text/html" in found.get(n, {}).get("detail", "") for n in ("intervals.icu", "strava")),
            "doctor behind a sign-in page (200, HTML): neither account is said to work, the answer is named",
            str([found.get(n) for n in ("intervals.icu", "strava")]))
    new_key = s.control("revoke", {"service": "intervals.icu"}).get("key")
    add_secret(new_key, "the regenerated intervals.icu key")
    s.control("revoke", {"service": "strava"})
    refused = s.run("doctor", "--json")
    entries = {c.get("check"): c for c in (refused.json() or {}).get("checks", [])}
    g.check(all(entries.get(n, {}).get("ok") is False and entries.get(n, {}).get("fix") for n in ("intervals.icu", "strava")),
            "doctor: a refused key and a revoked app are not ok, with a fix",
            str([entries.get(n) for n in ("intervals.icu", "strava")]))
    g.check(refused.returncode == base_status, "... and do not change doctor's exit status",
            f"{refused.returncode} vs {base_status}")
    elsewhere = {"INTERVALPRO_INTERVALS_ICU_URL": gone.base, "INTERVALPRO_STRAVA_URL": gone.base}
    away = s.run("doctor", "--json", env=elsewhere)
    entries = {c.get("check"): c for c in (away.json() or {}).get("checks", [])}
    g.check(all(entries.get(n, {}).get("ok") is False and entries.get(n, {}).get("fix") for n in ("intervals.icu", "strava")),
            "doctor: unreachable services are not ok, with a fix", str([entries.get(n) for n in ("intervals.icu", "strava")]))
    g.check(away.returncode == base_status, "... and do not change doctor's exit status",
            f"{away.returncode} vs {base_status}")
    g.check(away.elapsed < 20, "doctor does not hang on an unreachable service", f"{away.elapsed:.1f} s")
    today = s.run("today", env=elsewhere)
    expect(g, today, 69, "today with the service unreachable: exit 69")


def group_wellness(g):
    """Readiness and intervals.icu's wellness: read before writing, written with --upload (a
    partial update that keeps what a watch put there), queued on 5xx, sent by --pending."""
    sys.path.insert(0, os.path.join(ROOT, "Tests", "Readiness"))
    from make_recordings import SIMULATOR_DEVICE_ID, make_recording  # noqa: E402 - beside the readiness check
    s = Scenario(g, "wellness")
    # This morning's, at 07:00 local time: a replayed recording is filed under the day it began.
    seven = datetime.datetime.combine(TODAY, datetime.time(7, 0)).astimezone(datetime.timezone.utc)
    recording = make_recording(seed=1, minutes=1, started_at=seven.strftime("%Y-%m-%dT%H:%M:%SZ")).write(
        os.path.join(s.dir, "morning.jsonl"))
    day = TODAY.isoformat()
    wellness_path = f"/api/v1/athlete/{ATHLETE}/wellness/{day}"

    no_account = s.run("readiness", "--replay", recording, "--duration", "1", "--upload")
    expect(g, no_account, 77, "readiness --upload without an intervals.icu account: 77, before measuring")
    history = s.run("readiness", "history", "--json").json()
    g.check(history == [], "... and nothing was saved", str(history))

    add_icu(g, s)
    watch = {"hrv": 58.0, "restingHR": 47, "sleepSecs": 25920, "sleepScore": 81, "readiness": 74}
    s.control("wellness", {"date": day, "record": watch})
    measured = s.run("readiness", "--replay", recording, "--duration", "1", "--json", "--upload")
    expect(g, measured, 0, "readiness --upload with an account: 0")
    m = measured.json() or {}
    shown = m.get("intervals_icu_wellness") or {}
    g.check(shown.get("hrv_ms") == 58.0 and shown.get("resting_hr_bpm") == 47 and shown.get("sleep_s") == 25920
            and shown.get("readiness") == 74, "the day's wellness as the watch left it, read before writing", str(shown))
    puts = s.requests("PUT", wellness_path)
    body = json.loads(puts[0].get("json") or "{}") if puts else {}
    g.check(bool(puts) and puts[0]["headers"].get("content-type") == "application/json"
            and puts[0]["headers"].get("authorization") == f"Basic {ICU_BASIC}",
            "the PUT is JSON with intervals.icu's Basic auth", str(puts[:1]))
    g.check(len(puts) == 1 and body.get("hrv") == round(m.get("rmssd_ms", 0), 1)
            and body.get("restingHR") == round(m.get("mean_hr_bpm", 0)) and body.get("id") == day
            and set(body) == {"id", "hrv", "restingHR"},
            "one PUT with hrv = rMSSD (0.1 ms) and restingHR = the mean heart rate, nothing else", str(body))
    stored = s.state().get("icu_wellness", {}).get(day, {})
    g.check(stored.get("hrv") == body.get("hrv") and stored.get("sleepSecs") == 25920 and stored.get("readiness") == 74,
            "intervals.icu keeps the watch's sleep and readiness beside the written hrv", str(stored))
    g.check("written" in measured.stderr, "the write is said on stderr", measured.stderr[-300:])

    today = s.run("today")
    expect(g, today, 0, "today shows today's readiness and the day's wellness, each labelled",
           stdout_has=["Readiness today: rMSSD", "intervals.icu wellness (a watch, ring or app): HRV "])
    # Offline by the bed: the calendar cannot be read, the morning's readiness is still shown
    # (it was dropped, with only the calendar's error), then the failure and its status.
    s.fault(match=f"GET /api/v1/athlete/{ATHLETE}/events", status=503, times=-1)
    offline = s.run("today")
    expect(g, offline, 69, "today with the calendar unreachable: 69, the readiness still shown",
           stdout_has=["Readiness today: rMSSD"], stderr_has=["intervalpro: error:"])
    offline_json = s.run("today", "--json")
    listed = offline_json.json() or {}
    g.check(offline_json.returncode == 69 and listed.get("readiness") is not None
            and isinstance(listed.get("calendar_error"), str) and listed.get("runs") == [],
            "today --json with the calendar unreachable: the readiness, and calendar_error", offline_json.describe())
    s.clear()
    text = s.run("readiness", "--replay", recording, "--duration", "1", "--no-save")
    expect(g, text, 0, "readiness with an account and no --upload reads the wellness only",
           stdout_has=["intervals.icu wellness", "sleep 7 h 12 min", "readiness 74"])
    g.check(len(s.requests("PUT", wellness_path)) == 1, "... and writes nothing")

    # Another morning's measurement (the same file replayed again is the morning kept before,
    # not saved twice): five minutes later.
    second = make_recording(seed=1, minutes=1, started_at=(seven + datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")).write(
        os.path.join(s.dir, "second.jsonl"))
    s.fault(match=f"PUT {wellness_path}", status=503, times=-1)
    failed = s.run("readiness", "--replay", second, "--duration", "1", "--upload", "--date", day)
    expect(g, failed, 69, "a failing wellness write: 69, queued", stderr_has=["--pending"])
    saved = s.run("readiness", "history", "--json").json() or []
    g.check(len(saved) == 2, "the measurement is saved whatever the write did", str(len(saved)))
    s.clear()
    pending = s.run("upload", "--pending", "--json")
    sent = (pending.json() or {}).get("wellness") or [{}]
    g.check(pending.returncode == 0 and len(sent) == 1 and sent[0].get("status") == "done"
            and sent[0].get("readiness") == (saved[-1].get("id") if saved else None),
            "upload --pending writes the queued measurement", pending.describe())
    again = s.run("upload", "--pending")
    expect(g, again, 0, "nothing is left queued", stdout_has=["No uploads queued."])

    # A morning taken an hour before the day's last, replayed after it, its write queued: the
    # wellness gets the day's value (its last measurement), not the earlier one's.
    six = datetime.datetime.combine(TODAY, datetime.time(6, 0)).astimezone(datetime.timezone.utc)
    early = make_recording(seed=2, minutes=1, started_at=six.strftime("%Y-%m-%dT%H:%M:%SZ")).write(
        os.path.join(s.dir, "early.jsonl"))
    s.fault(match=f"PUT {wellness_path}", status=503, times=-1)
    expect(g, s.run("readiness", "--replay", early, "--duration", "1", "--upload"), 69,
           "an earlier morning's failing write: 69, queued")
    s.clear()
    expect(g, s.run("upload", "--pending"), 0, "upload --pending sends it")
    kept = s.run("readiness", "history", "--json").json() or []
    by_time = sorted(kept, key=lambda r: (r.get("taken_at"), r.get("id")))
    last_put = s.requests("PUT", wellness_path)[-1:] or [{}]
    written = json.loads(last_put[0].get("json") or "{}")
    g.check(len(by_time) == 3 and round(by_time[0]["rmssd_ms"], 1) != round(by_time[-1]["rmssd_ms"], 1)
            and written.get("hrv") == round(by_time[-1]["rmssd_ms"], 1),
            "the queued write of an earlier morning sends the day's last measurement's rMSSD",
            f"{written} {[(r.get('taken_at'), r.get('rmssd_ms')) for r in by_time]}")

    # The account's setting sends every measurement without --upload.
    expect(g, s.run("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", ICU_KEY,
                    "--readiness-to-wellness"), 0, "account add intervals.icu --readiness-to-wellness")
    g.check(((s.accounts() or {}).get("accounts", {}).get("intervals.icu") or {}).get("readiness_to_wellness") is True,
            "accounts.json keeps the setting", str(s.accounts()))
    before = len(s.requests("PUT", wellness_path))
    every = s.run("readiness", "--replay", recording, "--duration", "1")
    expect(g, every, 0, "readiness with the setting: 0")
    g.check(len(s.requests("PUT", wellness_path)) == before + 1, "... and the measurement is written without --upload")

    # A morning dated 1970 (a Pi before the network set its clock) was written to a wellness of 1970.
    dawn = make_recording(seed=2, minutes=1).write(os.path.join(s.dir, "dawn.jsonl"))
    dated = s.run("readiness", "--replay", dawn, "--duration", "1", "--date", "1970-01-01", "--upload")
    expect(g, dated, 65, "a morning dated 1970 is saved, not written to the wellness, and why",
           stderr_has=["before the system clock was set: not written to the wellness"])
    g.check(not s.requests("PUT", f"/api/v1/athlete/{ATHLETE}/wellness/1970-01-01"), "... nothing reached the service")

    # The simulator's strap (its recordings' address) is no runner's morning: it was written
    # to the runner's wellness as one.
    other = Scenario(g, "simulator's morning")
    add_icu(g, other)
    simulator = make_recording(seed=1, minutes=1)
    simulator.device_id = SIMULATOR_DEVICE_ID
    simulator = simulator.write(os.path.join(other.dir, "simulator.jsonl"))
    refused = other.run("readiness", "--replay", simulator, "--duration", "1", "--upload")
    expect(g, refused, 65, "the simulator's morning is saved, not written to the wellness, and why",
           stderr_has=["replays the simulator's strap (00:00:5E:00:53:…), no runner's morning: not written to the wellness"])
    g.check(not other.requests("PUT", f"/api/v1/athlete/{ATHLETE}/wellness/", prefix=True), "... nothing reached the service",
            str(other.requests("PUT", f"/api/v1/athlete/{ATHLETE}/wellness/", prefix=True))[:300])
    listed = other.run("readiness", "history", "--json").json() or [{}]
    g.check(listed[0].get("in_baseline") is False and listed[0].get("days_value") is False,
            "... and it is kept out of the baseline, not its day's value", str(listed)[:300])

    # The runner's morning of that day, earlier, its write queued: `--pending` sends the day's
    # value, which was the simulator's later morning, its figures written as the runner's.
    day_path = f"/api/v1/athlete/{ATHLETE}/wellness/{listed[0].get('date')}"
    early = make_recording(seed=2, minutes=1, started_at="2026-11-25T06:00:00Z").write(os.path.join(other.dir, "early.jsonl"))
    other.fault(match=f"PUT {day_path}", status=503, times=-1)
    queued = other.run("readiness", "--replay", early, "--duration", "1", "--upload")
    expect(g, queued, 69, "the runner's earlier morning of that day, its write failing: 69, queued", stderr_has=["--pending"])
    runners = [e for e in other.run("readiness", "history", "--json").json() or [] if e.get("in_baseline")]
    other.clear()
    before = len(other.requests("PUT", day_path))
    pending = other.run("upload", "--pending")
    puts = other.requests("PUT", day_path)[before:]
    body = json.loads(puts[0].get("json") or "{}") if puts else {}
    g.check(pending.returncode == 0 and len(runners) == 1 and runners[0].get("date") == listed[0].get("date")
            and len(puts) == 1 and body.get("hrv") == round(runners[0].get("rmssd_ms", -1), 1),
            "upload --pending writes the runner's morning, not the simulator's later one", f"{pending.describe()} {body} {runners}")


GROUPS = [
    ("intervals.icu: account, today, run today / icu:ID, upload", group_icu),
    ("the calendar's edge cases and a bad accounts.json", group_calendar),
    ("Strava: OAuth, upload, duplicates, a rejected file, 401, rate limits", group_strava),
    ("Strava: refresh before expiry, saved at once; a revoked app", group_refresh),
    ("the queue: 503, kill -9 mid-upload, run --upload", group_queue),
    ("retries: 5xx, 429 Retry-After, a dropped connection, a slow server", group_retries),
    ("unreachable services and doctor", group_unreachable),
    ("readiness and intervals.icu's wellness: read, written, queued", group_wellness),
]


def run_group(title, function):
    g = Group(title)
    started = time.monotonic()
    try:
        function(g)
    except Exception:
        g.check(False, f"{title}: ran to the end", traceback.format_exc())
    finally:
        for scenario in g.scenarios:
            try:
                scenario.stop()
            except Exception:
                g.check(False, f"{scenario.name}: the stand-in stopped", traceback.format_exc())
    g.note(f"{time.monotonic() - started:.1f} s")
    return g


def check_secrets():
    g = Group("no secret in any output")
    with SECRETS_LOCK:
        secrets_ = dict(SECRETS)
    kinds = " ".join(secrets_.values())
    g.check(all(k in kinds for k in ("API key", "client secret", "access token", "refresh token", "Basic")),
            f"secrets collected: {len(secrets_)} (API keys, client secret, access and refresh tokens, Basic)", kinds)
    leaks = []
    for title, command, stdout, stderr in COMMANDS:
        for secret, what in secrets_.items():
            for stream, text in (("stdout", stdout), ("stderr", stderr)):
                if secret in text:
                    leaks.append(f"`{command}` {stream} shows {what}")
    g.check(not leaks, f"none of the {len(COMMANDS)} commands run (with -v too) prints a key, secret or token",
            "\n      ".join(leaks))
    g.check(sum(" -v" in c[1] for c in COMMANDS) >= 5, "some of them ran with -v")
    return g


def main():
    global BINARY, SCRATCH
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.rsplit("Usage: ", 1)[1])
    BINARY = os.path.abspath(sys.argv[1])
    wait_for_binary()
    started = time.monotonic()
    SCRATCH = tempfile.mkdtemp(prefix="intervalpro-services-")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(GROUPS)) as pool:
            futures = [pool.submit(run_group, title, function) for title, function in GROUPS]
            for future in futures:
                future.result().flush()
        check_secrets().flush()
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    print(f"({time.monotonic() - started:.1f} s)")
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
