// The portal's core: its state, DOM building (every text from the server
// goes in as text, never as HTML), the API call with the session's CSRF
// token, formatting, and the rights the page shows buttons by (the server
// decides anyway).

export const state = { session: null, projects: [], timers: [], seq: 0 };

// ---- DOM and API helpers -------------------------------------------------
export function h(tag, attrs = {}, ...children) {
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

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.field = body && body.field;
    this.detail = body && body.detail;
  }
}

export async function api(method, path, body) {
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

export const enc = encodeURIComponent;

export const P = (project) => `/v1/projects/${enc(project)}`;

export function say(text, isError = false) {
  const s = document.getElementById("status");
  s.replaceChildren(text ? h("p", { class: isError ? "error" : "" }, text) : "");
}

export function when(ms) {
  return ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "—";
}

export function left(ms) {
  const s = Math.round((ms - Date.now()) / 1000);
  if (s <= 0) return "ended";
  const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d ? `${d} d ${hr} h` : hr ? `${hr} h ${m} min` : `${m} min ${s % 60} s`;
}

export function rate(n, unit) {
  const steps = [[1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [f, p] of steps) if (n >= f) return `${(n / f).toFixed(2)} ${p}${unit}`;
  return `${n.toFixed(n < 10 ? 1 : 0)} ${unit}`;
}

// The router: app.js registers the function that draws the page the hash
// names; the pages ask for a redraw through `render` without importing
// app.js (which imports them).
let draw = async () => {};

export function onRender(fn) {
  draw = fn;
}

export function render() {
  return draw();
}

export function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

// Starts `fn` every `ms` for the page of render `token`, unless a newer
// render has begun since (its page replaces this one).
export function every(token, fn, ms) {
  if (token === state.seq) state.timers.push(setInterval(fn, ms));
}

export function stopTimers() {
  for (const t of state.timers) clearInterval(t);
  state.timers = [];
}

export function roleIn(project) {
  const p = state.projects.find((x) => x.name === project);
  return p ? p.role || (state.session.admin ? "owner" : null) : null;
}

export function mayChange(project, booking) {
  const role = roleIn(project);
  return role === "owner" || (role === "member" && booking.user === state.session.user) || state.session.admin;
}

// Whether the administrator signed in is not a member of the project: what
// they change there is the operator's override, audited as such.
export function overriding(project) {
  const p = state.projects.find((x) => x.name === project);
  return Boolean(state.session.admin && p && !p.role);
}

export function stateBadge(s) {
  return h("span", { class: `state ${s}` }, s);
}
