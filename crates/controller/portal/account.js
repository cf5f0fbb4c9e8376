// Usage over time and its CSV, and the project's API keys.

import { api, enc, go, h, P, render, say, svg, when } from "./core.js";

export const PALETTE = ["#3358a8", "#1a7f37", "#9a6700", "#b42318", "#6639ba", "#0a7d8c", "#57606a"];

// One stacked bar a bucket, a colour a series (`user · tier`); the legend
// names them (the colour is never the only label: each bar has a title).
export function timeChart(label, buckets, key, series, unit) {
  const W = 720, H = 180, pad = 28, bw = (W - pad) / buckets.length;
  const totals = buckets.map((b) => b.lines.reduce((t, l) => t + l[key], 0));
  const max = Math.max(1e-9, ...totals);
  const bars = buckets.flatMap((b, i) => {
    let y = H - 16;
    return b.lines.filter((l) => l[key] > 0).map((l) => {
      const hgt = ((H - 30) * l[key]) / max;
      y -= hgt;
      const name = `${l.user} · ${l.tier}`;
      return svg("rect", { x: pad + i * bw + 1, y, width: Math.max(1, bw - 2), height: hgt, fill: PALETTE[series.indexOf(name) % PALETTE.length] },
        svg("title", {}, `${b.label}: ${name} ${l[key].toFixed(3)} ${unit}`));
    });
  });
  const ticks = buckets.map((b, i) => (i % Math.ceil(buckets.length / 8) === 0
    ? svg("text", { x: pad + i * bw, y: H - 2 }, b.label) : null)).filter(Boolean);
  return svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${label}; top of scale ${max.toFixed(3)} ${unit}` },
    svg("text", { x: 0, y: 12 }, max >= 10 ? max.toFixed(0) : max.toPrecision(2)), ...bars, ...ticks);
}

export async function usageOverTime(project, days) {
  const step = days === 1 ? 3600e3 : 86400e3, n = days === 1 ? 24 : days;
  const end = days === 1 ? Math.ceil(Date.now() / step) * step : new Date().setUTCHours(24, 0, 0, 0);
  const ranges = Array.from({ length: n }, (_, i) => [end - (n - i) * step, end - (n - i - 1) * step]);
  const reports = await Promise.all(ranges.map(([f, t]) => api("GET", `${P(project)}/usage?from_ms=${f}&to_ms=${t}`)));
  return reports.map((r, i) => ({ lines: r.lines,
    label: days === 1 ? new Date(ranges[i][0]).toISOString().slice(11, 13) + "h" : new Date(ranges[i][0]).toISOString().slice(5, 10) }));
}

export async function usagePage(main, project, params) {
  const days = Number(params.get("days") || 14) === 1 ? 1 : 14;
  const [u, buckets] = await Promise.all([api("GET", `${P(project)}/usage`), usageOverTime(project, days)]);
  const series = [...new Set(buckets.flatMap((b) => b.lines.map((l) => `${l.user} · ${l.tier}`)))].sort();
  const span = h("select", { id: "usage-span", "aria-label": "Span", onchange: (e) => go(`#/p/${enc(project)}/usage?days=${e.target.value}`) },
    h("option", { value: 14, selected: days === 14 }, "last 14 days, by day"), h("option", { value: 1, selected: days === 1 }, "last 24 hours, by hour"));
  main.replaceChildren(h("h1", {}, `Usage of ${project}`),
    h("p", {}, `From ${when(u.from_ms)} to ${when(u.to_ms)}: ${u.total_resource_hours.toFixed(2)} resource-hours, ${u.total_bandwidth_mbps_hours.toFixed(2)} Mbit/s-hours. `,
      h("a", { href: `${P(project)}/usage?format=csv&from_ms=${u.from_ms}&to_ms=${u.to_ms}`, download: `usage-${project}.csv`, id: "usage-csv" }, "Download CSV")),
    h("p", {}, span),
    h("h2", {}, "Resource-hours"), timeChart("Resource-hours by user and tier over time", buckets, "resource_hours", series, "h"),
    h("h2", {}, "Bandwidth-hours"), timeChart("Mbit/s-hours by user and tier over time", buckets, "bandwidth_mbps_hours", series, "Mbit/s·h"),
    h("p", { class: "legend", id: "usage-legend" }, series.length ? series.map((name, i) => h("span", {}, h("span", { class: "swatch", "data-colour": i % PALETTE.length }), name)) : "No usage in this span."),
    h("h2", {}, "All time"),
    h("table", { "aria-label": "Usage" },
      h("thead", {}, h("tr", {}, ["User", "Tier", "Bookings", "Resource-hours", "Mbit/s-hours"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, u.lines.map((l) => h("tr", {}, h("td", {}, l.user), h("td", {}, l.tier), h("td", {}, l.bookings),
        h("td", {}, l.resource_hours.toFixed(3)), h("td", {}, l.bandwidth_mbps_hours.toFixed(3)))))));
}

export async function keysPage(main, project) {
  const keys = await api("GET", `${P(project)}/api-keys`);
  const name = h("input", { id: "key-name", required: true });
  const shown = h("div", { id: "key-secret", "aria-live": "polite" });
  const ops = ["bookings.read", "bookings.create", "bookings.renew", "bookings.release", "bookings.action", "usage.read"];
  const boxes = ops.map((o) => h("input", { type: "checkbox", value: o, id: `op-${o}`, checked: o === "bookings.read" }));
  const form = h("form", { class: "stack", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const k = await api("POST", `${P(project)}/api-keys`, { name: name.value, operations: boxes.filter((b) => b.checked).map((b) => b.value) });
      await render();
      document.getElementById("key-secret").replaceChildren(h("p", {}, `Key ${k.name} made. Its secret, shown this once:`), h("p", { class: "secret" }, k.key));
    } catch (x) { shown.replaceChildren(h("span", { class: "error" }, x.message)); }
  } },
    h("h2", {}, "New key"), h("label", { for: "key-name" }, "Name", name),
    h("fieldset", {}, h("legend", {}, "What it may do"), boxes.map((b) => h("label", { for: b.id }, b, ` ${b.value}`))),
    h("div", {}, h("button", { class: "primary", type: "submit" }, "Create key")));
  main.replaceChildren(h("h1", {}, `API keys of ${project}`), shown,
    h("table", { "aria-label": "API keys" },
      h("thead", {}, h("tr", {}, ["Name", "User", "Operations", "Made", "Revoked", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, keys.map((k) => h("tr", {}, h("td", {}, k.name), h("td", {}, k.user), h("td", {}, k.operations.join(", ")),
        h("td", {}, when(k.created_ms)), h("td", {}, when(k.revoked_ms)),
        h("td", {}, k.revoked_ms ? "" : h("button", { class: "danger", onclick: async () => {
          try { await api("DELETE", `${P(project)}/api-keys/${enc(k.id)}`); say(`key ${k.name} revoked`); render(); } catch (x) { say(x.message, true); }
        } }, `Revoke ${k.name}`)))))), form);
}
