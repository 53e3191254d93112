#!/usr/bin/env python3
"""The web page and its API (docs/web-page.md, docs/reference/web-api.md), against the built binary.

1. `run --web` on loopback, in headless Chromium at phone size: the live view shows what
   /api/state says; Pause, Resume, Next and Finish work from the page; the summary appears;
   the buttons never move, not even for a sensor's notice. With the server killed
   mid-session, the page says the connection is lost and that Pause got no answer.
2. `serve` on loopback: plans (examples and the user's folder) and recordings are listed; a
   session is started from the start page, finished from the page, and then listed in the
   history view with a working report link; bad session requests are refused.
3. The access rules: `serve` on 0.0.0.0 (reached through 127.0.0.1 only) wants the token on
   every route, takes it as a bearer token or a cookie set by `?token=`, refuses foreign
   origins; a loopback server refuses foreign Host headers; oversized, malformed, unknown
   and non-JSON requests are refused while a session keeps running.
4. 20 WebSocket clients through an 8 s 10x replay see every state (no gap in `seq`) and the
   same last state. (Benchmarks/web.py is the 60 s version, with the server's costs.)

Every run has its own XDG folders; nothing is sent anywhere but 127.0.0.1.

Usage: check_web.py PATH/TO/intervalpro [SCREENSHOT.png]
  With SCREENSHOT, the live page mid-session at phone size is also written there.
"""
import asyncio
import http.client
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from checks import ROOT, Tally, home_within  # noqa: E402

# Selenium must not fetch drivers or browsers, nor report anything: the Debian ones are used.
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"

tally = Tally("web")
check = tally.check

PHONE = (412, 915)
# Waiting is bounded but generous: a loaded two-core machine is slow, not wrong.
START_TIMEOUT = 30
WAIT = 20
STATE_IDS = ["step-title", "step-number", "time-left", "cadence", "advice", "heart-rate", "alpha1", "in-zone", "session-time"]
BUTTON_IDS = ["btn-pause", "btn-next", "btn-finish"]
USER_PLAN = {
    "name": "Web check plan",
    "description": "Written by Tests/Web/check_web.py into the user's plan folder.",
    "steps": [
        {"kind": "warmup", "duration": "2:00", "cadence": 160},
        {"kind": "work", "duration": "3:00", "cadence": 170, "label": "Web check work"},
    ],
}


# ---------------------------------------------------------------- processes and HTTP

def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Server:
    """An intervalpro process serving the page, with its own XDG folders, until `stop`."""

    def __init__(self, binary, folder, arguments, port, data=None):
        self.folder = folder
        self.port = port
        self.config = os.path.join(folder, "config")
        self.data = data or os.path.join(folder, "data")
        os.makedirs(self.config, exist_ok=True)
        os.makedirs(self.data, exist_ok=True)
        self.env = dict(os.environ, XDG_CONFIG_HOME=self.config, XDG_DATA_HOME=self.data)
        self.arguments = arguments
        self.binary = binary
        self.lines = []
        self.url = None
        self.process = None

    def start(self):
        out = open(os.path.join(self.folder, "stdout.txt"), "ab")
        self.process = subprocess.Popen([self.binary, *self.arguments], cwd=ROOT, env=self.env,
                                        stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE)
        out.close()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT
        listening = False
        while time.monotonic() < deadline and self.process.poll() is None:
            if not listening:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    listening = True
                except OSError:
                    pass
            for line in list(self.lines):
                found = re.search(r"intervalpro: web page at (http://\S+)", line)
                if found:
                    self.url = found.group(1)
            if listening and self.url:
                return self
            time.sleep(0.05)
        raise RuntimeError(f"`intervalpro {' '.join(self.arguments)}` did not start listening on {self.port} "
                           f"(exit {self.process.poll()}): {self.stderr()[-1500:]}")

    def _read_stderr(self):
        for raw in self.process.stderr:
            self.lines.append(raw.decode("utf-8", "replace"))

    def stderr(self):
        return "".join(self.lines)

    def stop(self):
        """Ctrl-C, then kill if it lingers; the exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def request(port, method, path, body=None, headers=None, timeout=15):
    """(status, headers as a lower-cased dict, body bytes); never follows redirects."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        elif isinstance(body, str):
            body = body.encode()
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


def get_json(port, path, headers=None):
    status, _, data = request(port, "GET", path, headers=headers)
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {data[:300]!r}")
    return json.loads(data)


def post_json(port, path, value, headers=None):
    status, _, data = request(port, "POST", path, body=value, headers=headers)
    try:
        parsed = json.loads(data) if data else None
    except ValueError:
        parsed = None
    return status, parsed, data


def state_of(port, headers=None):
    return get_json(port, "/api/state", headers)


def wait_until(condition, timeout=WAIT, every=0.1):
    """The first truthy value of condition(), or None after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except Exception:  # noqa: BLE001 - not there yet (no answer, no element): wait on
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(every)


def wait_state(port, predicate, timeout=WAIT, headers=None):
    return wait_until(lambda: (lambda s: s if predicate(s) else None)(state_of(port, headers)), timeout)


def advancing(port, before, headers=None):
    """The session still runs and publishes: a later state, still running, or None."""
    return wait_state(port, lambda s: s.get("status") == "running" and s["seq"] > before["seq"]
                      and s["sessionTime"] > before["sessionTime"], 10, headers)


# Hummingbird's WebSocket layer answers every refused upgrade with 400, no body and the
# connection closed (docs/reference/web-api.md, "Access"): what matters is that nothing is upgraded or said.
REFUSED_UPGRADE = 400


def refused_upgrade(status, data):
    return status == REFUSED_UPGRADE and not data


def websocket_status(port, headers=None):
    """The status the WebSocket upgrade at /api/live is answered with, and the body."""
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    status, _, data = request(port, "GET", "/api/live", headers={**upgrade, **(headers or {})})
    return status, data


def ws_connect(url, headers=None):
    from websockets.asyncio.client import connect
    return connect(url, additional_headers=headers, open_timeout=WAIT, close_timeout=5, max_size=2 ** 22,
                   ping_interval=None)


class Recorder:
    """Every state /api/live sends, read in the background until the server closes it."""

    def __init__(self, port):
        self.states = []
        self.url = f"ws://127.0.0.1:{port}/api/live"
        self.thread = threading.Thread(target=lambda: asyncio.run(self._read()), daemon=True)
        self.thread.start()

    async def _read(self):
        try:
            async with ws_connect(self.url) as ws:
                async for text in ws:
                    self.states.append(json.loads(text))
        except Exception:  # noqa: BLE001 - the server went away: what was read stays
            pass

    def finished(self):
        return next((s for s in reversed(self.states) if s.get("status") == "finished"), None)


def error_body(data):
    """The body is {"error": "..."} and nothing else."""
    try:
        value = json.loads(data)
    except ValueError:
        return False
    return isinstance(value, dict) and list(value) == ["error"] and isinstance(value["error"], str)


def clock_seconds(text):
    """'1:05' -> 65, '1:02:03' -> 3723; None when not m:ss."""
    if not re.fullmatch(r"\d+(:\d\d)+", text):
        return None
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def number_in(text):
    found = re.search(r"-?\d+(\.\d+)?", text or "")
    return float(found.group(0)) if found else None


def decimals(text):
    found = re.search(r"-?\d+(?:\.(\d+))?", text or "")
    return len(found.group(1) or "") if found else 0


def agrees(text, value):
    """A shown figure agrees with a value when it is the value rounded as shown."""
    shown = number_in(text)
    return shown is not None and value is not None and abs(shown - value) <= 0.5 * 10 ** -decimals(text) + 1e-6


def serve_arguments(binary):
    """serve's arguments for a quiet, unsaved-audio server: sound options if serve has them."""
    try:
        text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    extra = []
    if "--metronome" in text:
        extra += ["--metronome", "off"]
    if "--no-voice" in text:
        extra += ["--no-voice"]
    return extra + AS_US


# The page is not served as root unless asked (CI runs as root).
AS_US = ["--allow-root"] if os.geteuid() == 0 else []


# ---------------------------------------------------------------- the browser

def browser(folder):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--no-default-browser-check", "--hide-scrollbars", f"--window-size={PHONE[0]},{PHONE[1]}",
                     f"--user-data-dir={os.path.join(folder, 'chromium-profile')}",
                     # Nothing leaves loopback: no background fetches, and a dead proxy for the rest
                     # (Chromium never sends loopback addresses through a proxy).
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-domain-reliability", "--disable-client-side-phishing-detection",
                     "--disable-default-apps", "--proxy-server=http://127.0.0.1:9"]:
        options.add_argument(argument)
    # A phone's screen: headless Chromium keeps windows at least 500 px wide, emulation does not.
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {
        "width": PHONE[0], "height": PHONE[1], "pixelRatio": 1.0, "mobile": True, "touch": True}})
    service = Service(executable_path=shutil.which("chromedriver"), log_output=os.path.join(folder, "chromedriver.log"),
                      env=home_within(os.path.join(folder, "chromium")))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    return driver


READ_DOM = """
const ids = arguments[0], out = {};
for (const id of ids) { const e = document.getElementById(id); out[id] = e ? e.textContent.trim() : null; }
const clock = document.getElementById('session-time');
out['data-seconds'] = clock ? clock.getAttribute('data-seconds') : null;
const alpha = document.getElementById('alpha1-fact');
out['alpha1-shown'] = alpha ? !alpha.classList.contains('hidden') : null;
const pause = document.getElementById('btn-pause');
out['btn-pause'] = pause ? pause.textContent.trim() : null;
return out;
"""


def fits_phone(driver):
    """The page is laid out at the phone's width (a viewport meta tag) and does not scroll sideways."""
    return driver.execute_script(
        "const e = document.documentElement; return e.clientWidth === arguments[0] && e.scrollWidth <= e.clientWidth",
        PHONE[0])


def button_places(driver):
    """Where the live view's buttons are on the screen, in whole pixels."""
    return driver.execute_script(
        "return ['btn-pause', 'btn-next', 'btn-finish'].map((id) => {"
        " const r = document.getElementById(id).getBoundingClientRect();"
        " return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)]; })")


def read_dom(driver):
    return driver.execute_script(READ_DOM, STATE_IDS)


def click(driver, element_id):
    """Clicks a button; accepts a confirm() it may raise."""
    from selenium.common.exceptions import NoAlertPresentException
    driver.find_element("id", element_id).click()
    deadline = time.monotonic() + 0.7
    while time.monotonic() < deadline:
        try:
            driver.switch_to.alert.accept()
            return
        except NoAlertPresentException:
            time.sleep(0.05)


def dom_wait(driver, condition, timeout=WAIT):
    """The first truthy condition(dom), or None."""
    return wait_until(lambda: (lambda d: d if condition(d) else None)(read_dom(driver)), timeout)


def step_pair(dom):
    found = re.fullmatch(r"(\d+)\s*/\s*(\d+)", dom.get("step-number") or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def disagreements(dom, states, strict):
    """How the DOM differs from what the states say. Each figure may come from any one of the
    states (fetched around the DOM read); `strict` asks for exact figures of the one state."""
    problems = []

    def either(name, ok):
        if not any(ok(s) for s in states):
            problems.append(f"{name} {dom.get(name)!r}")

    def step(s):
        return s.get("step") or {}

    either("step-title", lambda s: dom["step-title"] == step(s).get("title"))
    either("step-number", lambda s: step_pair(dom) == (step(s).get("number"), step(s).get("count")))
    slack = 0 if strict else 1

    def time_left(s):
        if step(s).get("end") != "time":
            return dom["time-left"] == ""
        shown = clock_seconds(dom["time-left"])
        return shown is not None and abs(shown - step(s)["timeLeft"]) <= slack
    either("time-left", time_left)

    def cadence(s):
        if s.get("cadence") is None:
            return dom["cadence"] == "--"
        return re.fullmatch(r"\d+", dom["cadence"] or "") is not None and \
            abs(int(dom["cadence"]) - s["cadence"]) <= (0 if strict else 3)
    either("cadence", cadence)
    either("advice", lambda s: bool(s.get("advice")) and s["advice"]["text"].lower() in dom["advice"].lower())

    def heart_rate(s):
        if s.get("heartRate") is None:
            return number_in(dom["heart-rate"]) is None
        shown = number_in(dom["heart-rate"])
        return shown is not None and abs(shown - s["heartRate"]) <= (0 if strict else 3)
    either("heart-rate", heart_rate)

    def alpha1(s):
        # Alpha 1 beside heart rate once the strap sent beats: its value, or why there is none.
        a = s.get("alpha1")
        if a is None:
            return dom["alpha1-shown"] is False
        if not dom["alpha1-shown"]:
            return False
        if a["status"] != "scored":
            return dom["alpha1"] == a["status"]
        shown = number_in(dom["alpha1"])
        return shown is not None and abs(shown - a["value"]) <= (0.005 if strict else 0.3)
    either("alpha1", alpha1)

    def in_zone(s):
        if s.get("inZonePercent") is None:
            return number_in(dom["in-zone"]) is None
        return agrees(dom["in-zone"], s["inZonePercent"]) or \
            (not strict and abs((number_in(dom["in-zone"]) or -99) - s["inZonePercent"]) <= 1)
    either("in-zone", in_zone)

    def seconds(s):
        try:
            return abs(float(dom["data-seconds"]) - s["sessionTime"]) <= (1.0 if strict else 1.5)
        except (TypeError, ValueError):
            return False
    either("data-seconds", seconds)
    return problems


def compare_with_api(driver, port, strict, attempts=4):
    """Reads the DOM between two fetches of /api/state until they agree; the problems left."""
    problems = ["never compared"]
    for _ in range(attempts):
        before = state_of(port)
        dom = read_dom(driver)
        after = state_of(port)
        if strict and before["seq"] != after["seq"]:
            problems = [f"state changed while paused: seq {before['seq']} -> {after['seq']}"]
            time.sleep(0.3)
            continue
        problems = disagreements(dom, [before, after], strict)
        if not problems:
            return []
        problems = problems + [f"(states {before.get('step')} / {after.get('step')} cadence "
                               f"{before.get('cadence')}/{after.get('cadence')})"]
        time.sleep(0.3)
    return problems


# ---------------------------------------------------------------- 1. run --web in the browser

def live_page(binary, scratch, screenshot_copy):
    folder = os.path.join(scratch, "run-web")
    os.makedirs(folder)
    driver = browser(folder)  # before the session starts: the warm-up lasts 60 s at 10x
    port = free_port()
    server = Server(binary, folder, ["run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl",
                                     "--speed", "10", "--web", f"127.0.0.1:{port}",
                                     "--metronome", "off", "--no-voice", "--no-save", *AS_US], port)
    try:
        server.start()
        recorder = Recorder(port)
        check(server.url.rstrip("/") == f"http://127.0.0.1:{port}" and "token" not in server.url,
              f"run --web on loopback prints its address without a token: {server.url}")
        driver.get(f"http://127.0.0.1:{port}/")
        shown = dom_wait(driver, lambda d: d.get("step-title"))
        check(shown is not None, f"the live view shows a step title within {WAIT} s: {read_dom(driver)}")
        # Where the buttons are before alpha 1 comes: a tap aimed at Pause must not land elsewhere.
        controls_at = button_places(driver)
        dom = read_dom(driver)
        missing = [i for i in STATE_IDS + ["btn-pause"] if dom.get(i) is None] + \
            [i for i in BUTTON_IDS + ["summary"] if not driver.find_elements("id", i)]
        check(not missing, f"the page has every element the check reads; missing: {missing}")
        if missing or shown is None:
            return
        check(not driver.find_element("id", "summary").is_displayed(), "the summary is hidden while the session runs")
        check(fits_phone(driver),
              f"the live view fits a {PHONE[0]} px wide phone (no sideways scrolling)")
        # A phone's text made twice as large (the page's sizes are in rem): Finish ran off the
        # screen, the title and the facts were cut (WCAG 1.4.4, 1.4.10).
        # On a 360 px phone, as the page's own 412 leaves room the smaller ones do not.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
        larger = driver.execute_script(
            "const e = document.documentElement; e.style.fontSize = '200%';"
            " const r = document.getElementById('btn-finish').getBoundingClientRect();"
            " const out = [e.scrollWidth, e.clientWidth, Math.round(r.right)]; e.style.fontSize = ''; return out;")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
        check(larger[0] <= larger[1] and larger[2] <= larger[1],
              f"at twice the text size a 360 px phone shows the live view whole, Finish on the screen: scrollWidth, width, Finish's right {larger}")
        # A screen reader hears the step and the advice change (WCAG 4.1.3).
        announced = driver.execute_script(
            "return ['step-title', 'advice', 'notice'].map((id) => { const e = document.getElementById(id);"
            " return e.getAttribute('aria-live') || e.getAttribute('role'); })")
        check(announced == ["polite", "status", "status"], f"the step, the advice and the notice are live regions: {announced}")

        problems = compare_with_api(driver, port, strict=False)
        check(not problems, f"the live view shows what /api/state says: {problems}")
        dom = read_dom(driver)
        check(step_pair(dom) is not None, f"step number reads 'N / COUNT': {dom['step-number']!r}")
        check(clock_seconds(dom["time-left"]) is not None, f"time left reads m:ss on a time step: {dom['time-left']!r}")
        check(re.fullmatch(r"\d+|--", dom["cadence"] or "") is not None,
              f"cadence is whole steps per minute or --: {dom['cadence']!r}")
        check(dom["btn-pause"] == "Pause", f"the pause button reads Pause while running: {dom['btn-pause']!r}")

        shot = os.path.join(folder, "live.png")
        driver.save_screenshot(shot)
        with open(shot, "rb") as f:
            header = f.read(24)
        check(header[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(header[16:20], "big") == PHONE[0],
              f"a {PHONE[0]} px wide screenshot of the live view")
        if screenshot_copy:
            shutil.copyfile(shot, screenshot_copy)
        found = axe_violations(driver)
        check(not found, f"the live view: no serious or critical accessibility finding: {found}")

        plans = get_json(port, "/api/plans").get("plans", [])
        plan_id = next((p["id"] for p in plans if p.get("name") == "Cadence ladder"), "cadence-ladder")
        status, body, _ = post_json(port, "/api/sessions", {"plan": plan_id, "source": "simulate"})
        check(status == 409, f"run --web refuses to start another session with 409: {status} {body}")

        check(dom_wait(driver, lambda d: d["alpha1-shown"]) is not None, "alpha 1 shows once the strap's beats arrive")
        placed = button_places(driver)
        check(placed == controls_at, f"the buttons stay where they were when alpha 1 appears: {controls_at} -> {placed}")

        # Pause from the page.
        click(driver, "btn-pause")
        paused = wait_state(port, lambda s: s.get("paused") is True)
        check(paused is not None, "Pause on the page pauses the session (/api/state paused)")
        check(dom_wait(driver, lambda d: d["btn-pause"] == "Resume") is not None,
              f"the pause button reads Resume while paused: {read_dom(driver)['btn-pause']!r}")
        if paused:
            time.sleep(0.3)
            first = state_of(port)
            time.sleep(1.5)
            second = state_of(port)
            check(second["paused"] and second["sessionTime"] == first["sessionTime"],
                  f"session time stands still while paused: {first['sessionTime']} -> {second['sessionTime']}")
            first_dom = read_dom(driver)
            time.sleep(1.0)
            second_dom = read_dom(driver)
            check(first_dom["data-seconds"] == second_dom["data-seconds"] and
                  first_dom["time-left"] == second_dom["time-left"],
                  f"the page's clock stands still while paused: {first_dom['data-seconds']} -> "
                  f"{second_dom['data-seconds']}, {first_dom['time-left']} -> {second_dom['time-left']}")

            async def first_frame():
                async with ws_connect(f"ws://127.0.0.1:{port}/api/live") as ws:
                    return json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            frame = asyncio.run(first_frame())
            current = state_of(port)
            check(frame.get("paused") is True and frame["seq"] <= current["seq"] and frame["seq"] >= second["seq"],
                  f"/api/live sends the current state at once, with nothing changing (paused): seq {frame.get('seq')}")
            problems = compare_with_api(driver, port, strict=True)
            if problems and problems[0].startswith("state changed while paused"):
                # Sensors may still report while paused: then compare as while running.
                problems = compare_with_api(driver, port, strict=False)
            check(not problems, f"paused, the live view shows exactly what /api/state says: {problems}")

        # Resume.
        before = state_of(port)
        click(driver, "btn-pause")
        resumed = wait_state(port, lambda s: s.get("paused") is False and s["sessionTime"] > before["sessionTime"])
        check(resumed is not None, "Resume on the page: the session time runs again")
        check(dom_wait(driver, lambda d: d["btn-pause"] == "Pause") is not None,
              f"the pause button reads Pause again: {read_dom(driver)['btn-pause']!r}")
        dom_before = read_dom(driver)
        check(dom_wait(driver, lambda d: d["data-seconds"] != dom_before["data-seconds"]) is not None,
              "the page's clock runs again")

        # Next.
        number = state_of(port)["step"]["number"]
        click(driver, "btn-next")
        moved = wait_state(port, lambda s: (s.get("step") or {}).get("number", 0) > number)
        check(moved is not None and moved["step"]["number"] == number + 1,
              f"Next on the page: step {number} -> {moved and moved['step']['number']} in /api/state")
        check(dom_wait(driver, lambda d: step_pair(d) and step_pair(d)[0] == number + 1) is not None,
              f"Next on the page: the page shows step {number + 1}: {read_dom(driver)['step-number']!r}")
        # The next step's title is longer ("Work 1/6 · Ladder rung"): the buttons stay put.
        placed = button_places(driver)
        check(placed == controls_at,
              f"the buttons stay where they were at the next step ({read_dom(driver)['step-title']!r}): {controls_at} -> {placed}")

        # A double tap on Next (two taps 150 ms apart) skipped two steps.
        number = state_of(port)["step"]["number"]
        driver.find_element("id", "btn-next").click()
        time.sleep(0.15)
        driver.find_element("id", "btn-next").click()
        wait_state(port, lambda s: (s.get("step") or {}).get("number", 0) > number)
        time.sleep(1.5)
        reached = state_of(port)["step"]["number"]
        check(reached == number + 1, f"a double tap on Next moves one step: {number} -> {reached}")

        # Finish.
        click(driver, "btn-finish")

        def finished_state():
            # run --web ends when its session does: the finished state may only be on the WebSocket.
            if server.process.poll() is None:
                try:
                    answer = state_of(port)
                    if answer.get("status") == "finished":
                        return answer
                except (OSError, RuntimeError, http.client.HTTPException):
                    pass
            return recorder.finished()
        finished = wait_until(finished_state)
        check(finished is not None, "Finish on the page: the finished state comes on /api/state or /api/live "
              f"(run --web exited {server.process.poll()}; last state on the WebSocket: "
              f"{recorder.states and {k: recorder.states[-1].get(k) for k in ('seq', 'status')}})")
        visible = wait_until(lambda: driver.find_element("id", "summary").is_displayed())
        check(visible is not None, "the summary appears on the page")
        if finished and visible:
            summary = finished.get("summary") or {}
            check(summary.get("summary_version") == 1 and summary.get("plan") == "Cadence ladder"
                  and summary.get("completed") is False,
                  f"the finished state holds the JSON summary (version 1, the plan, not completed): "
                  f"{ {k: summary.get(k) for k in ('summary_version', 'plan', 'completed')} }")
            check(finished.get("sessionId") is None, f"--no-save: sessionId is null: {finished.get('sessionId')}")
            elements = driver.find_elements("id", "summary-in-zone")
            text = elements[0].text.strip() if elements else None
            total = (summary.get("totals") or {}).get("in_zone_pct")
            check(text is not None and agrees(text, total),
                  f"the summary's in-zone figure on the page ({text!r}) is the summary's ({total})")
            # The last moment's heart rate and alpha 1 stood beside the summary's averages.
            dom = read_dom(driver)
            alpha_shown = driver.find_element("id", "alpha1-fact").is_displayed()
            check(dom["heart-rate"] == "--" and not alpha_shown,
                  f"finished, the live heart rate and alpha 1 are gone: HR {dom['heart-rate']!r}, alpha 1 shown {alpha_shown}")
    finally:
        driver.quit()
        code = server.stop()
        check(code in (0, -signal.SIGINT, 130), f"run --web exits cleanly after Finish: {code} {server.stderr()[-500:]}")


# ---------------------------------------------------------------- 2. serve: start page and history

def connection_lost(binary, scratch):
    """The Pi goes away mid-session (Wi-Fi, power): the page says its figures are no longer live,
    and that a button's command got no answer, below the buttons."""
    folder = os.path.join(scratch, "run-web-lost")
    os.makedirs(folder)
    driver = browser(folder)
    port = free_port()
    server = Server(binary, folder, ["run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl",
                                     "--web", f"127.0.0.1:{port}", "--metronome", "off", "--no-voice", "--no-save",
                                     *AS_US], port)
    try:
        server.start()
        driver.get(f"http://127.0.0.1:{port}/")
        check(dom_wait(driver, lambda d: d.get("step-title")) is not None, "the live view shows the session")
        link = lambda: driver.find_element("id", "link")
        check(not link().is_displayed(), f"no connection message while the Pi answers: {link().text!r}")
        controls_at = button_places(driver)
        # Wi-Fi gone without a word (the Pi stopped: its sockets stay open and say nothing): the
        # page showed the figures frozen, as if live, for as long as it lasted.
        os.kill(server.process.pid, signal.SIGSTOP)
        said = wait_until(lambda: link().text if link().is_displayed() else None, 20)
        check(said is not None and "lost" in said, f"the page says a silent link is lost: {said!r}")
        os.kill(server.process.pid, signal.SIGCONT)
        back = wait_until(lambda: True if not link().is_displayed() else None, 30)
        check(back is not None, f"and that it is back once the Pi answers: {link().text!r}")
        server.process.kill()
        server.process.wait()
        said = wait_until(lambda: link().text if link().is_displayed() else None, 10)
        check(said is not None and "lost" in said, f"the page says the connection is lost once the Pi is gone: {said!r}")
        click(driver, "btn-pause")
        said = wait_until(lambda: link().text if "no answer" in link().text else None, 15)
        check(said is not None and said.startswith("Pause: no answer from 127.0.0.1:"),
              f"Pause with the Pi gone says it got no answer: {said!r}")
        check(button_places(driver) == controls_at, "the message leaves the buttons where they were")
        # Back with no session (restarted, it kept what was saved): the page went to the start
        # page without a word, the runner's session gone.
        server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
        server.start()
        said = wait_until(lambda: (lambda e: e.text if e.is_displayed() and e.text else None)(driver.find_element("id", "error")), 15)
        check(said is not None and "server restarted" in said and driver.find_element("id", "view-start").is_displayed(),
              f"the page back from the Pi without the session says the session stopped: {said!r}")
    finally:
        driver.quit()
        server.stop()


def notice_below_buttons(binary, scratch):
    """A sensor's news (the bundled first session's footpod drops out at 13:20) shows on the page
    without moving the buttons."""
    folder = os.path.join(scratch, "run-web-notice")
    os.makedirs(folder)
    driver = browser(folder)
    port = free_port()
    server = Server(binary, folder, ["run", "Plans/first-cadence-session.json", "--replay",
                                     "Recordings/first-cadence-session.jsonl", "--speed", "100", "--web",
                                     f"127.0.0.1:{port}", "--metronome", "off", "--no-voice", "--no-save", *AS_US], port)
    try:
        server.start()
        driver.get(f"http://127.0.0.1:{port}/")
        check(dom_wait(driver, lambda d: d.get("step-title")) is not None, "the live view shows the session")
        controls_at = button_places(driver)
        notice = lambda: driver.find_element("id", "notice")
        said = wait_until(lambda: notice().text if notice().is_displayed() and notice().text else None, 30)
        # At 100x the footpod is back 0.25 s after it drops out (825 s after 800 s), so on a busy
        # host the page may show its return first: either is the footpod's news, by its name
        # (it was its address, read out in hex by a screen reader).
        check(said is not None and said in ("Simulated footpod disconnected", "Simulated footpod connected"),
              f"the footpod's dropout or its return shows as a notice: {said!r}")
        placed = button_places(driver)
        check(placed == controls_at, f"the notice leaves the buttons where they were: {controls_at} -> {placed}")
    finally:
        driver.quit()
        server.stop()


def start_page(binary, scratch):
    folder = os.path.join(scratch, "serve")
    os.makedirs(folder)
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
    plans_folder = os.path.join(server.config, "intervalpro", "plans")
    os.makedirs(plans_folder)
    with open(os.path.join(plans_folder, "web-check.json"), "w") as f:
        json.dump(USER_PLAN, f)
    # A plan with a typo: on a Pi the page is the only screen, so it says what is wrong.
    with open(os.path.join(plans_folder, "typo.json"), "w") as f:
        f.write('{"name": "Typo", "steps": [{"kind": "work", "durration": "5:00", "cadence": 170}]}')
    driver = None
    try:
        server.start()
        check(server.url.rstrip("/") == f"http://127.0.0.1:{port}" and "token" not in server.url,
              f"serve on loopback prints its address without a token: {server.url}")
        idle = state_of(port)
        check(idle.get("status") == "idle" and sorted(idle) == ["seq", "status"],
              f"before any session /api/state is only seq and status idle: {idle}")
        status, body, _ = post_json(port, "/api/command", {"command": "pause"})
        check(status == 409 and body is not None and error_body(json.dumps(body)),
              f"a command with no session running: 409 and an error: {status} {body}")
        status, _, _ = request(port, "GET", "/sessions/1/report")
        check(status == 404, f"the report of a session that does not exist: 404, got {status}")
        # A misspelt choice was passed over (the session ran at its default); a number for an
        # event id was "one of them"; intervals.icu without an account was 502; a plain GET of
        # the WebSocket was 200 with nothing.
        status, body, _ = post_json(port, "/api/sessions", {"plan": "examples/pyramid", "source": "simulate", "sped": 100})
        check(status == 400 and "unknown key 'sped'" in json.dumps(body), f"a start with an unknown key: 400 naming it: {status} {body}")
        status, body, _ = post_json(port, "/api/sessions", {"planned": 123, "source": "simulate"})
        check(status == 400 and "must be a string" in json.dumps(body), f"a planned id that is a number: 400, said: {status} {body}")
        status, body, _ = post_json(port, "/api/sessions", {"planned": "123", "source": "simulate"})
        check(status == 409 and "no intervals.icu account" in json.dumps(body), f"a planned run without an account: 409: {status} {body}")
        status, _, body = request(port, "GET", "/api/live")
        check(status == 426 and b"WebSocket" in body, f"/api/live without the upgrade: 426, said: {status} {body[:120]!r}")
        sessions = get_json(port, "/api/sessions")
        check(sessions == {"sessions": [], "total": 0}, f"a new store lists no sessions: {sessions}")
        # No site may frame the page (on loopback no token is asked: its buttons could be pressed).
        _, page_headers, _ = request(port, "GET", "/")
        check(page_headers.get("x-frame-options") == "DENY"
              and page_headers.get("content-security-policy") == "frame-ancestors 'none'",
              f"the page may not be framed: {page_headers}")
        # A connection that sends part of a request head is closed after 10 s (each was held for
        # ever: a thousand of them locked the phone out); a whole request meanwhile is answered.
        partial = socket.create_connection(("127.0.0.1", port))
        partial.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        opened = time.monotonic()
        answered, _, _ = request(port, "GET", "/api/state")
        partial.settimeout(30)
        try:
            closed = partial.recv(100) == b""
        except OSError:
            closed = False
        held = time.monotonic() - opened
        partial.close()
        check(answered == 200 and closed and 8 < held < 20,
              f"a part of a request head is closed after about 10 s ({held:.1f} s, closed {closed}); a whole one is answered ({answered})")
        # A head that ends but is not HTTP is closed at once (the WebSocket upgrade waited for one
        # that parses: each was held for ever, past the head's deadline); the server goes on.
        garbage = socket.create_connection(("127.0.0.1", port))
        garbage.sendall(b"GARBAGE\r\n\r\n")
        garbage.settimeout(5)
        try:
            closed = garbage.recv(100) == b""
        except OSError:
            closed = False
        garbage.close()
        check(closed and state_of(port).get("status") == "idle", f"a request that is not HTTP is closed at once (closed {closed})")

        plans = get_json(port, "/api/plans").get("plans", [])
        by_name = {p.get("name"): p for p in plans}
        examples = sorted(p.get("name") for p in plans if p.get("folder") == "examples")
        check(examples == ["Cadence ladder", "Cadence pyramid", "First cadence session", "Long steady run",
                           "Metronome intervals"], f"/api/plans lists the example plans: {examples}")
        listed = get_json(port, "/api/plans")
        unreadable = listed.get("unreadable", [])
        check([u.get("id") for u in unreadable] == ["mine/typo.json"] and "durration" in unreadable[0].get("error", "")
              and "typo.json:1:" in unreadable[0].get("error", ""),
              f"/api/plans names the user's plan it cannot offer, with where and what is wrong: {unreadable}")
        status, _, body = request(port, "GET", "/api/plans/preview?id=mine/typo.json")
        check(status == 422 and b"durration" in body, f"the preview of the broken plan: 422 with what is wrong: {status} {body[:200]!r}")
        mine = by_name.get(USER_PLAN["name"], {})
        check(mine.get("folder") == "mine" and mine.get("steps") == 2 and mine.get("duration") == 300,
              f"/api/plans lists the user's plan (folder mine, 2 steps, 300 s): {mine}")
        ladder = by_name.get("Cadence ladder", {})
        check(ladder.get("steps") == 15 and ladder.get("duration") == 2220,
              f"the cadence ladder: 15 steps (repeats expanded), 2220 s: {ladder}")
        steady = by_name.get("Long steady run", {})
        check("duration" in steady and steady.get("duration") is None,
              f"a plan with an open step has duration null: {steady}")
        check(all({"id", "name", "folder", "steps", "duration"} <= set(p) for p in plans) and
              len({p.get("id") for p in plans}) == len(plans),
              "every plan has id, name, folder, steps, duration; ids differ")

        recordings = get_json(port, "/api/recordings").get("recordings", [])

        def flat(text):
            return re.sub(r"[^a-z0-9]", "", str(text).lower())
        bundled = ["cadence-ladder", "first-cadence-session", "long-steady-run", "pyramid"]
        listed = [r for r in recordings if all(k in r for k in ("id", "name"))]
        found = [b for b in bundled if any(flat(b) in flat(r["id"]) + "|" + flat(r["name"]) for r in listed)]
        check(found == bundled and len(listed) == len(recordings),
              f"/api/recordings lists the bundled recordings with id and name: {recordings}")
        recording = next((r for r in listed if "cadenceladder" in flat(r["id"]) + flat(r["name"])), None)

        # Session requests that are refused leave the server idle.
        ladder_id = ladder.get("id")
        rec_id = recording and recording["id"]
        for value, expected, what in [
            ({"plan": "no-such-plan", "source": "simulate"}, 404, "an unknown plan"),
            ({"plan": ladder_id, "source": "recording", "recording": "no-such-recording"}, 404, "an unknown recording"),
            ({"plan": ladder_id, "source": "simulate", "speed": 0}, 400, "speed 0"),
            ({"plan": ladder_id, "source": "simulate", "speed": 101}, 400, "speed 101"),
            ({"plan": ladder_id, "source": "simulate", "recording": rec_id}, 400, "a recording with source simulate"),
            ({"plan": ladder_id, "source": "live", "speed": 10}, 400, "a speed with source live"),
            ({"plan": ladder_id, "source": "metronome", "speed": 10}, 400, "a speed with source metronome"),
            ({"plan": ladder_id, "source": "teleport"}, 400, "an unknown source"),
            # Another plan's recording was replayed against it (the first), its score saved.
            ({"plan": mine.get("id"), "source": "recording"}, 404, "a recording for a plan none is bundled with"),
            ({"source": "simulate"}, 400, "no plan"),
        ]:
            status, body, _ = post_json(port, "/api/sessions", value)
            check(status == expected and body is not None and list(body) == ["error"],
                  f"POST /api/sessions with {what}: {expected} and an error, got {status} {body}")
            if status == 201:
                post_json(port, "/api/command", {"command": "finish"})
                wait_state(port, lambda s: s.get("status") != "running")

        # No sensor by the treadmill: the metronome alone, in real time, nothing measured or kept.
        status, body, _ = post_json(port, "/api/sessions", {"plan": ladder_id, "source": "metronome"})
        alone = wait_state(port, lambda s: s.get("status") == "running") if status == 201 else None
        check(alone is not None and alone.get("source") == "metronome",
              f"POST /api/sessions with source metronome: 201 and a session of source metronome, got {status} {body} {alone and alone.get('source')}")
        check(alone is not None and alone.get("inZonePercent") is None,
              f"the metronome's session has no in-zone share (nobody ran in the zone): {alone and alone.get('inZonePercent')}")
        post_json(port, "/api/command", {"command": "finish"})
        ended = wait_state(port, lambda s: s.get("status") == "finished")
        check(ended is not None and ended.get("sessionId") is None and ended.get("inZonePercent") is None,
              f"the metronome's session is not saved, and has no in-zone share: {ended and (ended.get('sessionId'), ended.get('inZonePercent'))}")

        # The start page.
        driver = browser(folder)
        driver.get(f"http://127.0.0.1:{port}/")
        from selenium.webdriver.support.ui import Select
        if wait_until(lambda: driver.find_element("id", "plan").is_displayed(), 5) is None:
            # A session finished before: its summary shows, with a link to a new one.
            for link in driver.find_elements("id", "summary-new"):
                link.click()
        plan_element = wait_until(lambda: (lambda e: e if e.is_displayed() else None)(driver.find_element("id", "plan")))
        check(plan_element is not None, "the start page has the plan choice (id plan)")
        if plan_element is None:
            return
        wait_until(lambda: USER_PLAN["name"] in plan_element.text and "Cadence ladder" in plan_element.text)
        check(USER_PLAN["name"] in plan_element.text and "Cadence ladder" in plan_element.text,
              f"the start page lists the examples and the user's plan: {plan_element.text[:300]!r}")
        problems = driver.find_element("id", "plan-problems").text
        check("Not offered: mine/typo.json" in problems and "durration" in problems,
              f"the start page says which plan it cannot offer and why: {problems[:300]!r}")
        check(fits_phone(driver),
              f"the start page fits a {PHONE[0]} px wide phone")
        if plan_element.tag_name == "select":
            choice = Select(plan_element)
            values = [o.get_attribute("value") for o in choice.options]
            if ladder_id in values:
                choice.select_by_value(ladder_id)
            else:
                choice.select_by_visible_text(next(o.text for o in choice.options if "Cadence ladder" in o.text))
        else:
            radios = plan_element.find_elements("css selector", f"input[type=radio][value='{ladder_id}']")
            if radios:
                radios[0].click()
            else:
                plan_element.find_element("xpath", ".//label[contains(., 'Cadence ladder')]").click()
        sources = Select(driver.find_element("id", "source"))
        values = sorted(o.get_attribute("value") for o in sources.options)
        check(values == ["live", "metronome", "recording", "simulate"],
              f"the source choice offers live, simulate, recording, the metronome alone: {values}")
        sources.select_by_value("recording")
        recording_element = wait_until(lambda: (lambda e: e if e.is_displayed() else None)(
            driver.find_element("id", "recording")), 5)
        check(recording_element is not None, "choosing source recording shows the recording choice")
        # Left as it is, the plan's own recording, not the list's first (sent always before).
        chosen = wait_until(lambda: (lambda o: o if o.text else None)(Select(driver.find_element("id", "recording")).first_selected_option))
        check(chosen is not None and chosen.get_attribute("value") == "" and chosen.text == "The plan's own",
              f"the recording choice starts at the plan's own: {chosen and chosen.text!r}")
        Select(driver.find_element("id", "recording")).select_by_value(rec_id)
        speed = driver.find_element("id", "speed")
        if not speed.is_displayed():
            speed = wait_until(lambda: (lambda e: e if e.is_displayed() else None)(driver.find_element("id", "speed")), 5)
        speed.clear()
        speed.send_keys("10")
        check(speed.get_attribute("value") == "10", f"the speed field takes 10: {speed.get_attribute('value')!r}")
        click(driver, "btn-start")
        shown = dom_wait(driver, lambda d: d.get("step-title"))
        check(shown is not None, f"Start shows the live view with a step title: {read_dom(driver)}")
        running = wait_state(port, lambda s: s.get("status") == "running")
        check(running is not None and running.get("plan") == "Cadence ladder",
              f"the session started from the page runs the chosen plan: {running and running.get('plan')}")
        if running is None:
            return
        first = running
        started = time.monotonic()
        later = wait_state(port, lambda s: s["sessionTime"] >= first["sessionTime"] + 10, 30)
        if later:
            rate = (later["sessionTime"] - first["sessionTime"]) / (time.monotonic() - started)
            check(rate > 2, f"the page's speed 10 reached the session: {rate:.1f} s of session per second")
        else:
            check(False, "the session started from the page advances 10 s of session time")
        status, body, _ = post_json(port, "/api/sessions", {"plan": ladder_id, "source": "simulate"})
        check(status == 409, f"POST /api/sessions while one runs: 409, got {status} {body}")
        # A recording's figures are not the runner's now: REPLAY beside the step (a live run's look before).
        badge = "return [document.getElementById('source-badge').textContent, document.getElementById('source-badge').classList.contains('hidden')]"
        replayed = wait_until(lambda: (lambda b: b if b[0].strip() == "REPLAY" and not b[1] else None)(driver.execute_script(badge)), 5)
        check(replayed is not None, f"a recording's session says REPLAY on the page: {driver.execute_script(badge)}")

        click(driver, "btn-finish")
        finished = wait_state(port, lambda s: s.get("status") == "finished")
        check(finished is not None and isinstance(finished.get("sessionId"), int),
              f"finished from the page, and saved: sessionId {finished and finished.get('sessionId')}")
        check(wait_until(lambda: driver.find_element("id", "summary").is_displayed()) is not None,
              "the summary appears after Finish")
        if finished is None:
            return
        session_id = finished.get("sessionId")
        sessions = get_json(port, "/api/sessions").get("sessions", [])
        listed = sessions[0] if sessions else {}
        fields = ["id", "startedAt", "plan", "source", "duration", "inZonePercent", "status", "report"]
        check(len(sessions) == 1 and set(fields) <= set(listed),
              f"/api/sessions lists the session with {fields}: {sessions}")
        check(listed.get("id") == session_id and listed.get("plan") == "Cadence ladder" and
              listed.get("report") == f"/sessions/{session_id}/report",
              f"the listed session is the one finished, its report at /sessions/ID/report: {listed}")

        driver.get(f"http://127.0.0.1:{port}/history")
        link = wait_until(lambda: [a for a in driver.find_elements("css selector", "a[href]")
                                   if re.search(r"/sessions/\d+/report$", a.get_attribute("href") or "")])
        check(link is not None, "the history view links to the session's report")
        check("Cadence ladder" in driver.find_element("tag name", "body").text, "the history view names the plan")
        if link:
            href = link[0].get_attribute("href")
            path = re.sub(r"^http://[^/]+", "", href)
            check(path == f"/sessions/{session_id}/report", f"the link is the session's report: {href}")
            status, headers, data = request(port, "GET", path)
            check(status == 200 and headers.get("content-type", "").startswith("text/html") and b"<svg" in data
                  and b"Cadence ladder" in data,
                  f"the report link answers 200 with the HTML report: {status} {headers.get('content-type')}")

        # An open step: no time left on the page.
        steady_id = steady.get("id")
        status, body, _ = post_json(port, "/api/sessions", {"plan": steady_id, "source": "simulate", "speed": 10})
        check(status == 201, f"POST /api/sessions for the long steady run: 201, got {status} {body}")
        driver.get(f"http://127.0.0.1:{port}/")
        if status == 201 and wait_state(port, lambda s: s.get("status") == "running"):
            # Two phones tap Next on the same step at once: one step ends, not two.
            number = state_of(port)["step"]["number"]
            answers = []
            taps = [threading.Thread(target=lambda: answers.append(
                post_json(port, "/api/command", {"command": "next", "step": number})[0])) for _ in range(2)]
            for tap in taps:
                tap.start()
            for tap in taps:
                tap.join()
            wait_state(port, lambda s: (s.get("step") or {}).get("number", 0) > number)
            time.sleep(1.5)
            after = (state_of(port).get("step") or {}).get("number")
            check(sorted(answers) == [200, 202] and after == number + 1,
                  f"two taps on Next for step {number} at once: answers {sorted(answers)}, now step {after} (one step on)")
            number = after or number
            post_json(port, "/api/command", {"command": "next"})
            wait_state(port, lambda s: (s.get("step") or {}).get("number", 0) > number)
            open_step = wait_state(port, lambda s: (s.get("step") or {}).get("end") == "open")
            check(open_step is not None and open_step["step"]["timeLeft"] is None,
                  f"the long steady run's last step is open, timeLeft null: {open_step and open_step['step']}")
            shown = dom_wait(driver, lambda d: d.get("step-title") == (open_step or {}).get("step", {}).get("title"))
            check(shown is not None and shown["time-left"] == "",
                  f"an open step shows no time left: {shown and shown['time-left']!r}")
            post_json(port, "/api/command", {"command": "finish"})
            wait_state(port, lambda s: s.get("status") == "finished")
        driver.quit()
        driver = None

        loopback_rules(port, ladder_id)
        sessions = get_json(port, "/api/sessions").get("sessions", [])
        ids = [s.get("id") for s in sessions]
        check(len(ids) == 3 and ids == sorted(ids, reverse=True) and ids[-1] == session_id,
              f"/api/sessions lists the three sessions, newest first: {ids}")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()


# ---------------------------------------------------------------- 2b. history: local time, trends, upload, delete

STAND_IN = os.path.join(ROOT, "Tests", "FakeServices", "stand_in.py")
ATHLETE, ICU_KEY = "i12345", "icu-secret-key"
# The Pi's time zone in this check: three hours east of UTC, all year (no summer time).
TZ = "Etc/GMT-3"
# intervals.icu's text for a run planned today: 6 steps, 5:00.
PLANNED_TEXT = "Warmup\n- 1m 160-170rpm\n\nMain set 2x\n- 1m 175rpm\n- 30s 165rpm\n\nCooldown\n- 1m 165rpm\n"


def axe_violations(driver):
    """axe-core's serious and critical findings on the page as it is (axe-selenium-python)."""
    from axe_selenium_python import Axe
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']}" for v in results["violations"] if v.get("impact") in ("serious", "critical")]


def color_scheme(driver, scheme):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


def preview_rows(driver):
    return [{"kind": r.get_attribute("data-kind"), "duration": r.get_attribute("data-duration"),
             "target": r.get_attribute("data-target"), "low": r.get_attribute("data-low"), "high": r.get_attribute("data-high")}
            for r in driver.find_elements("css selector", "#preview-steps .preview-step")]


def as_rows(steps):
    def text(value):
        return None if value is None else (str(int(value)) if float(value).is_integer() else str(value))
    return [{"kind": st["kind"], "duration": text(st["duration_s"]) if isinstance(st.get("duration_s"), (int, float)) else None,
             "target": text(st["target_spm"]), "low": text(st["low_spm"]), "high": text(st["high_spm"])} for st in steps]


def start_page_choices(binary, driver, port, cli, log):
    """The start page: today's planned run first, a preview of the chosen plan that is `plan
    check --json`'s, and the metronome and voice chosen for the session."""
    driver.get(f"http://127.0.0.1:{port}/")
    wait_until(lambda: driver.find_element("id", "view-start").is_displayed() or None)
    ladder = os.path.join(ROOT, "Plans", "cadence-ladder.json")
    checked = json.loads(cli("plan", "check", ladder, "--json").stdout or "{}")
    plans = get_json(port, "/api/plans")["plans"]
    ladder_id = next(p["id"] for p in plans if p["name"] == checked.get("plan"))
    Select = __import__("selenium.webdriver.support.select", fromlist=["Select"]).Select
    Select(driver.find_element("id", "plan")).select_by_value(ladder_id)
    rows = wait_until(lambda: preview_rows(driver) if len(preview_rows(driver)) == len(checked["steps"]) else None)
    check(rows == as_rows(checked["steps"]), f"the preview is plan check --json's steps: {rows} vs {as_rows(checked['steps'])}")
    check(float(driver.find_element("id", "preview-total").get_attribute("data-seconds") or "nan") == checked["total_timed_s"],
          "the preview's total is plan check --json's")
    check(get_json(port, "/api/plans/preview?id=" + urllib.parse.quote(ladder_id)) == checked,
          "GET /api/plans/preview?id=ID is plan check --json")
    check(driver.find_element("css selector", "#preview-chart .preview-line").get_attribute("d").count("H") ==
          len([st for st in checked["steps"] if st["target_spm"] is not None]), "the chart draws each step's target cadence")

    button = wait_until(lambda: driver.find_elements("css selector", ".today-run") or None)
    text = button[0].text if button else ""
    check(text == "Today: Cadence builder, 6 steps, 5:00", f"today's planned run comes first: {text!r}")
    today = get_json(port, "/api/today")
    listed = json.loads(cli("today", "--json").stdout or "{}")
    check([(r["id"], r["steps"], r["duration_s"]) for r in today["runs"]] ==
          [(r["id"], r["steps"], r["duration_s"]) for r in listed.get("runs", [])],
          f"GET /api/today lists what today --json lists: {today['runs']} vs {listed.get('runs')}")
    button[0].click()
    rows = wait_until(lambda: preview_rows(driver) if len(preview_rows(driver)) == 6 else None)
    check(rows == as_rows(today["runs"][0]["preview"]["steps"]), "choosing today's run previews it")

    # Started as `run icu:101` starts it, with the metronome and voice chosen here.
    Select(driver.find_element("id", "metronome")).select_by_value("off")
    Select(driver.find_element("id", "voice")).select_by_value("off")
    Select(driver.find_element("id", "source")).select_by_value("simulate")
    speed = driver.find_element("id", "speed")
    speed.clear()
    speed.send_keys("100")
    before = len([l for l in open(log) if "/events/101" in l])
    click(driver, "btn-start")
    running = wait_state(port, lambda st: st.get("status") == "running")
    check(running is not None and running.get("plan") == "Cadence builder",
          f"today's run starts from the page, named after its event: {running and running.get('plan')}")
    check(len([l for l in open(log) if "/events/101" in l]) == before + 1, "the event is read from intervals.icu once, as run icu:101 reads it")
    # A simulated runner's figures are not the runner's: the page says so (it showed "sensor ok").
    badge = "return [!document.getElementById('source-badge').classList.contains('hidden'), document.getElementById('signal').textContent]"
    shown = wait_until(lambda: (lambda b: b if b[0] else None)(driver.execute_script(badge)), 5)
    check(shown is not None and shown[1] == "simulated", f"a simulated session says SIMULATED on the page: {driver.execute_script(badge)}")
    post_json(port, "/api/command", {"command": "finish"})
    wait_state(port, lambda st: st.get("status") == "finished")
    for body, what in [({"plan": ladder_id, "source": "simulate", "metronome": "loud"}, "metronome"),
                       ({"plan": ladder_id, "source": "simulate", "volume": 2}, "volume"),
                       ({"plan": ladder_id, "source": "simulate", "voice": "fr"}, "voice"),
                       ({"plan": ladder_id, "planned": "101", "source": "simulate"}, "plan and planned")]:
        status, answer, _ = post_json(port, "/api/sessions", body)
        check(status == 400, f"POST /api/sessions with a bad {what}: 400, got {status} {answer}")
    status, answer, _ = post_json(port, "/api/sessions", {"planned": "999", "source": "simulate"})
    check(status == 404, f"POST /api/sessions for an event intervals.icu does not have: 404, got {status} {answer}")
    driver.get(f"http://127.0.0.1:{port}/")
    if wait_until(lambda: driver.find_element("id", "summary-new").is_displayed() or None, timeout=5):
        # The summary's links are touch targets too (they were 19 px high).
        small = [(e.get_attribute("id"), e.size) for e in driver.find_elements("css selector", "#summary-new, #summary-report")
                 if e.is_displayed() and e.size["height"] < 44]
        check(not small, f"the summary's links are at least 44 px high: {small}")
        click(driver, "summary-new")
    check(wait_until(lambda: driver.find_element("id", "view-start").is_displayed() or None) is not None,
          "after the session, New session shows the start page again")



def history_page(binary, scratch, screenshot_copy=None):
    folder = tempfile.mkdtemp(prefix="history-", dir=scratch)
    log = os.path.join(folder, "services.jsonl")
    # Today's planned run, on the Pi's calendar day (its time zone is TZ).
    today = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3 * 3600))
    events = os.path.join(folder, "events.json")
    with open(events, "w") as out:
        json.dump([{"id": 101, "start_date_local": f"{today}T00:00:00", "category": "WORKOUT", "name": "Cadence builder",
                    "type": "Run", "description": PLANNED_TEXT}], out)
    stand_in = subprocess.Popen(
        ["/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable, STAND_IN, "--log", log,
         "--keep-uploads", os.path.join(folder, "kept"), "--icu-events", events],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = stand_in.stdout.readline().strip()
    check(line.startswith("listening on 127.0.0.1:"), f"the services stand-in listens: {line!r}")
    base = "http://127.0.0.1:" + line.rsplit(":", 1)[1]
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
    server.env.update(TZ=TZ, INTERVALPRO_INTERVALS_ICU_URL=base, INTERVALPRO_STRAVA_URL=base, NO_COLOR="1")
    driver = None

    def cli(*arguments):
        return subprocess.run([binary, *arguments], env=server.env, capture_output=True, text=True, timeout=120)

    try:
        # Two simulated sessions, then a recording replayed (the newest, uploaded below: a
        # simulation is not a run to upload). The bundled recording is the simulator's, its
        # sensors at documentation addresses no real device has: given a runner's, it is a run.
        with open(os.path.join(ROOT, "Recordings", "cadence-ladder.jsonl"), encoding="utf-8") as bundled:
            runners = os.path.join(folder, "runners-recording.jsonl")
            with open(runners, "w", encoding="utf-8") as handle:
                handle.write(bundled.read().replace("00:00:5E:00:53:", "D0:5F:B8:4C:21:"))
        for source in (["--simulate", "--seed", "7"], ["--simulate", "--seed", "7"], ["--replay", runners]):
            ran = cli("run", os.path.join(ROOT, "Plans", "cadence-ladder.json"), *source, "--fast",
                      "--json", "--metronome", "off", "--no-voice")
            check(ran.returncode == 0, f"a session is saved ({source[0]}): {ran.returncode} {ran.stderr[-300:]}")
            time.sleep(1.1)  # a second apart: start times differ
        added = cli("account", "add", "intervals.icu", "--athlete", ATHLETE, "--api-key", ICU_KEY)
        check(added.returncode == 0, f"an intervals.icu account (the stand-in): {added.returncode} {added.stderr[-300:]}")
        server.start()

        sessions = get_json(port, "/api/sessions").get("sessions", [])
        check(len(sessions) == 3, f"/api/sessions lists the three sessions: {len(sessions)}")
        for listed in sessions:
            utc = time.strptime(listed["startedAt"], "%Y-%m-%dT%H:%M:%SZ")
            expected = time.strftime("%Y-%m-%d %H:%M", time.gmtime(__import__("calendar").timegm(utc) + 3 * 3600))
            check(listed.get("localStartedAt") == expected,
                  f"localStartedAt is the Pi's local time ({TZ}): {listed.get('localStartedAt')} for {listed['startedAt']}")
            check(listed.get("uploads") == [] and isinstance(listed.get("averageWorkCadence"), (int, float)),
                  f"each session has its uploads (none yet) and its work cadence: {listed}")

        driver = browser(folder)
        driver.get(f"http://127.0.0.1:{port}/history")
        cards = wait_until(lambda: len(driver.find_elements("css selector", "#history-list .session")) == 3 or None, timeout=60)
        check(cards is not None, "the history view shows a card per session")
        whens = [e.text for e in driver.find_elements("css selector", ".session .when")]
        check(whens == [s["localStartedAt"] for s in sessions], f"the cards show local times, newest first: {whens}")
        # Simulated runs were filed among the runner's own with nothing to tell them apart.
        names = [e.text for e in driver.find_elements("css selector", "#history-list .session .plan")]
        check(names == ["Cadence ladder (replayed)"] + ["Cadence ladder (simulated)"] * 2,
              f"the cards say a replayed or simulated session is one: {names}")
        facts = [e.text for e in driver.find_elements("css selector", ".session .facts-line")]
        check(all("in zone" in f and "spm work" in f and "finished" in f for f in facts),
              f"each card shows duration, in-zone %, work cadence and status: {facts}")

        # The chart's points are `trends --json`'s.
        trends = json.loads(cli("trends", "--json").stdout or "{}")
        bars = wait_until(lambda: driver.find_elements("css selector", "#trend-chart .trend-bar") or None)
        shown = [(int(b.get_attribute("data-session-id")), float(b.get_attribute("data-in-zone"))) for b in bars or []]
        expected = [(p["session_id"], p["in_zone_pct"]) for p in trends.get("sessions", [])]
        # The two simulated sessions are left out of trends, and the page says so.
        check(shown == expected and len(shown) == 1, f"the trends chart's bars are trends --json's in-zone %: {shown} vs {expected}")
        summary = driver.find_element("css selector", "#trend-summary").text
        check(trends.get("simulated_left_out") == 2 and "2 simulated left out" in summary,
              f"trends leave out the simulated sessions, and the page says how many: {summary!r}")
        dots = driver.find_elements("css selector", "#trend-chart .trend-dot")
        check([float(d.get_attribute("data-cadence")) for d in dots] == [p["avg_work_cadence_spm"] for p in trends.get("sessions", [])],
              "the trends chart's dots are trends --json's work cadence")
        api_trends = get_json(port, "/api/trends?weeks=12")
        check(api_trends.get("sessions") == trends.get("sessions"), "GET /api/trends is trends --json")
        status, _, _ = request(port, "GET", "/api/trends?weeks=0")
        check(status == 400, f"GET /api/trends?weeks=0: 400, got {status}")

        # A simulated session is refused, and nothing reaches the service.
        simulated = sessions[1]["id"]
        refused = post_json(port, f"/api/sessions/{simulated}/upload", {"to": "intervals.icu"})
        check(refused[0] == 200 and refused[1]["results"][0]["outcome"] == "rejected"
              and "simulation" in (refused[1]["results"][0].get("message") or ""),
              f"a simulated session's upload is refused: {refused[:2]}")
        check(not [l for l in open(log) if '"POST"' in l and "/activities" in l], "no simulated session reached the service")

        # Upload the newest from the page: the stand-in gets it once, the card says so.
        newest = sessions[0]["id"]
        driver.find_element("css selector", f"#session-{newest} .btn-upload").click()
        said = wait_until(lambda: "uploaded" in driver.find_element("css selector", f"#session-{newest} .uploads").text or None)
        check(said is not None, "the card says the upload went: " + driver.find_element("css selector", f"#session-{newest} .uploads").text)
        posts = [json.loads(l) for l in open(log) if '"POST"' in l and "/activities" in l]
        check(len(posts) == 1, f"the stand-in got the session once: {len(posts)} POSTs")
        listed = [s for s in get_json(port, "/api/sessions")["sessions"] if s["id"] == newest][0]
        check([u["service"] for u in listed["uploads"] if u["status"] == "done"] == ["intervals.icu"],
              f"/api/sessions lists the upload: {listed['uploads']}")
        again = post_json(port, f"/api/sessions/{newest}/upload", {"to": "intervals.icu"})
        check(again[0] == 200 and again[1]["results"][0]["outcome"] == "refused-duplicate",
              f"a second upload is refused as a duplicate: {again[:2]}")
        # The page has no force: its message does not ask for one (it said "send again with force").
        check("force" not in (again[1]["results"][0].get("message") or "") if again[0] == 200 else False,
              f"the duplicate's message names no force the page lacks: {again[:2]}")
        # Reloaded, the card says where each upload stands.
        driver.get(f"http://127.0.0.1:{port}/history")
        card = wait_until(lambda: driver.find_element("css selector", f"#session-{newest} .uploads").text or None)
        check(card == "intervals.icu: uploaded", f"the reloaded card says the upload: {card!r}")
        # Typed or bookmarked with a trailing slash, the address showed the start view.
        driver.get(f"http://127.0.0.1:{port}/history/")
        slashed = wait_until(lambda: driver.find_elements("css selector", f"#session-{newest} .uploads") or None)
        check(slashed is not None and not driver.find_element("id", "view-start").is_displayed(),
              "/history/ shows the history, not the start view")
        status, answer, _ = post_json(port, f"/api/sessions/{newest}/upload", {"to": "strava"})
        check(status == 409 and "strava" in answer.get("error", ""), f"upload to a service without an account: 409, {status} {answer}")
        status, answer, _ = post_json(port, "/api/sessions/999/upload", {"to": "all"})
        check(status == 404, f"upload of a missing session: 404, got {status}")

        # Delete the oldest, confirmed.
        oldest = sessions[-1]["id"]
        driver.find_element("css selector", f"#session-{oldest} .btn-delete").click()
        driver.switch_to.alert.accept()
        gone = wait_until(lambda: not driver.find_elements("id", f"session-{oldest}") or None)
        check(gone is not None, "the deleted session's card goes")
        check([s["id"] for s in get_json(port, "/api/sessions")["sessions"]] == [s["id"] for s in sessions[:2]],
              "/api/sessions no longer lists it")
        listed_by_cli = json.loads(cli("history", "--json").stdout or "[]")
        check(oldest not in [s.get("id") for s in (listed_by_cli if isinstance(listed_by_cli, list) else listed_by_cli.get("sessions", []))],
              "`history --json` no longer lists it either")
        status, _, _ = request(port, "DELETE", f"/api/sessions/{oldest}")
        check(status == 404, f"DELETE of a deleted session: 404, got {status}")
        status, _, _ = request(port, "DELETE", f"/api/sessions/{newest}", headers={"Origin": "http://evil.example"})
        check(status == 403, f"DELETE from another site's page: 403, got {status}")
        status, _, _ = request(port, "POST", f"/api/sessions/{newest}/upload", body={"to": "all"},
                               headers={"Origin": "http://evil.example"})
        check(status == 403, f"upload from another site's page: 403, got {status}")

        # Home screen: the manifest and the icon come from the Pi.
        manifest = get_json(port, "/manifest.webmanifest")
        check(manifest.get("display") == "standalone" and manifest.get("start_url") == "/" and manifest.get("icons"),
              f"the web app manifest: {manifest}")
        status, headers, data = request(port, "GET", "/icon.svg")
        check(status == 200 and headers.get("content-type", "").startswith("image/svg+xml") and b"<svg" in data, "the icon")

        # Light and dark, as the phone prefers; no serious or critical accessibility finding on either.
        small = [e for e in driver.find_elements("css selector", "#view-history button, #view-history a, #view-history select, header a")
                 if e.is_displayed() and e.size["height"] < 44]
        check(not small, f"touch targets are at least 44 px high: {[(e.text, e.size) for e in small]}")
        backgrounds = {}
        for scheme in ("light", "dark"):
            color_scheme(driver, scheme)
            driver.get(f"http://127.0.0.1:{port}/history")
            wait_until(lambda: len(driver.find_elements("css selector", "#history-list .session")) == 2 or None)
            backgrounds[scheme] = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
            found = axe_violations(driver)
            check(not found, f"history, {scheme}: no serious or critical accessibility finding: {found}")
            # The report too (its footer's grey was 3.1:1 on the light background).
            driver.get(f"http://127.0.0.1:{port}/sessions/{newest}/report")
            found = axe_violations(driver)
            check(not found, f"the report, {scheme}: no serious or critical accessibility finding: {found}")
            if screenshot_copy:
                driver.save_screenshot(os.path.join(os.path.dirname(screenshot_copy), f"web-history-{scheme}.png"))
        check(backgrounds.get("light") != backgrounds.get("dark"), f"the page follows the light or dark preference: {backgrounds}")
        start_page_choices(binary, driver, port, cli, log)
        if screenshot_copy:
            button = driver.find_elements("css selector", ".today-run")
            if button:
                button[0].click()
                time.sleep(0.5)
            driver.save_screenshot(os.path.join(os.path.dirname(screenshot_copy), "web-start-dark.png"))
        found = axe_violations(driver)
        check(not found, f"the start page: no serious or critical accessibility finding: {found}")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        stand_in.terminate()


# ---------------------------------------------------------------- 2c. sensors: scan and choose from the phone

FAKE_BLUEZ = os.path.join(ROOT, "Tests", "FakeBlueZ", "fake_bluez.py")
STRAP, POD = "C8:3A:35:11:22:33", "D4:D5:D6:D7:D8:D9"


def fake_bluez(folder):
    """A private system bus with the fake bluetoothd on it (a strap and a foot pod in range)."""
    bus = os.path.join(folder, "bus")
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address", f"--address=unix:path={bus}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = daemon.stdout.readline().strip()
    ready = os.path.join(folder, "bluez-ready")
    fake = subprocess.Popen(["/usr/bin/python3", FAKE_BLUEZ, "--bus", address, "--scenario",
                             os.path.join(ROOT, "Tests", "FakeBlueZ", "scenarios", "hr-only-strap-and-footpod.json"),
                             "--call-log", os.path.join(folder, "bluez-calls.jsonl"), "--ready-file", ready])
    wait_until(lambda: os.path.exists(ready) or None, timeout=30)
    return address, [fake, daemon]


def sensors_page(binary, scratch):
    folder = tempfile.mkdtemp(prefix="sensors-", dir=scratch)
    bus, fakes = fake_bluez(folder)
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
    server.env.update(DBUS_SYSTEM_BUS_ADDRESS=bus)
    driver = None
    memory_path = os.path.join(server.config, "intervalpro", "sensors.json")
    try:
        server.start()
        driver = browser(folder)
        driver.get(f"http://127.0.0.1:{port}/sensors")
        checks = wait_until(lambda: driver.find_elements("css selector", "#checks .check") or None, timeout=40)
        names = [c.text for c in checks or []]
        check(any(n.startswith("✓ adapter") or "adapter" in n for n in names) and any("bluetoothd" in n for n in names),
              f"the sensors view shows doctor's checks: {names}")
        api_checks = get_json(port, "/api/checks")
        check([c["check"] for c in api_checks["checks"]] == [n.split(": ")[0][2:] for n in names],
              "the page shows each check /api/checks (doctor --json) gives, in order")

        driver.find_element("id", "btn-scan").click()
        found = wait_until(lambda: len(driver.find_elements("css selector", ".found-sensor")) == 2 or None, timeout=30)
        check(found is not None, "a scan from the page lists the strap and the foot pod as found")
        done = wait_until(lambda: not get_json(port, "/api/sensors")["scan"]["scanning"] or None, timeout=30)
        check(done is not None, "the scan ends by itself")
        listed = {d["address"]: d for d in get_json(port, "/api/sensors")["scan"]["devices"]}
        check(set(listed) == {STRAP, POD} and listed[POD]["battery_percent"] in (None, 75) and listed[STRAP]["rssi"] == -50,
              f"/api/sensors lists what scan --json lists: {listed}")
        # The page redraws the list each second while it scans: once its Scan button is back, it is still.
        wait_until(lambda: driver.find_element("id", "btn-scan").is_enabled() or None)
        strap_card = driver.find_element("css selector", f".found-sensor[data-address='{STRAP}']")
        check(not strap_card.find_elements("css selector", ".btn-use-cadence"), "a heart-rate strap is not offered for cadence")
        strap_card.find_element("css selector", ".btn-use-heartRate").click()
        wait_until(lambda: STRAP in driver.find_element("id", "chosen-heartRate").text or None)
        driver.find_element("css selector", f".found-sensor[data-address='{POD}'] .btn-use-cadence").click()
        wait_until(lambda: POD in driver.find_element("id", "chosen-cadence").text or None)
        memory = json.load(open(memory_path)) if os.path.exists(memory_path) else {}
        check(memory.get("heart_rate", {}).get("address") == STRAP and memory.get("cadence", {}).get("address") == POD,
              f"the choice is the remembered sensors file `run` reads: {memory}")
        status, answer, _ = request(port, "PUT", "/api/sensors", body={"cadence": STRAP})
        check(status == 422, f"choosing the strap for cadence: 422, got {status}")
        # What is no choice is refused, not answered 200 having changed nothing.
        for body in [{"foo": 1}, {"heartRate": STRAP, "hr": POD}, [STRAP]]:
            status, _, data = request(port, "PUT", "/api/sensors", body=body)
            check(status == 400, f"PUT /api/sensors {body}: 400, got {status} {data[:120]!r}")
        check(json.load(open(memory_path)).get("cadence", {}).get("address") == POD, "a refused choice changes nothing")

        # A following `run` on the same machine takes the chosen sensors.
        plan = os.path.join(folder, "short.json")
        with open(plan, "w") as out:
            json.dump({"name": "after the page", "steps": [{"kind": "work", "duration": 4, "cadence": 170}]}, out)
        ran = subprocess.run([binary, "run", plan, "--json", "--no-save", "--record", os.path.join(folder, "after.jsonl"),
                              "--metronome", "off", "--no-voice", "--scan-timeout", "15"],
                             env=server.env, capture_output=True, text=True, timeout=120)
        header = json.loads(open(os.path.join(folder, "after.jsonl")).readline()) if ran.returncode == 0 else {}
        check({d.get("id") for d in header.get("devices", [])} == {STRAP, POD},
              f"a following run connects to the chosen strap and pod: {ran.returncode} {header.get('devices')} {ran.stderr[-300:]}")

        # Forget one from the page.
        driver.find_element("id", "forget-cadence").click()
        wait_until(lambda: driver.find_element("id", "chosen-cadence").text == "none chosen" or None)
        memory = json.load(open(memory_path))
        check("cadence" not in memory and memory.get("heart_rate", {}).get("address") == STRAP,
              f"Forget removes the cadence sensor only: {memory}")

        found = axe_violations(driver)
        check(not found, f"the sensors view: no serious or critical accessibility finding: {found}")

        # No scan while a session runs: the page says why.
        ladder = next(p["id"] for p in get_json(port, "/api/plans")["plans"] if p["name"] == "Cadence ladder")
        status, _, _ = post_json(port, "/api/sessions", {"plan": ladder, "source": "simulate", "speed": 1})
        check(status == 201, f"a simulated session starts: {status}")
        status, answer, _ = post_json(port, "/api/scan", {"seconds": 3})
        check(status == 409, f"POST /api/scan during a session: 409, got {status} {answer}")
        driver.find_element("id", "btn-scan").click()
        said = wait_until(lambda: "disturb" in driver.find_element("id", "scan-status").text or None)
        check(said is not None, "the page says a scan would disturb the running session: "
              + driver.find_element("id", "scan-status").text)
        post_json(port, "/api/command", {"command": "finish"})
        wait_state(port, lambda s: s.get("status") == "finished")
        status, _, _ = request(port, "POST", "/api/scan", body={"seconds": 1}, headers={"Origin": "http://evil.example"})
        check(status == 403, f"a scan asked by another site's page: 403, got {status}")
        status, _, _ = request(port, "PUT", "/api/sensors", body={"heartRate": None}, headers={"Origin": "http://evil.example"})
        check(status == 403, f"a choice sent by another site's page: 403, got {status}")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        for process in fakes:
            process.terminate()


# ---------------------------------------------------------------- 3. access rules

def resting_recording(path, seconds=160):
    """A strap at rest: 1 Hz values carrying the beats of each second, a 10 s breathing cycle;
    begun minutes ago (a replayed recording is filed under the day it was taken: today's)."""
    cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds - 30))
    lines = [json.dumps({"intervalpro_recording": 1, "started_at": now,
                         "devices": [{"id": "A0:9E:1A:12:34:56", "name": "Polar H10"}]}, separators=(",", ":"))]
    beat_time, beat = 0, 0
    for second in range(1, seconds + 1):
        value = bytes([0x16, 60])
        while beat_time + cycle[beat % len(cycle)] <= second * 1000:
            interval = cycle[beat % len(cycle)]
            beat_time += interval
            beat += 1
            value += round(interval * 1.024).to_bytes(2, "little")
        lines.append(f'{{"t":{second}.000,"dev":"A0:9E:1A:12:34:56","char":"2a37","hex":"{value.hex()}"}}')
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def readiness_card(binary, scratch):
    """The start page's readiness card: no measurement yet and a Measure button; after
    `readiness`, today's figures, verdict and advice as /api/readiness and the command's own
    --json give them. (Measuring from the page is checked against the fake org.bluez in the
    Swift CLI tests.)"""
    folder = os.path.join(scratch, "readiness")
    os.makedirs(folder)
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
    # A Pi without bluetoothd's bus: a measurement fails at once, a live session falls back.
    server.env.update(DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + os.path.join(folder, "no-bus"))
    driver = None
    try:
        server.start()
        empty = get_json(port, "/api/readiness")
        check(empty.get("readiness", "missing") is None and re.fullmatch(r"\d{4}-\d\d-\d\d", str(empty.get("date"))),
              f"/api/readiness with no measurement: readiness null and today's date: {empty}")
        driver = browser(folder)
        driver.get(f"http://127.0.0.1:{port}/")
        shown = wait_until(lambda: driver.execute_script(
            "if (document.getElementById('view-start').classList.contains('hidden')) return null;"
            "const t = (id) => document.getElementById(id).textContent.trim();"
            "return {figures: t('readiness-figures'), advice: t('readiness-advice'), button: t('btn-measure')};"))
        check(shown is not None and shown["figures"] == "" and shown["advice"].startswith("No measurement yet")
              and shown["button"] == "Measure now",
              f"with no measurement the card says so and offers to measure: {shown}")

        recording = os.path.join(folder, "morning.jsonl")
        resting_recording(recording)
        measured = subprocess.run([binary, "readiness", "--replay", recording, "--json"], cwd=ROOT, env=server.env,
                                  capture_output=True, text=True, timeout=60)
        check(measured.returncode == 0, f"readiness --replay saves a measurement: {measured.returncode} {measured.stderr}")
        mine = json.loads(measured.stdout) if measured.returncode == 0 else {}
        today = get_json(port, "/api/readiness").get("readiness") or {}
        check(today.get("measured_today") is True and today.get("rmssd_ms") == mine.get("rmssd_ms")
              and today.get("id") == mine.get("id"),
              f"/api/readiness gives the measurement just taken: {today.get('rmssd_ms')} vs {mine.get('rmssd_ms')}")
        assessment = today.get("assessment") or {}
        check(assessment.get("verdict") == "building" and assessment.get("days_measured") == 1,
              f"one measurement: the baseline is building (1 of 7): {assessment}")

        driver.get(f"http://127.0.0.1:{port}/")
        read_card = ("const c = document.getElementById('readiness-card'); if (c.classList.contains('hidden')) return null;"
                     "const t = (id) => document.getElementById(id).textContent.trim();"
                     "return {when: t('readiness-when'), figures: t('readiness-figures'), verdict: t('readiness-verdict'),"
                     " advice: t('readiness-advice')};")
        # The card shows before /api/readiness has answered: wait for its figures, and say what
        # it showed if they never came.
        card = wait_until(lambda: (lambda c: c if c and c["figures"] else None)(driver.execute_script(read_card))) \
            or driver.execute_script(read_card)
        expected = f"rMSSD {mine.get('rmssd_ms', 0):.1f} ms"
        check(card is not None and card["when"] == "today" and card["figures"].startswith(expected)
              and card["verdict"].startswith(assessment.get("summary", "?"))
              and card["advice"] == assessment.get("advice"),
              f"the card shows today's figures ({expected}), the verdict and the advice: {card}")
        check(fits_phone(driver), "the start page with the card still fits the phone's width")

        # Failing before the page heard its start was answered, the measurement was drawn over
        # with "Connecting to the strap…", and the page waited on it for good.
        click(driver, "btn-measure")
        said = wait_until(lambda: (lambda t: t if t[0].startswith("Not measured") else None)(driver.execute_script(
            "const t = (id) => document.getElementById(id).textContent.trim(); return [t('measure-phase'), t('measure-error')];")), 10)
        phase = driver.execute_script("return document.getElementById('measure-phase').textContent")
        check(said is not None and "bus" in said[1], f"a measurement that fails at once says Not measured and why: {phase!r} {said}")
        wait_state(port, lambda st: st.get("status") != "readiness" or st.get("phase") == "failed")

        # Live sensors that cannot be had: a simulated runner, and the state says why.
        plan_id = next(p["id"] for p in get_json(port, "/api/plans")["plans"] if p["name"] == "Cadence ladder")
        status, body, _ = post_json(port, "/api/sessions", {"plan": plan_id, "source": "live"})
        running = wait_state(port, lambda st: st.get("status") == "running" and st.get("notice"))
        check(status == 201 and running is not None and running.get("source") == "simulation"
              and "simulated runner instead" in running.get("notice", ""),
              f"a live session with no sensors runs simulated and its notice says why: {status} {running}")
        post_json(port, "/api/command", {"command": "finish"})
        wait_state(port, lambda st: st.get("status") == "finished")
    finally:
        if driver:
            driver.quit()
        server.stop()


def no_plan_to_offer(binary, scratch):
    """Examples not found where the server looks and no plan of the user's: the start page
    says where to put one (its picker was empty without a word)."""
    folder = os.path.join(scratch, "no-plans")
    examples = os.path.join(folder, "examples")
    os.makedirs(examples)
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
    server.env.update(INTERVALPRO_PLANS=examples)
    driver = None
    try:
        server.start()
        listed = get_json(port, "/api/plans")
        mine = os.path.join(server.config, "intervalpro", "plans")
        check(listed.get("plans") == [] and listed.get("userFolder") == mine,
              f"/api/plans offers none and says where the user's plans go: {listed}")
        driver = browser(folder)
        driver.get(f"http://127.0.0.1:{port}/")
        said = wait_until(lambda: driver.find_element("id", "plan-problems").text or None)
        check(said is not None and "No plans found" in said and mine in said,
              f"the start page says no plan was found, and where to put one: {said!r}")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()


def unsaved_session(binary, scratch):
    """A store that cannot be opened: the session runs unsaved, and the page is told so from
    its start (it heard it only at the finish, after the whole run)."""
    folder = os.path.join(scratch, "unsaved")
    os.makedirs(folder)
    blocker = os.path.join(folder, "a-file")
    with open(blocker, "w") as out:
        out.write("not a folder\n")
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", "--db", os.path.join(blocker, "history.sqlite"),
                                     *serve_arguments(binary)], port)
    try:
        server.start()
        plan_id = next(p["id"] for p in get_json(port, "/api/plans")["plans"] if p["name"] == "Cadence ladder")
        status, answer, _ = post_json(port, "/api/sessions", {"plan": plan_id, "source": "simulate", "speed": 20})
        told = wait_state(port, lambda st: st.get("status") == "running" and "not saved" in (st.get("notice") or ""), 15)
        check(status == 201 and told is not None, f"an unsaved session's page is told while it runs: {status} {answer} {told}")
        post_json(port, "/api/command", {"command": "finish"})
        wait_state(port, lambda st: st.get("status") == "finished")
    finally:
        server.stop()


def another_programs_session(binary, scratch):
    """A session `intervalpro run` records in a terminal has the sensors: the page's scan,
    session and measurement wait for it (each was accepted beside it, to take its radio)."""
    folder = os.path.join(scratch, "elsewhere")
    os.makedirs(folder)
    port = free_port()
    server = Server(binary, folder, ["serve", "--listen", f"127.0.0.1:{port}", *serve_arguments(binary)], port)
    terminal = None
    try:
        server.start()
        plan_id = next(p["id"] for p in get_json(port, "/api/plans")["plans"] if p["name"] == "Cadence ladder")
        terminal = subprocess.Popen(
            [binary, "run", os.path.join(ROOT, "Plans", "cadence-ladder.json"), "--simulate", "--metronome", "off", "--no-voice"],
            cwd=ROOT, env=server.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        listed = wait_until(lambda: [s for s in get_json(port, "/api/sessions")["sessions"] if s["status"] == "running"] or None, 30)
        check(listed is not None, "the terminal's session is listed as running")
        for path, body in [("/api/scan", {}), ("/api/sessions", {"plan": plan_id, "source": "simulate"}), ("/api/readiness", {})]:
            status, answer, _ = post_json(port, path, body)
            check(status == 409, f"POST {path} while a terminal's session runs: 409, got {status} {answer}")
            # Which session, and where: "a session is running" beside the page's idle view.
            said = (answer or {}).get("error", "")
            check(f"session {listed[0]['id']} is being recorded by `intervalpro run` in another program" in said,
                  f"POST {path}: the 409 names the terminal's session: {answer}")
        terminal.send_signal(signal.SIGINT)
        terminal.wait(30)
        status, answer, _ = post_json(port, "/api/sessions", {"plan": plan_id, "source": "simulate", "speed": 100})
        check(status == 201, f"a session from the page once the terminal's finished: 201, got {status} {answer}")
        post_json(port, "/api/command", {"command": "finish"})
        wait_state(port, lambda st: st.get("status") == "finished")
        # A hang-up (the terminal closed, ssh dropped) killed the server mid-session: the
        # session was left running and its last second lost. It stops as SIGTERM does.
        # Once the first one's end is saved (a 409 until then).
        started = wait_until(lambda: (lambda r: r if r[0] == 201 else None)(
            post_json(port, "/api/sessions", {"plan": plan_id, "source": "simulate", "speed": 5})), 20)
        check(started is not None, f"a second session from the page: 201, got {started}")
        wait_state(port, lambda st: st.get("status") == "running")
        server.process.send_signal(signal.SIGHUP)
        try:
            code = server.process.wait(20)
        except subprocess.TimeoutExpired:
            code = None
        check(code == 0, f"serve exits 0 on a hang-up, as on SIGTERM: {code} {server.stderr()[-300:]}")
        listed = subprocess.run([binary, "history", "--json"], cwd=ROOT, env=server.env, capture_output=True, text=True,
                                timeout=60)
        sessions = json.loads(listed.stdout) if listed.returncode == 0 else []
        sessions = sessions.get("sessions", []) if isinstance(sessions, dict) else sessions
        statuses = [s.get("status") for s in sessions]
        check(len(statuses) == 3 and set(statuses) == {"finished"},
              f"the terminal's and the page's two sessions kept as finished after the hang-up: {statuses} {listed.stderr[-300:]}")
    finally:
        if terminal and terminal.poll() is None:
            terminal.kill()
            terminal.wait()
        server.stop()


OTHER_USER_REQUESTS = r"""
import sys, urllib.request, urllib.error
port = sys.argv[1]
def status(method, path, data=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError as error:
        return repr(error)
print(status("GET", "/api/sessions"), status("POST", "/api/command", b'{"command": "pause"}'))
"""


def other_user_refused(port):
    """Another account of the machine (nobody) gets 403 from a loopback server, as root here
    can show; the server's own user is served."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("note: another user's requests not tried (needs root and setpriv)")
        return
    other = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                            OTHER_USER_REQUESTS, str(port)], capture_output=True, text=True, timeout=60)
    check(other.stdout.split() == ["403", "403"],
          f"loopback, another user's GET /api/sessions and POST /api/command: 403 both, got {other.stdout!r} {other.stderr[-300:]!r}")
    status, _, _ = request(port, "GET", "/api/sessions")
    check(status == 200, f"loopback, the server's own user: GET /api/sessions 200, got {status}")


def loopback_rules(port, plan_id):
    """On a loopback server: foreign Host headers and origins are refused; bad POSTs are
    refused while the session keeps running."""
    other_user_refused(port)
    for host in [f"evil.example:{port}", "evil.example"]:
        for path in ["/", "/api/state"]:
            status, _, data = request(port, "GET", path, headers={"Host": host})
            check(status == 403 and b"Cadence" not in data, f"loopback, GET {path} with Host {host}: 403, got {status}")
    status, _, _ = request(port, "GET", "/api/state", headers={"Host": f"localhost:{port}"})
    check(status == 200, f"loopback, Host localhost:{port}: 200, got {status}")
    status, data = websocket_status(port, {"Host": f"evil.example:{port}"})
    check(refused_upgrade(status, data), f"loopback, WebSocket upgrade with Host evil.example: refused, got {status}")

    status, body, _ = post_json(port, "/api/sessions", {"plan": plan_id, "source": "simulate", "speed": 10},
                                {"Origin": f"http://127.0.0.1:{port}"})
    check(status == 201 and body == {"started": True},
          f"POST /api/sessions simulate at 10x: 201 started, got {status} {body}")
    running = wait_state(port, lambda s: s.get("status") == "running")
    if running is None:
        check(False, "the simulated session runs")
        return
    status, _, data = request(port, "POST", "/api/command", body=json.dumps({"command": "pause"}).encode(),
                              headers={"Content-Type": "application/json", "Origin": "http://evil.example"})
    check(status == 403 and error_body(data),
          f"loopback, POST with Origin http://evil.example: 403, got {status} {data[:200]!r}")
    status, data = websocket_status(port, {"Origin": "http://evil.example"})
    check(refused_upgrade(status, data), f"loopback, WebSocket upgrade with Origin http://evil.example: refused, got {status}")
    check(not state_of(port)["paused"], "the refused pause did not pause")

    big = b'{"command": "resume"' + b" " * (17 * 1024) + b"}"
    exact = b'{"command": "resume"}'
    exact = exact[:-1] + b" " * (16 * 1024 - len(exact)) + b"}"
    cases = [
        ("an oversized body (17 KiB)", big, "application/json", 413),
        ("malformed JSON", b'{"command": ', "application/json", 400),
        ("JSON that is not an object", b'["pause"]', "application/json", 400),
        ("an unknown command", b'{"command": "explode"}', "application/json", 400),
        ("a text/plain body", b'{"command": "pause"}', "text/plain", 415),
        ("a form body", b"command=pause", "application/x-www-form-urlencoded", 415),
        ("no content type", b'{"command": "pause"}', None, 415),
    ]
    for what, body, kind, expected in cases:
        before = state_of(port)
        headers = {"Content-Type": kind} if kind else {}
        try:
            status, _, data = request(port, "POST", "/api/command", body=body, headers=headers)
        except (ConnectionError, http.client.HTTPException) as error:
            status, data = f"no answer ({error.__class__.__name__}: {error})", b""
        check(status == expected and error_body(data),
              f"POST /api/command with {what}: {expected} and an error, got {status} {data[:200]!r}")
        after = advancing(port, before)
        check(after is not None and not after["paused"],
              f"after {what} the session still runs, seq and sessionTime advancing")
    status, _, data = request(port, "POST", "/api/command", body=exact, headers={"Content-Type": "application/json"})
    check(status == 202 and json.loads(data or b"null") == {"accepted": "resume"},
          f"a command of exactly 16 KiB is taken: 202, got {status} {data[:200]!r}")
    status, _, data = request(port, "POST", "/api/sessions", body=b"x" * (20 * 1024),
                              headers={"Content-Type": "application/json"})
    check(status == 413, f"POST /api/sessions with 20 KiB: 413, got {status}")
    status, _, data = request(port, "POST", "/api/sessions", body=json.dumps({"plan": plan_id, "source": "simulate"}),
                              headers={"Content-Type": "text/plain"})
    check(status == 415, f"POST /api/sessions as text/plain: 415, got {status}")
    for command in ["pause", "resume", "next"]:
        status, body, _ = post_json(port, "/api/command", {"command": command})
        check(status == 202 and body == {"accepted": command}, f"POST /api/command {command}: 202, got {status} {body}")
    status, body, _ = post_json(port, "/api/command", {"command": "finish"})
    check(status == 202 and body == {"accepted": "finish"}, f"POST /api/command finish: 202, got {status} {body}")
    check(wait_state(port, lambda s: s.get("status") == "finished") is not None, "finish by API finishes the session")


def access(binary, scratch):
    folder = os.path.join(scratch, "serve-open")
    os.makedirs(folder)
    port = free_port("")
    arguments = ["serve", "--listen", f"0.0.0.0:{port}", *serve_arguments(binary)]
    server = Server(binary, folder, arguments, port)
    data_folder = server.data
    try:
        server.start()
        found = re.fullmatch(rf"http://[^/]+:{port}/\?token=([0-9a-f]+)", server.url)
        token = found.group(1) if found else None
        check(token is not None and len(token) == 32, f"off loopback the address carries a 128-bit hex token: {server.url}")
        token_file = os.path.join(data_folder, "intervalpro", "web-token")
        stored = open(token_file).read().strip() if os.path.exists(token_file) else None
        check(stored == token, f"the token is kept in $XDG_DATA_HOME/intervalpro/web-token: {stored!r}")
        if stored is not None:
            mode = stat.S_IMODE(os.stat(token_file).st_mode)
            check(mode == 0o600, f"the token file is 0600: {oct(mode)}")
        if token is None:
            return

        routes = [("GET", "/"), ("GET", "/history"), ("GET", "/api/state"), ("GET", "/api/plans"),
                  ("GET", "/api/recordings"), ("GET", "/api/sessions"), ("GET", "/sessions/1/report"),
                  ("POST", "/api/command"), ("POST", "/api/sessions"), ("GET", "/api/trends"),
                  ("DELETE", "/api/sessions/1"), ("POST", "/api/sessions/1/upload"), ("GET", "/manifest.webmanifest"),
                  ("GET", "/sensors"), ("GET", "/api/sensors"), ("PUT", "/api/sensors"), ("POST", "/api/scan"),
                  ("GET", "/api/checks")]
        bodies = {"/api/command": {"command": "pause"}, "/api/sessions": {"plan": "cadence-ladder", "source": "simulate"},
                  "/api/sessions/1/upload": {"to": "all"}, "/api/sensors": {"heartRate": None}, "/api/scan": {"seconds": 1}}
        for label, headers in [("no token", {}), ("a wrong token", {"Authorization": "Bearer " + "0" * 32}),
                               ("a wrong cookie", {"Cookie": "intervalpro_token=" + "1" * 32}),
                               ("a malformed Authorization", {"Authorization": token})]:
            for method, path in routes:
                body = bodies.get(path)
                status, answer, data = request(port, method, path, body=body, headers=dict(headers))
                leaks = [w for w in ["Cadence", "ladder", "Warm", token] if w.encode() in data]
                check(status == 401 and error_body(data) and not leaks,
                      f"{method} {path} with {label}: 401 and only an error, got {status} {data[:200]!r}")
            status, data = websocket_status(port, headers)
            check(refused_upgrade(status, data), f"WebSocket upgrade with {label}: refused, got {status} {data[:200]!r}")
        status, headers, data = request(port, "GET", "/?token=" + "2" * 32)
        check(status == 401 and "set-cookie" not in headers, f"GET /?token=WRONG: 401 and no cookie, got {status}")
        check(state_of(port, {"Authorization": f"Bearer {token}"}).get("status") == "idle",
              "the refused POST /api/sessions started nothing")

        bearer = {"Authorization": f"Bearer {token}"}
        for path in ["/", "/history", "/api/state", "/api/plans", "/api/recordings", "/api/sessions"]:
            status, _, _ = request(port, "GET", path, headers=bearer)
            check(status == 200, f"GET {path} with the bearer token: 200, got {status}")

        cookie = None
        for path in ["/", "/history"]:
            status, headers, data = request(port, "GET", f"{path}?token={token}")
            location = re.sub(r"^http://[^/]+", "", headers.get("location", ""))
            set_cookie = headers.get("set-cookie", "")
            attributes = [a.strip().lower() for a in set_cookie.split(";")]
            check(status == 303 and location == path, f"GET {path}?token=TOKEN: 303 to {path}, got {status} {location!r}")
            check(attributes[:1] == [f"intervalpro_token={token}"] and "httponly" in attributes and
                  "samesite=strict" in attributes and "path=/" in attributes,
                  f"GET {path}?token=TOKEN sets the cookie HttpOnly, SameSite=Strict, Path=/: {set_cookie!r}")
            # Kept across the browser's restarts: a session cookie left the home-screen icon on a 401.
            check(f"max-age={400 * 86400}" in attributes, f"the cookie lasts 400 days: {set_cookie!r}")
            if status == 303 and set_cookie:
                cookie = {"Cookie": set_cookie.split(";")[0].strip()}
        if cookie is None:
            cookie = {"Cookie": f"intervalpro_token={token}"}
        status, _, data = request(port, "GET", "/api/state", headers=cookie)
        check(status == 200 and json.loads(data).get("status") == "idle",
              f"the cookie alone: GET /api/state 200, got {status}")
        origin = {"Origin": f"http://127.0.0.1:{port}"}
        plans = get_json(port, "/api/plans", bearer)["plans"]
        plan_id = next((p["id"] for p in plans if p["name"] == "Cadence ladder"), None)
        status, body, _ = post_json(port, "/api/sessions", {"plan": plan_id, "source": "simulate", "speed": 10},
                                    {**cookie, **origin})
        check(status == 201, f"the cookie and a matching Origin: POST /api/sessions 201, got {status} {body}")
        running = wait_state(port, lambda s: s.get("status") == "running", headers=bearer)
        status, body, _ = post_json(port, "/api/command", {"command": "pause"}, {**cookie, **origin})
        check(status == 202 and body == {"accepted": "pause"},
              f"the cookie and a matching Origin: POST pause 202, got {status} {body}")
        check(wait_state(port, lambda s: s.get("paused") is True, headers=bearer) is not None,
              "the cookie's pause paused")
        status, body, data = post_json(port, "/api/command", {"command": "resume"},
                                       {**bearer, "Origin": "http://evil.example"})
        check(status == 403 and error_body(data),
              f"a valid token with Origin http://evil.example: 403, got {status} {data[:200]!r}")
        status, body, data = post_json(port, "/api/command", {"command": "resume"},
                                       {**bearer, "Origin": f"http://127.0.0.1:{port + 1}"})
        check(status == 403, f"a valid token with the Origin of another port: 403, got {status}")
        status, data = websocket_status(port, {**bearer, "Origin": "http://evil.example"})
        check(refused_upgrade(status, data), f"a valid token, WebSocket upgrade with Origin http://evil.example: refused, got {status}")
        status, data = websocket_status(port, bearer)
        check(status == 101, f"a valid token, WebSocket upgrade from the page's own origin: 101, got {status}")
        check(state_of(port, bearer).get("paused") is True, "the refused resume left the session paused")

        async def first_frames():
            frames = []
            for headers in [bearer, cookie, {**cookie, **origin}]:
                async with ws_connect(f"ws://127.0.0.1:{port}/api/live", headers) as ws:
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), WAIT)))
            return frames
        try:
            frames = asyncio.run(first_frames())
            check(all(f.get("status") == "running" for f in frames),
                  "the WebSocket opens with the bearer token, the cookie, and the cookie with a matching Origin")
        except Exception as error:  # noqa: BLE001
            check(False, f"the WebSocket with the token: {error.__class__.__name__}: {error}")
        if running:
            post_json(port, "/api/command", {"command": "finish"}, bearer)
            wait_state(port, lambda s: s.get("status") == "finished", headers=bearer)
        server.stop()

        # The token survives a restart; --new-token replaces it.
        again = Server(binary, folder, arguments, port, data=data_folder)
        server = again
        again.start()
        check(again.url.endswith(f"?token={token}"), f"a restarted server keeps its token: {again.url}")
        again.stop()
        fresh = Server(binary, folder, arguments + ["--new-token"], port, data=data_folder)
        server = fresh
        fresh.start()
        new = re.search(r"\?token=([0-9a-f]+)$", fresh.url)
        new = new and new.group(1)
        check(new and new != token and open(token_file).read().strip() == new,
              f"serve --new-token makes and keeps a new token: {fresh.url}")
        status, _, _ = request(port, "GET", "/api/state", headers=bearer)
        check(status == 401, f"the old token no longer works after --new-token: {status}")
    finally:
        server.stop()


# ---------------------------------------------------------------- 4. many clients

def many_clients(binary, scratch, clients=20, seconds=8.0):
    folder = os.path.join(scratch, "clients")
    os.makedirs(folder)
    port = free_port()
    server = Server(binary, folder, ["run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl",
                                     "--speed", "10", "--web", f"127.0.0.1:{port}",
                                     "--metronome", "off", "--no-voice", "--no-save", *AS_US], port)
    try:
        server.start()

        async def client(connected):
            frames = []
            async with ws_connect(f"ws://127.0.0.1:{port}/api/live") as ws:
                frames.append(await asyncio.wait_for(ws.recv(), WAIT))
                connected.append(1)
                deadline = time.monotonic() + seconds + 30
                while time.monotonic() < deadline:
                    try:
                        text = await asyncio.wait_for(ws.recv(), deadline - time.monotonic())
                    except Exception:  # noqa: BLE001 - closed or timed out
                        break
                    frames.append(text)
                    if json.loads(text).get("status") == "finished":
                        break
            return frames

        async def scenario():
            connected = []
            tasks = [asyncio.create_task(client(connected)) for _ in range(clients)]
            deadline = time.monotonic() + WAIT
            while len(connected) < clients and time.monotonic() < deadline and not any(t.done() for t in tasks):
                await asyncio.sleep(0.05)
            await asyncio.sleep(seconds)
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, post_json, port, "/api/command", {"command": "finish"})
            return await asyncio.gather(*tasks, return_exceptions=True)

        results = asyncio.run(scenario())
        errors = [r for r in results if isinstance(r, BaseException)]
        check(not errors, f"{clients} WebSocket clients connected and read: {errors[:3]}")
        results = [r for r in results if not isinstance(r, BaseException)]
        gaps, ends, counts, repeats, skipped, texts, unfinished = [], set(), [], 0, 0, True, []
        for frames in results:
            texts = texts and all(isinstance(f, str) for f in frames)
            states = [json.loads(f) for f in frames]
            seqs = [s["seq"] for s in states]
            counts.append(len(seqs))
            gaps.append(sum(1 for a, b in zip(seqs, seqs[1:]) if b != a + 1))
            ends.add(seqs[-1] if states[-1].get("status") == "finished" else None)
            if states[-1].get("status") != "finished":
                unfinished.append(f"seq {seqs[-1]} {states[-1].get('status')}")
            for a, b in zip(states, states[1:]):
                same = {k: v for k, v in a.items() if k not in ("seq", "sessionTime")} == \
                    {k: v for k, v in b.items() if k not in ("seq", "sessionTime")}
                repeats += same
                sa, sb = a.get("step") or {}, b.get("step") or {}
                if sa.get("number") == sb.get("number") and sa.get("end") == "time" and \
                        sa.get("timeLeft") is not None and sb.get("timeLeft") is not None:
                    skipped += sa["timeLeft"] - sb["timeLeft"] > 1
        check(texts, "every frame is a text frame")
        check(len(results) == clients and all(g == 0 for g in gaps),
              f"every client saw consecutive seq values (gaps per client: {gaps})")
        check(len(ends) == 1 and None not in ends,
              f"every client saw the same last state, the finished one (finished at seq {sorted(e for e in ends if e)}; "
              f"{len(unfinished)} of {len(results)} clients ended without it, their last: {unfinished[:5]})")
        check(min(counts or [0]) >= 20,
              f"every client got a stream of states over {seconds:.0f} s (fewest: {min(counts or [0])})")
        check(repeats == 0, f"a state is published only when more than sessionTime changed ({repeats} repeats)")
        check(skipped == 0, f"time left never skips a second within a step ({skipped} skips)")
    finally:
        code = server.stop()
        check(code in (0, -signal.SIGINT, 130),
              f"run --web exits cleanly after its session: {code} {server.stderr()[-500:]}")


def main():
    binary = os.path.abspath(sys.argv[1])
    screenshot_copy = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if missing:
        print(f"FAIL: {', '.join(missing)} not installed (.ci/test-packages.txt: run `make deps-test`)")
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        for name, part in [("the live page (run --web)", lambda: live_page(binary, scratch, screenshot_copy)),
                           ("the Pi gone mid-session", lambda: connection_lost(binary, scratch)),
                           ("a sensor's notice", lambda: notice_below_buttons(binary, scratch)),
                           ("the start page and history (serve)", lambda: start_page(binary, scratch)),
                           ("sensors: scan and choose from the phone (serve, fake org.bluez)",
                            lambda: sensors_page(binary, scratch)),
                           ("history: local time, trends, upload, delete (serve)",
                            lambda: history_page(binary, scratch, screenshot_copy)),
                           ("the readiness card (serve)", lambda: readiness_card(binary, scratch)),
                           ("a session another program records (serve and run)", lambda: another_programs_session(binary, scratch)),
                           ("a session the store cannot keep (serve)", lambda: unsaved_session(binary, scratch)),
                           ("no plan to offer (serve)", lambda: no_plan_to_offer(binary, scratch)),
                           ("the access rules (serve on 0.0.0.0)", lambda: access(binary, scratch)),
                           ("20 WebSocket clients", lambda: many_clients(binary, scratch))]:
            try:
                part()
            except Exception as error:  # noqa: BLE001 - a part that breaks is a failure, the rest still run
                here = [f"line {f.lineno}" for f in traceback.extract_tb(error.__traceback__) if f.filename == __file__]
                message = (str(error).strip().splitlines() or [""])[0]
                check(False, f"{name} stopped at {', '.join(here[1:])}: {error.__class__.__name__}: {message}")
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
