// One booking's page: its state, the live graph of its traffic (the
// controller reads the node), trace and capture.

import { bookingActions } from "./bookings.js";
import { editSection } from "./editor.js";
import { programSection } from "./program.js";
import { processingPage } from "./processing.js";
import { api, ApiError, enc, every, h, left, mayChange, P, rate, render, state, svg, when } from "./core.js";

export function graph(points, max) {
  // Packets a second in (solid) and out (dashed) over the last minute.
  const W = 720, H = 200, n = 60;
  const y = (v) => (H - 10 - ((H - 20) * v) / (max || 1)).toFixed(1);
  const line = (key) => points.map((p, i) => `${((W * (n - points.length + i)) / (n - 1)).toFixed(1)},${y(p[key])}`).join(" ");
  return svg("svg", { class: "graph", viewBox: `0 0 ${W} ${H}`, role: "img", id: "live-graph",
    "aria-label": `Packets a second over the last minute, in and out; top of scale ${Math.round(max)}` },
  svg("line", { class: "grid", x1: 0, x2: W, y1: H - 10, y2: H - 10 }),
  svg("line", { class: "grid", x1: 0, x2: W, y1: 10, y2: 10 }),
  svg("text", { x: 4, y: 24, class: "scale" }, rate(max, "packets/s")),
  svg("text", { x: 4, y: H - 14, class: "scale" }, "0"),
  svg("polyline", { class: "in", points: line("inPps"), id: "graph-in" }),
  svg("polyline", { class: "out", points: line("outPps"), id: "graph-out" }));
}

export async function bookingPage(main, project, id) {
  const token = state.seq;
  const b = await api("GET", `${P(project)}/bookings/${enc(id)}`);
  if (b.type === "processing") return processingPage(main, project, b, token);
  const figures = h("div", { class: "figures", id: "live-figures" }, "Waiting for the first reading…");
  const drawing = h("div", { id: "live" });
  const drops = h("div", { id: "drops" });
  const points = [];
  let last = null;
  const details = h("table", { "aria-label": "Booking" }, h("tbody", {},
    [["Name", b.name], ["Allocation", b.allocation_state], ["Operation", b.operational_state + (b.converging ? " (its node has not yet taken the last change)" : "")],
      ["Node", b.node || "—"], ["Network on the node", b.node_network || "—"], ["Tier", b.tier || "—"],
      ["VLAN", b.vlan ?? "—"], ["Bandwidth", `${b.bandwidth_mbps} Mbit/s`], ["Lease end", `${when(b.expires_ms)} (${left(b.expires_ms)} left)`],
      ["Booked by", b.user], ["Error", b.error || "—"]].map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", { id: `b-${k.toLowerCase().replaceAll(" ", "-")}` }, v)))));
  main.replaceChildren(h("h1", {}, `${b.name}`), details,
    h("div", {}, bookingActions(project, b, () => render())),
    h("h2", {}, "Traffic (live, every second)"), figures, drawing,
    h("p", { class: "legend" }, h("span", {}, "── in"), h("span", {}, "- - out")),
    h("h2", {}, "Drops by reason"), drops,
    ...(b.allocation_state === "provisioned" && mayChange(project, b) ? traceSection(project, b) : []),
    ...(b.allocation_state !== "unallocated" && mayChange(project, b) ? editSection(project, b) : []),
    ...(b.allocation_state !== "unallocated" && mayChange(project, b) ? programSection(project, b) : []),
    h("h2", {}, "Definition"), h("pre", {}, JSON.stringify(b.spec, null, 2)));
  if (b.allocation_state !== "provisioned") {
    figures.replaceChildren(`Not provisioned (${b.allocation_state}, ${b.operational_state}): no traffic to show.`);
    if (b.operational_state === "configuring" || b.allocation_state === "allocated") every(token, () => render(), 1000);
    return;
  }
  const poll = async () => {
    let c;
    try { c = await api("GET", `${P(project)}/bookings/${enc(id)}/counters`); } catch (x) {
      figures.replaceChildren(h("span", { class: "error" }, x.message)); return;
    }
    // Counters start again when the network is placed anew (a tier move,
    // a node's restart): a reading below the last is a new start, not a
    // negative rate.
    const reset = last && (c.rx_packets < last.rx_packets || c.tx_packets < last.tx_packets);
    if (last && !reset && c.at_ms > last.at_ms) {
      const dt = (c.at_ms - last.at_ms) / 1000;
      points.push({ inPps: (c.rx_packets - last.rx_packets) / dt, outPps: (c.tx_packets - last.tx_packets) / dt,
        inBps: (8 * (c.rx_bytes - last.rx_bytes)) / dt, outBps: (8 * (c.tx_bytes - last.tx_bytes)) / dt });
      if (points.length > 60) points.shift();
      const p = points[points.length - 1];
      figures.replaceChildren(
        h("div", {}, "In", h("strong", { id: "rate-in-pps", "data-value": p.inPps }, rate(p.inPps, "packets/s")), rate(p.inBps, "bit/s")),
        h("div", {}, "Out", h("strong", { id: "rate-out-pps", "data-value": p.outPps }, rate(p.outPps, "packets/s")), rate(p.outBps, "bit/s")),
        h("div", {}, "Totals", h("strong", {}, `${c.rx_packets} in / ${c.tx_packets} out`), `${c.dropped} dropped`));
      const max = Math.max(10, ...points.map((q) => Math.max(q.inPps, q.outPps)));
      drawing.replaceChildren(graph(points, max));
    }
    const reasons = Object.entries(c.drops);
    drops.replaceChildren(reasons.length
      ? h("table", { "aria-label": "Drops by reason" }, h("tbody", {}, reasons.map(([r, n]) => h("tr", {}, h("th", { scope: "row" }, r), h("td", {}, n)))))
      : h("p", {}, "No drops."));
    last = c;
  };
  await poll();
  every(token, poll, 1000);
}

export function traceSection(project, b) {
  const count = h("input", { id: "trace-count", type: "number", min: 1, max: 1000, value: 5 });
  const out = h("div", { id: "trace-out", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Trace");
  const form = h("form", { class: "inline", onsubmit: async (e) => {
    e.preventDefault();
    button.disabled = true;
    out.replaceChildren(`Waiting for ${count.value} packets (up to 5 s)…`);
    try {
      const t = await api("POST", `${P(project)}/bookings/${enc(b.id)}/trace`, { count: Number(count.value), timeout_ms: 5000 });
      out.replaceChildren(h("p", {}, `${t.packets.length} packets${t.timed_out ? " (the wait ran out first)" : ""}.`),
        h("table", { "aria-label": "Trace" },
          h("thead", {}, h("tr", {}, ["When (ns)", "Port", "Bytes", "Each stage's decision"].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, t.packets.map((p) => h("tr", {}, h("td", {}, p.timestamp_ns), h("td", {}, p.port), h("td", {}, p.len),
            h("td", {}, h("ol", {}, (p.stages || []).map((s) => h("li", {}, `${s.stage}: ${s.decision}`)))))))));
    } catch (x) { out.replaceChildren(h("span", { class: "error" }, x.message)); }
    button.disabled = false;
  } }, h("label", { for: "trace-count" }, "Trace the next packets", count), " ", button);
  return [h("h2", {}, "Trace and capture"), form, out, captureForm(project, b)];
}

// The next frames at ingress and egress as a pcapng file, saved by the
// browser (the controller asks the node; the file never passes a script
// of another origin).
export function captureForm(project, b) {
  const count = h("input", { id: "capture-count", type: "number", min: 1, max: 1000, value: 20 });
  const out = h("p", { id: "capture-out", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Capture");
  return h("form", { class: "inline", onsubmit: async (e) => {
    e.preventDefault();
    button.disabled = true;
    out.replaceChildren(`Waiting for ${count.value} frames (up to 5 s)…`);
    try {
      const r = await fetch(`${P(project)}/bookings/${enc(b.id)}/capture`, {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: { "Content-Type": "application/json", "X-Prism-CSRF": state.session.csrf },
        body: JSON.stringify({ count: Number(count.value), timeout_ms: 5000 }),
      });
      if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => null));
      const blob = await r.blob();
      const a = h("a", { href: URL.createObjectURL(blob), download: `${b.name}.pcapng` }, `${b.name}.pcapng`);
      out.replaceChildren(`Captured (${blob.size} bytes): `, a);
      a.click();
    } catch (x) { out.replaceChildren(h("span", { class: "error" }, x.message)); }
    button.disabled = false;
  } }, h("label", { for: "capture-count" }, "Capture the next frames (pcapng)", count), " ", button, out);
}
