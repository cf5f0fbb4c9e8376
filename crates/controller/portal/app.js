// The Prism portal: a page over the controller's /v1 API, on its origin.
// The session is an HttpOnly cookie the script never sees; every change
// sends the session's CSRF token. No framework, no build step, nothing
// fetched from elsewhere: ES modules served by the controller. This one:
// login, the frame (navigation, who is logged in) and routing.

import { keysPage, usagePage } from "./account.js";
import { bookPage, bookingsPage } from "./bookings.js";
import { api, enc, go, h, onRender, roleIn, say, state, stopTimers } from "./core.js";
import { bookingPage } from "./network.js";
import { auditPage, nodePage, nodesPage, usersPage } from "./operator.js";
import { bookNodePage } from "./processing.js";

// ---- Login -------------------------------------------------------------
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

// ---- Frame and routing -------------------------------------------------
function frame(project) {
  const nav = document.getElementById("nav");
  const who = document.getElementById("who");
  if (!state.session) { nav.replaceChildren(); who.replaceChildren(); return; }
  const links = [];
  if (project) {
    const base = `#/p/${enc(project)}`;
    links.push([`${base}/bookings`, "Bookings"]);
    if (roleIn(project) && roleIn(project) !== "viewer") links.push([`${base}/book`, "Book"], [`${base}/book-node`, "Book a node"], [`${base}/keys`, "API keys"]);
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
    else if (project && parts[2] === "book-node") bookNodePage(view, project);
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

onRender(render);

// A message stays until the page is left (a refresh after a change keeps it).
window.addEventListener("hashchange", () => { say(""); render(); });

// A page restored from the back-forward cache after logout asks again.
window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });

render();
