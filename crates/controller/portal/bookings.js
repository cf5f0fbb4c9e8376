// A project's bookings: the list (found on the server, a page at a
// time), its actions, quota bars, and the booking form with each refusal
// at its field.

import { api, enc, go, h, left, mayChange, overriding, P, render, roleIn, say, state, stateBadge, when } from "./core.js";

export function quotaBars(q) {
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

export function bookingActions(project, b, refresh) {
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

export async function bookingsPage(main, project, params) {
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
    h("td", {}, stateBadge(b.allocation_state), " ", stateBadge(b.operational_state),
      b.converging ? [" ", h("span", { class: "state pending", title: "its node has not yet taken the last change" }, "converging")] : ""),
    h("td", {}, b.node || "—"), h("td", {}, b.tier || "—"), h("td", {}, b.vlan ?? "—"),
    h("td", {}, when(b.expires_ms), h("br"), h("span", { class: "hint" }, left(b.expires_ms), " left")),
    h("td", {}, `${b.bandwidth_mbps} Mbit/s`), h("td", {}, b.user),
    h("td", {}, bookingActions(project, b, refresh))));
  const role = roleIn(project);
  main.replaceChildren(
    h("h1", {}, `Bookings of ${project}`),
    overriding(project)
      ? h("p", { id: "override", class: "hint" }, "You are not a member of this project: as an administrator you may change anything in it (the operator's override), and each change is written to the audit log as admin-override. ",
        h("a", { href: `#/p/${enc(project)}/book` }, "Book a network"))
      : h("p", {}, `Your role: ${role || "none"}. `,
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
export function bookingFilter(project, name, st) {
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

export function parseRoutes(text, forwarding) {
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

export function bookPage(main, project) {
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

export function showFieldError(inputs, formError, x) {
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
