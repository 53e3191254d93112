#!/usr/bin/python3
"""Smoke test of the intervals.icu and Strava stand-in, as the app's HTTP client would use it.

Starts stand_in.py on a free loopback port with a temporary log and calendar, and talks
to it with urllib from here: intervals.icu's Basic auth, athlete, events and activity
upload with de-duplication; Strava's OAuth redirect (state passed through, deny,
one-shot codes), token exchange, refresh rotation, revoke and deauthorize, the bearer
check, rate-limit headers and the upload status sequence; every fault kind; malformed
requests; the log's content; the files kept by --keep-uploads; a clean exit on SIGTERM
and the exit statuses of bad command lines.

Run from the repository root:  /usr/bin/python3 Tests/FakeServices/smoke_test.py
Prints one line per check, then "N/N passed"; exits 1 if any failed.
"""

import base64
import gzip
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STAND_IN = os.path.join(HERE, "stand_in.py")
PYTHON = sys.executable or "/usr/bin/python3"

ATHLETE = "i12345"
KEY = "icu-secret-key"
CLIENT_ID = "4242"
SECRET = "strava-client-secret"
REDIRECT = "http://127.0.0.1:9/callback"

EVENTS = [
    {"id": 101, "start_date_local": "2026-03-02T00:00:00", "category": "WORKOUT", "name": "Cadence ladder",
     "description": "- 10m 170rpm\n- 5m 180rpm", "type": "Run"},
    {"id": 102, "start_date_local": "2026-03-03T00:00:00", "category": "NOTE", "name": "Rest day",
     "description": "rest", "type": "Run"},
    {"id": 103, "start_date_local": "2026-03-04T00:00:00", "category": "WORKOUT", "name": "Spin",
     "description": "- 30m 90rpm", "type": "Ride", "workout_doc": {"steps": [], "duration": 1800}},
    {"id": 104, "start_date_local": "2026-03-09T00:00:00", "category": "RACE_A", "name": "10k",
     "description": "", "type": "Run"},
]


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from smoke import Checks  # noqa: E402

CHECKS = Checks()
check = CHECKS.check


def fit_file(payload):
    """A FIT-looking file: the 14-byte header (".FIT" at 8..11), then the payload."""
    return bytes([14, 0x20, 0x54, 0x08]) + len(payload).to_bytes(4, "little") + b".FIT" + b"\0\0" + payload


# Binary data with line ends and dashes, so that a parser that rewrites them is caught.
FIT_A = fit_file(bytes(range(256)) + b"\r\n--\r\n\n\r" + bytes(range(255, -1, -1)))
FIT_B = fit_file(b"another session \r\n" * 40)
NOT_FIT = b"<?xml version='1.0'?><gpx></gpx>"


def multipart(fields, files):
    """fields: {name: text}; files: [(name, filename, data)]. Returns (content type, body)."""
    boundary = "----smoke" + os.urandom(8).hex()
    chunks = []
    for name, value in fields.items():
        chunks.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
                      + value.encode() + b"\r\n")
    for name, filename, data in files:
        chunks.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                      f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(chunks)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the test reads the 302 itself


OPENER = urllib.request.build_opener(NoRedirect)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.raw = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"{self.status} {self.raw[:300]!r}"


class StandIn:
    """One stand_in.py process, its log and its base URL."""

    def __init__(self, directory, *options, name="stand-in"):
        self.log_path = os.path.join(directory, f"{name}.jsonl")
        self.process = subprocess.Popen([PYTHON, STAND_IN, "--log", self.log_path, *options],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on 127.0.0.1:"):
            self.process.kill()
            raise RuntimeError(f"no 'listening on' line: {line!r} {self.process.stderr.read()}")
        self.port = int(line.rsplit(":", 1)[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, headers=None, timeout=10):
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        try:
            with OPENER.open(request, timeout=timeout) as answer:
                return Response(answer.status, answer.headers, answer.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, error.headers, error.read())

    def control(self, path, value=None):
        body = None if value is None else json.dumps(value).encode()
        return self.request("POST" if value is not None else "GET", "/_control/" + path, body,
                            {"Content-Type": "application/json"})

    def log(self):
        with open(self.log_path, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = "hung"
        stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        return status, stderr

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


ICU = basic("API_KEY", KEY)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def form(fields):
    return urllib.parse.urlencode(fields).encode(), {"Content-Type": "application/x-www-form-urlencoded"}


def icu_checks(s):
    print("# intervals.icu: Basic auth, athlete, events, activity upload")
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}")
    check(answer.status == 401 and answer.json == {"status": 401, "error": "Unauthorized"}
          and answer.headers.get("WWW-Authenticate") == 'Basic realm="intervals.icu"',
          "no Authorization: 401 {status, error} with WWW-Authenticate Basic", repr(answer))
    check(s.request("GET", f"/api/v1/athlete/{ATHLETE}", headers=basic("athlete", KEY)).status == 401,
          "user other than API_KEY: 401")
    check(s.request("GET", f"/api/v1/athlete/{ATHLETE}", headers=basic("API_KEY", "wrong")).status == 401,
          "wrong key: 401")
    check(s.request("GET", f"/api/v1/athlete/{ATHLETE}", headers={"Authorization": "Basic %%%"}).status == 401,
          "undecodable Basic credentials: 401")
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}", headers=ICU)
    check(answer.status == 200 and answer.json == {"id": ATHLETE, "name": "Test Runner"},
          "GET athlete/i12345: id and name", repr(answer))
    answer = s.request("GET", "/api/v1/athlete/0", headers=ICU)
    check(answer.status == 200 and answer.json["id"] == ATHLETE, "athlete 0 is the key's own athlete")
    answer = s.request("GET", "/api/v1/athlete/i99999/events?oldest=2026-03-01", headers=ICU)
    check(answer.status == 403 and answer.json == {"status": 403, "error": "Access denied"},
          "another athlete: 403 Access denied", repr(answer))

    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events", headers=ICU)
    check(answer.status == 400 and answer.json == {"status": 400, "error": "oldest is required"},
          "events without oldest: 400", repr(answer))
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events?oldest=2026-03-02&newest=2026-03-04", headers=ICU)
    check(answer.status == 200 and [e["id"] for e in answer.json] == [101, 102, 103]
          and answer.json[2] == EVENTS[2], "events in [oldest, newest] inclusive, as given (workout_doc too)",
          repr(answer))
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events?oldest=2026-03-03", headers=ICU)
    check([e["id"] for e in answer.json or []] == [102], "newest defaults to oldest", repr(answer))
    answer = s.request("GET", f"/api/v1/athlete/0/events?oldest=2026-03-01&newest=2026-03-31&category=WORKOUT",
                       headers=ICU)
    check([e["id"] for e in answer.json or []] == [101, 103], "category=WORKOUT filters", repr(answer))
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events?oldest=2026-03-01&newest=2026-03-31"
                              "&category=NOTE,RACE_A", headers=ICU)
    check([e["id"] for e in answer.json or []] == [102, 104], "category takes a comma-separated list")
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events?oldest=March", headers=ICU)
    check(answer.status == 400 and answer.json["status"] == 400, "a date that is not YYYY-MM-DD: 400")
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events/103", headers=ICU)
    check(answer.status == 200 and answer.json == EVENTS[2], "GET events/103: the event")
    answer = s.request("GET", f"/api/v1/athlete/{ATHLETE}/events/999", headers=ICU)
    check(answer.status == 404 and answer.json == {"status": 404, "error": "Event not found"},
          "unknown event: 404 Event not found", repr(answer))

    path = f"/api/v1/athlete/{ATHLETE}/activities"
    content_type, body = multipart({}, [("file", "session-7.fit", FIT_A)])
    query = "?" + urllib.parse.urlencode({"name": "Cadence ladder", "description": "170 to 180",
                                          "external_id": "session-7", "paired_event_id": "101"})
    first = s.request("POST", path + query, body, dict(ICU, **{"Content-Type": content_type}))
    check(first.status == 201 and first.json == {
        "icu_athlete_id": ATHLETE, "id": "i9001",
        "activities": [{"id": "i9001", "icu_athlete_id": ATHLETE, "name": "Cadence ladder"}]},
        "upload a FIT file: 201, activity i9001 named from the query", repr(first))
    again = s.request("POST", path, body, dict(ICU, **{"Content-Type": content_type}))
    check(again.status == 201 and again.json["id"] == "i9001",
          "the same file again: the same activity (de-duplicated by its data)", repr(again))
    content_type_b, body_b = multipart({}, [("file", "session-8.fit", FIT_B)])
    other = s.request("POST", path, body_b, dict(ICU, **{"Content-Type": content_type_b}))
    check(other.status == 201 and other.json["id"] == "i9002"
          and other.json["activities"][0]["name"] == "Run", "another file: i9002, named Run by default",
          repr(other))
    content_type_x, body_x = multipart({}, [("file", "notes.fit", NOT_FIT)])
    bad = s.request("POST", path, body_x, dict(ICU, **{"Content-Type": content_type_x}))
    check(bad.status == 422 and bad.json == {"status": 422, "error": "Unable to read file: not a FIT file"},
          "a file that is not FIT: 422", repr(bad))
    content_type_n, body_n = multipart({"name": "no file"}, [])
    missing = s.request("POST", path, body_n, dict(ICU, **{"Content-Type": content_type_n}))
    check(missing.status == 400 and missing.json == {"status": 400, "error": "file is required"},
          "no file part: 400 file is required", repr(missing))
    broken = s.request("POST", path, b"--x\r\nnot a part",
                       dict(ICU, **{"Content-Type": "multipart/form-data; boundary=x"}))
    check(broken.status == 400 and broken.json["status"] == 400, "a malformed multipart body: 400 JSON", repr(broken))
    activities = s.control("state").json["icu_activities"]
    check([(a["id"], a["paired_event_id"], a["external_id"], a["uploads"], a["sha256"]) for a in activities]
          == [("i9001", 101, "session-7", 2, hashlib.sha256(FIT_A).hexdigest()),
              ("i9002", None, None, 1, hashlib.sha256(FIT_B).hexdigest())],
          "/_control/state lists the activities with paired_event_id, external_id, uploads, sha256",
          str(activities))

    # Wellness: a day's record, a PUT that changes only what it names (-1 clears), the watch's seed.
    path = f"/api/v1/athlete/{ATHLETE}/wellness/2026-03-01"
    empty = s.request("GET", path, headers=ICU)
    check(empty.status == 200 and empty.json == {"id": "2026-03-01"}, "a day without wellness: its id alone", repr(empty))
    s.control("wellness", {"date": "2026-03-01", "record": {"hrv": 55.0, "sleepSecs": 27000}})
    json_headers = dict(ICU, **{"Content-Type": "application/json"})
    put = s.request("PUT", path, json.dumps({"id": "2026-03-01", "hrv": 61.2, "restingHR": 48}).encode(), json_headers)
    check(put.status == 200 and put.json == {"id": "2026-03-01", "hrv": 61.2, "sleepSecs": 27000, "restingHR": 48},
          "PUT wellness changes only the fields it sends", repr(put))
    cleared = s.request("PUT", path, json.dumps({"sleepSecs": -1}).encode(), json_headers)
    check(cleared.status == 200 and "sleepSecs" not in cleared.json, "-1 clears a field", repr(cleared))
    check(s.request("PUT", path, json.dumps({"hrv": "high"}).encode(), json_headers).status == 422,
          "a field that is not a number: 422")
    check(s.request("DELETE", path, headers=ICU).status == 405, "wellness takes GET and PUT only")
    check(s.control("state").json["icu_wellness"] == {"2026-03-01": {"hrv": 61.2, "restingHR": 48}},
          "/_control/state lists the wellness records")


def authorize(s, state="xyz", scope="activity:write", client_id=CLIENT_ID, response_type="code"):
    query = urllib.parse.urlencode({"client_id": client_id, "redirect_uri": REDIRECT,
                                    "response_type": response_type, "approval_prompt": "auto",
                                    "scope": scope, "state": state})
    return s.request("GET", "/oauth/authorize?" + query)


def redirected(answer):
    location = answer.headers.get("Location", "")
    split = urllib.parse.urlsplit(location)
    return f"{split.scheme}://{split.netloc}{split.path}", urllib.parse.parse_qs(split.query)


def code_from(s):
    _, query = redirected(authorize(s))
    return query["code"][0]


def exchange(s, code, secret=SECRET):
    body, headers = form({"client_id": CLIENT_ID, "client_secret": secret, "code": code,
                          "grant_type": "authorization_code"})
    return s.request("POST", "/oauth/token", body, headers)


def refresh(s, token):
    body, headers = form({"client_id": CLIENT_ID, "client_secret": SECRET, "refresh_token": token,
                          "grant_type": "refresh_token"})
    return s.request("POST", "/oauth/token", body, headers)


def oauth_checks(s):
    print("# Strava OAuth: authorize redirect, deny, token exchange, refresh rotation, revoke")
    state = "a b&c=d/é?#+"
    answer = authorize(s, state=state)
    target, query = redirected(answer)
    check(answer.status == 302 and target == REDIRECT, "authorize: 302 to the redirect_uri", repr(answer))
    check(query.get("state") == [state] and query.get("scope") == ["read,activity:write"]
          and len(query.get("code", [""])[0]) >= 20,
          "the redirect has state (verbatim, encoded), a fresh code and scope=read,activity:write",
          answer.headers.get("Location"))
    check("&c=d" not in answer.headers.get("Location", "") and "#" not in answer.headers.get("Location", ""),
          "state is URL-encoded in the Location", answer.headers.get("Location"))
    answer = authorize(s, client_id="1")
    check(answer.status == 400 and answer.json == {"message": "Bad Request", "errors": [
        {"resource": "Application", "field": "client_id", "code": "invalid"}]},
          "authorize with an unknown client_id: 400 Application client_id invalid", repr(answer))
    answer = authorize(s, response_type="token")
    check(answer.status == 400 and answer.json["errors"][0]["field"] == "response_type",
          "authorize with response_type=token: 400", repr(answer))
    s.control("deny", {"deny": True})
    answer = authorize(s, state="s1")
    _, query = redirected(answer)
    check(answer.status == 302 and query == {"state": ["s1"], "error": ["access_denied"]},
          "deny: redirect with state and error=access_denied, no code", answer.headers.get("Location"))
    s.control("deny", {"deny": False})

    code = code_from(s)
    before = time.time()
    answer = exchange(s, code, secret="wrong")
    check(answer.status == 400 and answer.json == {"message": "Bad Request", "errors": [
        {"resource": "Application", "field": "client_secret", "code": "invalid"}]},
          "token with a wrong client_secret: 400 Application client_secret invalid", repr(answer))
    answer = exchange(s, code)
    tokens = answer.json or {}
    check(answer.status == 200 and tokens.get("token_type") == "Bearer" and tokens.get("expires_in") == 21600
          and abs(tokens.get("expires_at", 0) - (before + 21600)) <= 2
          and tokens.get("athlete") == {"id": 777, "firstname": "Test", "lastname": "Runner"}
          and len(tokens.get("access_token", "")) >= 20 and len(tokens.get("refresh_token", "")) >= 20,
          "code exchange: 200 Bearer, expires_at = now + expires_in, tokens, athlete", repr(answer))
    answer = exchange(s, code)
    check(answer.status == 400 and answer.json["errors"] == [
        {"resource": "RequestToken", "field": "code", "code": "invalid"}],
          "the same code again: 400 RequestToken code invalid (one-shot)", repr(answer))
    check(exchange(s, "not-a-code").status == 400, "an unknown code: 400")
    # Strava takes the fields as query parameters too.
    query = urllib.parse.urlencode({"client_id": CLIENT_ID, "client_secret": SECRET, "code": code_from(s),
                                    "grant_type": "authorization_code"})
    answer = s.request("POST", "/oauth/token?" + query, b"")
    check(answer.status == 200 and "access_token" in (answer.json or {}),
          "token exchange with the fields as query parameters", repr(answer))

    first = tokens
    answer = refresh(s, first["refresh_token"])
    second = answer.json or {}
    check(answer.status == 200 and second.get("access_token") not in (None, first["access_token"])
          and second.get("refresh_token") not in (None, first["refresh_token"]) and "athlete" not in second,
          "refresh: a new access token and a new refresh token", repr(answer))
    answer = refresh(s, first["refresh_token"])
    check(answer.status == 400 and answer.json["errors"] == [
        {"resource": "RefreshToken", "field": "refresh_token", "code": "invalid"}],
          "the old refresh token is refused after rotation", repr(answer))
    check(s.request("GET", "/api/v3/athlete", headers=bearer(first["access_token"])).status == 200
          and s.request("GET", "/api/v3/athlete", headers=bearer(second["access_token"])).status == 200,
          "the old access token stays valid until it expires, the new one works")
    check(s.control("state").json["refreshes"] == 1, "/_control/state counts the refreshes")

    answer = s.control("revoke", {"service": "strava"})
    check(answer.status == 200, "revoke strava", repr(answer))
    check(s.request("GET", "/api/v3/athlete", headers=bearer(second["access_token"])).status == 401
          and refresh(s, second["refresh_token"]).status == 400,
          "after revoke: the access token gets 401 and the refresh token 400")
    tokens = exchange(s, code_from(s)).json
    check(s.request("GET", "/api/v3/athlete", headers=bearer(tokens["access_token"])).status == 200,
          "a new authorization works after revoke")
    body, headers = form({"access_token": tokens["access_token"]})
    answer = s.request("POST", "/oauth/deauthorize", body, headers)
    check(answer.status == 200 and answer.json == {"access_token": tokens["access_token"]}
          and s.request("GET", "/api/v3/athlete", headers=bearer(tokens["access_token"])).status == 401,
          "POST /oauth/deauthorize: 200, and the token is refused after", repr(answer))

    answer = s.control("revoke", {"service": "intervals.icu"})
    new_key = (answer.json or {}).get("key")
    check(answer.status == 200 and s.request("GET", "/api/v1/athlete/0", headers=ICU).status == 401
          and s.request("GET", "/api/v1/athlete/0", headers=basic("API_KEY", new_key)).status == 200,
          "revoke intervals.icu: the old key gets 401, the new key from the answer works", repr(answer))
    return exchange(s, code_from(s)).json["access_token"]


def usage(answer):
    return tuple(int(v) for v in answer.headers.get("X-RateLimit-Usage", "0,0").split(",")), \
        tuple(int(v) for v in answer.headers.get("X-ReadRateLimit-Usage", "0,0").split(","))


def strava_api_checks(s, token):
    print("# Strava API: bearer check, athlete, rate-limit headers, uploads and their processing")
    answer = s.request("GET", "/api/v3/athlete")
    check(answer.status == 401 and answer.json == {"message": "Authorization Error", "errors": [
        {"resource": "Athlete", "field": "access_token", "code": "invalid"}]},
          "no token: 401 Authorization Error", repr(answer))
    check(answer.headers.get("X-RateLimit-Limit") == "200,2000"
          and answer.headers.get("X-ReadRateLimit-Limit") == "100,1000"
          and answer.headers.get("X-RateLimit-Usage") and answer.headers.get("X-ReadRateLimit-Usage"),
          "an error answer carries the rate-limit headers too", str(dict(answer.headers)))
    check(s.request("GET", "/api/v3/athlete", headers=bearer("0" * 40)).status == 401, "an unknown token: 401")
    answer = s.request("GET", "/api/v3/athlete", headers=bearer(token))
    check(answer.status == 200 and answer.json == {"id": 777, "firstname": "Test", "lastname": "Runner"},
          "GET /api/v3/athlete", repr(answer))
    (all_before, read_before) = usage(answer)

    path = "/api/v3/uploads"
    content_type, body = multipart({"data_type": "fit", "name": "Cadence ladder", "sport_type": "Run"},
                                   [("file", "session-7.fit", FIT_A)])
    upload = s.request("POST", path, body, dict(bearer(token), **{"Content-Type": content_type}))
    check(upload.status == 201 and upload.json == {
        "id": 5001, "id_str": "5001", "external_id": "session-7.fit", "error": None,
        "status": "Your activity is still being processed.", "activity_id": None},
        "POST uploads: 201, still being processed, external_id from the filename", repr(upload))
    (all_after, read_after) = usage(upload)
    check(all_after[0] == all_before[0] + 1 and all_after[1] == all_before[1] + 1 and read_after == read_before,
          "usage counts the upload; the read limit does not",
          f"{all_before} {read_before} -> {all_after} {read_after}")
    polls = [s.request("GET", f"{path}/5001", headers=bearer(token)).json for _ in range(4)]
    check([p["status"] for p in polls] == ["Your activity is still being processed."] * 2
          + ["Your activity is ready."] * 2 and [p["activity_id"] for p in polls] == [None, None, 8001, 8001],
          "polls: processing twice, then ready with activity 8001 (and stays so)", str(polls))
    check(usage(s.request("GET", "/api/v3/athlete", headers=bearer(token)))[1][0] == read_before[0] + 5,
          "the read limit counts the polls")

    content_type_d, body_d = multipart({"data_type": "fit", "external_id": "again"},
                                       [("file", "session-7.fit", FIT_A)])
    dup = s.request("POST", path, body_d, dict(bearer(token), **{"Content-Type": content_type_d}))
    check(dup.status == 201 and dup.json["id"] == 5002 and dup.json["external_id"] == "again",
          "the same file again is accepted for processing (external_id as given)", repr(dup))
    polls = [s.request("GET", f"{path}/5002", headers=bearer(token)).json for _ in range(3)]
    check(polls[2] == {"id": 5002, "id_str": "5002", "external_id": "again",
                       "error": "session-7.fit duplicate of activity 8001",
                       "status": "There was an error processing your activity.", "activity_id": None},
          "then fails as a duplicate of activity 8001", str(polls[2]))
    content_type_x, body_x = multipart({"data_type": "fit"}, [("file", "notes.fit", NOT_FIT)])
    s.request("POST", path, body_x, dict(bearer(token), **{"Content-Type": content_type_x}))
    polls = [s.request("GET", f"{path}/5003", headers=bearer(token)).json for _ in range(3)]
    check(polls[2]["error"] == "Improperly formatted data." and polls[2]["activity_id"] is None
          and polls[2]["status"] == "There was an error processing your activity.",
          "a file that is not FIT fails: Improperly formatted data.", str(polls[2]))
    content_type_b, body_b = multipart({"data_type": "fit"}, [("file", "session-8.fit", FIT_B)])
    s.request("POST", path, body_b, dict(bearer(token), **{"Content-Type": content_type_b}))
    polls = [s.request("GET", f"{path}/5004", headers=bearer(token)).json for _ in range(3)]
    check(polls[2]["activity_id"] == 8002, "the next new file becomes activity 8002", str(polls[2]))

    content_type_t, body_t = multipart({"data_type": "csv"}, [("file", "x.csv", FIT_B)])
    answer = s.request("POST", path, body_t, dict(bearer(token), **{"Content-Type": content_type_t}))
    check(answer.status == 400 and answer.json == {"message": "Bad Request", "errors": [
        {"resource": "Upload", "field": "data_type", "code": "invalid"}]},
          "data_type csv: 400 Upload data_type invalid", repr(answer))
    content_type_n, body_n = multipart({"data_type": "fit"}, [])
    answer = s.request("POST", path, body_n, dict(bearer(token), **{"Content-Type": content_type_n}))
    check(answer.status == 400 and answer.json["errors"][0]["field"] == "file", "no file: 400", repr(answer))
    answer = s.request("GET", f"{path}/999", headers=bearer(token))
    check(answer.status == 404 and answer.json == {"message": "Record Not Found", "errors": [
        {"resource": "Upload", "field": "id", "code": "not found"}]}, "unknown upload: 404", repr(answer))
    state = s.control("state").json
    check(sorted(state["uploads"]) == ["5001", "5002", "5003", "5004"]
          and sorted(state["activities"]) == ["8001", "8002"]
          and state["activities"]["8001"]["name"] == "Cadence ladder"
          and state["uploads"]["5001"]["sha256"] == hashlib.sha256(FIT_A).hexdigest(),
          "/_control/state has the uploads and activities", json.dumps(state)[:300])


def fault_checks(s, token):
    print("# faults: status with headers, times, delay (others served meanwhile), drop, clear")
    answer = s.control("fault", {"match": "POST /api/v3/uploads", "status": 429, "times": 2,
                                 "headers": {"Retry-After": 30, "X-RateLimit-Usage": "200,450"}})
    check(answer.status == 200, "POST /_control/fault adds a fault", repr(answer))
    content_type, body = multipart({"data_type": "fit"}, [("file", "session-9.fit", FIT_B)])
    headers = dict(bearer(token), **{"Content-Type": content_type})
    hits = [s.request("POST", "/api/v3/uploads", body, headers) for _ in range(3)]
    check([h.status for h in hits] == [429, 429, 201], "times 2: two answers 429, then normal",
          str([h.status for h in hits]))
    check(hits[0].headers.get("Retry-After") == "30" and hits[0].headers.get("X-RateLimit-Usage") == "200,450"
          and hits[0].headers.get("X-RateLimit-Limit") == "200,2000"
          and hits[0].json == {"message": "Rate Limit Exceeded", "errors": [
              {"resource": "Application", "field": "rate limit", "code": "exceeded"}]},
          "the fault's headers (Retry-After, usage) with the rate-limit headers, Strava's 429 body",
          f"{dict(hits[0].headers)} {hits[0].raw!r}")
    s.control("fault", {"match": "* /api/v1/athlete", "status": 503, "body": "maintenance"})
    answer = s.request("GET", "/api/v1/athlete/0", headers=basic("API_KEY", "anything"))
    check(answer.status == 503 and answer.raw == b"maintenance", "method * and a string body, before auth",
          repr(answer))
    s.control("fault", {"match": "GET /api/v1/athlete/i12345/events", "status": 500,
                        "body": {"status": 500, "error": "boom"}})
    check(s.request("GET", f"/api/v1/athlete/{ATHLETE}/events?oldest=2026-03-02").json
          == {"status": 500, "error": "boom"}, "a JSON body as given")

    s.control("fault", {"match": "GET /api/v3/athlete", "delay": 1})
    results = {}

    def slow():
        started = time.monotonic()
        answer = s.request("GET", "/api/v3/athlete", headers=bearer(token))
        results["slow"] = (answer.status, time.monotonic() - started, time.monotonic())

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    quick = s.request("GET", "/api/v3/uploads/5001", headers=bearer(token))
    quick_done = time.monotonic()
    thread.join(10)
    check("slow" in results and results["slow"][0] == 200 and results["slow"][1] >= 1.0,
          "delay 1: answered normally after >= 1 s", str(results.get("slow")))
    check(quick.status == 200 and quick_done - started < 0.8 and quick_done < results.get("slow", (0, 0, 0))[2],
          "another request is answered at once meanwhile", f"{quick_done - started:.3f} s")

    s.control("fault", {"match": "POST /oauth/token", "drop": True})
    try:
        answer = refresh(s, "whatever")
        error = f"answered {answer.status}"
    except (urllib.error.URLError, http.client.HTTPException, ConnectionError) as failure:
        error = type(failure).__name__
    check(error in ("URLError", "RemoteDisconnected", "ConnectionResetError", "BadStatusLine"),
          "drop: the client sees the connection closed without an answer", error)
    check(refresh(s, "whatever").status == 400, "then the next request is served")

    s.control("fault", {"match": "GET /api/v3/athlete", "status": 502, "times": -1})
    check([s.request("GET", "/api/v3/athlete", headers=bearer(token)).status for _ in range(3)] == [502] * 3,
          "times -1: every time")
    state = s.control("state").json
    check([(f["match"], f["times_left"]) for f in state["faults"]] == [("GET /api/v3/athlete", -1)],
          "/_control/state lists the remaining faults", str(state["faults"]))
    answer = s.control("clear", {})
    check(answer.status == 200 and answer.json == {"cleared": 1}
          and s.request("GET", "/api/v3/athlete", headers=bearer(token)).status == 200,
          "POST /_control/clear removes them", repr(answer))
    for bad, what in [({"match": "GET /x", "status": 99}, "status 99"),
                      ({"match": "/x", "status": 500}, "a match without a method"),
                      ({"match": "GET /x", "status": 500, "drop": True}, "two actions"),
                      ({"match": "GET /x", "delay": 1, "times": 0}, "times 0"),
                      ({"match": "GET /x", "stauts": 500}, "an unknown key")]:
        answer = s.control("fault", bad)
        check(answer.status == 400 and "message" in (answer.json or {}), f"a bad fault is refused: {what}",
              repr(answer))


def malformed_checks(s):
    print("# malformed requests: JSON errors, never a traceback")
    answer = s.request("POST", "/_control/fault", b"{not json", {"Content-Type": "application/json"})
    check(answer.status == 400 and "message" in (answer.json or {}), "control with a body that is not JSON: 400",
          repr(answer))
    answer = s.request("POST", "/_control/deny", b'{"deny": "yes"}')
    check(answer.status == 400, "deny with a non-boolean: 400")
    answer = s.request("GET", "/nowhere")
    check(answer.status == 404 and answer.json == {"message": "Not Found"}, "unknown path: 404 JSON", repr(answer))
    answer = s.request("PUT", "/oauth/token", b"")
    check(answer.status == 405 and answer.json is not None, "a known path with another method: 405 JSON", repr(answer))
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as raw:
        raw.sendall(b"GARBAGE\r\n\r\n")
        reply = b""
        while chunk := raw.recv(4096):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    check(head.startswith(b"HTTP/1.1 400") and b"application/json" in head and json.loads(body).get("message"),
          "a request line that is not HTTP: 400 with a JSON body", repr(reply[:200]))
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as raw:
        raw.sendall(b"POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort")
        raw.shutdown(socket.SHUT_WR)
        reply = raw.recv(4096)
    check(reply.startswith(b"HTTP/1.1 400"), "a body shorter than its Content-Length: 400", repr(reply[:100]))
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as raw:
        body = b"client_id=4242&client_secret=x"
        raw.sendall(b"POST /oauth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n\r\n"
                    + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")
        reply = b""
        while chunk := raw.recv(4096):
            reply += chunk
    check(reply.startswith(b"HTTP/1.1 400") and b'"client_secret"' in reply,
          "a chunked body is read (here: the wrong secret is found)", repr(reply[-160:]))


def log_checks(s, token):
    print("# the log")
    log = s.log()
    service = [r for r in log if r["path"]]  # the non-HTTP request line has none
    check(all({"t", "method", "path", "query", "headers", "body_size", "form", "parts", "status", "fault"} <= set(r)
              for r in log), "every line has t, method, path, query, headers, body_size, form, parts, status, fault")
    now = time.monotonic()
    check(log and all(isinstance(r["t"], float) and STARTED <= r["received"] <= r["t"] <= now for r in log),
          "t (answered) and received are CLOCK_MONOTONIC seconds, this process's clock",
          f"{STARTED} {log[0]['t'] if log else None} {now}")
    uploads = [r for r in service if r["path"] == "/api/v3/uploads" and r["status"] == 201]
    first = uploads[0] if uploads else {}
    check(first.get("headers", {}).get("authorization") == f"Bearer {token}",
          "headers are logged in lower case, Authorization included", str(first.get("headers")))
    parts = {p["name"]: p for p in first.get("parts") or []}
    check(parts.get("file", {}).get("sha256") == hashlib.sha256(FIT_A).hexdigest()
          and parts["file"]["size"] == len(FIT_A) and parts["file"]["filename"] == "session-7.fit"
          and "text" not in parts["file"],
          "a file part: name, filename, size, sha256 of the exact bytes, no text", str(parts.get("file")))
    check(parts.get("data_type", {}).get("text") == "fit" and parts["data_type"]["filename"] is None,
          "a field part has its text", str(parts.get("data_type")))
    tokens = [r for r in service if r["path"] == "/oauth/token" and r["form"]]
    check(tokens and tokens[0]["form"].get("grant_type") == "authorization_code"
          and tokens[0]["headers"].get("content-type") == "application/x-www-form-urlencoded",
          "a form body is logged as form", str(tokens[:1]))
    icu = [r for r in service if r["path"] == f"/api/v1/athlete/{ATHLETE}" and r["status"] == 200]
    check(icu and icu[0]["headers"].get("authorization") == ICU["Authorization"],
          "the Basic credentials the client sent are in the log")
    events = [r for r in service if r["path"].endswith("/events") and r["query"].get("category") == "WORKOUT"]
    check(events and events[0]["query"]["oldest"] == "2026-03-01", "the query is logged (first values)")
    faulted = [r for r in service if r["fault"]]
    kinds = [("status" if "status" in r["fault"] else "delay" if "delay" in r["fault"] else "drop") for r in faulted]
    check({"status", "delay", "drop"} <= set(kinds), "faulted requests name the fault applied", str(kinds))
    dropped = [r for r in faulted if r["fault"].get("drop")]
    check(dropped and dropped[0]["status"] is None, "a dropped request is logged with status null")
    delayed = [r for r in faulted if "delay" in r["fault"]]
    check(delayed and delayed[0]["t"] - delayed[0]["received"] >= 1.0, "a delayed request: t - received >= delay")
    check(any(r["path"] == "/_control/state" and r["service"] == "control" for r in log),
          "control requests are logged too, as service control")
    check(any(r["method"] is None and r["status"] == 400 for r in log), "the non-HTTP request line is logged")


def command_line_checks(directory):
    print("# options: expiry, processing polls, --fault, other athlete; exit statuses")
    events = os.path.join(directory, "events.json")
    s = StandIn(directory, "--strava-expires-in", "0", "--strava-processing-polls", "0",
                "--icu-athlete", "i777", "--icu-key", "k2", "--icu-events", events,
                "--fault", '{"match": "GET /api/v1/athlete/i777/events/101", "status": 404, "times": 1}',
                name="options")
    try:
        tokens = exchange(s, code_from(s)).json
        check(tokens["expires_in"] == 0
              and s.request("GET", "/api/v3/athlete", headers=bearer(tokens["access_token"])).status == 401,
              "--strava-expires-in 0: the token is expired at once")
        refreshed = refresh(s, tokens["refresh_token"])
        check(refreshed.status == 200, "an expired access token's refresh token still refreshes")
        s.control("revoke", {"service": "strava"})
        check(s.request("GET", "/api/v1/athlete/i777", headers=basic("API_KEY", "k2")).json
              == {"id": "i777", "name": "Test Runner"}, "--icu-athlete and --icu-key")
        first = s.request("GET", "/api/v1/athlete/i777/events/101", headers=basic("API_KEY", "k2"))
        second = s.request("GET", "/api/v1/athlete/i777/events/101", headers=basic("API_KEY", "k2"))
        check(first.status == 404 and second.status == 200, "--fault from the command line applies once",
              f"{first.status} {second.status}")
    finally:
        status, stderr = s.stop()
    check(status == 0 and "Traceback" not in stderr, "exit 0 on SIGTERM", f"{status} {stderr}")

    s = StandIn(directory, "--strava-processing-polls", "0", name="polls")
    try:
        token = exchange(s, code_from(s)).json["access_token"]
        content_type, body = multipart({"data_type": "fit"}, [("file", "a.fit", FIT_A)])
        s.request("POST", "/api/v3/uploads", body, dict(bearer(token), **{"Content-Type": content_type}))
        check(s.request("GET", "/api/v3/uploads/5001", headers=bearer(token)).json["activity_id"] == 8001,
              "--strava-processing-polls 0: the first poll is ready")
        busy = s.port
        bad_events = os.path.join(directory, "bad-events.json")
        with open(bad_events, "w", encoding="utf-8") as handle:
            json.dump([{"id": "one", "start_date_local": "2026-03-02T00:00:00"}], handle)
        cases = [
            (["--fault", '{"match": "GET /x"}'], 64, "a --fault without an action exits 64"),
            (["--fault", "not json"], 64, "a --fault that is not JSON exits 64"),
            (["--port", "70000"], 64, "--port out of range exits 64"),
            (["--icu-events", bad_events], 65, "an events file with a bad event exits 65"),
            (["--icu-events", os.path.join(directory, "none.json")], 66, "a missing events file exits 66"),
            (["--port", str(busy)], 69, "a port in use exits 69"),
        ]
        for arguments, want, what in cases:
            result = subprocess.run([PYTHON, STAND_IN, "--log", os.path.join(directory, "x.jsonl"), *arguments],
                                    capture_output=True, text=True, timeout=20, check=False)
            check(result.returncode == want and "Traceback" not in result.stderr, what,
                  f"status {result.returncode}: {result.stderr.strip()[-200:]}")
        result = subprocess.run([PYTHON, STAND_IN, "--log", os.path.join(directory, "no", "such", "log")],
                                capture_output=True, text=True, timeout=20, check=False)
        check(result.returncode == 74, "an unwritable log exits 74", f"status {result.returncode}")
        result = subprocess.run([PYTHON, STAND_IN], capture_output=True, text=True, timeout=20, check=False)
        check(result.returncode == 64 and "--log" in result.stderr, "no --log exits 64")
    finally:
        s.stop()


def keep_uploads_checks(directory):
    print("# --keep-uploads: every uploaded file part, as DIR/<sha256>.<ext>")
    kept = os.path.join(directory, "kept", "uploads")  # created by the stand-in
    s = StandIn(directory, "--keep-uploads", kept, name="keep")
    try:
        check(os.path.isdir(kept), "--keep-uploads creates the folder")
        path = f"/api/v1/athlete/{ATHLETE}/activities"
        content_type, body = multipart({}, [("file", "session-7.fit", FIT_A)])
        s.request("POST", path, body, dict(ICU, **{"Content-Type": content_type}))
        content_type, body = multipart({}, [("file", "C:\\runs\\notes.GPX", NOT_FIT)])
        refused = s.request("POST", path, body, dict(ICU, **{"Content-Type": content_type}))
        token = exchange(s, code_from(s)).json["access_token"]
        gzipped = gzip_bytes(FIT_B)
        content_type, body = multipart({"data_type": "fit.gz"}, [("file", "b.fit.gz", gzipped)])
        s.request("POST", "/api/v3/uploads", body, dict(bearer(token), **{"Content-Type": content_type}))
        content_type, body = multipart({"data_type": "fit"}, [("file", "no-extension", FIT_B)])
        s.request("POST", "/api/v3/uploads", body, dict(bearer(token), **{"Content-Type": content_type}))
        s.control("fault", {"match": "POST /api/v3/uploads", "status": 503})
        third = fit_file(b"faulted")
        content_type, body = multipart({"data_type": "fit"}, [("file", "c.fit", third)])
        faulted = s.request("POST", "/api/v3/uploads", body, dict(bearer(token), **{"Content-Type": content_type}))

        def kept_file(data, suffix):
            name = os.path.join(kept, hashlib.sha256(data).hexdigest() + suffix)
            if not os.path.exists(name):
                return None
            with open(name, "rb") as handle:
                return handle.read()

        check(kept_file(FIT_A, ".fit") == FIT_A, "an intervals.icu upload is kept as <sha256>.fit, byte for byte")
        check(refused.status == 422 and kept_file(NOT_FIT, ".gpx") == NOT_FIT,
              "a refused file is kept too; the extension is the filename's, in lower case (any folder left out)")
        check(kept_file(gzipped, ".fit.gz") == gzipped, "a Strava upload named b.fit.gz is kept as <sha256>.fit.gz")
        check(kept_file(FIT_B, "") == FIT_B, "a filename without an extension: <sha256> alone")
        check(faulted.status == 503 and kept_file(third, ".fit") == third,
              "a request answered by a fault is kept too (the bytes were sent)")
        check(sorted(os.listdir(kept)) == sorted([
            hashlib.sha256(FIT_A).hexdigest() + ".fit", hashlib.sha256(NOT_FIT).hexdigest() + ".gpx",
            hashlib.sha256(gzipped).hexdigest() + ".fit.gz", hashlib.sha256(FIT_B).hexdigest(),
            hashlib.sha256(third).hexdigest() + ".fit"]), "nothing else is written there", str(os.listdir(kept)))
    finally:
        status, stderr = s.stop()
    check(status == 0 and not stderr.strip(), "exit 0, nothing on stderr", f"{status} {stderr[-300:]}")
    blocker = os.path.join(directory, "a-file")
    with open(blocker, "w", encoding="utf-8") as handle:
        handle.write("not a folder")
    result = subprocess.run([PYTHON, STAND_IN, "--log", os.path.join(directory, "y.jsonl"),
                             "--keep-uploads", os.path.join(blocker, "sub")],
                            capture_output=True, text=True, timeout=20, check=False)
    check(result.returncode == 74 and "--keep-uploads" in result.stderr and "Traceback" not in result.stderr,
          "a --keep-uploads folder that cannot be made exits 74", f"status {result.returncode}: {result.stderr[-200:]}")


def gzip_bytes(data):
    return gzip.compress(data, mtime=0)


STARTED = time.monotonic()


def main():
    started = STARTED
    directory = tempfile.mkdtemp(prefix="fakeservices-")
    with open(os.path.join(directory, "events.json"), "w", encoding="utf-8") as handle:
        json.dump(EVENTS, handle)
    s = None
    try:
        s = StandIn(directory, "--icu-events", os.path.join(directory, "events.json"))
        check(s.port > 0, f"prints 'listening on 127.0.0.1:{s.port}' (port 0: a free one)")
        token = None
        for part in (icu_checks, oauth_checks, strava_api_checks, fault_checks, malformed_checks, log_checks):
            try:
                if part is oauth_checks:
                    token = part(s)
                elif part in (strava_api_checks, fault_checks, log_checks):
                    part(s, token)
                else:
                    part(s)
            except Exception as error:  # one broken part should not hide the others' results
                check(False, f"{part.__name__} ran to the end", f"{type(error).__name__}: {error}")
        status, stderr = s.stop()
        check(status == 0, "exits 0 on SIGTERM", f"status {status}")
        check("Traceback" not in stderr, "nothing on stderr but real errors (no traceback)", stderr[-500:])
        for part in (command_line_checks, keep_uploads_checks):
            try:
                part(directory)
            except Exception as error:
                check(False, f"{part.__name__} ran to the end", f"{type(error).__name__}: {error}")
    finally:
        if s is not None:
            s.kill()
        shutil.rmtree(directory, ignore_errors=True)
    total = CHECKS.passed + CHECKS.failed
    tally = f"{CHECKS.passed}/{total} passed" + (f", {CHECKS.failed} failed" if CHECKS.failed else "")
    print(f"{tally} ({time.monotonic() - started:.1f} s)")
    return 1 if CHECKS.failed else 0


if __name__ == "__main__":
    sys.exit(main())
