/// The page: one self-contained document (no network loads) with three views: the live
/// session, the start page and the history. It reads `/api/live` and posts commands; the
/// element ids are what the browser test reads (Tests/Web).
enum WebPage {
    /// The web app manifest: the page opens standalone from the home screen.
    static let manifest = #"""
{"name":"IntervalPro","short_name":"IntervalPro","start_url":"/","scope":"/","display":"standalone",
"background_color":"#111111","theme_color":"#111111",
"icons":[{"src":"/icon.svg","sizes":"any","type":"image/svg+xml","purpose":"any"}]}
"""#

    /// A metronome's beat over a zone band, on the app's colours.
    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#111"/>
<rect x="64" y="296" width="384" height="72" rx="36" fill="#3ddc84" opacity=".45"/>
<path d="M256 88 L352 424 H160 Z" fill="none" stroke="#eee" stroke-width="28" stroke-linejoin="round"/>
<path d="M256 352 L344 152" stroke="#ffb300" stroke-width="28" stroke-linecap="round"/></svg>
"""#

    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="theme-color" content="#111111" media="(prefers-color-scheme: dark)">
<meta name="theme-color" content="#f6f7f9" media="(prefers-color-scheme: light)">
<link rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<title>IntervalPro</title>
<style>
  /* One palette, dark or light as the phone prefers (the report uses the same). */
  :root { color-scheme: dark; --ok: #3ddc84; --warn: #ffb300; --bad: #ff5252; --dim: #9aa0a6; --bg: #111; --card: #1d1f21;
    --fg: #eee; --head: #000; --track: #333; --scale: #2a2a2a; --line: #444; --link: #8ab4f8; --accent: #2d6cdf; --muted: #444; }
  @media (prefers-color-scheme: light) {
    :root { color-scheme: light; --ok: #0a7d3b; --warn: #9a5b00; --bad: #b3261e; --dim: #4f5660; --bg: #f6f7f9; --card: #fff;
      --fg: #16181b; --head: #e8eaee; --track: #d5d8de; --scale: #e3e6ea; --line: #c4c8cf; --link: #1a56c4; --accent: #1f5fd1; --muted: #5b6270; }
  }
  * { box-sizing: border-box; }
  body { margin: 0; font-family: system-ui, sans-serif; background: var(--bg); color: var(--fg); }
  header { display: flex; justify-content: space-between; align-items: center; padding: 0 16px; background: var(--head); }
  header a { color: var(--dim); text-decoration: none; margin-left: 14px; font-size: 1.05rem; display: inline-block; padding: 12px 4px; min-height: 44px; }
  main { padding: 12px 16px 24px; max-width: 640px; margin: 0 auto; }
  .hidden { display: none !important; }
  .row { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
  #step-title { font-size: 1.8rem; font-weight: 700; }
  #step-number, .label { color: var(--dim); font-size: 1.1rem; }
  #time-left, #step-other { font-size: 4.2rem; font-weight: 700; font-variant-numeric: tabular-nums; text-align: center; margin: 6px 0 2px; }
  .bar { height: 14px; background: var(--track); border-radius: 7px; overflow: hidden; }
  #progress { height: 100%; width: 0; background: #4a90e2; }
  #cadence { font-size: 3.6rem; font-weight: 700; font-variant-numeric: tabular-nums; }
  .scale { position: relative; height: 34px; background: var(--scale); border-radius: 6px; margin: 8px 0; }
  #zone-band { position: absolute; top: 0; bottom: 0; background: rgba(61, 220, 132, .35); }
  #target-mark { position: absolute; top: 0; bottom: 0; width: 3px; background: var(--fg); }
  #you-mark { position: absolute; top: -5px; width: 18px; height: 44px; margin-left: -9px; border-radius: 9px; background: var(--warn); }
  #advice { font-size: 2rem; font-weight: 700; text-align: center; padding: 10px; border-radius: 10px; background: var(--card); }
  #advice.inZone { color: var(--ok); } #advice.faster, #advice.slower { color: var(--warn); } #advice.noSignal { color: var(--bad); }
  .facts { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 8px; margin: 12px 0; text-align: center; }
  .facts div { background: var(--card); border-radius: 10px; padding: 8px 4px; }
  .facts b { display: block; font-size: 1.6rem; }
  #paused-badge { color: var(--warn); font-weight: 700; }
  #notice { color: var(--warn); min-height: 1.2em; }
  .buttons { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 10px; margin-top: 12px; }
  button { font-size: 1.3rem; padding: 18px 8px; min-height: 44px; border: 0; border-radius: 12px; background: var(--accent); color: #fff; }
  button.secondary { background: var(--muted); } button.danger { background: #b3261e; }
  select, input { width: 100%; font-size: 1.2rem; padding: 12px; min-height: 44px; margin: 6px 0 14px; background: var(--card); color: var(--fg); border: 1px solid var(--line); border-radius: 8px; }
  #summary { background: var(--card); border-radius: 12px; padding: 14px; margin-top: 14px; }
  #summary-in-zone { font-size: 3rem; font-weight: 700; color: var(--ok); }
  table { width: 100%; border-collapse: collapse; } td, th { padding: 8px 4px; border-bottom: 1px solid var(--track); text-align: left; }
  a { color: var(--link); }
  .session { background: var(--card); border-radius: 12px; padding: 10px 12px; margin: 10px 0; }
  .session .when { font-weight: 700; } .session .plan { font-size: 1.15rem; margin: 2px 0; }
  .actions { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 8px; margin-top: 8px; align-items: center; }
  .actions a { display: inline-block; padding: 12px 4px; min-height: 44px; }
  .actions button { font-size: 1.05rem; padding: 10px 6px; }
  #trend-chart { background: var(--card); border-radius: 10px; }
  .preview-line { stroke: var(--ok); stroke-width: 4; fill: none; } #preview-chart { background: var(--card); border-radius: 10px; }
  .today-run { margin: 6px 0; }
  .trend-bar { fill: var(--ok); opacity: .55; } .trend-dot { fill: var(--link); }
  .session > button { width: 100%; margin-top: 8px; font-size: 1.05rem; padding: 10px 6px; }
  .check { padding: 8px 0; border-bottom: 1px solid var(--track); } .check.bad { color: var(--bad); }
  #error { color: var(--bad); }
  #readiness-card { background: var(--card); border-radius: 12px; padding: 12px 14px; margin-top: 12px; }
  #readiness-figures, #measure-figures { font-size: 1.5rem; font-weight: 700; margin: 4px 0; }
  #measure-left { font-size: 4.2rem; font-weight: 700; font-variant-numeric: tabular-nums; text-align: center; margin: 6px 0; }
  #measure-error { color: var(--bad); }
  #readiness-verdict.below, #readiness-verdict.drop { color: var(--warn); } #readiness-verdict.within, #readiness-verdict.above { color: var(--ok); }
</style>
</head>
<body>
<header><strong>IntervalPro</strong><nav><a href="/" id="nav-live">Session</a><a href="/sensors" id="nav-sensors">Sensors</a><a href="/history" id="nav-history">History</a></nav></header>
<main>
  <section id="view-live" class="hidden">
    <div class="row"><span id="step-title">&nbsp;</span><span id="step-number"></span></div>
    <div class="row"><span class="label" id="plan-name"></span><span id="paused-badge" class="hidden">PAUSED</span></div>
    <div id="time-left"></div><div id="step-other" class="hidden"></div>
    <div class="bar"><div id="progress"></div></div>
    <div class="row" style="margin-top: 14px"><span><span id="cadence">--</span> <span class="label">spm</span></span><span class="label" id="zone-text"></span></div>
    <div class="scale" id="scale"><div id="zone-band"></div><div id="target-mark"></div><div id="you-mark" class="hidden"></div></div>
    <div id="advice">&nbsp;</div>
    <div class="facts">
      <div><span class="label">HR</span><b id="heart-rate">--</b></div>
      <div id="alpha1-fact" class="hidden"><span class="label">alpha 1</span><b id="alpha1">--</b></div>
      <div><span class="label">in zone</span><b id="in-zone">--</b></div>
      <div><span class="label">sensor</span><b id="signal">--</b></div>
    </div>
    <div class="row"><span class="label">session <span id="session-time" data-seconds="0">0:00</span></span><span id="notice"></span></div>
    <div id="music" class="label hidden"></div>
    <div class="buttons" id="controls">
      <button id="btn-pause">Pause</button>
      <button id="btn-next" class="secondary">Next</button>
      <button id="btn-finish" class="danger">Finish</button>
    </div>
    <div id="summary" class="hidden">
      <div class="label">Finished: time in zone</div>
      <div id="summary-in-zone">--</div>
      <div id="summary-text" class="label"></div>
      <p><a id="summary-report" class="hidden" href="#">Report</a> · <a href="/" id="summary-new">New session</a></p>
    </div>
  </section>
  <section id="view-start" class="hidden">
    <div id="readiness-card">
      <div class="row"><span class="label">Readiness</span><span class="label" id="readiness-when"></span></div>
      <div id="readiness-figures"></div>
      <div id="readiness-verdict"></div>
      <div id="readiness-advice" class="label">No measurement yet: lie still with the strap on for two and a half minutes.</div>
      <button id="btn-measure" class="secondary" style="width: 100%; margin-top: 10px">Measure now</button>
    </div>
    <h2>Start a session</h2>
    <div id="today" class="hidden"><div class="label">Planned today in intervals.icu</div><div id="today-runs"></div></div>
    <label for="plan">Plan</label><select id="plan"></select><div id="plan-label-note" class="label"></div>
    <div id="preview" aria-live="polite">
      <svg id="preview-chart" role="img" aria-label="Target cadence over the session" viewBox="0 0 320 90" width="100%" height="90"></svg>
      <div id="preview-total" class="label"></div>
      <table><thead><tr><th>Step</th><th>Length</th><th>Zone (spm)</th></tr></thead><tbody id="preview-steps"></tbody></table>
    </div>
    <label for="metronome">Metronome</label>
    <select id="metronome"><option value="">As the plan says</option><option value="always">On</option>
      <option value="off-target">Only when off target</option><option value="off">Off</option></select>
    <label for="volume">Metronome volume</label><input id="volume" type="range" min="0" max="100" value="80">
    <label for="voice">Voice cues</label>
    <select id="voice"><option value="">As the plan says</option><option value="en">English</option>
      <option value="es">Español</option><option value="off">Off</option></select>
    <label for="source">Source</label>
    <select id="source"><option value="live">Live sensors</option><option value="simulate">Simulated runner</option><option value="recording">A recording</option></select>
    <div id="recording-choice" class="hidden"><label for="recording">Recording</label><select id="recording"></select></div>
    <div id="speed-choice" class="hidden"><label for="speed">Speed (1 is real time)</label><input id="speed" type="number" min="1" max="100" value="1"></div>
    <button id="btn-start" style="width: 100%">Start</button>
    <p id="error"></p>
  </section>
  <section id="view-readiness" class="hidden">
    <h2>Readiness</h2>
    <div class="label" id="measure-phase">Connecting to the strap…</div>
    <div id="measure-left"></div>
    <div class="facts" id="measure-facts">
      <div><span class="label">HR</span><b id="measure-hr">--</b></div>
      <div><span class="label">beats</span><b id="measure-beats">--</b></div>
      <div><span class="label">artifacts</span><b id="measure-artifacts">--</b></div>
    </div>
    <div id="measure-result" class="hidden">
      <div id="measure-figures"></div>
      <div id="measure-verdict"></div>
      <div id="measure-advice" class="label"></div>
    </div>
    <p id="measure-error"></p>
    <button id="btn-measure-cancel" class="danger" style="width: 100%">Cancel</button>
    <button id="btn-measure-done" class="hidden" style="width: 100%">Done</button>
  </section>
  <section id="view-sensors" class="hidden">
    <h2>Sensors</h2>
    <p class="label">What a session started here (or by <code>intervalpro run</code>) looks for first. A remembered sensor
      is a preference: when it is not there, the best one found is used.</p>
    <div class="session"><div class="label">Heart rate</div><div id="chosen-heartRate" class="plan">none chosen</div>
      <button id="forget-heartRate" class="secondary hidden">Forget</button></div>
    <div class="session"><div class="label">Cadence</div><div id="chosen-cadence" class="plan">none chosen</div>
      <button id="forget-cadence" class="secondary hidden">Forget</button></div>
    <button id="btn-scan" style="width: 100%">Scan for sensors</button>
    <p id="scan-status" class="label" role="status"></p>
    <div id="scan-list"></div>
    <h3>Checks</h3>
    <div id="checks" role="list"><p class="label">Checking…</p></div>
  </section>
  <section id="view-history" class="hidden">
    <h2>History</h2>
    <label class="label" for="trend-weeks">Trends: in-zone % (bars) and work cadence (dots), one column a session, over</label>
    <select id="trend-weeks">
      <option value="4">4 weeks</option><option value="12" selected>12 weeks</option><option value="26">26 weeks</option><option value="52">52 weeks</option>
    </select>
    <svg id="trend-chart" role="img" aria-label="Trends chart" viewBox="0 0 320 140" width="100%" height="140"></svg>
    <p id="trend-summary" class="label"></p>
    <p id="history-message" role="status"></p>
    <div id="history-list"></div>
  </section>
</main>
<script>
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

function render(s) {
  state = s;
  if (location.pathname === "/history" || location.pathname === "/sensors") return;
  if (s.status === "idle" || ((s.status === "finished" || s.status === "readiness") && choosing)) { showStart(); return; }
  if (s.status === "readiness") { renderMeasurement(s); return; }
  show("live");
  $("plan-name").textContent = s.plan || "";
  $("session-time").dataset.seconds = s.sessionTime;
  $("session-time").textContent = clock(s.sessionTime);
  $("paused-badge").classList.toggle("hidden", !s.paused);
  $("btn-pause").textContent = s.paused ? "Resume" : "Pause";
  $("notice").textContent = s.notice || "";
  $("music").classList.toggle("hidden", !s.music);
  $("music").textContent = s.music ? "♪ " + s.music : "";
  const finished = s.status === "finished";
  $("controls").classList.toggle("hidden", finished);
  $("summary").classList.toggle("hidden", !finished);
  if (finished) {
    $("step-title").textContent = "Finished";
    $("step-number").textContent = "";
    $("time-left").textContent = "";
    $("step-other").classList.add("hidden");
    $("progress").style.width = "100%";
    const pct = s.summary && s.summary.totals.in_zone_pct;
    $("summary-in-zone").textContent = pct == null ? "--" : pct.toFixed(1) + "%";
    $("in-zone").textContent = s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "%";
    const t = s.summary ? s.summary.totals : {};
    $("summary-text").textContent = clock(s.sessionTime) + (t.avg_cadence_spm ? " · avg " + Math.round(t.avg_cadence_spm) + " spm" : "") + (t.avg_hr_bpm ? " · HR " + Math.round(t.avg_hr_bpm) : "");
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
  advice.textContent = s.advice.text;
  advice.className = s.advice.kind;
  $("heart-rate").textContent = s.heartRate == null ? "--" : String(s.heartRate);
  // DFA alpha 1 beside heart rate, once the strap has sent beats.
  const alpha = s.alpha1;
  $("alpha1-fact").classList.toggle("hidden", !alpha);
  if (alpha) $("alpha1").textContent = alpha.status === "scored" ? alpha.value.toFixed(2) : alpha.status;
  $("in-zone").textContent = s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "%";
  $("signal").textContent = s.signal ? "ok" : "none";
  const zone = s.zone;
  $("scale").classList.toggle("hidden", !zone);
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

async function post(path, body) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let answer = {};
  try { answer = await response.json(); } catch (e) {}
  return { ok: response.ok, answer };
}

function command(name) { post("/api/command", { command: name }); }
$("btn-pause").onclick = () => command(state.paused ? "resume" : "pause");
$("btn-next").onclick = () => command("next");
$("btn-finish").onclick = () => command("finish");
$("summary-new").onclick = (e) => { e.preventDefault(); choosing = true; showStart(); };

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
  $("readiness-advice").textContent = r.measured_today ? a.advice : "measure this morning with `intervalpro readiness`";
}

// A measurement from the phone: the strap's progress while it runs, then the figures.
const phases = { connecting: "Connecting to the strap…", waiting: "Waiting for the strap's first values…",
  settling: "Settling, not scored yet: lie still", measuring: "Measuring: lie still, breathe calmly",
  noContact: "No skin contact: wet the strap and put it on (paused)", noSignal: "No signal from the strap (paused)",
  complete: "Complete", done: "Done", cancelled: "Cancelled: nothing was saved", failed: "Not measured" };
function renderMeasurement(s) {
  show("readiness");
  const over = ["done", "cancelled", "failed"].includes(s.phase);
  $("measure-phase").textContent = (phases[s.phase] || s.phase) + (s.device ? " · " + s.device : "");
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
    $("measure-advice").textContent = r.assessment.advice;
  }
}
$("btn-measure").onclick = async () => {
  const { ok, answer } = await post("/api/readiness", {});
  $("error").textContent = ok ? "" : answer.error || "could not start a measurement";
  if (ok) { choosing = false; renderMeasurement({ phase: "connecting" }); }
};
$("btn-measure-cancel").onclick = () => command("finish");
$("btn-measure-done").onclick = () => { choosing = true; showStart(); };

let loadedChoices = false;
async function showStart() {
  show("start");
  showReadiness();
  if (loadedChoices) return;
  loadedChoices = true;
  showToday();
  const [plans, recordings] = await Promise.all([fetch("/api/plans").then((r) => r.json()), fetch("/api/recordings").then((r) => r.json())]);
  for (const p of plans.plans) {
    const o = document.createElement("option");
    o.value = p.id;
    o.textContent = p.name + (p.folder === "mine" ? " (mine)" : "") + (p.duration ? " · " + clock(p.duration) : "");
    $("plan").appendChild(o);
  }
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
  $("speed-choice").classList.toggle("hidden", source === "live");
}
$("source").onchange = sourceChanged;
$("btn-start").onclick = async () => {
  const source = $("source").value;
  const body = planned ? { planned: planned.id, source } : { plan: $("plan").value, source };
  if ($("metronome").value) body.metronome = $("metronome").value;
  if ($("volume").dataset.touched) body.volume = Number($("volume").value) / 100;
  if ($("voice").value) body.voice = $("voice").value;
  if (source === "recording") body.recording = $("recording").value;
  if (source !== "live") body.speed = Number($("speed").value) || 1;
  const { ok, answer } = await post("/api/sessions", body);
  $("error").textContent = ok ? "" : answer.error || "could not start";
  if (ok) { choosing = false; $("step-title").textContent = "Starting…"; show("live"); }
};

$("volume").oninput = () => { $("volume").dataset.touched = "yes"; };

function element(tag, text, className) {
  const e = document.createElement(tag);
  if (text != null) e.textContent = text;
  if (className) e.className = className;
  return e;
}

async function showHistory() {
  show("history");
  drawTrends();
  const list = await fetch("/api/sessions").then((r) => r.json());
  const box = $("history-list");
  box.textContent = "";
  if (list.sessions.length === 0) box.appendChild(element("p", "No sessions saved yet.", "label"));
  for (const s of list.sessions) {
    // One card a session: when (the Pi's local time), plan, figures, status, uploads, actions.
    const card = element("div", null, "session");
    card.id = "session-" + s.id;
    card.dataset.id = s.id;
    card.appendChild(element("div", s.localStartedAt, "when"));
    card.appendChild(element("div", s.plan, "plan"));
    const facts = [s.duration == null ? "--" : clock(s.duration),
      s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "% in zone",
      s.averageWorkCadence == null ? "--" : Math.round(s.averageWorkCadence) + " spm work", s.status];
    card.appendChild(element("div", facts.join(" · "), "label facts-line"));
    const uploaded = s.uploads.filter((u) => u.status === "done");
    const uploads = element("div", uploaded.length ? "Uploaded to " + uploaded.map((u) => u.service).join(", ") : "Not uploaded", "label uploads");
    card.appendChild(uploads);
    const actions = element("div", null, "actions");
    if (s.status !== "running") {
      const a = element("a", "Report", "report-link");
      a.href = s.report;
      a.setAttribute("aria-label", "Report of " + s.plan + ", " + s.localStartedAt);
      actions.appendChild(a);
      const up = element("button", "Upload", "secondary btn-upload");
      up.setAttribute("aria-label", "Upload " + s.plan + ", " + s.localStartedAt);
      up.onclick = () => upload(s, uploads);
      actions.appendChild(up);
      const del = element("button", "Delete", "danger btn-delete");
      del.setAttribute("aria-label", "Delete " + s.plan + ", " + s.localStartedAt);
      del.onclick = () => remove(s, card);
      actions.appendChild(del);
    }
    card.appendChild(actions);
    box.appendChild(card);
  }
}

async function upload(s, line) {
  line.textContent = "Uploading…";
  const { ok, answer } = await post("/api/sessions/" + s.id + "/upload", { to: "all" });
  if (!ok) { line.textContent = answer.error || "could not upload"; return; }
  line.textContent = answer.results.map((r) => r.service + ": " + r.outcome + (r.message ? " (" + r.message + ")" : "")).join("; ");
}

async function remove(s, card) {
  if (!confirm("Delete the session of " + s.localStartedAt + " (" + s.plan + ")? This cannot be undone.")) return;
  const answer = await fetch("/api/sessions/" + s.id, { method: "DELETE" });
  if (answer.status === 204) { card.remove(); $("history-message").textContent = "Deleted the session of " + s.localStartedAt + "."; drawTrends(); }
  else $("history-message").textContent = ((await answer.json()).error) || "could not delete";
}

async function drawTrends() {
  const weeks = $("trend-weeks").value;
  const trends = await fetch("/api/trends?weeks=" + weeks).then((r) => r.json());
  const svg = $("trend-chart");
  svg.textContent = "";
  const points = trends.sessions;
  const ns = "http://www.w3.org/2000/svg";
  const n = Math.max(1, points.length), width = 320, height = 120, slot = width / n;
  const cadences = points.map((p) => p.avg_work_cadence_spm).filter((c) => c != null);
  const low = Math.min(...cadences, 150) - 5, high = Math.max(...cadences, 190) + 5;
  points.forEach((p, i) => {
    if (p.in_zone_pct != null) {
      const bar = document.createElementNS(ns, "rect");
      const h = height * p.in_zone_pct / 100;
      bar.setAttribute("x", (i * slot + slot * 0.15).toFixed(1)); bar.setAttribute("width", (slot * 0.7).toFixed(1));
      bar.setAttribute("y", (height - h).toFixed(1)); bar.setAttribute("height", h.toFixed(1));
      bar.setAttribute("class", "trend-bar"); bar.dataset.sessionId = p.session_id; bar.dataset.inZone = p.in_zone_pct;
      svg.appendChild(bar);
    }
    if (p.avg_work_cadence_spm != null) {
      const dot = document.createElementNS(ns, "circle");
      dot.setAttribute("cx", (i * slot + slot / 2).toFixed(1));
      dot.setAttribute("cy", (height - height * (p.avg_work_cadence_spm - low) / (high - low)).toFixed(1));
      dot.setAttribute("r", "3.5"); dot.setAttribute("class", "trend-dot");
      dot.dataset.sessionId = p.session_id; dot.dataset.cadence = p.avg_work_cadence_spm;
      svg.appendChild(dot);
    }
  });
  const perWeek = trends.work_cadence_trend_spm_per_week;
  $("trend-summary").textContent = points.length + " sessions in " + weeks + " weeks" +
    (perWeek == null ? "" : "; work cadence " + (perWeek >= 0 ? "+" : "") + perWeek.toFixed(1) + " spm a week");
}
$("trend-weeks").onchange = drawTrends;

const roles = { heartRate: "heart rate", cadence: "cadence" };

function renderSensors(answer) {
  for (const role of Object.keys(roles)) {
    const chosen = answer.remembered[role];
    $("chosen-" + role).textContent = chosen ? (chosen.name || chosen.address) + " (" + chosen.address + ")" : "none chosen";
    $("forget-" + role).classList.toggle("hidden", !chosen);
  }
  const scan = answer.scan;
  $("btn-scan").disabled = scan.scanning;
  $("scan-status").textContent = scan.scanning ? "Scanning… " + scan.devices.length + " found, " + scan.secondsLeft + " s left"
    : scan.problems.join("; ");
  const list = $("scan-list");
  list.textContent = "";
  for (const d of scan.devices) {
    const card = element("div", null, "session found-sensor");
    card.dataset.address = d.address;
    card.appendChild(element("div", (d.manufacturer ? d.manufacturer + " " : "") + (d.name || "(no name)"), "plan"));
    const offered = d.services.map((x) => ({ "180d": "heart rate", "1814": "speed and cadence", "ant-hr": "heart rate",
      "ant-sdm": "foot pod" })[x]).filter((x) => x).join(", ");
    const facts = [d.address, offered, d.transport === "ant+" ? "ANT+" : (d.rssi == null ? "" : d.rssi + " dBm"),
      d.battery_percent == null ? "" : "battery " + d.battery_percent + "%"].filter((x) => x);
    card.appendChild(element("div", facts.join(" · "), "label"));
    const actions = element("div", null, "actions");
    const offers = { heartRate: d.services.includes("180d") || d.services.includes("ant-hr"),
      cadence: d.services.includes("1814") || d.services.includes("ant-sdm") };
    for (const role of Object.keys(roles)) {
      if (!offers[role]) continue;
      const use = element("button", "Use for " + roles[role], "btn-use-" + role);
      use.setAttribute("aria-label", "Use " + (d.name || d.address) + " for " + roles[role]);
      use.onclick = () => choose(role, d.address);
      actions.appendChild(use);
    }
    card.appendChild(actions);
    list.appendChild(card);
  }
  if (scan.scanning) setTimeout(refreshSensors, 1000);
}

async function refreshSensors() {
  renderSensors(await fetch("/api/sensors").then((r) => r.json()));
}

async function choose(role, address) {
  const answer = await fetch("/api/sensors", { method: "PUT", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ [role]: address }) });
  const body = await answer.json();
  if (answer.ok) renderSensors(body); else $("scan-status").textContent = body.error || "could not choose";
}

$("forget-heartRate").onclick = () => choose("heartRate", null);
$("forget-cadence").onclick = () => choose("cadence", null);
$("btn-scan").onclick = async () => {
  const { ok, answer } = await post("/api/scan", { seconds: 10 });
  if (!ok) { $("scan-status").textContent = answer.error || "could not scan"; return; }
  refreshSensors();
};

async function showSensors() {
  show("sensors");
  refreshSensors();
  const checks = await fetch("/api/checks").then((r) => r.json());
  const box = $("checks");
  box.textContent = "";
  for (const c of checks.checks) {
    const row = element("div", null, "check " + (c.ok ? "ok" : "bad"));
    row.setAttribute("role", "listitem");
    row.appendChild(element("div", (c.ok ? "✓ " : "✗ ") + c.check + ": " + c.detail));
    if (!c.ok && c.fix) row.appendChild(element("div", "Fix: " + c.fix, "label"));
    box.appendChild(row);
  }
}

function connect() {
  const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live");
  socket.onmessage = (event) => render(JSON.parse(event.data));
  socket.onclose = () => setTimeout(connect, 1000);
}

sourceChanged();
if (location.pathname === "/history") showHistory();
if (location.pathname === "/sensors") showSensors();
connect();
</script>
</body>
</html>
"""#
}
