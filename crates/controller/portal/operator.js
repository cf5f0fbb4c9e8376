// For administrators: nodes, a node's slots and event timeline, users,
// projects and service levels, the audit log.

import { api, enc, every, go, h, say, state, when } from "./core.js";

export async function nodesPage(main) {
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

export const EVENT_WORDS = {
  "reconfiguration-started": "reconfiguration started", "reconfiguration-done": "reconfiguration done",
  "reconfiguration-failed": "reconfiguration failed", "auto-move": "automatic tier move",
  "tier-move": "tier move", "node-started": "node started",
};

export function ms(v) {
  return v === undefined || v === null ? "—" : `${v.toFixed(1)} ms`;
}

export async function nodePage(main, name) {
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

export async function auditPage(main, params) {
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
      h("thead", {}, h("tr", {}, ["When", "Who", "Call", "Status", "Note"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, page.items.map((a) => h("tr", {}, h("td", {}, when(a.at_ms)), h("td", {}, a.principal), h("td", {}, `${a.method} ${a.path}`), h("td", {}, a.status),
        h("td", {}, a.note ? h("strong", {}, a.note) : ""))))),
    h("div", { class: "pager" }, after ? h("a", { href: `#/audit?${new URLSearchParams({ ...(who && { principal: who }), ...(path && { path }) })}` }, "Newest") : "",
      page.next ? h("a", { href: `#/audit?${older}`, id: "audit-older" }, "Older") : ""));
}

export async function usersPage(main) {
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
