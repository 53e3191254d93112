extension WebPage {
    /// The history view's script: the saved sessions a page at a time, their uploads and
    /// deletion, and the trends chart. Part of the page's one script (`script` calls it).
    static let historyScript = #"""
async function showHistory() {
  show("history");
  drawTrends();
  const box = $("history-list");
  box.textContent = "";
  await showSessions(box, 0);
}

// A page of sessions, newest first, and a button for the older ones while there are more.
async function showSessions(box, offset) {
  const list = await fetch("/api/sessions?limit=100&offset=" + offset).then((r) => r.json());
  if (offset === 0 && list.sessions.length === 0) box.appendChild(element("p", "No sessions saved yet.", "label"));
  for (const s of list.sessions) {
    // One card a session: when (the Pi's local time), plan, figures, status, uploads, actions.
    const card = element("div", null, "session");
    card.id = "session-" + s.id;
    card.dataset.id = s.id;
    card.appendChild(element("div", s.localStartedAt, "when"));
    // Not the runner's own run (as the CLI's source column says): simulated (a replay of the
    // simulator's recording too), replayed, imported.
    const from = s.simulated ? "simulated" : { replay: "replayed", imported: "imported" }[s.source];
    card.appendChild(element("div", s.plan + (from ? " (" + from + ")" : ""), "plan"));
    const facts = [s.duration == null ? "--" : clock(s.duration),
      s.inZonePercent == null ? "--" : s.inZonePercent.toFixed(1) + "% in zone",
      s.averageWorkCadence == null ? "--" : Math.round(s.averageWorkCadence) + " spm work", s.statusText];
    card.appendChild(element("div", facts.join(" · "), "label facts-line"));
    const uploads = element("div", uploadsText(s.uploads), "label uploads");
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
  const shown = offset + list.sessions.length;
  if (shown < list.total) {
    const more = element("button", "Show older sessions (" + (list.total - shown) + " more)", "secondary btn-more");
    more.onclick = async () => { more.remove(); await showSessions(box, shown); };
    box.appendChild(more);
  }
}

// Where each upload stands, a failed one too: "Not uploaded" hid one waiting to be sent again.
function uploadsText(list) {
  if (list.length === 0) return "Not uploaded";
  const words = { done: "uploaded", pending: "queued, not sent yet (Upload tries again)",
    processing: "the service is still processing it", rejected: "refused by the service" };
  return list.map((u) => u.service + ": " + (words[u.status] || u.status)).join("; ");
}

async function upload(s, line) {
  line.textContent = "Uploading…";
  const { ok, answer } = await post("/api/sessions/" + s.id + "/upload", { to: "all" });
  if (!ok) { line.textContent = answer.error || "could not upload"; return; }
  const words = { uploaded: "uploaded", "already-there": "already there", "refused-duplicate": "already uploaded",
    processing: "the service is still processing it", queued: "queued, not sent yet (Upload tries again)", rejected: "refused" };
  line.textContent = answer.results.map((r) => r.service + ": " + (words[r.outcome] || r.outcome) + (r.message ? " (" + r.message + ")" : "")).join("; ");
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
  $("trend-summary").textContent = points.length + (points.length === 1 ? " session in " : " sessions in ") + weeks + " weeks" +
    (perWeek == null ? "" : "; work cadence " + (perWeek >= 0 ? "+" : "") + perWeek.toFixed(1) + " spm a week") +
    (trends.simulated_left_out > 0 ? "; " + trends.simulated_left_out + " simulated left out" : "");
}
$("trend-weeks").onchange = drawTrends;
"""#
}
