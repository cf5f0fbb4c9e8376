// Processing nodes (docs/processing.md): the form that books one on the
// project's networks, and its page: where it runs, its interfaces, and
// how to reach it with ssh, its host keys to check the first connection.

import { bookingActions, showFieldError } from "./bookings.js";
import { api, enc, every, go, h, left, P, render, stateBadge, when } from "./core.js";

export function parseAttach(text, gateway) {
  // One a line: `NETWORK [ADDRESS/LEN]`; the gateway goes on the first.
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  return lines.map((l, i) => {
    const [network, address] = l.split(/\s+/);
    const a = { network };
    if (address) a.address = address;
    if (i === 0 && gateway) a.gateway = gateway;
    return a;
  });
}

export function bookNodePage(main, project) {
  const field = (id, label, input, hint) => h("label", { for: id }, label, hint ? h("span", { class: "hint" }, hint) : "", input,
    h("span", { class: "field-error", id: `${id}-error`, hidden: true }));
  const inputs = {
    name: h("input", { id: "node-name", required: true, "data-field": "name", pattern: "[a-z0-9\\-]+" }),
    image: h("input", { id: "node-image", value: "base", "data-field": "spec.image" }),
    attach: h("textarea", { id: "node-attach", "data-field": "spec.attach" }, "lan 10.1.0.5/24"),
    gateway: h("input", { id: "node-gateway", "data-field": "spec.attach[0].gateway", placeholder: "10.1.0.1" }),
    cpus: h("input", { id: "node-cpus", type: "number", min: 0.1, step: 0.1, value: 1, "data-field": "spec.cpus" }),
    memory: h("input", { id: "node-memory", type: "number", min: 16, value: 512, "data-field": "spec.memory_mib" }),
  };
  const formError = h("p", { id: "node-error", role: "alert" });
  const form = h("form", { class: "stack", novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    for (const el of Object.values(inputs)) { el.removeAttribute("aria-invalid"); document.getElementById(`${el.id}-error`).hidden = true; }
    formError.replaceChildren();
    const spec = { image: inputs.image.value, cpus: Number(inputs.cpus.value), memory_mib: Number(inputs.memory.value),
      attach: parseAttach(inputs.attach.value, inputs.gateway.value.trim()) };
    const body = { name: inputs.name.value, type: "processing", spec, bandwidth_mbps: 0, provision: true };
    try {
      const b = await api("POST", `${P(project)}/bookings`, body);
      go(`#/p/${enc(project)}/bookings/${enc(b.id)}`);
    } catch (x) { showFieldError(inputs, formError, x); }
  } },
    h("h1", {}, `Book a processing node in ${project}`),
    field("node-name", "Name", inputs.name, "lower-case letters, digits and hyphens"),
    field("node-image", "Image", inputs.image, "`base`, or NAME:TAG of an image the node holds"),
    field("node-attach", "Networks", inputs.attach,
      "one a line: `NETWORK ADDRESS/LEN` (a network or shared VLAN of the project, or OWNER/NAME of one shared with it); eth0 first"),
    field("node-gateway", "Default gateway", inputs.gateway, "on the first network; empty for none"),
    field("node-cpus", "CPUs", inputs.cpus),
    field("node-memory", "Memory (MiB)", inputs.memory),
    formError,
    h("div", {}, h("button", { class: "primary", type: "submit" }, "Book")));
  main.replaceChildren(form);
}

export function processingPage(main, project, b, token) {
  const spec = b.spec || {};
  const nets = (spec.attach || []).map((a) => `${a.network}${a.address ? ` ${a.address}` : ""}${a.gateway ? ` via ${a.gateway}` : ""}`);
  const rows = [["Name", b.name], ["Allocation", b.allocation_state], ["Operation", stateBadge(b.operational_state)],
    ["Node", b.node || "—"], ["Image", spec.image || "—"], ["Networks", nets.join("; ") || "—"],
    ["CPUs", spec.cpus ?? "—"], ["Memory", spec.memory_mib ? `${spec.memory_mib} MiB` : "—"],
    ["ssh", b.ssh ? `prism ctl ssh ${b.name} (through ${b.ssh})` : "not yet (the node opens it once the container runs sshd)"],
    ["Lease end", `${when(b.expires_ms)} (${left(b.expires_ms)} left)`], ["Booked by", b.user], ["Error", b.error || "—"]];
  const details = h("table", { "aria-label": "Processing node" }, h("tbody", {},
    rows.map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", { id: `p-${k.toLowerCase().replaceAll(" ", "-")}` }, v)))));
  const keys = (b.host_keys || []).length
    ? h("pre", { id: "host-keys" }, b.host_keys.join("\n"))
    : h("p", { id: "host-keys" }, "None yet: the node reports them once the container has started.");
  main.replaceChildren(h("h1", {}, b.name), details,
    h("div", {}, bookingActions(project, b, () => render())),
    h("h2", {}, "Host keys"),
    h("p", { class: "hint" }, "The first ssh connection is checked against these (prism ctl ssh does it)."), keys,
    h("h2", {}, "Definition"), h("pre", {}, JSON.stringify(spec, null, 2)));
  if (b.operational_state === "pending") every(token, () => render(), 1000);
}
