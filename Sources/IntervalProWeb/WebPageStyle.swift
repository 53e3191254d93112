extension WebPage {
    /// The page's style sheet: one palette, dark or light as the phone prefers.
    static let style = #"""
  /* One palette, dark or light as the phone prefers (the report uses the same). */
  :root { color-scheme: dark; --ok: #3ddc84; --warn: #ffb300; --bad: #ff5252; --dim: #9aa0a6; --bg: #111; --card: #1d1f21;
    --fg: #eee; --head: #000; --track: #333; --scale: #2a2a2a; --line: #444; --link: #8ab4f8; --accent: #2d6cdf; --muted: #444; }
  @media (prefers-color-scheme: light) {
    :root { color-scheme: light; --ok: #0a7d3b; --warn: #9a5b00; --bad: #b3261e; --dim: #4f5660; --bg: #f6f7f9; --card: #fff;
      --fg: #16181b; --head: #e8eaee; --track: #d5d8de; --scale: #e3e6ea; --line: #c4c8cf; --link: #1a56c4; --accent: #1f5fd1; --muted: #5b6270; }
  }
  * { box-sizing: border-box; }
  body { margin: 0; font-family: system-ui, sans-serif; background: var(--bg); color: var(--fg); }
  header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; padding: 0 16px; background: var(--head); }
  #app-name { font-size: 1rem; margin: 0; }
  header a { color: var(--dim); text-decoration: none; margin-left: 14px; font-size: 1.05rem; display: inline-block; padding: 12px 4px; min-height: 44px; }
  main { padding: 12px 16px 24px; max-width: 640px; margin: 0 auto; }
  .hidden { display: none !important; }
  .row { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
  /* Two lines kept for every title, and never more: a long one ("Work 1/6 · Ladder rung")
     would otherwise move everything below it at each step. */
  #step-title { font-size: 1.8rem; font-weight: 700; line-height: 2.2rem; min-height: 4.4rem; min-width: 0; margin: 0;
    display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; overflow: hidden; overflow-wrap: anywhere; }
  #step-number, .label { color: var(--dim); font-size: 1.1rem; }
  /* A file's path and its error have no spaces to break at. */
  #plan-problems { overflow-wrap: anywhere; }
  #step-number { white-space: nowrap; }
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
  /* One row however many facts show (alpha 1 comes with the strap's first beats), so the
     buttons below never move under a thumb. */
  .facts { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(0, 1fr); gap: 8px; margin: 12px 0; text-align: center; }
  /* Text made larger on the phone breaks a word rather than spill into the next fact. */
  .facts div { background: var(--card); border-radius: 10px; padding: 8px 2px; overflow-wrap: anywhere; }
  .facts b { display: block; font-size: clamp(1.1rem, 5.4vw, 1.6rem); line-height: 2rem; }
  .facts b.word { font-size: clamp(0.8rem, 3.7vw, 1rem); }
  .invisible { visibility: hidden; }
  #paused-badge, #source-badge { color: var(--warn); font-weight: 700; white-space: nowrap; }
  /* A long plan name gives way to the badges beside it, on a phone's width. */
  #plan-name { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  /* Below the buttons, like the connection message: a sensor's news, however long, never
     moves them. */
  #notice { color: var(--warn); text-align: center; margin: 10px 0 0; }
  #notice:empty { display: none; }
  /* Three in a row; one above the other where text made larger leaves no room for three (a
     1fr column is never narrower than its word: Finish went off the screen). */
  .buttons { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 5.5rem), 1fr)); gap: 10px; margin-top: 12px; }
  button { font-size: 1.3rem; padding: 18px 8px; min-height: 44px; border: 0; border-radius: 12px; background: var(--accent); color: #fff; }
  button.secondary { background: var(--muted); } button.danger { background: #b3261e; }
  select, input { width: 100%; font-size: 1.2rem; padding: 12px; min-height: 44px; margin: 6px 0 14px; background: var(--card); color: var(--fg); border: 1px solid var(--line); border-radius: 8px; }
  #summary { background: var(--card); border-radius: 12px; padding: 14px; margin-top: 14px; }
  #music { margin-top: 10px; text-align: center; }
  #link { color: var(--bad); font-weight: 700; text-align: center; margin: 10px 0 0; }
  #summary-in-zone { font-size: 3rem; font-weight: 700; color: var(--ok); }
  table { width: 100%; border-collapse: collapse; } td, th { padding: 8px 4px; border-bottom: 1px solid var(--track); text-align: left; }
  a { color: var(--link); }
  .session { background: var(--card); border-radius: 12px; padding: 10px 12px; margin: 10px 0; }
  .session .when { font-weight: 700; } .session .plan { font-size: 1.15rem; margin: 2px 0; }
  .actions { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 5.5rem), 1fr)); gap: 8px; margin-top: 8px; align-items: center; }
  .actions a, #summary-report, #summary-new { display: inline-block; padding: 12px 4px; min-height: 44px; }
  .actions button { font-size: 1.05rem; padding: 10px 6px; }
  #trend-chart { background: var(--card); border-radius: 10px; }
  .preview-line { stroke: var(--ok); stroke-width: 4; fill: none; } #preview-chart { background: var(--card); border-radius: 10px; }
  .today-run { margin: 6px 0; }
  .trend-bar { fill: var(--ok); opacity: .55; } .trend-dot { fill: var(--link); }
  .session > button { width: 100%; margin-top: 8px; font-size: 1.05rem; padding: 10px 6px; }
  .check { padding: 8px 0; border-bottom: 1px solid var(--track); overflow-wrap: anywhere; } .check.bad { color: var(--bad); }
  #error { color: var(--bad); }
  #readiness-card { background: var(--card); border-radius: 12px; padding: 12px 14px; margin-top: 12px; }
  #readiness-figures, #measure-figures { font-size: 1.5rem; font-weight: 700; margin: 4px 0; }
  #measure-left { font-size: 4.2rem; font-weight: 700; font-variant-numeric: tabular-nums; text-align: center; margin: 6px 0; }
  #measure-error { color: var(--bad); }
  #readiness-verdict.below, #readiness-verdict.drop { color: var(--warn); } #readiness-verdict.within, #readiness-verdict.above { color: var(--ok); }
"""#
}
