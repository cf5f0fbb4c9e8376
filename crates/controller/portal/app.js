// The Prism portal: a page over the controller's /v1 API, on its origin.
// The session is an HttpOnly cookie the script never sees; every change
// sends the session's CSRF token. No framework, no build step, nothing
// fetched from elsewhere. Every text from the server goes in as text
// (`h` below), never as HTML.

const state = { session: null, projects: [], timers: [], seq: 0 };

// ---- DOM and API helpers -------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    // Through the CSSOM: the page's policy refuses style attributes.
    else if (k === "style") Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.field = body && body.field;
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && state.session) headers["X-Prism-CSRF"] = state.session.csrf;
  const r = await fetch(path, {
    method, headers, credentials: "same-origin", cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status === 204) return null;
  const text = await r.text();
  const data = text ? JSON.parse(text) : null;
  if (!r.ok) {
    if (r.status === 401 && state.session) {
      state.session = null;
      go("#/login");
    }
    throw new ApiError(r.status, data);
  }
  return data;
}

const enc = encodeURIComponent;
const P = (project) => `/v1/projects/${enc(project)}`;

function say(text, isError = false) {
  const s = document.getElementById("status");
  s.replaceChildren(text ? h("p", { class: isError ? "error" : "" }, text) : "");
}

function when(ms) {
  return ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "—";
}

function left(ms) {
  const s = Math.round((ms - Date.now()) / 1000);
  if (s <= 0) return "ended";
  const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d ? `${d} d ${hr} h` : hr ? `${hr} h ${m} min` : `${m} min ${s % 60} s`;
}

function rate(n, unit) {
  const steps = [[1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [f, p] of steps) if (n >= f) return `${(n / f).toFixed(2)} ${p}${unit}`;
  return `${n.toFixed(n < 10 ? 1 : 0)} ${unit}`;
}

function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

// Starts `fn` every `ms` for the page of render `token`, unless a newer
// render has begun since (its page replaces this one).
function every(token, fn, ms) {
  if (token === state.seq) state.timers.push(setInterval(fn, ms));
}

function stopTimers() {
  for (const t of state.timers) clearInterval(t);
  state.timers = [];
}

// ---- Pages -------------------------------------------------------------

function loginPage(main) {
  const user = h("input", { id: "login-user", name: "user", autocomplete: "username", required: true });
  const pass = h("input", { id: "login-password", name: "password", type: "password", autocomplete: "current-password", required: true });
  const err = h("p", { id: "login-error", role: "alert" });
  const form = h("form", { class: "stack", onsubmit: async (e) => {
    e.preventDefault();
    err.replaceChildren();
    try {
      state.session = await api("POST", "/portal/login", { user: user.value, password: pass.value });
      pass.value = "";
      await afterLogin();
    } catch (x) {
      err.replaceChildren(h("span", { class: "error" }, x.message));
    }
  } },
    h("h1", {}, "Log in to the Prism testbed"),
    h("label", { for: "login-user" }, "User", user),
    h("label", { for: "login-password" }, "Password", pass),
    err,
    h("div", {}, h("button", { class: "primary", type: "submit" }, "Log in")));
  main.replaceChildren(form);
  user.focus();
}

async function afterLogin() {
  state.projects = await api("GET", "/v1/projects");
  const first = state.projects[0];
  go(first ? `#/p/${enc(first.name)}/bookings` : state.session.admin ? "#/nodes" : "#/none");
}

function roleIn(project) {
  const p = state.projects.find((x) => x.name === project);
  return p ? p.role || (state.session.admin ? "owner" : null) : null;
}

function mayChange(project, booking) {
  const role = roleIn(project);
  return role === "owner" || (role === "member" && booking.user === state.session.user);
}

function quotaBars(q) {
  const rows = [["Hardware networks", q.hw_networks], ["Software networks", q.sw_networks],
    ["Bandwidth (Mbit/s)", q.bandwidth_mbps], ["Lease hours", q.lease_hours],
    ["Public addresses", q.public_addresses]];
  return h("section", { class: "quota", "aria-label": "Quota" }, rows.map(([name, u]) => {
    const pct = (x) => (u.limit > 0 ? Math.min(100, (100 * x) / u.limit) : 0);
    return h("div", { class: "quota-item" },
      h("div", {}, h("strong", {}, name), ` ${u.used} used, ${u.reserved} held, of ${u.limit}`),
      h("div", { class: "bar", role: "img", "aria-label": `${name}: ${u.used} used, ${u.reserved} held, limit ${u.limit}` },
        h("div", { class: "used", style: { width: `${pct(u.used)}%` } }),
        h("div", { class: "reserved", style: { width: `${pct(u.reserved)}%` } })));
  }));
}

function stateBadge(s) {
  return h("span", { class: `state ${s}` }, s);
}

function bookingActions(project, b, refresh) {
  if (b.allocation_state === "unallocated" || !mayChange(project, b)) return [];
  const act = async (label, fn) => {
    try { const r = await fn(); say(`${label}: ${r}`); refresh(); } catch (x) { say(`${label}: ${x.message}`, true); }
  };
  const hours = h("select", { "aria-label": `Renew ${b.name} for`, id: `renew-hours-${b.id}` },
    [1, 4, 24, 168, 720].map((n) => h("option", { value: n * 3600 }, `${n} h`)));
  const renew = h("button", { onclick: () => act(`renew ${b.name}`, async () => {
    const r = await api("POST", `${P(project)}/bookings/${enc(b.id)}/renew`, { lease_s: Number(hours.value) });
    return `ends ${when(r.expires_ms)}${r.clamped ? " (clamped to the service level's longest lease)" : ""}`;
  }) }, "Renew");
  const running = b.operational_state !== "stopped";
  const toggle = h("button", { onclick: () => act(`${running ? "stop" : "start"} ${b.name}`, async () => {
    const r = await api("POST", `${P(project)}/bookings/${enc(b.id)}/action`, { action: running ? "stop" : "start" });
    return r.operational_state;
  }) }, running ? "Stop" : "Start");
  const release = h("button", { class: "danger", onclick: async () => {
    if (release.dataset.armed !== "1") {
      release.dataset.armed = "1";
      release.textContent = `Confirm release of ${b.name}`;
      return;
    }
    await act(`release ${b.name}`, async () => {
      await api("DELETE", `${P(project)}/bookings/${enc(b.id)}`);
      return "released";
    });
  } }, "Release");
  return [hours, " ", renew, " ", b.allocation_state === "provisioned" ? toggle : "", " ", release];
}

async function bookingsPage(main, project, params) {
  const after = params.get("after"), name = params.get("name") || "", st = params.get("state") || "";
  const q = new URLSearchParams({ limit: 50 });
  for (const [k, v] of [["after", after], ["name", name], ["state", st]]) if (v) q.set(k, v);
  const url = `${P(project)}/bookings?${q}`;
  const filters = new URLSearchParams();
  if (name) filters.set("name", name);
  if (st) filters.set("state", st);
  const [page, quota] = await Promise.all([api("GET", url), api("GET", `${P(project)}/quota`)]);
  const refresh = () => render();
  const rows = page.items.map((b) => h("tr", { "data-booking": b.name },
    h("td", {}, h("a", { href: `#/p/${enc(project)}/bookings/${enc(b.id)}` }, b.name)),
    h("td", {}, stateBadge(b.allocation_state), " ", stateBadge(b.operational_state)),
    h("td", {}, b.node || "—"), h("td", {}, b.tier || "—"), h("td", {}, b.vlan ?? "—"),
    h("td", {}, when(b.expires_ms), h("br"), h("span", { class: "hint" }, left(b.expires_ms), " left")),
    h("td", {}, `${b.bandwidth_mbps} Mbit/s`), h("td", {}, b.user),
    h("td", {}, bookingActions(project, b, refresh))));
  const role = roleIn(project);
  main.replaceChildren(
    h("h1", {}, `Bookings of ${project}`),
    h("p", {}, `Your role: ${role || "none"}. `,
      role && role !== "viewer" ? h("a", { href: `#/p/${enc(project)}/book` }, "Book a network") : ""),
    quotaBars(quota),
    bookingFilter(project, name, st),
    h("table", { "aria-label": "Bookings" },
      h("thead", {}, h("tr", {}, ["Name", "State", "Node", "Tier", "VLAN", "Lease end", "Bandwidth", "Booked by", "Actions"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 9 }, "No bookings.")))),
    h("div", { class: "pager" },
      after ? h("a", { href: `#/p/${enc(project)}/bookings?${filters}` }, "First page") : "",
      page.next ? h("a", { href: `#/p/${enc(project)}/bookings?${filters}&after=${enc(page.next)}`, id: "next-page" }, "Next page") : ""));
}

// Found by the server (name containing, state), not in the page: a
// project of 10,000 bookings is never sent whole.
function bookingFilter(project, name, st) {
  const nameIn = h("input", { id: "filter-name", value: name, type: "search" });
  const states = ["", "ready", "pending", "stopped", "failed", "allocated", "provisioned", "unallocated"];
  const stateIn = h("select", { id: "filter-state" }, states.map((v) => h("option", { value: v, selected: v === st }, v || "any")));
  return h("form", { class: "inline", role: "search", "aria-label": "Find bookings", onsubmit: (e) => {
    e.preventDefault();
    const f = new URLSearchParams();
    if (nameIn.value) f.set("name", nameIn.value);
    if (stateIn.value) f.set("state", stateIn.value);
    go(`#/p/${enc(project)}/bookings?${f}`);
  } }, h("label", { for: "filter-name" }, "Name contains", nameIn), h("label", { for: "filter-state" }, "State", stateIn),
  h("button", { type: "submit" }, "Find"));
}

function parseRoutes(text, forwarding) {
  // One a line: `PREFIX PORT` (destination, source), `SRC DST PORT` (flow)
  // or `PRIORITY FIELD=VALUE… PORT` (rules); `drop` for a port drops. The
  // controller checks the document and names the field it refuses.
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const action = (port) => (port === "drop" ? { drop: true } : { port });
  if (forwarding === "rules") {
    return { rule: lines.map((l) => {
      const parts = l.split(/\s+/);
      const port = parts.pop();
      const priority = Number(parts.shift());
      const match = {};
      for (const kv of parts) { const [k, v] = kv.split("="); match[k] = /^\d+$/.test(v) ? Number(v) : v; }
      return { priority, match, action: action(port) };
    }) };
  }
  return { route: lines.map((l) => {
    const parts = l.split(/\s+/);
    const port = parts.pop();
    if (forwarding === "flow") return { src: parts[0], dst: parts[1], action: action(port) };
    return { prefix: parts[0], action: action(port) };
  }) };
}

function bookPage(main, project) {
  const field = (id, label, input, hint) => h("label", { for: id }, label, hint ? h("span", { class: "hint" }, hint) : "", input,
    h("span", { class: "field-error", id: `${id}-error`, hidden: true }));
  const inputs = {
    name: h("input", { id: "book-name", required: true, "data-field": "name", pattern: "[a-z0-9\\-]+" }),
    tier: h("select", { id: "book-tier", "data-field": "spec.tier" }, ["hardware", "software", "auto"].map((t) => h("option", { value: t }, t))),
    forwarding: h("select", { id: "book-forwarding", "data-field": "spec.forwarding" },
      ["destination", "source", "flow", "rules"].map((t) => h("option", { value: t }, t))),
    routes: h("textarea", { id: "book-routes", "data-field": "spec.route" }, "10.1.0.0/16 b"),
    bandwidth: h("input", { id: "book-bandwidth", type: "number", min: 1, value: 10, "data-field": "bandwidth_mbps" }),
    lease: h("select", { id: "book-lease", "data-field": "lease_s" }, [1, 4, 24, 168].map((n) => h("option", { value: n * 3600 }, `${n} h`))),
  };
  const formError = h("p", { id: "book-error", role: "alert" });
  const follow = h("p", { id: "book-follow", "aria-live": "polite" });
  const form = h("form", { class: "stack", novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    for (const el of Object.values(inputs)) { el.removeAttribute("aria-invalid"); document.getElementById(`${el.id}-error`).hidden = true; }
    formError.replaceChildren();
    const spec = { tier: inputs.tier.value, forwarding: inputs.forwarding.value,
      ...parseRoutes(inputs.routes.value, inputs.forwarding.value) };
    const body = { name: inputs.name.value, spec, bandwidth_mbps: Number(inputs.bandwidth.value),
      lease_s: Number(inputs.lease.value), provision: true };
    try {
      const b = await api("POST", `${P(project)}/bookings`, body);
      follow.replaceChildren(`Booked ${b.name}: `, stateBadge(b.operational_state));
      go(`#/p/${enc(project)}/bookings/${enc(b.id)}`);
    } catch (x) { showFieldError(inputs, formError, x); }
  } },
    h("h1", {}, `Book a network in ${project}`),
    field("book-name", "Name", inputs.name, "lower-case letters, digits and hyphens"),
    field("book-tier", "Tier", inputs.tier),
    field("book-forwarding", "Forwarding", inputs.forwarding),
    field("book-routes", "Routes or rules", inputs.routes,
      "one a line: `PREFIX PORT` (destination or source), `SRC DST PORT` (flow), or for rules `PRIORITY dst=PREFIX proto=6 … PORT`; `drop` for the port drops"),
    field("book-bandwidth", "Guaranteed bandwidth (Mbit/s)", inputs.bandwidth),
    field("book-lease", "Lease", inputs.lease),
    formError, follow,
    h("div", {}, h("button", { class: "primary", type: "submit" }, "Book")));
  main.replaceChildren(form);
}

function showFieldError(inputs, formError, x) {
  // The API names the field it refused (`spec.route[0].prefix`): shown at
  // the form field that holds it, else above the button.
  const target = x.field && Object.values(inputs)
    .filter((el) => x.field === el.dataset.field || x.field.startsWith(`${el.dataset.field}[`) || x.field.startsWith(`${el.dataset.field}.`)
      || (el.dataset.field === "spec.route" && x.field.startsWith("spec.rule")))
    .sort((a, b) => b.dataset.field.length - a.dataset.field.length)[0];
  if (target) {
    target.setAttribute("aria-invalid", "true");
    const msg = document.getElementById(`${target.id}-error`);
    const line = /^spec\.(route|rule)\[(\d+)\]/.exec(x.field);
    msg.textContent = `${line ? `line ${Number(line[2]) + 1}: ` : ""}${x.message.replace(/ at line \d+ column \d+$/, "")} (${x.field})`;
    msg.hidden = false;
    target.setAttribute("aria-describedby", msg.id);
    target.focus();
  } else {
    formError.replaceChildren(h("span", { class: "error" }, x.field ? `${x.field}: ${x.message}` : x.message));
  }
}

function graph(points, max) {
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

async function bookingPage(main, project, id) {
  const token = state.seq;
  const b = await api("GET", `${P(project)}/bookings/${enc(id)}`);
  const figures = h("div", { class: "figures", id: "live-figures" }, "Waiting for the first reading…");
  const drawing = h("div", { id: "live" });
  const drops = h("div", { id: "drops" });
  const points = [];
  let last = null;
  const details = h("table", { "aria-label": "Booking" }, h("tbody", {},
    [["Name", b.name], ["Allocation", b.allocation_state], ["Operation", b.operational_state],
      ["Node", b.node || "—"], ["Network on the node", b.node_network || "—"], ["Tier", b.tier || "—"],
      ["VLAN", b.vlan ?? "—"], ["Bandwidth", `${b.bandwidth_mbps} Mbit/s`], ["Lease end", `${when(b.expires_ms)} (${left(b.expires_ms)} left)`],
      ["Booked by", b.user], ["Error", b.error || "—"]].map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", { id: `b-${k.toLowerCase().replaceAll(" ", "-")}` }, v)))));
  main.replaceChildren(h("h1", {}, `${b.name}`), details,
    h("div", {}, bookingActions(project, b, () => render())),
    h("h2", {}, "Traffic (live, every second)"), figures, drawing,
    h("p", { class: "legend" }, h("span", {}, "── in"), h("span", {}, "- - out")),
    h("h2", {}, "Drops by reason"), drops,
    ...(b.allocation_state === "provisioned" && mayChange(project, b) ? traceSection(project, b) : []),
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

const PALETTE = ["#3358a8", "#1a7f37", "#9a6700", "#b42318", "#6639ba", "#0a7d8c", "#57606a"];

// One stacked bar a bucket, a colour a series (`user · tier`); the legend
// names them (the colour is never the only label: each bar has a title).
function timeChart(label, buckets, key, series, unit) {
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

async function usageOverTime(project, days) {
  const step = days === 1 ? 3600e3 : 86400e3, n = days === 1 ? 24 : days;
  const end = days === 1 ? Math.ceil(Date.now() / step) * step : new Date().setUTCHours(24, 0, 0, 0);
  const ranges = Array.from({ length: n }, (_, i) => [end - (n - i) * step, end - (n - i - 1) * step]);
  const reports = await Promise.all(ranges.map(([f, t]) => api("GET", `${P(project)}/usage?from_ms=${f}&to_ms=${t}`)));
  return reports.map((r, i) => ({ lines: r.lines,
    label: days === 1 ? new Date(ranges[i][0]).toISOString().slice(11, 13) + "h" : new Date(ranges[i][0]).toISOString().slice(5, 10) }));
}

async function usagePage(main, project, params) {
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

async function keysPage(main, project) {
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

async function nodesPage(main) {
  const nodes = await api("GET", "/v1/nodes");
  main.replaceChildren(h("h1", {}, "Nodes"),
    h("table", { "aria-label": "Nodes" },
      h("thead", {}, h("tr", {}, ["Node", "Up", "Last heartbeat", "Generation (applied / desired)", "Device (modelled)", "Slots used", "Mbit/s used (hw / sw)", "Last error"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, nodes.map((n) => h("tr", { "data-node": n.name }, h("td", {}, h("a", { href: `#/nodes/${enc(n.name)}` }, n.name), h("br"), h("span", { class: "hint" }, n.address)),
        h("td", {}, n.up ? h("span", { class: "state ready" }, "up") : h("span", { class: "state failed" }, "down")),
        h("td", {}, when(n.last_seen_ms)), h("td", {}, `${n.applied_generation} / ${n.generation}`), h("td", {}, n.device),
        h("td", {}, `${n.used_slots} of ${n.slots}`), h("td", {}, `${n.used_hw_mbps} of ${n.hw_mbps} / ${n.used_sw_mbps} of ${n.sw_mbps}`),
        h("td", {}, n.last_error || "—"))))));
}

const EVENT_WORDS = {
  "reconfiguration-started": "reconfiguration started", "reconfiguration-done": "reconfiguration done",
  "reconfiguration-failed": "reconfiguration failed", "auto-move": "automatic tier move",
  "tier-move": "tier move", "node-started": "node started",
};

function ms(v) {
  return v === undefined || v === null ? "—" : `${v.toFixed(1)} ms`;
}

async function nodePage(main, name) {
  const token = state.seq;
  const [hw, events] = await Promise.all([api("GET", `/v1/nodes/${enc(name)}/hardware`), api("GET", `/v1/nodes/${enc(name)}/events`)]);
  const slot = (s) => h("li", { class: `slot ${s.state}`, "data-slot": s.slot },
    h("strong", {}, `Slot ${s.slot}`), h("span", { class: "state-word" }, s.state),
    s.network ? h("span", {}, s.booking ? `${s.booking} (project ${s.project})` : s.network) : h("span", { class: "hint" }, "no network"),
    s.module ? h("span", { class: "hint" }, `module: ${s.module}`) : "",
    h("span", {}, `${s.mw.toFixed(1)} mW`));
  const timeline = h("tbody", { id: "timeline" });
  const addEvents = (list) => {
    for (const e of list) {
      timeline.prepend(h("tr", { "data-event": e.seq }, h("td", {}, e.seq), h("td", {}, when(e.unix_ms)),
        h("td", {}, EVENT_WORDS[e.kind] || e.kind), h("td", {}, e.network), h("td", {}, e.strategy || "—"),
        h("td", {}, ms(e.modelled_ms)), h("td", {}, ms(e.measured_ms)), h("td", {}, e.message)));
    }
  };
  addEvents(events);
  let since = events.length ? events[events.length - 1].seq : 0;
  main.replaceChildren(h("h1", {}, `Node ${name}`),
    h("p", {}, `Device profile ${hw.device}: ${hw.total_mw.toFixed(1)} mW in all (device static ${hw.device_static_mw.toFixed(1)}, static region ${hw.static_region_mw.toFixed(1)}). `,
      h("strong", {}, "Power is the profile's model, not a measurement"), ` (${hw.source}).`),
    h("h2", {}, "Hardware tier"),
    h("ol", { class: "slots", "aria-label": "Slots" }, hw.slots.map(slot)),
    h("h2", {}, "Events"),
    h("table", { "aria-label": "Events" },
      h("thead", {}, h("tr", {}, ["#", "When", "What", "Network", "Strategy", "Modelled", "Measured", "Message"].map((c) => h("th", { scope: "col" }, c)))),
      timeline));
  every(token, async () => {
    try {
      const more = await api("GET", `/v1/nodes/${enc(name)}/events?since=${since}`);
      if (more.length) { since = more[more.length - 1].seq; addEvents(more); }
    } catch (x) { say(x.message, true); }
  }, 2000);
}

function traceSection(project, b) {
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
function captureForm(project, b) {
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

async function auditPage(main, params) {
  const who = params.get("principal") || "", path = params.get("path") || "", after = params.get("after");
  const q = new URLSearchParams({ limit: 100, newest_first: true });
  if (who) q.set("principal", who);
  if (path) q.set("path", path);
  if (after) q.set("after", after);
  const page = await api("GET", `/v1/audit?${q}`);
  const whoIn = h("input", { id: "audit-principal", value: who });
  const pathIn = h("input", { id: "audit-path", value: path });
  const form = h("form", { class: "inline", onsubmit: (e) => {
    e.preventDefault();
    const f = new URLSearchParams();
    if (whoIn.value) f.set("principal", whoIn.value);
    if (pathIn.value) f.set("path", pathIn.value);
    go(`#/audit?${f}`);
  } }, h("label", { for: "audit-principal" }, "Who", whoIn), h("label", { for: "audit-path" }, "Path contains", pathIn),
  h("button", { type: "submit" }, "Filter"));
  const older = new URLSearchParams(params);
  if (page.next) older.set("after", page.next);
  main.replaceChildren(h("h1", {}, "Audit log"), h("p", {}, "Every change made through the API, newest first."), form,
    h("table", { "aria-label": "Audit log" },
      h("thead", {}, h("tr", {}, ["When", "Who", "Call", "Status"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, page.items.map((a) => h("tr", {}, h("td", {}, when(a.at_ms)), h("td", {}, a.principal), h("td", {}, `${a.method} ${a.path}`), h("td", {}, a.status))))),
    h("div", { class: "pager" }, after ? h("a", { href: `#/audit?${new URLSearchParams({ ...(who && { principal: who }), ...(path && { path }) })}` }, "Newest") : "",
      page.next ? h("a", { href: `#/audit?${older}`, id: "audit-older" }, "Older") : ""));
}

async function usersPage(main) {
  const [users, projects, levels] = await Promise.all([api("GET", "/v1/users"), api("GET", "/v1/projects"), api("GET", "/v1/service-levels")]);
  const table = (label, heads, rows) => h("table", { "aria-label": label },
    h("thead", {}, h("tr", {}, heads.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows));
  main.replaceChildren(h("h1", {}, "Users, projects and service levels"),
    h("h2", {}, "Users"), table("Users", ["Name", "Administrator", "Since"],
      users.map((u) => h("tr", {}, h("td", {}, u.name), h("td", {}, u.admin ? "yes" : "no"), h("td", {}, when(u.created_ms))))),
    h("h2", {}, "Projects"), table("Projects", ["Name", "Service level", "Since"],
      projects.map((p) => h("tr", {}, h("td", {}, h("a", { href: `#/p/${enc(p.name)}/bookings` }, p.name)), h("td", {}, p.service_level), h("td", {}, when(p.created_ms))))),
    h("h2", {}, "Service levels"), table("Service levels", ["Name", "Hardware / software networks", "Bandwidth (Mbit/s)", "Lease hours", "Longest lease", "Operations"],
      levels.map((l) => h("tr", {}, h("td", {}, l.name), h("td", {}, `${l.max_hw_networks} / ${l.max_sw_networks}`), h("td", {}, l.max_bandwidth_mbps),
        h("td", {}, l.max_lease_hours), h("td", {}, `${Math.round(l.max_lease_s / 3600)} h`), h("td", {}, l.operations.join(", "))))));
}

// ---- Frame and routing -------------------------------------------------

function frame(project) {
  const nav = document.getElementById("nav");
  const who = document.getElementById("who");
  if (!state.session) { nav.replaceChildren(); who.replaceChildren(); return; }
  const links = [];
  if (project) {
    const base = `#/p/${enc(project)}`;
    links.push([`${base}/bookings`, "Bookings"]);
    if (roleIn(project) && roleIn(project) !== "viewer") links.push([`${base}/book`, "Book"], [`${base}/keys`, "API keys"]);
    links.push([`${base}/usage`, "Usage"]);
  }
  if (state.session.admin) links.push(["#/nodes", "Nodes"], ["#/users", "Users"], ["#/audit", "Audit"]);
  const current = location.hash.split("?")[0];
  const pick = h("select", { "aria-label": "Project", id: "project-pick", onchange: (e) => go(`#/p/${enc(e.target.value)}/bookings`) },
    state.projects.map((p) => h("option", { value: p.name, selected: p.name === project }, p.name)));
  nav.replaceChildren(state.projects.length ? pick : "", ...links.map(([href, text]) => h("a", { href, "aria-current": current === href ? "page" : null }, text)));
  who.replaceChildren(`${state.session.user}${state.session.admin ? " (administrator)" : ""} `,
    h("button", { id: "logout", onclick: logout }, "Log out"));
}

async function logout() {
  stopTimers();
  try { await api("POST", "/portal/logout"); } catch (x) { /* already ended */ }
  state.session = null;
  state.projects = [];
  document.getElementById("main").replaceChildren();
  go("#/login");
}

async function render() {
  stopTimers();
  // A render started later (the hash moved meanwhile) wins: this one
  // builds its page apart and shows it only if it is still the latest.
  const seq = ++state.seq;
  const main = document.getElementById("main");
  const [path, query] = location.hash.slice(1).split("?");
  const params = new URLSearchParams(query || "");
  const parts = (path || "/").split("/").filter(Boolean).map(decodeURIComponent);
  if (!state.session) {
    try {
      const session = await api("GET", "/portal/session");
      state.projects = await api("GET", "/v1/projects");
      state.session = session;
    } catch (x) { state.session = null; }
  }
  if (seq !== state.seq) return;
  if (!state.session || parts[0] === "login") {
    frame(null);
    if (state.session) return afterLogin();
    return loginPage(main);
  }
  const project = parts[0] === "p" ? parts[1] : null;
  frame(project);
  const view = document.createElement("div");
  try {
    if (project && parts[2] === "bookings" && parts[3]) await bookingPage(view, project, parts[3]);
    else if (project && parts[2] === "bookings") await bookingsPage(view, project, params);
    else if (project && parts[2] === "book") bookPage(view, project);
    else if (project && parts[2] === "usage") await usagePage(view, project, params);
    else if (project && parts[2] === "keys") await keysPage(view, project);
    else if (parts[0] === "nodes" && parts[1]) await nodePage(view, parts[1]);
    else if (parts[0] === "nodes") await nodesPage(view);
    else if (parts[0] === "audit") await auditPage(view, params);
    else if (parts[0] === "users") await usersPage(view);
    else if (state.projects.length) return go(`#/p/${enc(state.projects[0].name)}/bookings`);
    else view.replaceChildren(h("p", {}, "You belong to no project yet: ask an administrator."));
  } catch (x) {
    view.replaceChildren(h("h1", {}, x.status === 404 ? "Not found" : "Refused"), h("p", { class: "error", id: "page-error" }, x.message));
  }
  if (seq === state.seq && state.session) main.replaceChildren(...view.childNodes);
}

// A message stays until the page is left (a refresh after a change keeps it).
window.addEventListener("hashchange", () => { say(""); render(); });
// A page restored from the back-forward cache after logout asks again.
window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });
render();
