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
\#(style)
</style>
</head>
<body>
<header><h1 id="app-name">IntervalPro</h1><nav><a href="/" id="nav-live">Session</a><a href="/sensors" id="nav-sensors">Sensors</a><a href="/history" id="nav-history">History</a></nav></header>
<main>
  <section id="view-live" class="hidden">
    <div class="row"><h2 id="step-title" tabindex="-1" aria-live="polite">&nbsp;</h2><span id="step-number"></span></div>
    <div class="row"><span class="label" id="plan-name"></span><span><span id="source-badge" class="hidden">SIMULATED </span><span id="paused-badge" class="hidden">PAUSED</span></span></div>
    <div id="time-left"></div><div id="step-other" class="hidden"></div>
    <div class="bar"><div id="progress"></div></div>
    <div class="row" style="margin-top: 14px"><span><span id="cadence">--</span> <span class="label">spm</span></span><span class="label" id="zone-text"></span></div>
    <div class="scale" id="scale"><div id="zone-band"></div><div id="target-mark"></div><div id="you-mark" class="hidden"></div></div>
    <div id="advice" role="status">&nbsp;</div>
    <div class="facts">
      <div><span class="label">HR</span><b id="heart-rate">--</b></div>
      <div id="alpha1-fact" class="hidden"><span class="label">alpha 1</span><b id="alpha1">--</b></div>
      <div><span class="label">in zone</span><b id="in-zone">--</b></div>
      <div><span class="label">sensor</span><b id="signal">--</b></div>
    </div>
    <div class="row"><span class="label">session <span id="session-time" data-seconds="0">0:00</span></span></div>
    <div class="buttons" id="controls">
      <button id="btn-pause">Pause</button>
      <button id="btn-next" class="secondary">Next</button>
      <button id="btn-finish" class="danger">Finish</button>
    </div>
    <p id="link" role="alert" class="hidden"></p>
    <p id="notice" role="status"></p>
    <div id="music" class="label hidden"></div>
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
    <h2 id="start-heading" tabindex="-1">Start a session</h2>
    <div id="today" class="hidden"><div class="label">Planned today in intervals.icu</div><div id="today-runs"></div></div>
    <label for="plan">Plan</label><select id="plan"></select><div id="plan-label-note" class="label"></div><div id="plan-problems" role="status"></div>
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
    <select id="source"><option value="live">Live sensors</option><option value="simulate">Simulated runner</option><option value="recording">A recording</option><option value="metronome">Metronome alone, no sensor</option></select>
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
\#(script)
\#(sensorsScript)
\#(historyScript)
</script>
</body>
</html>
"""#
}
