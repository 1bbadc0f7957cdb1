// The dashboard page: one websocket to the host, two views (all spaces, one space).
// Frames arrive as JSON {t: "frame", target, data (base64 JPEG), width, height}; the newest
// frame per page is drawn, older ones were already dropped by the host.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { spaces: [], space: null, target: null, frames: {}, ws: null, seq: 0, pending: {}, log: [], liveWidth: null };
// one thumbnail element per page, reused when the lists are drawn again (no second decoding)
const thumbs = new Map();
function thumb(target, className) {
  let img = thumbs.get(target);
  if (!img) { img = el("img", { alt: "" }); img.dataset.target = target; thumbs.set(target, img); if (state.frames[target]) img.src = state.frames[target]; }
  img.className = className;
  return img;
}
// what tests and the benchmark read: when each frame was shown (ms since the epoch)
window.egoDashboard = { shown: [], errors: [], replies: 0 };

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  Object.assign(e, props || {});
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

// -- connection ------------------------------------------------------------------------------

function connect() {
  const ws = new WebSocket(`ws://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => { $("conn").textContent = "connected"; watch(true); };
  ws.onclose = () => { $("conn").textContent = "disconnected: reload the page (or run python -m ego_browser dashboard again)"; };
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
}

function send(msg) { if (state.ws && state.ws.readyState === 1) state.ws.send(JSON.stringify(msg)); }

function command(op, args) {
  const id = ++state.seq;
  send({ t: "cmd", id, op, ...args });
  return new Promise((resolve, reject) => { state.pending[id] = { resolve, reject }; });
}

// What this tab shows, sent again whenever it changes: a hidden tab asks for no frames (the
// agent's browser then captures nothing for it); the tab in the live view comes at full rate,
// the others as thumbnails; frames are captured no larger than the views show them, in device
// pixels (what a frame costs grows with its pixels, in the agent's browser and in this one).
const THUMB = [160, 100];  // the list's thumbnails (app.css .thumb); the tab strip's are smaller
let watching = "";
function watch(force) {
  const dpr = window.devicePixelRatio || 1;
  const msg = JSON.stringify({ t: "watch", space: state.space, hidden: document.hidden,
    target: state.space === null ? null : state.target, live: state.space === null ? null : state.liveWidth,
    thumb: THUMB.map((v) => Math.round(v * dpr)) });
  if (!force && msg === watching) return;
  watching = msg;
  if (state.ws && state.ws.readyState === 1) state.ws.send(msg);
}
function liveWidth() { return Math.round($("live").clientWidth * (window.devicePixelRatio || 1)); }

function receive(msg) {
  if (msg.t === "spaces") { state.spaces = msg.spaces; render(); }
  else if (msg.t === "frame") showFrame(msg);
  else if (msg.t === "log") { if (msg.space === state.space) addLog(msg.entries); }
  else if (msg.t === "notify") notify(msg.text, msg.space);
  else if (msg.t === "reply") {
    window.egoDashboard.replies++;
    const p = state.pending[msg.id];
    delete state.pending[msg.id];
    if (msg.error) { window.egoDashboard.errors.push(msg.error); notify(`${msg.error.code}: ${msg.error.message}`); }
    if (p) (msg.error ? p.reject(msg.error) : p.resolve(msg.result));
  }
}

function act(op, args) { return command(op, args).catch(() => {}); }

// -- routing ---------------------------------------------------------------------------------

function route() {
  const m = location.hash.match(/^#\/space\/(\d+)/);
  const space = m ? Number(m[1]) : null;
  if (space !== state.space) { state.space = space; state.target = null; state.log = []; $("log").textContent = ""; }
  $("list").hidden = space !== null;
  $("space").hidden = space === null;
  if (space !== null) state.liveWidth = liveWidth();
  render();
}

// -- rendering -------------------------------------------------------------------------------

const OWNER = { agent: "agent", agentDelegatedToUser: "handed to you", user: "you" };
// the agent's ask_human(): the space waits for the person ("needs you", its reason as the status)
const owner = (s) => (s.reason === "needs_you" || s.reason === "needs_consent" ? "needs you"
  : OWNER[s.ownership] || s.ownership);

function actionText(s) {
  const a = s.current || s.last;
  if (!a) return "";
  const what = `${a.op}${a.label ? " on " + a.label : ""}${a.note ? ": " + a.note : ""}`;
  return s.current ? `now: ${what}` : `last: ${what}${a.error ? " (" + a.error + ")" : ""}`;
}

function render() { if (state.space === null) renderList(); else renderSpace(); watch(); }

function renderList() {
  const box = $("spaces");
  box.textContent = "";
  $("empty").hidden = state.spaces.length > 0;
  for (const s of state.spaces) {
    const card = el("section", { className: `card ${s.ownership === "agentDelegatedToUser" ? "delegated" : ""}` });
    card.dataset.space = s.id;
    card.append(
      el("h2", {}, el("a", { href: `#/space/${s.id}`, textContent: s.name }), ` #${s.id} `,
        el("span", { className: `badge ${s.ownership}`, textContent: owner(s) })),
      el("div", { className: "status", textContent: s.status || "" }),
      el("div", { className: "action", textContent: actionText(s) }));
    const ul = el("ul", { className: "pages" });
    for (const p of s.pages) {
      const img = thumb(p.target_id, "thumb");
      ul.append(el("li", {}, img, el("div", {},
        el("div", { className: "ptitle", textContent: `${p.label || "(tab)"} ${p.title || ""}` }),
        el("div", { className: "purl", textContent: p.url }))));
    }
    card.append(ul);
    const bar = el("div", { className: "bar" });
    if (s.ownership === "agent") bar.append(el("button", { textContent: "Take over", onclick: () => act("take_over", { space: s.id }) }));
    // a confirmation rule asks (the status says what): answer it in one click
    else if (s.reason === "needs_consent") bar.append(
      el("button", { className: "allow", textContent: "Allow", onclick: () => act("give_back", { space: s.id, note: "yes" }) }),
      el("button", { className: "refuse", textContent: "Refuse", onclick: () => act("give_back", { space: s.id, note: "no" }) }));
    else bar.append(el("button", { textContent: "Give back", onclick: () => act("give_back", { space: s.id, note: "" }) }));
    bar.append(el("a", { href: `#/space/${s.id}`, textContent: "Open live view" }));
    card.append(bar);
    box.append(card);
  }
}

const PERMISSION = { location: "your location", notifications: "permission to show notifications",
  camera: "your camera", microphone: "your microphone" };

function current() { return state.spaces.find((s) => s.id === state.space) || null; }

function renderSpace() {
  const s = current();
  if (!s) { $("sp-title").textContent = `space ${state.space} (closed)`; $("tabs").textContent = ""; return; }
  const held = s.ownership !== "agent";
  $("sp-title").textContent = `${s.name} #${s.id}`;
  $("sp-owner").textContent = owner(s);
  $("sp-owner").className = `badge ${s.ownership}`;
  $("sp-status").textContent = s.status || "";
  $("sp-trace").href = `/trace/${s.id}/`;  // rounds -> actions -> pictures and requests (trace_pages.py)
  $("sp-action").textContent = actionText(s);
  $("sp-take").disabled = s.ownership === "user";
  $("sp-give").disabled = !held;
  for (const id of ["nav-back", "nav-fwd", "nav-reload", "nav-go", "tab-new", "tab-close"]) $(id).disabled = !held;
  if (!s.pages.some((p) => p.target_id === state.target)) {
    const active = s.pages.find((p) => p.target_id === s.active);
    state.target = (active || s.pages[s.pages.length - 1] || {}).target_id || null;
  }
  const tabs = $("tabs");
  // the tab strip is drawn again only when its tabs or the selection change
  const sig = JSON.stringify([state.target, held, s.pages.map((p) => [p.target_id, p.label, p.title, p.url])]);
  if (tabs.dataset.sig !== sig) {
  tabs.dataset.sig = sig;
  tabs.textContent = "";
  for (const p of s.pages) {
    const img = thumb(p.target_id, "");
    const t = el("div", { className: `tab ${p.target_id === state.target ? "sel" : ""}`, role: "tab" }, img,
      el("span", { textContent: `${p.label || "(tab)"} ${p.title || p.url}` }));
    t.dataset.target = p.target_id;
    t.onclick = () => { state.target = p.target_id; if (held) act("activate", { target: p.target_id }); render(); };
    tabs.append(t);
  }
  }
  const page = s.pages.find((p) => p.target_id === state.target);
  if (page && document.activeElement !== $("nav-url")) $("nav-url").value = page.url;
  $("live").classList.toggle("held", held);
  $("live-hint").textContent = held ? "you hold this space: click and type here" : "the agent is driving (take over to act)";
  const img = $("live-img");
  if (page && state.frames[page.target_id] && img.dataset.src !== page.target_id) {
    img.src = state.frames[page.target_id];
    img.dataset.src = page.target_id;
  } else if (img.dataset.src && (!page || img.dataset.src !== page.target_id)) {
    // no picture of this tab yet: show none rather than the last tab's (another space's, maybe)
    img.removeAttribute("src");
    delete img.dataset.src;
  }
  // the agent's pointer and what it is doing now
  const ptr = $("pointer"), label = $("label");
  const f = page && state.meta && state.meta[page.target_id];
  if (page && page.pointer && f) {
    ptr.hidden = false;
    ptr.style.left = `${(page.pointer[0] / f.width) * 100}%`;
    ptr.style.top = `${(page.pointer[1] / f.height) * 100}%`;
  } else ptr.hidden = true;
  const a = s.current;
  label.hidden = !a && !s.status;
  label.textContent = a ? `${a.op}${a.note ? ": " + a.note : ""}` : (s.status || "");
  // a dialog or a file chooser waiting on the shown tab
  const dlg = page && page.dialog;
  $("dialog").hidden = !dlg;
  if (dlg) {
    $("dialog-text").textContent = `${dlg.type}: ${dlg.message}`;
    $("dialog-input").hidden = dlg.type !== "prompt";
    if (dlg.type === "prompt" && !$("dialog-input").dataset.set) { $("dialog-input").value = dlg.default_prompt || ""; $("dialog-input").dataset.set = "1"; }
    $("dialog-accept").disabled = $("dialog-dismiss").disabled = !held;
  } else delete $("dialog-input").dataset.set;
  // a permission prompt that handed the space over: the person allows or blocks it
  const perm = s.permission;
  $("perm").hidden = !perm;
  if (perm) {
    $("perm-text").textContent = `${perm.origin || "this page"} asks for ${PERMISSION[perm.reason] || perm.reason}`;
    $("perm-allow").disabled = $("perm-block").disabled = !perm.origin;
  }
  const ch = page && page.chooser;
  $("chooser").hidden = !ch;
  if (ch) { $("chooser-what").textContent = ch.multiple ? "files" : "a file"; $("chooser-send").disabled = !held; }
}

function showFrame(msg) {
  const src = `data:image/jpeg;base64,${msg.data}`;
  state.frames[msg.target] = src;
  state.meta = state.meta || {};
  state.meta[msg.target] = { width: msg.width, height: msg.height };
  const small = thumbs.get(msg.target);
  const now = Date.now();
  const live = state.space !== null && msg.target === state.target;
  // the live view's tab is shown large: its small picture is refreshed seldom (each decoding costs)
  const every = live ? 5000 : 1000;
  if (small && (state.space === null || !small.shownAt || now - small.shownAt > every)) { small.src = src; small.shownAt = now; }
  if (live) {
    const img = $("live-img");
    img.src = src;
    img.dataset.src = msg.target;
    const shown = window.egoDashboard.shown;
    img.decode().catch(() => {}).then(() => {
      shown.push({ target: msg.target, at: Date.now(), sent: msg.sent, bytes: msg.data.length });
      if (shown.length > 500) shown.splice(0, shown.length - 500);
    });
  }
}

function addLog(entries) {
  const ol = $("log");
  for (const e of entries) {
    const time = new Date(e.at * 1000).toLocaleTimeString();
    ol.prepend(el("li", {}, `${time} `, el("span", { className: "kind", textContent: e.kind }), ` ${e.text}`));
  }
  while (ol.children.length > 200) ol.lastChild.remove();
}

function notify(text, space) {
  const n = el("div", { className: "notice", textContent: text, role: "status" });
  if (space != null) { n.style.cursor = "pointer"; n.onclick = () => { location.hash = `#/space/${space}`; n.remove(); }; }
  $("notices").append(n);
  setTimeout(() => n.remove(), 15000);
}

// -- the person's input in the live view -----------------------------------------------------

function held() { const s = current(); return s && s.ownership !== "agent" && state.target; }

function pagePoint(ev) {
  const img = $("live-img"), r = img.getBoundingClientRect();
  const f = state.meta && state.meta[state.target];
  if (!f || !r.width) return null;
  return { x: ((ev.clientX - r.left) / r.width) * f.width, y: ((ev.clientY - r.top) / r.height) * f.height };
}

function mods(ev) { return (ev.altKey ? 1 : 0) | (ev.ctrlKey ? 2 : 0) | (ev.metaKey ? 4 : 0) | (ev.shiftKey ? 8 : 0); }
const BUTTON = ["left", "middle", "right"];
let lastMove = 0;

function mouse(type, ev) {
  if (!held()) return;
  const p = pagePoint(ev);
  if (!p) return;
  if (type === "mouseMoved") { const now = Date.now(); if (now - lastMove < 40) return; lastMove = now; }
  act("input", { target: state.target, kind: "mouse", type, x: p.x, y: p.y,
    button: type === "mouseMoved" ? "none" : BUTTON[ev.button] || "left", buttons: ev.buttons,
    clickCount: type === "mouseMoved" ? 0 : ev.detail || 1, modifiers: mods(ev) });
}

function setupInput() {
  const live = $("live");
  live.addEventListener("mousedown", (ev) => { live.focus(); ev.preventDefault(); mouse("mousePressed", ev); });
  live.addEventListener("mouseup", (ev) => { ev.preventDefault(); mouse("mouseReleased", ev); });
  live.addEventListener("mousemove", (ev) => mouse("mouseMoved", ev));
  live.addEventListener("contextmenu", (ev) => ev.preventDefault());
  live.addEventListener("wheel", (ev) => {
    if (!held()) return;
    ev.preventDefault();
    const p = pagePoint(ev);
    if (p) act("input", { target: state.target, kind: "wheel", x: p.x, y: p.y, deltaX: ev.deltaX, deltaY: ev.deltaY, modifiers: mods(ev) });
  }, { passive: false });
  live.addEventListener("keydown", (ev) => {
    if (!held()) return;
    ev.preventDefault();
    const printable = ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey;
    const text = printable ? ev.key : ev.key === "Enter" ? "\r" : undefined;
    act("input", { target: state.target, kind: "key", type: text ? "keyDown" : "rawKeyDown", key: ev.key, code: ev.code,
      text, unmodifiedText: text, keyCode: ev.keyCode, modifiers: mods(ev) });
  });
  live.addEventListener("keyup", (ev) => {
    if (!held()) return;
    ev.preventDefault();
    act("input", { target: state.target, kind: "key", type: "keyUp", key: ev.key, code: ev.code, keyCode: ev.keyCode, modifiers: mods(ev) });
  });
  live.addEventListener("paste", (ev) => {
    if (!held()) return;
    ev.preventDefault();
    act("input", { target: state.target, kind: "text", text: ev.clipboardData.getData("text") });
  });
}

function setupButtons() {
  $("sp-take").onclick = () => act("take_over", { space: state.space });
  $("sp-give").onclick = () => { const note = $("sp-note").value; $("sp-note").value = ""; act("give_back", { space: state.space, note }); };
  $("sp-close").onclick = () => { if (confirm("Close this space and all its tabs?")) act("close", { space: state.space }); };
  $("nav-back").onclick = () => act("history", { target: state.target, delta: -1 });
  $("nav-fwd").onclick = () => act("history", { target: state.target, delta: 1 });
  $("nav-reload").onclick = () => act("history", { target: state.target, delta: 0 });
  const go = () => act("navigate", { target: state.target, url: $("nav-url").value });
  $("nav-go").onclick = go;
  $("nav-url").addEventListener("keydown", (ev) => { if (ev.key === "Enter") go(); });
  $("tab-new").onclick = () => command("new_tab", { space: state.space }).then((r) => { state.target = r.target_id; }, () => {});
  $("tab-close").onclick = () => act("close_tab", { target: state.target });
  $("dialog-accept").onclick = () => act("dialog", { target: state.target, accept: true,
    text: $("dialog-input").hidden ? undefined : $("dialog-input").value });
  $("dialog-dismiss").onclick = () => act("dialog", { target: state.target, accept: false });
  $("perm-allow").onclick = () => act("permission", { space: state.space, setting: "granted" });
  $("perm-block").onclick = () => act("permission", { space: state.space, setting: "denied" });
  $("chooser-send").onclick = () => act("files", { target: state.target,
    files: $("chooser-paths").value.split("\n").map((s) => s.trim()).filter(Boolean) });
}

window.addEventListener("hashchange", route);
document.addEventListener("visibilitychange", () => watch());
// a resized window or live view: frames of the new size (once the resizing pauses)
let resized = 0;
new ResizeObserver(() => {
  clearTimeout(resized);
  resized = setTimeout(() => { if (state.space !== null) { state.liveWidth = liveWidth(); watch(); } }, 200);
}).observe($("live"));
setupInput();
setupButtons();
connect();
route();
