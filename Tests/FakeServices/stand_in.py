#!/usr/bin/python3
"""A stand-in for intervals.icu's and Strava's web APIs, on loopback, for IntervalPro's tests.

Plays the parts of both services that the upload, account and calendar commands use,
written from their public documentation (README.md in this folder says which page each
route follows): intervals.icu's API-key Basic auth, athlete, calendar events and activity
upload with its de-duplication; Strava's OAuth authorize/token/deauthorize, athlete,
uploads with asynchronous processing, and the rate-limit headers. With --keep-uploads, the
files uploaded are kept (DIR/<sha256>.<ext>) for a test to read. A test adds faults
(an answer with another status, a slow answer, a dropped connection) and flips switches
(the user denies access, the user revokes the app) through /_control/. Every request is
a line in a JSON-lines log, with all its headers and the parts it carried.

Only the standard library: it runs on the Debian python3 of the test machine.

Usage (see README.md in this folder):
  /usr/bin/python3 stand_in.py --log FILE [--port 0] [--icu-athlete ID] [--icu-key KEY]
      [--icu-events FILE] [--strava-client-id ID] [--strava-client-secret SECRET]
      [--strava-expires-in SECONDS] [--strava-processing-polls N] [--fault JSON]...
      [--keep-uploads DIR]
Prints "listening on 127.0.0.1:PORT" once bound; runs until SIGTERM/SIGINT (exit 0).
"""

import argparse
import base64
import binascii
import datetime
import gzip
import hashlib
import http.server
import json
import os
import re
import secrets
import signal
import socket
import socketserver
import sys
import threading
import time
import traceback
import urllib.parse
import xml.etree.ElementTree as ElementTree
import zlib
from email.message import Message
from email.utils import collapse_rfc2231_value

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from fakes import EX_DATAERR, EX_IOERR, EX_NOINPUT, EX_UNAVAILABLE, EX_USAGE, Usage  # noqa: E402

# Far above any activity file; a runaway client gets 413 instead of filling memory.
MAX_BODY = 64 << 20

ICU_API = "/api/v1/"
STRAVA_API = "/api/v3/"
CONTROL = "/_control/"

ICU_NAME = "Test Runner"
STRAVA_ATHLETE = {"id": 777, "firstname": "Test", "lastname": "Runner"}
# Strava's documented scopes; anything else in /oauth/authorize is refused, so a typo in
# the client shows up here rather than on the real service.
STRAVA_SCOPES = ("read", "read_all", "profile:read_all", "profile:write", "activity:read",
                 "activity:read_all", "activity:write")
STRAVA_DATA_TYPES = ("fit", "fit.gz", "tcx", "tcx.gz", "gpx", "gpx.gz")
PROCESSING = "Your activity is still being processed."
READY = "Your activity is ready."
FAILED = "There was an error processing your activity."
# Strava's default application limits (developers.strava.com/docs/rate-limits).
RATE_LIMIT = "200,2000"
READ_RATE_LIMIT = "100,1000"
FIRST_ICU_ACTIVITY = 9001
FIRST_STRAVA_UPLOAD = 5001
FIRST_STRAVA_ACTIVITY = 8001

FAULT_KEYS = {"match", "times", "status", "body", "headers", "delay", "drop"}


class Malformed(Exception):
    """A request the stand-in cannot read: answered 400 in the service's error shape."""


class TooLarge(Exception):
    pass


class Reply:
    """An answer: status, body (None: empty; bytes/str: as is; else JSON), headers."""

    def __init__(self, status, body=None, headers=None):
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


class Part:
    __slots__ = ("name", "filename", "content_type", "data")

    def __init__(self, name, filename, content_type, data):
        self.name = name
        self.filename = filename
        self.content_type = content_type
        self.data = data

    def text(self):
        return self.data.decode("utf-8", errors="replace")


class Request:
    """What the handler read: the routes see this, the log records it."""

    def __init__(self, method, target, headers, body):
        self.method = method
        split = urllib.parse.urlsplit(target)
        self.path = split.path
        self.query = first_values(split.query)
        self.headers = headers  # lower-case name -> value (repeats joined with ", ")
        self.body = body
        self.content_type = headers.get("content-type", "")
        self.media_type = self.content_type.split(";")[0].strip().lower()
        self.form = None
        self.parts = None
        self.malformed = None
        if self.media_type == "application/x-www-form-urlencoded":
            self.form = first_values(body.decode("utf-8", errors="replace"))
        elif self.media_type == "multipart/form-data":
            try:
                self.parts = parse_multipart(body, self.content_type)
            except Malformed as error:
                self.malformed = str(error)

    def part(self, name):
        return next((p for p in self.parts or () if p.name == name), None)

    def field(self, name):
        """A text field: from a multipart part or a form body, else the query string."""
        part = self.part(name)
        if part is not None:
            return part.text()
        if self.form is not None and name in self.form:
            return self.form[name]
        return self.query.get(name)


def first_values(text):
    return {name: values[0] for name, values in
            urllib.parse.parse_qs(text, keep_blank_values=True).items()}


def header_param(value, header, param):
    message = Message()
    message[header] = value
    found = message.get_param(param, header=header)
    return None if found is None else collapse_rfc2231_value(found)


def parse_multipart(body, content_type):
    """multipart/form-data (RFC 7578) by hand: email's parser would rewrite binary line ends."""
    boundary = header_param(content_type, "content-type", "boundary")
    if not boundary:
        raise Malformed("multipart/form-data without a boundary")
    sections = (b"\r\n" + body).split(b"\r\n--" + boundary.encode("latin-1"))
    if len(sections) < 2:
        raise Malformed("the boundary is not in the body")
    parts = []
    for section in sections[1:]:
        if section.startswith(b"--"):
            return parts
        line_end = section.find(b"\r\n")
        if line_end < 0 or section[:line_end].strip(b" \t"):
            raise Malformed("a boundary line has something after the boundary")
        head_end = section.find(b"\r\n\r\n", line_end)
        if head_end < 0:
            raise Malformed("a part's headers do not end")
        headers = {}
        for line in section[line_end + 2:head_end].split(b"\r\n"):
            name, colon, value = line.decode("utf-8", errors="replace").partition(":")
            if not colon:
                raise Malformed(f"a part has a header line without a colon: {line[:60]!r}")
            headers[name.strip().lower()] = value.strip()
        disposition = headers.get("content-disposition", "")
        if disposition.split(";")[0].strip().lower() != "form-data":
            raise Malformed("a part without Content-Disposition: form-data")
        name = header_param(disposition, "content-disposition", "name")
        if name is None:
            raise Malformed("a part without a name")
        message = Message()
        message["content-disposition"] = disposition
        parts.append(Part(name, message.get_filename(), headers.get("content-type"),
                          section[head_end + 4:]))
    raise Malformed("the closing boundary is missing")


# The two upload routes whose file parts --keep-uploads keeps.
UPLOAD_PATH = re.compile(r"^(/api/v1/athlete/[^/]+/activities|/api/v3/uploads)$")


def kept_suffix(filename):
    """'.fit' of 'session-7.fit', '.fit.gz' of 'a.fit.gz'; '' without an extension (or an odd one)."""
    words = os.path.basename(filename.replace("\\", "/")).lower().split(".")[1:]
    if len(words) >= 2 and words[-1] == "gz":
        words = words[-2:]
    else:
        words = words[-1:]
    if not words or not all(re.fullmatch(r"[a-z0-9]{1,10}", w) for w in words):
        return ""
    return "." + ".".join(words)


def looks_like_fit(data):
    # The FIT file header: size, protocol, profile, data size, then ".FIT" at bytes 8..11.
    return len(data) >= 12 and data[8:12] == b".FIT"


def strava_file_readable(data, data_type):
    """What Strava's processing would find: FIT by its header, TCX/GPX by their root element."""
    if data_type.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return False
    kind = data_type.split(".")[0]
    if kind == "fit":
        return looks_like_fit(data)
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return False
    return root.tag.rsplit("}", 1)[-1] == ("TrainingCenterDatabase" if kind == "tcx" else "gpx")


def icu_error(status, message, headers=None):
    return Reply(status, {"status": status, "error": message}, headers)


def strava_error(status, message, resource, field, code):
    return Reply(status, {"message": message,
                          "errors": [{"resource": resource, "field": field, "code": code}]})


def strava_bad_request(resource, field, code="invalid"):
    return strava_error(400, "Bad Request", resource, field, code)


def service_of(path):
    if path.startswith(CONTROL):
        return "control"
    if path.startswith(ICU_API):
        return "intervals.icu"
    if path.startswith(STRAVA_API) or path.startswith("/oauth/"):
        return "strava"
    return None


def parse_fault(value):
    """A fault as given (--fault or /_control/fault), checked; raises ValueError saying why."""
    if not isinstance(value, dict):
        raise ValueError("a fault is a JSON object")
    unknown = sorted(set(value) - FAULT_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")
    match = value.get("match")
    words = match.split() if isinstance(match, str) else []
    if len(words) != 2 or not words[1].startswith("/") or not (words[0] == "*" or words[0].isalpha()):
        raise ValueError('"match" must be "METHOD /path-prefix" (METHOD may be *)')
    times = value.get("times", 1)
    if not isinstance(times, int) or isinstance(times, bool) or not (times == -1 or times >= 1):
        raise ValueError('"times" must be a positive integer, or -1 for ever')
    actions = [key for key in ("status", "delay", "drop") if key in value]
    if len(actions) != 1:
        raise ValueError('a fault has exactly one of "status", "delay", "drop"')
    if ("body" in value or "headers" in value) and actions != ["status"]:
        raise ValueError('"body" and "headers" go with "status"')
    fault = {"match": f"{words[0].upper()} {words[1]}", "times": times}
    if "status" in value:
        status = value["status"]
        if not isinstance(status, int) or isinstance(status, bool) or not 200 <= status <= 599:
            raise ValueError('"status" must be an HTTP status from 200 to 599')
        fault["status"] = status
        if "body" in value:
            fault["body"] = value["body"]
        headers = value.get("headers", {})
        if not isinstance(headers, dict) or not all(
                isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in headers.values()):
            raise ValueError('"headers" must be an object of names to strings or numbers')
        if headers:
            fault["headers"] = {str(k): str(v) for k, v in headers.items()}
    elif "delay" in value:
        delay = value["delay"]
        if not isinstance(delay, (int, float)) or isinstance(delay, bool) or not 0 <= delay <= 600:
            raise ValueError('"delay" must be seconds from 0 to 600')
        fault["delay"] = delay
    else:
        if value["drop"] is not True:
            raise ValueError('"drop" must be true')
        fault["drop"] = True
    return fault


def load_events(path):
    """The calendar from --icu-events; raises OSError (unreadable) or ValueError (bad content)."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        events = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"not JSON: {error}") from None
    if not isinstance(events, list):
        raise ValueError("the top level must be an array of events")
    seen = set()
    for index, event in enumerate(events):
        where = f"[{index}]"
        if not isinstance(event, dict):
            raise ValueError(f"{where}: an event is an object")
        if not isinstance(event.get("id"), int) or isinstance(event.get("id"), bool):
            raise ValueError(f"{where}.id: an integer is required")
        if event["id"] in seen:
            raise ValueError(f"{where}.id: {event['id']} appears twice")
        seen.add(event["id"])
        start = event.get("start_date_local")
        if not isinstance(start, str) or parse_day(start) is None:
            raise ValueError(f"{where}.start_date_local: YYYY-MM-DDTHH:MM:SS is required")
        for key in ("category", "name", "description", "type"):
            if key in event and event[key] is not None and not isinstance(event[key], str):
                raise ValueError(f"{where}.{key}: a string is required")
    return events


def parse_day(text):
    """'YYYY-MM-DD' of a date or local date-time, or None."""
    if not re.match(r"\d{4}-\d{2}-\d{2}(T|$)", text):
        return None
    try:
        datetime.date.fromisoformat(text[:10])
    except ValueError:
        return None
    return text[:10]


class State:
    """Both services' accounts and what happened to them; one lock for all of it."""

    def __init__(self, args, events, log):
        self.lock = threading.Lock()
        self.log_handle = log
        self.log_lock = threading.Lock()
        self.keep_uploads = args.keep_uploads
        self.faults = []  # {"spec": fault as logged, "left": applications left (-1: for ever)}
        for spec in args.fault:
            self.add_fault(spec)
        # intervals.icu
        self.icu_athlete = args.icu_athlete
        self.icu_key = args.icu_key
        self.icu_events = events
        self.icu_activities = []
        # Wellness records by date, as a watch, a ring or a PUT left them.
        self.icu_wellness = {}
        self.icu_by_sha = {}
        # Strava
        self.client_id = args.strava_client_id
        self.client_secret = args.strava_client_secret
        self.expires_in = args.strava_expires_in
        self.processing_polls = args.strava_processing_polls
        self.deny = False
        self.codes = {}  # code -> granted scope
        self.access_tokens = {}  # token -> expiry (time.time())
        self.refresh_tokens = set()
        self.refreshes = 0
        self.uploads = {}  # id -> record (public fields and ours)
        self.activities = {}  # id -> record
        self.strava_by_sha = {}
        self.next_upload = FIRST_STRAVA_UPLOAD
        self.next_activity = FIRST_STRAVA_ACTIVITY
        self.rate_window = (None, None)
        self.usage = [0, 0]  # 15-minute, daily
        self.read_usage = [0, 0]

    # ---- log and faults

    def write_log(self, record):
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
        with self.log_lock:
            if not self.log_handle.closed:  # a slow answer finishing after SIGTERM is not logged
                self.log_handle.write(line)
                self.log_handle.flush()

    def add_fault(self, spec):
        with self.lock:
            self.faults.append({"spec": spec, "left": spec["times"]})

    def take_fault(self, method, path):
        """The first fault matching with applications left, counted down; or None."""
        with self.lock:
            for entry in self.faults:
                want_method, prefix = entry["spec"]["match"].split(" ", 1)
                if want_method in ("*", method) and path.startswith(prefix):
                    if entry["left"] > 0:
                        entry["left"] -= 1
                        if entry["left"] == 0:
                            self.faults.remove(entry)
                    return entry["spec"]
        return None

    def remaining_faults(self):
        return [dict(entry["spec"], times_left=entry["left"]) for entry in self.faults]

    # ---- --keep-uploads

    def keep_files(self, request):
        """Writes each file part of an upload to DIR/<sha256>.<ext> (--keep-uploads)."""
        if not self.keep_uploads or request.method != "POST" or not UPLOAD_PATH.match(request.path):
            return
        for part in request.parts or ():
            if part.filename is None:
                continue
            path = os.path.join(self.keep_uploads, hashlib.sha256(part.data).hexdigest() + kept_suffix(part.filename))
            if os.path.exists(path):
                continue  # the same bytes (its name is their hash)
            temporary = f"{path}.{threading.get_ident()}.part"
            try:
                with open(temporary, "wb") as handle:
                    handle.write(part.data)
                os.replace(temporary, path)
            except OSError as error:
                print(f"stand_in: --keep-uploads: {path}: {error.strerror}", file=sys.stderr)

    # ---- Strava rate limits

    def count_strava(self, method, path):
        """Counts a request to /api/v3 and returns the four rate-limit headers' values."""
        now = time.time()
        # Windows as Strava documents them: natural quarter hours, days from midnight UTC.
        window = (int(now // 900), int(now // 86400))
        with self.lock:
            if window[1] != self.rate_window[1]:
                self.usage, self.read_usage = [0, 0], [0, 0]
            elif window[0] != self.rate_window[0]:
                self.usage[0] = self.read_usage[0] = 0
            self.rate_window = window
            self.usage = [self.usage[0] + 1, self.usage[1] + 1]
            # The read limit counts every endpoint but uploads (and activity creation).
            if not (method == "POST" and path.startswith("/api/v3/uploads")):
                self.read_usage = [self.read_usage[0] + 1, self.read_usage[1] + 1]
            return {"X-RateLimit-Limit": RATE_LIMIT,
                    "X-RateLimit-Usage": f"{self.usage[0]},{self.usage[1]}",
                    "X-ReadRateLimit-Limit": READ_RATE_LIMIT,
                    "X-ReadRateLimit-Usage": f"{self.read_usage[0]},{self.read_usage[1]}"}

    # ---- Strava tokens (call with the lock held)

    def issue_tokens(self):
        now = time.time()
        access, refresh = secrets.token_hex(20), secrets.token_hex(20)
        self.access_tokens[access] = now + self.expires_in
        self.refresh_tokens.add(refresh)
        return {"token_type": "Bearer", "expires_at": int(now + self.expires_in),
                "expires_in": self.expires_in, "refresh_token": refresh, "access_token": access}

    def access_token_valid(self, token):
        with self.lock:
            expiry = self.access_tokens.get(token)
            return expiry is not None and time.time() < expiry

    def snapshot(self):
        with self.lock:
            return json.loads(json.dumps({
                "faults": self.remaining_faults(),
                "uploads": {str(k): v for k, v in self.uploads.items()},
                "activities": {str(k): v for k, v in self.activities.items()},
                "refreshes": self.refreshes,
                "icu_activities": self.icu_activities,
                "icu_wellness": self.icu_wellness,
                "deny": self.deny,
                "strava_access_tokens": len(self.access_tokens),
                "strava_refresh_tokens": len(self.refresh_tokens),
            }))


# ---------------------------------------------------------------------------- intervals.icu

ICU_ROUTES = [
    (re.compile(r"^/api/v1/athlete/([^/]+)$"), "GET", "icu_athlete"),
    (re.compile(r"^/api/v1/athlete/([^/]+)/events$"), "GET", "icu_events"),
    (re.compile(r"^/api/v1/athlete/([^/]+)/events/([^/]+)$"), "GET", "icu_event"),
    (re.compile(r"^/api/v1/athlete/([^/]+)/activities$"), "POST", "icu_upload"),
    (re.compile(r"^/api/v1/athlete/([^/]+)/wellness/([^/]+)$"), "GET", "icu_wellness"),
    (re.compile(r"^/api/v1/athlete/([^/]+)/wellness/([^/]+)$"), "PUT", "icu_wellness_update"),
]


def icu_authorized(state, request):
    """HTTP Basic with user API_KEY and the key as password (the cookbook's personal use)."""
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, key = decoded.partition(":")
    with state.lock:
        current = state.icu_key
    return bool(colon) and user == "API_KEY" and secrets.compare_digest(key.encode(), current.encode())


def icu(state, request):
    if not icu_authorized(state, request):
        return icu_error(401, "Unauthorized", {"WWW-Authenticate": 'Basic realm="intervals.icu"'})
    allowed = [method for pattern, method, _ in ICU_ROUTES if pattern.match(request.path)]
    if allowed and request.method not in allowed:
        return icu_error(405, "Method Not Allowed", {"Allow": ", ".join(allowed)})
    for pattern, method, name in ICU_ROUTES:
        found = pattern.match(request.path)
        if not found or request.method != method:
            continue
        athlete = urllib.parse.unquote(found.group(1))
        # "0" is the key's own athlete, as the API documents.
        if athlete not in (state.icu_athlete, "0"):
            return icu_error(403, "Access denied")
        return ICU_HANDLERS[name](state, request, *[urllib.parse.unquote(g) for g in found.groups()[1:]])
    return icu_error(404, "Not found")


def icu_athlete(state, request):
    return Reply(200, {"id": state.icu_athlete, "name": ICU_NAME})


def icu_events(state, request):
    oldest = request.query.get("oldest")
    if not oldest:
        return icu_error(400, "oldest is required")
    newest = request.query.get("newest") or oldest
    first, last = parse_day(oldest), parse_day(newest)
    if first is None or last is None:
        return icu_error(400, "oldest and newest must be dates (YYYY-MM-DD)")
    categories = None
    if request.query.get("category"):
        categories = {c.strip() for c in request.query["category"].split(",") if c.strip()}
    events = [e for e in state.icu_events if first <= e["start_date_local"][:10] <= last
              and (categories is None or e.get("category") in categories)]
    events.sort(key=lambda e: (e["start_date_local"], e["id"]))
    return Reply(200, events)


def icu_event(state, request, event_id):
    event = next((e for e in state.icu_events if str(e["id"]) == event_id), None)
    if event is None:
        return icu_error(404, "Event not found")
    return Reply(200, event)


def icu_upload(state, request):
    if request.malformed:
        return icu_error(400, f"Malformed multipart body: {request.malformed}")
    file = request.part("file")
    if file is None:
        return icu_error(400, "file is required")
    if not looks_like_fit(file.data):
        return icu_error(422, "Unable to read file: not a FIT file")
    paired = request.field("paired_event_id")
    if paired not in (None, ""):
        try:
            paired = int(paired)
        except ValueError:
            return icu_error(400, "paired_event_id must be a number")
    else:
        paired = None
    digest = hashlib.sha256(file.data).hexdigest()
    with state.lock:
        # Activities are de-duplicated by a hash of the file data (the cookbook says so):
        # the same file again answers with the activity it already made.
        activity = state.icu_by_sha.get(digest)
        if activity is not None:
            activity["uploads"] += 1
        else:
            activity = {"id": f"i{FIRST_ICU_ACTIVITY + len(state.icu_activities)}",
                        "name": request.field("name") or "Run",
                        "description": request.field("description"),
                        "external_id": request.field("external_id"),
                        "paired_event_id": paired,
                        "filename": file.filename, "size": len(file.data), "sha256": digest,
                        "uploads": 1}
            state.icu_activities.append(activity)
            state.icu_by_sha[digest] = activity
        answer = {"icu_athlete_id": state.icu_athlete, "id": activity["id"],
                  "activities": [{"id": activity["id"], "icu_athlete_id": state.icu_athlete,
                                  "name": activity["name"]}]}
    return Reply(201, answer)


# The wellness fields a record may hold (numbers; a few of intervals.icu's, those readiness uses and more).
WELLNESS_FIELDS = {"hrv", "hrvSDNN", "restingHR", "sleepSecs", "sleepScore", "sleepQuality", "avgSleepingHR",
                   "readiness", "weight", "spO2", "respiration", "soreness", "fatigue", "stress", "mood", "motivation"}


def icu_wellness(state, request, date):
    """A day's record: {"id": date} and the fields the day has (a day with none is that alone)."""
    if parse_day(date) != date:
        return icu_error(400, f"Invalid date {date}")
    with state.lock:
        return Reply(200, {"id": date, **state.icu_wellness.get(date, {})})


def icu_wellness_update(state, request, date):
    """As the API documents a PUT: only the fields sent change; -1 clears a number."""
    if parse_day(date) != date:
        return icu_error(400, f"Invalid date {date}")
    body = read_json(request)
    if not isinstance(body, dict):
        return icu_error(422, "expected a JSON object")
    if body.get("id", date) != date:
        return icu_error(422, f"id {body.get('id')} is not {date}")
    unknown = [k for k in body if k != "id" and k not in WELLNESS_FIELDS]
    if unknown:
        return icu_error(422, f"unknown field {unknown[0]}")
    if any(not isinstance(body[k], (int, float)) or isinstance(body[k], bool) for k in body if k != "id"):
        return icu_error(422, "wellness fields are numbers")
    with state.lock:
        record = state.icu_wellness.setdefault(date, {})
        for key, value in body.items():
            if key == "id":
                continue
            if value == -1:
                record.pop(key, None)
            else:
                record[key] = value
        return Reply(200, {"id": date, **record})


ICU_HANDLERS = {"icu_athlete": icu_athlete, "icu_events": icu_events, "icu_event": icu_event,
                "icu_upload": icu_upload, "icu_wellness": icu_wellness, "icu_wellness_update": icu_wellness_update}


# ---------------------------------------------------------------------------- Strava

def strava_oauth(state, request):
    routes = {"/oauth/authorize": ("GET", strava_authorize), "/oauth/token": ("POST", strava_token),
              "/oauth/deauthorize": ("POST", strava_deauthorize)}
    if request.path not in routes:
        return Reply(404, {"message": "Record Not Found", "errors": []})
    method, handler = routes[request.path]
    # Strava's authorize page is a page a browser GETs; POST it is refused too.
    if request.method != method:
        return Reply(405, {"message": "Method Not Allowed", "errors": []}, {"Allow": method})
    return handler(state, request)


def strava_authorize(state, request):
    """Plays the user: approves at once (or denies with /_control/deny) and redirects back."""
    query = request.query
    if query.get("client_id") != state.client_id:
        return strava_bad_request("Application", "client_id")
    redirect_uri = query.get("redirect_uri")
    if not redirect_uri:
        return strava_bad_request("Application", "redirect_uri")
    if query.get("response_type") != "code":
        return strava_bad_request("Application", "response_type")
    scopes = [s for s in (query.get("scope") or "read").split(",") if s]
    if any(s not in STRAVA_SCOPES for s in scopes):
        return strava_bad_request("Application", "scope")
    if "read" not in scopes:
        scopes.insert(0, "read")  # Strava grants read with any other scope
    params = []
    if "state" in query:
        params.append(("state", query["state"]))
    with state.lock:
        if state.deny:
            params.append(("error", "access_denied"))
        else:
            code = secrets.token_hex(20)
            state.codes[code] = ",".join(scopes)
            params += [("code", code), ("scope", ",".join(scopes))]
    encoded = "&".join(f"{k}={urllib.parse.quote(v, safe=',:' if k == 'scope' else '')}"
                       for k, v in params)
    separator = "&" if "?" in redirect_uri else "?"
    return Reply(302, None, {"Location": redirect_uri + separator + encoded})


def strava_token(state, request):
    # Strava takes the fields as a form body or as query parameters.
    field = request.field
    if field("client_id") != state.client_id:
        return strava_bad_request("Application", "client_id")
    if field("client_secret") != state.client_secret:
        return strava_bad_request("Application", "client_secret")
    grant = field("grant_type")
    with state.lock:
        if grant == "authorization_code":
            if state.codes.pop(field("code") or "", None) is None:  # one use only
                return strava_bad_request("RequestToken", "code")
            answer = state.issue_tokens()
            answer["athlete"] = dict(STRAVA_ATHLETE)
            return Reply(200, answer)
        if grant == "refresh_token":
            old = field("refresh_token") or ""
            if old not in state.refresh_tokens:
                return strava_bad_request("RefreshToken", "refresh_token")
            # A new refresh token each time, the old one refused from now on; the access
            # tokens already given stay valid until they expire.
            state.refresh_tokens.discard(old)
            state.refreshes += 1
            return Reply(200, state.issue_tokens())
    return strava_bad_request("RequestToken", "grant_type")


def strava_deauthorize(state, request):
    token = request.field("access_token") or bearer_token(request)
    if not token or not state.access_token_valid(token):
        return strava_unauthorized()
    with state.lock:
        state.access_tokens.clear()
        state.refresh_tokens.clear()
    return Reply(200, {"access_token": token})


def bearer_token(request):
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def strava_unauthorized():
    return strava_error(401, "Authorization Error", "Athlete", "access_token", "invalid")


STRAVA_ROUTES = [
    (re.compile(r"^/api/v3/athlete$"), "GET", "athlete"),
    (re.compile(r"^/api/v3/uploads$"), "POST", "upload"),
    (re.compile(r"^/api/v3/uploads/([^/]+)$"), "GET", "upload_status"),
]


def strava_api(state, request):
    if request.path == "/api/v3/oauth/token":  # the token endpoint's other documented address
        if request.method != "POST":
            return Reply(405, {"message": "Method Not Allowed", "errors": []}, {"Allow": "POST"})
        return strava_token(state, request)
    token = bearer_token(request)
    if not token or not state.access_token_valid(token):
        return strava_unauthorized()
    for pattern, method, name in STRAVA_ROUTES:
        found = pattern.match(request.path)
        if not found:
            continue
        if request.method != method:
            return Reply(405, {"message": "Method Not Allowed", "errors": []}, {"Allow": method})
        return STRAVA_HANDLERS[name](state, request, *found.groups())
    return strava_error(404, "Record Not Found", "resource", "path", "invalid")


def strava_athlete(state, request):
    return Reply(200, dict(STRAVA_ATHLETE))


def public_upload(upload):
    return {key: upload[key] for key in ("id", "id_str", "external_id", "error", "status", "activity_id")}


def strava_upload(state, request):
    if request.malformed:
        return strava_bad_request("Upload", "file")
    file = request.part("file")
    if file is None or not file.data:
        return strava_bad_request("Upload", "file", "empty")
    data_type = request.field("data_type")
    if data_type not in STRAVA_DATA_TYPES:
        return strava_bad_request("Upload", "data_type")
    with state.lock:
        upload_id = state.next_upload
        state.next_upload += 1
        upload = {"id": upload_id, "id_str": str(upload_id),
                  "external_id": request.field("external_id") or file.filename,
                  "error": None, "status": PROCESSING, "activity_id": None,
                  "polls": 0, "filename": file.filename, "data_type": data_type,
                  "size": len(file.data), "sha256": hashlib.sha256(file.data).hexdigest(),
                  "readable": strava_file_readable(file.data, data_type)}
        for key in ("name", "description", "trainer", "commute", "sport_type"):
            upload[key] = request.field(key)
        state.uploads[upload_id] = upload
        return Reply(201, public_upload(upload))


def strava_upload_status(state, request, upload_id):
    with state.lock:
        upload = state.uploads.get(int(upload_id)) if upload_id.isdigit() else None
        if upload is None:
            return strava_error(404, "Record Not Found", "Upload", "id", "not found")
        upload["polls"] += 1
        if upload["status"] == PROCESSING and upload["polls"] > state.processing_polls:
            finish_processing(state, upload)
        return Reply(200, public_upload(upload))


def finish_processing(state, upload):
    """What Strava's processing ends in: unreadable, a duplicate by file data, or an activity."""
    if not upload["readable"]:
        upload.update(error="Improperly formatted data.", status=FAILED)
        return
    existing = state.strava_by_sha.get(upload["sha256"])
    if existing is not None:
        name = upload["filename"] or upload["external_id"]
        upload.update(error=f"{name} duplicate of activity {existing}", status=FAILED)
        return
    activity_id = state.next_activity
    state.next_activity += 1
    state.strava_by_sha[upload["sha256"]] = activity_id
    state.activities[activity_id] = {
        "id": activity_id, "upload_id": upload["id"], "external_id": upload["external_id"],
        "name": upload["name"], "description": upload["description"],
        "sport_type": upload["sport_type"], "trainer": upload["trainer"], "commute": upload["commute"],
        "filename": upload["filename"], "sha256": upload["sha256"]}
    upload.update(status=READY, activity_id=activity_id)


STRAVA_HANDLERS = {"athlete": strava_athlete, "upload": strava_upload, "upload_status": strava_upload_status}


# ---------------------------------------------------------------------------- control

def read_json(request):
    if not request.body.strip():
        return {}
    try:
        return json.loads(request.body)
    except (ValueError, UnicodeDecodeError) as error:
        raise Malformed(f"the body is not JSON: {error}") from None


def control(state, request):
    routes = {"/_control/fault": "POST", "/_control/deny": "POST", "/_control/revoke": "POST",
              "/_control/clear": "POST", "/_control/state": "GET", "/_control/wellness": "POST"}
    if request.path not in routes:
        return Reply(404, {"message": f"no control {request.path}"})
    if request.method != routes[request.path]:
        return Reply(405, {"message": "Method Not Allowed"}, {"Allow": routes[request.path]})
    if request.path == "/_control/state":
        return Reply(200, state.snapshot())
    body = read_json(request)
    if request.path == "/_control/fault":
        try:
            fault = parse_fault(body)
        except ValueError as error:
            return Reply(400, {"message": f"bad fault: {error}"})
        state.add_fault(fault)
        with state.lock:
            return Reply(200, {"added": fault, "faults": state.remaining_faults()})
    if request.path == "/_control/clear":
        with state.lock:
            cleared = len(state.faults)
            state.faults.clear()
        return Reply(200, {"cleared": cleared})
    if request.path == "/_control/wellness":
        # What a watch or ring synced for a day: {"date": "YYYY-MM-DD", "record": {...}}.
        if not isinstance(body, dict) or parse_day(str(body.get("date"))) != body.get("date") \
                or not isinstance(body.get("record"), dict):
            return Reply(400, {"message": 'expected {"date": "YYYY-MM-DD", "record": {...}}'})
        with state.lock:
            state.icu_wellness[body["date"]] = dict(body["record"])
        return Reply(200, {"date": body["date"], "record": body["record"]})
    if request.path == "/_control/deny":
        if not isinstance(body, dict) or not isinstance(body.get("deny"), bool):
            return Reply(400, {"message": 'expected {"deny": true|false}'})
        with state.lock:
            state.deny = body["deny"]
        return Reply(200, {"deny": body["deny"]})
    service = body.get("service") if isinstance(body, dict) else None
    if service == "strava":
        with state.lock:
            revoked = {"access_tokens": len(state.access_tokens), "refresh_tokens": len(state.refresh_tokens)}
            state.access_tokens.clear()
            state.refresh_tokens.clear()
        return Reply(200, {"service": "strava", "revoked": revoked})
    if service == "intervals.icu":
        with state.lock:
            state.icu_key = "icu-" + secrets.token_hex(12)
            return Reply(200, {"service": "intervals.icu", "key": state.icu_key})
    return Reply(400, {"message": 'expected {"service": "strava"|"intervals.icu"}'})


# ---------------------------------------------------------------------------- HTTP

def fault_reply(request, fault):
    status = fault["status"]
    phrase = http.server.BaseHTTPRequestHandler.responses.get(status, ("Error",))[0]
    if "body" in fault:
        body = fault["body"]
    elif request.path.startswith(ICU_API):
        body = {"status": status, "error": phrase}
    elif status == 429 and service_of(request.path) == "strava":
        body = {"message": "Rate Limit Exceeded",
                "errors": [{"resource": "Application", "field": "rate limit", "code": "exceeded"}]}
    elif service_of(request.path) == "strava":
        body = {"message": phrase, "errors": []}
    else:
        body = {"message": phrase}
    return Reply(status, body, fault.get("headers"))


def route(state, request):
    if request.path.startswith(ICU_API):
        return icu(state, request)
    if request.path.startswith(STRAVA_API):
        return strava_api(state, request)
    if request.path.startswith("/oauth/"):
        return strava_oauth(state, request)
    return Reply(404, {"message": "Not Found"})


class Handler(http.server.BaseHTTPRequestHandler):
    # HTTP/1.1: keep-alive as the real services, and Expect: 100-continue (curl) answered.
    protocol_version = "HTTP/1.1"
    server_version = "IntervalProStandIn/1"
    timeout = 60  # an idle kept-alive connection does not hold a thread for ever

    def do_GET(self):
        self.serve()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def log_message(self, format, *args):
        pass  # the JSON-lines log says everything; stderr is kept for real errors

    def send_error(self, code, message=None, explain=None):
        """http.server's own refusals (bad request line, unknown method), as JSON and logged."""
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"  # so that a status line and headers are sent
        self.close_connection = True
        phrase = self.responses.get(code, ("Error",))[0]
        body = json.dumps({"message": message or phrase}).encode()
        headers = getattr(self, "headers", None)
        target = getattr(self, "path", None)
        self.server.state.write_log(self.record(
            self.command, urllib.parse.urlsplit(target).path if target else None,
            headers_of(headers) if headers else {}, None, code, None, time.monotonic()))
        try:
            self.send_response(code, phrase)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:
            pass

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks, total = [], 0
            while True:
                line = self.rfile.readline(65537)
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise Malformed("a bad chunk size") from None
                if size < 0:
                    raise Malformed("a bad chunk size")
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                total += size
                if total > MAX_BODY:
                    raise TooLarge()
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        try:
            size = int(length)
        except ValueError:
            raise Malformed("Content-Length is not a number") from None
        if size < 0:
            raise Malformed("Content-Length is negative")
        if size > MAX_BODY:
            raise TooLarge()
        body = self.rfile.read(size)
        if len(body) < size:
            raise Malformed("the body is shorter than Content-Length")
        return body

    def serve(self):
        state = self.server.state
        received = time.monotonic()
        headers = headers_of(self.headers)
        path = urllib.parse.urlsplit(self.path).path
        try:
            body = self.read_body()
        except (Malformed, TooLarge) as error:
            # The framing is lost: answer and close.
            self.close_connection = True
            status = 413 if isinstance(error, TooLarge) else 400
            reply = Reply(status, {"message": str(error) or "Request Entity Too Large"}, {"Connection": "close"})
            state.write_log(self.record(self.command, path, headers, None, status, None, received))
            self.answer(reply)
            return
        request = None
        fault = None
        rate_headers = None
        try:
            request = Request(self.command, self.path, headers, body)
            state.keep_files(request)
            if request.path.startswith(CONTROL):
                reply = control(state, request)
            else:
                if request.path.startswith(STRAVA_API):
                    rate_headers = state.count_strava(request.method, request.path)
                fault = state.take_fault(request.method, request.path)
                if fault is not None and fault.get("drop"):
                    state.write_log(self.record(self.command, request.path, headers, request, None,
                                                fault, received))
                    self.drop()
                    return
                if fault is not None and "status" in fault:
                    reply = fault_reply(request, fault)
                else:
                    if fault is not None:
                        time.sleep(fault["delay"])  # this thread only: the others keep serving
                    reply = route(state, request)
        except Malformed as error:
            reply = Reply(400, {"message": str(error)})
        except Exception:  # a bug here must not become a traceback sent to the client
            traceback.print_exc(file=sys.stderr)
            reply = Reply(500, {"message": "stand-in error"})
        if rate_headers:
            reply.headers = dict(rate_headers, **reply.headers)
        # Logged before it is answered: a client that ends on this answer (the last of its
        # retries) may be checked at once, and the log must already hold the request.
        state.write_log(self.record(self.command, path, headers, request, reply.status, fault, received))
        self.answer(reply)

    def drop(self):
        """Closes the connection without a byte of answer (the client sees EOF)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def answer(self, reply):
        body = reply.body
        headers = dict(reply.headers)
        if body is None:
            payload = b""
        elif isinstance(body, bytes):
            payload = body
            headers.setdefault("Content-Type", "application/octet-stream")
        elif isinstance(body, str):
            payload = body.encode("utf-8")
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
        else:
            payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            headers.setdefault("Content-Type", "application/json; charset=utf-8")
        if reply.status < 200 or reply.status in (204, 304):
            payload = b""
        try:
            self.send_response(reply.status)
            for name, value in headers.items():
                self.send_header(name, str(value))
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
        except OSError:
            self.close_connection = True  # the client went away (a timeout on a slow answer)

    def record(self, method, path, headers, request, status, fault, received):
        media = request.media_type if request else None
        return {
            "t": time.monotonic(),
            "wall": time.time(),
            "received": received,
            "service": service_of(path) if path else None,
            "method": method,
            "path": path,
            "query": request.query if request else {},
            "headers": headers,
            "body_size": len(request.body) if request else None,
            "form": request.form if media == "application/x-www-form-urlencoded" else None,
            "json": request.body.decode("utf-8", "replace") if request and media == "application/json" else None,
            "parts": None if request is None or request.parts is None else [
                dict({"name": p.name, "filename": p.filename, "content_type": p.content_type,
                      "size": len(p.data), "sha256": hashlib.sha256(p.data).hexdigest()},
                     **({} if p.filename is not None else {"text": p.text()}))
                for p in request.parts],
            "status": status,
            "fault": fault,
        }


def headers_of(message):
    headers = {}
    for name, value in message.items():
        key = name.lower()
        headers[key] = headers[key] + ", " + value if key in headers else value
    return headers


class StandIn(http.server.ThreadingHTTPServer):
    daemon_threads = True  # a request sleeping in a delay fault does not hold up the exit

    def __init__(self, address, state):
        self.state = state
        super().__init__(address, Handler)

    def handle_error(self, request, client_address):
        # A client may hang up mid-answer (one refusing an answer too large to keep): that is
        # the client's choice, not the stand-in's error. Anything else is printed as before.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)

    def server_bind(self):
        # HTTPServer's own looks up the host's FQDN, which can stall on a machine without DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


def fault_argument(text):
    try:
        return parse_fault(json.loads(text))
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None


def main(argv):
    parser = Usage("stand_in", description="Stand-in for intervals.icu's and Strava's APIs, for IntervalPro's tests.")
    parser.add_argument("--log", required=True, help="JSON-lines log, one line per request (appended)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free one)")
    parser.add_argument("--icu-athlete", default="i12345", help="intervals.icu athlete id (default i12345)")
    parser.add_argument("--icu-key", default="icu-secret-key", help="intervals.icu API key")
    parser.add_argument("--icu-events", metavar="FILE", help="JSON array of intervals.icu calendar events")
    parser.add_argument("--strava-client-id", default="4242", help="Strava application's client id")
    parser.add_argument("--strava-client-secret", default="strava-client-secret",
                        help="Strava application's client secret")
    parser.add_argument("--strava-expires-in", type=int, default=21600,
                        help="lifetime of Strava access tokens in seconds (default 21600)")
    parser.add_argument("--strava-processing-polls", type=int, default=2,
                        help="upload status polls answered 'still being processed' (default 2)")
    parser.add_argument("--fault", type=fault_argument, action="append", default=[],
                        help='a fault, JSON: {"match": "POST /api/v3/uploads", "status": 503} (repeatable)')
    parser.add_argument("--keep-uploads", metavar="DIR",
                        help="write every uploaded file part to DIR/<sha256>.<ext> (DIR is created)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error("--port must be from 0 to 65535")
    if args.strava_expires_in < 0 or args.strava_processing_polls < 0:
        parser.error("--strava-expires-in and --strava-processing-polls must not be negative")
    if not args.icu_athlete or "/" in args.icu_athlete or not args.icu_key:
        parser.error("--icu-athlete and --icu-key must be non-empty (and the athlete without /)")

    events = []
    if args.icu_events:
        try:
            events = load_events(args.icu_events)
        except OSError as error:
            print(f"stand_in: {args.icu_events}: {error.strerror}", file=sys.stderr)
            return EX_NOINPUT
        except ValueError as error:
            print(f"stand_in: {args.icu_events}: {error}", file=sys.stderr)
            return EX_DATAERR
    try:
        log = open(args.log, "a", encoding="utf-8")
    except OSError as error:
        print(f"stand_in: {args.log}: {error.strerror}", file=sys.stderr)
        return EX_IOERR
    if args.keep_uploads:
        try:
            os.makedirs(args.keep_uploads, exist_ok=True)
            if not os.access(args.keep_uploads, os.W_OK | os.X_OK):
                raise PermissionError(13, "Permission denied")
        except OSError as error:
            print(f"stand_in: --keep-uploads {args.keep_uploads}: {error.strerror}", file=sys.stderr)
            log.close()
            return EX_IOERR

    state = State(args, events, log)
    try:
        server = StandIn(("127.0.0.1", args.port), state)
    except OSError as error:
        print(f"stand_in: 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr)
        return EX_UNAVAILABLE

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    print(f"listening on 127.0.0.1:{server.server_port}", flush=True)
    while not stop.wait(1):
        pass
    server.shutdown()
    server.server_close()
    with state.log_lock:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
