// Changing a live network (docs/customizing.md): its routes or rules,
// forwarding mode, how its slot takes a new module, tier and bandwidth.
// "Check" asks the controller with `dry_run` (every refusal at its field,
// the modelled reconfiguration time said), "Confirm" makes the change
// from the generation that was checked; below, the booking's history.

import { parseRoutes, showFieldError } from "./bookings.js";
import { api, enc, h, P, render, when } from "./core.js";

// The routes or rules of `spec` as the form's lines (parseRoutes' inverse).
export function routeLines(spec) {
  const port = (a) => (a && a.drop ? "drop" : (a && a.port) || "drop");
  if (spec.forwarding === "rules") {
    return (spec.rule || []).map((r) => [r.priority ?? 0,
      ...Object.entries(r.match || {}).map(([k, v]) => `${k}=${v}`), port(r.action)].join(" ")).join("\n");
  }
  return (spec.route || []).map((r) => (spec.forwarding === "flow"
    ? `${r.src} ${r.dst} ${port(r.action)}` : `${r.prefix} ${port(r.action)}`)).join("\n");
}

function costOf(c) {
  if (c.modelled_ms == null) return "No reconfiguration: a table update, nothing lost.";
  const how = c.strategy === "partial"
    ? "the network forwards nothing meanwhile (its neighbours forward on)"
    : "the software tier serves the network meanwhile: nothing lost";
  return `Its slot is reconfigured: ${c.modelled_ms.toFixed(1)} ms modelled (a model of the device, not a measurement); ${how}.`;
}

export function editSection(project, b) {
  // A network spanning nodes keeps its forwarding, and its routes are its
  // parts' (changed through the API's `parts`): its tier and bandwidth here.
  const span = Boolean(b.parts && b.parts.length);
  const field = (id, label, input, hint) => h("label", { for: id }, label, hint ? h("span", { class: "hint" }, hint) : "", input,
    h("span", { class: "field-error", id: `${id}-error`, hidden: true }));
  const sel = (id, f, values, cur) => h("select", { id, "data-field": f }, values.map((v) => h("option", { value: v, selected: v === cur }, v)));
  const inputs = {
    forwarding: sel("edit-forwarding", "spec.forwarding", ["destination", "source", "flow", "rules"], b.spec.forwarding),
    routes: h("textarea", { id: "edit-routes", "data-field": "spec.route" }, routeLines(b.spec)),
    reconfigure: sel("edit-reconfigure", "spec.reconfigure", ["fallback", "dark"], b.spec.reconfigure === "partial" ? "dark" : "fallback"),
    tier: sel("edit-tier", "spec.tier", ["hardware", "software"], b.tier || b.spec.tier),
    bandwidth: h("input", { id: "edit-bandwidth", type: "number", min: 1, value: b.bandwidth_mbps, "data-field": "bandwidth_mbps" }),
  };
  const formError = h("p", { id: "edit-error", role: "alert" });
  const preview = h("div", { id: "edit-preview", "aria-live": "polite" });
  const lines = inputs.routes.value;
  if (span) for (const k of ["forwarding", "routes", "reconfigure"]) delete inputs[k];
  const body = (dryRun) => {
    if (span) return { generation: b.generation, spec: { tier: inputs.tier.value }, bandwidth_mbps: Number(inputs.bandwidth.value), dry_run: dryRun };
    const spec = { forwarding: inputs.forwarding.value, tier: inputs.tier.value };
    const moduleChanged = inputs.forwarding.value !== b.spec.forwarding;
    if (moduleChanged) spec.reconfigure = inputs.reconfigure.value;
    // Tables sent only when edited (or their kind changes): the lines show
    // a port or a drop, not every field an action may carry.
    if (moduleChanged || inputs.routes.value !== lines) {
      Object.assign(spec, parseRoutes(inputs.routes.value, inputs.forwarding.value));
      if (spec.rule) spec.route = null; else spec.rule = null;
    }
    return { generation: b.generation, spec, bandwidth_mbps: Number(inputs.bandwidth.value), dry_run: dryRun };
  };
  const send = async (dryRun) => {
    for (const el of Object.values(inputs)) { el.removeAttribute("aria-invalid"); document.getElementById(`${el.id}-error`).hidden = true; }
    formError.replaceChildren();
    return api("PATCH", `${P(project)}/bookings/${enc(b.id)}`, body(dryRun));
  };
  const confirm = h("button", { type: "button", class: "primary", id: "edit-confirm", hidden: true, onclick: async () => {
    try { await send(false); render(); } catch (x) { confirm.hidden = true; showFieldError(inputs, formError, x); }
  } }, "Confirm the change");
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Change the network", onsubmit: async (e) => {
    e.preventDefault();
    confirm.hidden = true;
    preview.replaceChildren();
    try {
      const r = await send(true);
      const fields = r.change.fields;
      preview.replaceChildren(fields.length
        ? h("p", {}, `Would make generation ${r.change.generation}, changing ${fields.join(", ")}. `, costOf(r.change))
        : h("p", {}, "Nothing would change."));
      confirm.hidden = fields.length === 0;
    } catch (x) { showFieldError(inputs, formError, x); }
  } },
  ...(span ? [h("p", { class: "hint" }, "A network spanning nodes keeps its forwarding; its parts' routes change through the API (`parts`).")] : [
    field("edit-forwarding", "Forwarding", inputs.forwarding, "another mode is another module in its hardware slot"),
    field("edit-reconfigure", "How the slot takes a new module", inputs.reconfigure,
      "fallback: served by software while it loads, nothing lost; dark: it forwards nothing while it loads"),
    field("edit-routes", "Routes or rules", inputs.routes, "as when booking; replaced whole")]),
  field("edit-tier", "Tier", inputs.tier),
  field("edit-bandwidth", "Guaranteed bandwidth (Mbit/s)", inputs.bandwidth),
  formError, preview, h("div", {}, h("button", { type: "submit" }, "Check the change"), " ", confirm));
  const history = h("div", { id: "edit-history" }, "Loading the history…");
  api("GET", `${P(project)}/bookings/${enc(b.id)}/changes`).then((list) => history.replaceChildren(list.length
    ? h("table", { "aria-label": "Changes" },
      h("thead", {}, h("tr", {}, ["Generation", "When", "Who", "Fields", "Reconfiguration"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, list.map((c) => h("tr", {}, h("td", {}, c.generation), h("td", {}, when(c.at_ms)), h("td", {}, c.user),
        h("td", {}, c.fields.join(", ")),
        h("td", {}, c.modelled_ms == null ? "—" : `${c.modelled_ms.toFixed(1)} ms modelled (${c.strategy || "the node's default"})`)))))
    : h("p", {}, "No changes since it was booked.")), (x) => history.replaceChildren(h("span", { class: "error" }, x.message)));
  return [h("h2", {}, `Change (generation ${b.generation})`), form, h("h3", {}, "History"), history];
}
