extension WebPage {
    /// The sensors view's script: the sensors chosen, a scan and its finds, and `doctor`'s
    /// checks. Part of the page's one script (`script` calls `showSensors`).
    static let sensorsScript = #"""
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
"""#
}
