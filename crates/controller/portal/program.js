// A network's own program (docs/customizing.md): an eBPF object uploaded
// as the change of its `program` field (checked with `dry_run` first, the
// slot's modelled load time said before confirming, the kernel verifier's
// refusal shown at its field), and its maps read and written.

import { showFieldError } from "./bookings.js";
import { api, enc, h, P, render } from "./core.js";

// The bytes of `file` in base64.
async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function uploadForm(project, b) {
  const file = h("input", { id: "program-file", type: "file", accept: ".o,application/octet-stream", "data-field": "spec.program.object" });
  const inputs = { file };
  const error = h("p", { id: "program-error", role: "alert" });
  const preview = h("div", { id: "program-preview", "aria-live": "polite" });
  // A refusal's whole verifier log (the instructions it walked, the
  // registers' states), folded: the reason is at the field already.
  const log = h("details", { id: "program-log", hidden: true });
  const refused = (x) => {
    showFieldError(inputs, error, x);
    if (x.detail) {
      log.replaceChildren(h("summary", {}, "The verifier's log"), h("pre", {}, x.detail));
      log.hidden = false;
    }
  };
  const send = async (dryRun) => {
    file.removeAttribute("aria-invalid");
    document.getElementById("program-file-error").hidden = true;
    error.replaceChildren();
    log.hidden = true;
    if (!file.files.length) throw new Error("choose the program's object file (clang -O2 -target bpf -c)");
    const spec = { program: { object: await base64Of(file.files[0]) }, reconfigure: "dark" };
    return api("PATCH", `${P(project)}/bookings/${enc(b.id)}`, { generation: b.generation, spec, dry_run: dryRun });
  };
  const confirm = h("button", { type: "button", class: "primary", id: "program-confirm", hidden: true, onclick: async () => {
    try { await send(false); render(); } catch (x) { confirm.hidden = true; refused(x); }
  } }, "Load the program");
  return h("form", { class: "stack", novalidate: true, "aria-label": "Load a program", onsubmit: async (e) => {
    e.preventDefault();
    confirm.hidden = true;
    preview.replaceChildren();
    try {
      const r = await send(true);
      const ms = r.change.modelled_ms;
      preview.replaceChildren(h("p", {}, `The kernel's verifier takes it. Loading it into the slot: ${ms == null ? "no reconfiguration" : `${ms.toFixed(1)} ms modelled (a model of the device, not a measurement); the network forwards nothing meanwhile`}.`));
      confirm.hidden = false;
    } catch (x) { refused(x); }
  } },
  h("label", { for: "program-file" }, "Program (an eBPF ELF object with an XDP function)", file,
    h("span", { class: "field-error", id: "program-file-error", hidden: true })),
  error, log, preview, h("div", {}, h("button", { type: "submit" }, "Check the program"), " ", confirm));
}

function mapsView(project, b) {
  const name = h("input", { id: "map-name", placeholder: "counts" });
  const key = h("input", { id: "map-key", placeholder: "key (hex)" });
  const value = h("input", { id: "map-value", placeholder: "value (hex; empty deletes)" });
  const out = h("div", { id: "map-entries", "aria-live": "polite" });
  const path = () => `${P(project)}/bookings/${enc(b.id)}/maps/${enc(name.value.trim())}`;
  const show = (m) => out.replaceChildren(h("p", {}, `${m.kind}, ${m.key_size}-byte keys, ${m.value_size}-byte values, at most ${m.max_entries}`),
    h("table", { "aria-label": `Map ${m.map}` }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Key"), h("th", { scope: "col" }, "Value"))),
      h("tbody", {}, m.entries.filter((e) => m.kind === "hash" || /[^0]/.test(e.value))
        .map((e) => h("tr", {}, h("td", {}, h("code", {}, e.key)), h("td", {}, h("code", {}, e.value)))))));
  const fail = (x) => out.replaceChildren(h("span", { class: "error" }, x.field ? `${x.field}: ${x.message}` : x.message));
  const read = h("button", { type: "button", id: "map-read", onclick: () => api("GET", path()).then(show, fail) }, "Read");
  const write = h("button", { type: "button", id: "map-write", onclick: () => {
    const body = { key: key.value.trim(), ...(value.value.trim() ? { value: value.value.trim() } : {}) };
    api("PUT", path(), body).then(show, fail);
  } }, "Set");
  return [h("h3", {}, "Maps"), h("p", { class: "hint" }, "An array's zero entries are not listed; keys and values in hex, in the program's byte order."),
    h("div", { class: "stack" }, h("label", { for: "map-name" }, "Map", name), h("div", {}, read),
      h("label", { for: "map-key" }, "Key", key), h("label", { for: "map-value" }, "Value", value), h("div", {}, write)), out];
}

export function programSection(project, b) {
  if ((b.tier || b.spec.tier) !== "hardware") {
    return [h("h2", {}, "Program"), h("p", { class: "hint" }, "A program of your own runs in the hardware tier: move the network there first.")];
  }
  const loaded = b.spec.program ? "A program runs in this network's slot." : "No program: the network's tables alone decide.";
  return [h("h2", {}, "Program"), h("p", {}, loaded), uploadForm(project, b),
    ...(b.spec.program && b.allocation_state === "provisioned" ? mapsView(project, b) : [])];
}
