extension WebPage {
    /// The page's script: the live view from `/api/live`, the start and readiness views from
    /// the JSON API; the sensors' and history's views are in `sensorsScript` and `historyScript`.
    static let script = #"""
"use strict";
const $ = (id) => document.getElementById(id);
let state = { status: "idle" };
let choosing = false;

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const ss = (r < 10 ? "0" : "") + r;
  return h > 0 ? h + ":" + (m < 10 ? "0" : "") + m + ":" + ss : m + ":" + ss;
}

function show(view) {
  for (const name of ["live", "start", "history", "readiness", "sensors"]) $("view-" + name).classList.toggle("hidden", name !== view);
}

// The view the address names: "/history/" (typed, or a bookmark) is "/history", not the start view.
const pagePath = location.pathname.replace(/\/+$/, "") || "/";

function render(s) {
  // Accepted, not yet running: the page goes on showing what it showed until the first state.
  if (s.status === "starting") return;
  state = s;
  if (pagePath === "/history" || pagePath === "/sensors") return;
  if (s.status === "idle" || ((s.status === "finished" || s.status === "readiness") && choosing)) { showStart(); return; }
  if (s.status === "readiness") { renderMeasurement(s); return; }
  show("live");
  $("plan-name").textContent = s.plan || "";
  $("session-time").dataset.seconds = s.sessionTime;
  $("session-time").textContent = clock(s.sessionTime);
  $("paused-badge").classList.toggle("hidden", !s.paused);
  // A start on live sensors that found none runs a simulated runner, a recording replays
  // what it holds: neither is the runner's now, said as the screen says it.
  const badge = { simulation: "SIMULATED ", replay: "REPLAY ", metronome: "METRONOME " }[s.source];
  $("source-badge").textContent = badge || "";
  $("source-badge").classList.toggle("hidden", !badge);
  $("btn-pause").textContent = s.paused ? "Resume" : "Pause";
  $("notice").textContent = s.notice || "";
  $("music").classList.toggle("hidden", !s.music);
  $("music").textContent = s.music ? "♪ " + s.music : "";
  const finished = s.status === "finished";
  // Finish is hidden with the controls: the focus goes to "Finished", not to the page's top.
  const controlsHadFocus = $("controls").contains(document.activeElement);
  $("controls").classList.toggle("hidden", finished);
  $("summary").classList.toggle("hidden", !finished);
  if (finished) {
    $("step-title").textContent = "Finished";
    if (controlsHadFocus) $("step-title").focus();
    $("step-number").textContent = "";
    $("time-left").textContent = "";
    $("step-other").classList.add("hidden");
    $("progress").style.width = "100%";
    // The last moment's cadence and advice ("faster +12 spm") are no longer the runner's, nor
    // its heart rate and alpha 1 (HR 157 stood beside the summary's average of 139).
    $("cadence").textContent = "--";
    $("heart-rate").textContent = "--";
    $("alpha1-fact").classList.add("hidden");
    $("advice").textContent = "";
    $("advice").className = "";
    $("zone-text").textContent = "";
    $("scale").classList.add("invisible");
    // The state's figures, each rounded once from the exact one: the summary's hundredths
    // rounded again said 58.5 % where `show` says 58.4.
    $("summary-in-zone").textContent = s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "%";
    $("in-zone").textContent = s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "%";
    $("summary-text").textContent = clock(s.sessionTime) + (s.averageCadence ? " · avg " + s.averageCadence + " spm" : "") + (s.averageHeartRate ? " · HR " + s.averageHeartRate : "");
    $("summary-report").classList.toggle("hidden", s.sessionId == null);
    if (s.sessionId != null) $("summary-report").href = "/sessions/" + s.sessionId + "/report";
    return;
  }
  const step = s.step;
  $("step-title").textContent = step.title;
  $("step-number").textContent = step.number + " / " + step.count;
  // time-left holds a countdown only; distance and open steps say what they count.
  $("time-left").textContent = step.end === "time" ? clock(step.timeLeft) : "";
  $("time-left").classList.toggle("hidden", step.end !== "time");
  $("step-other").classList.toggle("hidden", step.end === "time");
  $("step-other").textContent = step.end === "distance" ? Math.round(step.distanceLeft) + " m left" : step.end === "open" ? clock(step.elapsed) + " so far" : "";
  $("progress").style.width = step.progress == null ? "0" : (step.progress * 100) + "%";
  $("cadence").textContent = s.cadence == null ? "--" : String(s.cadence);
  const advice = $("advice");
  // No runner: nothing to advise, and no signal is none missing.
  advice.textContent = s.source === "metronome" ? "no sensor: the clicks keep the target" : s.advice.text;
  advice.className = s.source === "metronome" ? "" : s.advice.kind;
  $("heart-rate").textContent = s.heartRate == null ? "--" : String(s.heartRate);
  // DFA alpha 1 beside heart rate, once the strap has sent beats.
  const alpha = s.alpha1;
  $("alpha1-fact").classList.toggle("hidden", !alpha);
  if (alpha) $("alpha1").textContent = alpha.status === "scored" ? alpha.value.toFixed(2) : alpha.status;
  $("alpha1").classList.toggle("word", !!alpha && alpha.status !== "scored");
  $("in-zone").textContent = s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "%";
  $("signal").textContent = s.source === "simulation" ? "simulated" : !s.signal ? "none" : s.source === "replay" ? "replayed" : "ok";
  // A word in the smaller type alpha 1's words take: "replayed" at full size spilled out of its fifth of a phone.
  $("signal").classList.toggle("word", $("signal").textContent.length > 4);
  const zone = s.zone;
  // Kept in place on a step without a zone: what follows stays where it was.
  $("scale").classList.toggle("invisible", !zone);
  $("zone-text").textContent = zone ? "zone " + zone.low + "–" + zone.high : "free pace";
  if (zone) {
    const span = 30, at = (v) => Math.min(100, Math.max(0, (v - (zone.target - span)) / (2 * span) * 100));
    $("zone-band").style.left = at(zone.low) + "%";
    $("zone-band").style.width = (at(zone.high) - at(zone.low)) + "%";
    $("target-mark").style.left = at(zone.target) + "%";
    $("you-mark").classList.toggle("hidden", s.cadence == null);
    if (s.cadence != null) $("you-mark").style.left = at(s.cadence) + "%";
  }
}

// A request that gets no answer (Wi-Fi gone, the Pi off), or none within `seconds` when given,
// is said as such, like one the Pi refuses, rather than left pending or thrown away.
async function post(path, body, seconds) {
  let response;
  try {
    response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      signal: seconds ? AbortSignal.timeout(seconds * 1000) : undefined });
  } catch (e) {
    return { ok: false, answered: false, answer: { error: "no answer from " + location.host } };
  }
  let answer = {};
  try { answer = await response.json(); } catch (e) {}
  return { ok: response.ok, answered: true, answer };
}

// Whether the page hears the Pi, below the buttons so that what it says never moves them: a
// session's figures would otherwise stand still without a word. A command refused or not
// answered is said there for 10 s.
let linkLost = false;
function standingLink() {
  const live = state.status === "running" || state.status === "readiness";
  return linkLost && live ? "Connection to " + location.host + " lost; reconnecting…" : "";
}
function sayLink(text) {
  $("link").textContent = text;
  $("link").classList.toggle("hidden", !text);
}

// A double tap acted twice: Next skipped two steps, and Pause, become Resume under the finger,
// resumed. Taps while a command waits for its answer, and for 700 ms after, are that tap.
let commandsQuietUntil = 0;
async function command(name) {
  if (Date.now() < commandsQuietUntil) return;
  commandsQuietUntil = Infinity;
  // A command is for now: after 8 s without an answer the runner is told.
  // Next names the step it ends: a second phone's tap, or one before the page heard the step
  // change, does not end the step after it.
  const body = name === "next" && state.step ? { command: name, step: state.step.number } : { command: name };
  const { ok, answered, answer } = await post("/api/command", body, 8);
  commandsQuietUntil = Date.now() + 700;
  const label = name[0].toUpperCase() + name.slice(1);
  const text = ok ? "" : answered ? label + " refused: " + (answer.error || "by the Pi") : label + ": " + answer.error;
  sayLink(text || standingLink());
  unanswered = answered ? "" : text;
  if (text) setTimeout(() => { if ($("link").textContent === text) sayLink(standingLink()); }, 10000);
}
// A command the Pi did not answer in time, said until the Pi is heard again: it may have
// acted late (a Pi stopped for a while), and "no answer" standing on after its state came
// back asked for a second tap that skipped another step.
let unanswered = "";
$("btn-pause").onclick = () => command(state.paused ? "resume" : "pause");
$("btn-next").onclick = () => command("next");
$("btn-finish").onclick = () => command("finish");
$("summary-new").onclick = (e) => { e.preventDefault(); choosing = true; showStart(); $("start-heading").focus(); };

// Today's readiness (`intervalpro readiness` each morning): figures, verdict and advice, or
// when it was last measured; hidden until there is a measurement.
async function showReadiness() {
  let answer;
  try { answer = await fetch("/api/readiness").then((r) => r.json()); } catch (e) { return; }
  const r = answer.readiness;
  if (!r) return;
  const a = r.assessment;
  $("readiness-when").textContent = r.measured_today ? "today" : "last measured " + r.date;
  $("readiness-figures").textContent = "rMSSD " + r.rmssd_ms.toFixed(1) + " ms · ln " + r.ln_rmssd.toFixed(2) + " · HR " + Math.round(r.mean_hr_bpm);
  const verdict = $("readiness-verdict");
  verdict.textContent = a.summary + (a.baseline_ln_rmssd == null ? "" : " (baseline " + a.baseline_ln_rmssd.toFixed(2) + ", normal " + a.normal_low.toFixed(2) + "–" + a.normal_high.toFixed(2) + ")");
  verdict.className = a.drop_today ? "drop" : a.verdict;
  $("readiness-advice").textContent = r.measured_today ? r.advice_today
    : (r.advice_today ? r.advice_today + "; " : "") + "measure this morning with `intervalpro readiness`";
}

// A measurement from the phone: the strap's progress while it runs, then the figures.
const phases = { connecting: "Connecting to the strap…", waiting: "Waiting for the strap's first values…",
  settling: "Settling, not scored yet: lie still", measuring: "Measuring: lie still, breathe calmly",
  noContact: "No skin contact: wet the strap and put it on (paused)", noSignal: "No signal from the strap (paused)",
  complete: "Complete", done: "Done", cancelled: "Cancelled: nothing was saved", failed: "Not measured" };
function renderMeasurement(s) {
  show("readiness");
  const over = ["done", "cancelled", "failed"].includes(s.phase);
  const restless = s.aboveRestingRate && (s.phase === "settling" || s.phase === "measuring");
  const madeUp = s.intervalsFromHeartRate && s.phase === "measuring";
  $("measure-phase").textContent = (phases[s.phase] || s.phase) + (restless ? " · heart rate not at rest yet: lie still" : "")
    + (madeUp ? " · the strap works its RR intervals out from its heart rate: it will be refused" : "") + (s.device ? " · " + s.device : "");
  $("measure-left").textContent = s.timeLeft == null || over ? "" : clock(s.timeLeft);
  $("measure-hr").textContent = s.heartRate == null ? "--" : String(s.heartRate);
  $("measure-beats").textContent = s.beats == null ? "--" : String(s.beats);
  $("measure-artifacts").textContent = s.artifacts == null ? "--" : String(s.artifacts);
  $("measure-error").textContent = s.error || "";
  $("measure-facts").classList.toggle("hidden", over);
  $("btn-measure-cancel").classList.toggle("hidden", over);
  $("btn-measure-done").classList.toggle("hidden", !over);
  const r = s.result;
  $("measure-result").classList.toggle("hidden", !r);
  if (r) {
    $("measure-figures").textContent = "rMSSD " + r.rmssd_ms.toFixed(1) + " ms · ln " + r.ln_rmssd.toFixed(2) + " · HR " + Math.round(r.mean_hr_bpm);
    $("measure-verdict").textContent = r.assessment.summary;
    $("measure-advice").textContent = r.assessment.advice + (r.wellness ? " · " + r.wellness : "");
  }
}
$("btn-measure").onclick = async () => {
  const before = state;
  const { ok, answer } = await post("/api/readiness", {});
  $("error").textContent = ok ? "" : answer.error || "could not start a measurement";
  if (!ok) return;
  choosing = false;
  // The measurement's own state may have come first (one that failed at once, with no system
  // bus): drawn over with "Connecting", the page waited on a strap for good.
  renderMeasurement(state !== before && state.status === "readiness" ? state : { phase: "connecting" });
};
$("btn-measure-cancel").onclick = () => command("finish");
$("btn-measure-done").onclick = () => { choosing = true; showStart(); };

let loadedChoices = false;
let todayAskedAt = 0;
async function showStart() {
  show("start");
  showReadiness();
  // Asked again after a minute: a page kept open overnight (a home-screen app has no reload)
  // offered yesterday's runs. Not on every state drawn over the start view (another phone's
  // measurement sent two a second, each a call to intervals.icu).
  if (Date.now() - todayAskedAt > 60000) {
    todayAskedAt = Date.now();
    showToday();
  }
  if (loadedChoices) return;
  loadedChoices = true;
  const [plans, recordings] = await Promise.all([fetch("/api/plans").then((r) => r.json()), fetch("/api/recordings").then((r) => r.json())]);
  for (const p of plans.plans) {
    const o = document.createElement("option");
    o.value = p.id;
    o.textContent = p.name + (p.folder === "mine" ? " (mine)" : "") + (p.duration ? " · " + clock(p.duration) : "");
    $("plan").appendChild(o);
  }
  // None to offer (the examples not installed where the server looks, and no plan of the
  // user's): an empty picker said nothing.
  if (plans.plans.length === 0) {
    const line = document.createElement("div");
    line.className = "label";
    line.textContent = "No plans found: put a plan file in " + (plans.userFolder || "$XDG_CONFIG_HOME/intervalpro/plans") +
      " (intervalpro plan import makes one from a workout), then reload this page.";
    $("plan-problems").appendChild(line);
  }
  // Plans in the folders that cannot be offered, each with what is wrong in it.
  for (const u of plans.unreadable || []) {
    const line = document.createElement("div");
    line.className = "label";
    line.textContent = "Not offered: " + u.id + ": " + u.error;
    $("plan-problems").appendChild(line);
  }
  // Left as it is, the plan's own recording (the server finds it); the list's first, sent
  // always before, replayed another plan's recording and saved its score.
  const own = document.createElement("option");
  own.value = "";
  own.textContent = "The plan's own";
  $("recording").appendChild(own);
  for (const r of recordings.recordings) {
    const o = document.createElement("option");
    o.value = r.id;
    o.textContent = r.name;
    $("recording").appendChild(o);
  }
  planChanged();
}

// The run planned today, when chosen, instead of the plan list's: {id, name, preview}.
let planned = null;

async function showToday() {
  const today = await fetch("/api/today").then((r) => r.json());
  const box = $("today-runs");
  box.textContent = "";
  $("today").classList.toggle("hidden", !today.account || (today.runs.length === 0 && !today.error));
  if (today.error) box.appendChild(element("p", today.error, "label"));
  for (const run of today.runs) {
    const text = "Today: " + run.name + (run.steps == null ? "" : ", " + run.steps + " steps") +
      (run.duration_s == null ? "" : ", " + clock(run.duration_s));
    const button = element("button", text, "secondary today-run");
    button.dataset.id = run.id;
    button.style.width = "100%";
    button.disabled = run.preview == null;
    button.onclick = () => { planned = run; drawPreview(run.preview); $("plan-label-note").textContent = "Chosen: " + run.name + " (intervals.icu)"; };
    box.appendChild(button);
    if (run.problem) box.appendChild(element("p", "Cannot run it: " + run.problem, "label"));
  }
  if (planned && !today.runs.some((run) => run.id === planned.id)) planChanged();
}

async function planChanged() {
  planned = null;
  $("plan-label-note").textContent = "";
  if (!$("plan").value) return;
  drawPreview(await fetch("/api/plans/preview?id=" + encodeURIComponent($("plan").value)).then((r) => r.json()));
}
$("plan").onchange = planChanged;

function drawPreview(preview) {
  const rows = $("preview-steps");
  rows.textContent = "";
  for (const step of preview.steps) {
    const tr = element("tr", null, "preview-step");
    tr.dataset.kind = step.kind;
    if (typeof step.duration_s === "number") tr.dataset.duration = step.duration_s;
    if (step.target_spm != null) { tr.dataset.target = step.target_spm; tr.dataset.low = step.low_spm; tr.dataset.high = step.high_spm; }
    const length = typeof step.duration_s === "number" ? clock(step.duration_s) : step.distance_m != null ? step.distance_m + " m" : "open";
    const zone = step.target_spm == null ? "--" : step.low_spm + "–" + step.high_spm + " (" + step.target_spm + ")";
    for (const text of [step.label || step.kind, length, zone]) tr.appendChild(element("td", text));
    rows.appendChild(tr);
  }
  $("preview-total").textContent = preview.steps.length + " steps, " + clock(preview.total_timed_s) + " timed";
  $("preview-total").dataset.seconds = preview.total_timed_s;
  // Target cadence over time: one segment a timed step (others a fixed width), 140-200 spm.
  const svg = $("preview-chart");
  svg.textContent = "";
  const widths = preview.steps.map((st) => typeof st.duration_s === "number" ? st.duration_s : 60);
  const total = widths.reduce((a, b) => a + b, 0) || 1;
  let x = 0, d = "";
  preview.steps.forEach((st, i) => {
    const w = 320 * widths[i] / total;
    if (st.target_spm != null) {
      const y = (90 - 90 * (Math.min(200, Math.max(140, st.target_spm)) - 140) / 60).toFixed(1);
      d += "M" + x.toFixed(1) + " " + y + " H" + (x + w).toFixed(1) + " ";
    }
    x += w;
  });
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", d);
  path.setAttribute("class", "preview-line");
  svg.appendChild(path);
}

function sourceChanged() {
  const source = $("source").value;
  $("recording-choice").classList.toggle("hidden", source !== "recording");
  // Live sensors and the metronome alone keep the runner's time.
  $("speed-choice").classList.toggle("hidden", source === "live" || source === "metronome");
}
$("source").onchange = sourceChanged;
$("btn-start").onclick = async () => {
  const source = $("source").value;
  const body = planned ? { planned: planned.id, source } : { plan: $("plan").value, source };
  if ($("metronome").value) body.metronome = $("metronome").value;
  if ($("volume").dataset.touched) body.volume = Number($("volume").value) / 100;
  if ($("voice").value) body.voice = $("voice").value;
  if (source === "recording" && $("recording").value) body.recording = $("recording").value;
  if (source !== "live" && source !== "metronome") body.speed = Number($("speed").value) || 1;
  const { ok, answer } = await post("/api/sessions", body);
  $("error").textContent = ok ? "" : answer.error || "could not start";
  // Start is hidden with its view: the focus goes to the step's title, not to the page's top.
  if (ok) { choosing = false; $("step-title").textContent = "Starting…"; show("live"); $("step-title").focus(); }
};

$("volume").oninput = () => { $("volume").dataset.touched = "yes"; };

function element(tag, text, className) {
  const e = document.createElement(tag);
  if (text != null) e.textContent = text;
  if (className) e.className = className;
  return e;
}

// A session the link went away from: the server restarted under it (it keeps what was saved,
// as interrupted) when the first state after the link is back is no session at all.
let lostSession = false;
// The socket in use (an older one's late events are not this link's), and when it last spoke.
let currentSocket = null;
let lastHeard = 0;
function linkWentAway() {
  // Said once when the link goes, not again at each attempt to get it back.
  if (!linkLost) { linkLost = true; lostSession = state.status === "running"; sayLink(standingLink()); }
}
function connect() {
  const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live");
  currentSocket = socket;
  socket.onopen = () => {
    if (socket !== currentSocket) return;
    linkLost = false;
    lastHeard = Date.now();
    sayLink("");
  };
  socket.onmessage = (event) => {
    if (socket !== currentSocket) return;
    lastHeard = Date.now();
    if (unanswered && $("link").textContent === unanswered) sayLink(standingLink());
    unanswered = "";
    const next = JSON.parse(event.data);
    const cutOff = lostSession && next.status === "idle";
    lostSession = false;
    render(next);
    if (cutOff) $("error").textContent = "The session stopped when the server restarted: what was saved of it is in History.";
  };
  socket.onclose = () => {
    if (socket !== currentSocket) return;
    linkWentAway();
    setTimeout(connect, 1000);
  };
}
// Wi-Fi that goes away without a word closes no socket: the page showed a session's figures
// frozen for as long, as if live. While a session is live and the socket has been silent for
// 4 s (a paused session sends nothing new), the Pi is asked; no answer within 4 s is a link
// lost, said, and a new one is tried.
setInterval(async () => {
  const live = state.status === "running" || state.status === "readiness";
  if (!live || linkLost || !currentSocket || Date.now() - lastHeard < 4000) return;
  const asked = currentSocket;
  const answered = await fetch("/api/state", { cache: "no-store", signal: AbortSignal.timeout(4000) })
    .then((response) => response.ok, () => false);
  if (answered) { if (asked === currentSocket) lastHeard = Date.now(); return; }
  if (asked !== currentSocket) return;
  linkWentAway();
  currentSocket = null;
  try { asked.close(); } catch (e) {}
  connect();
}, 2000);

sourceChanged();
if (pagePath === "/history") showHistory();
if (pagePath === "/sensors") showSensors();
connect();
"""#
}
