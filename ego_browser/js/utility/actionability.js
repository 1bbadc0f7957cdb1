// In-page helpers for the element-action pipeline (driver/actions.py).
//
// Evaluated once per isolated (utility) world; the value is an object of helpers that the
// driver calls with Runtime.callFunctionOn on an element handle:  A.check(el, "click") ...
// Nothing here dispatches input or synthetic pointer/keyboard events; the only events created
// here are the `input`/`change` pair for value-set inputs (date, color, range…) and
// select_option, exactly as Playwright does.
(() => {
  "use strict";

  const parentOrHost = (el) => {
    if (el.parentElement) return el.parentElement;
    const root = el.parentNode;
    if (root && root.nodeType === 11 && root.host) return root.host; // ShadowRoot
    return null;
  };
  // Flat-tree parent: slotted content goes through its <slot>.
  const flatParent = (el) => el.assignedSlot || parentOrHost(el);

  const toElement = (node) => (node && node.nodeType === 1 ? node : node && node.parentElement) || null;

  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "treeitem", "combobox", "textbox", "searchbox", "slider",
    "spinbutton", "gridcell",
  ]);
  const isInteractive = (el) => {
    const tag = el.localName;
    if (["button", "input", "select", "textarea", "summary", "label", "option"].includes(tag)) return true;
    if (tag === "a" && el.hasAttribute("href")) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    const role = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    return INTERACTIVE_ROLES.has(role);
  };

  // Nearest interactive ancestor-or-self in the flat tree (crosses <slot> and shadow hosts).
  const retarget = (node) => {
    const el = toElement(node);
    if (!el) return null;
    for (let e = el; e; e = flatParent(e)) {
      if (isInteractive(e)) return e;
      if (e.localName === "body" || e.localName === "html") break;
    }
    return el;
  };

  // ---- roles (enough for Playwright's aria-disabled rule) ---------------------------------
  const implicitRole = (el) => {
    switch (el.localName) {
      case "button": return "button";
      case "a": case "area": return el.hasAttribute("href") ? "link" : "";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "option": return "option";
      case "fieldset": case "details": case "optgroup": return "group";
      case "tr": return "row";
      case "th": return "columnheader";
      case "menu": return "list";
      case "input": {
        const t = (el.getAttribute("type") || "text").toLowerCase();
        if (["button", "submit", "reset", "image"].includes(t)) return "button";
        if (t === "checkbox") return "checkbox";
        if (t === "radio") return "radio";
        if (t === "range") return "slider";
        if (t === "number") return "spinbutton";
        if (t === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
        if (["email", "tel", "text", "url", ""].includes(t)) return el.hasAttribute("list") ? "combobox" : "textbox";
        return "";
      }
    }
    return "";
  };
  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    return explicit || implicitRole(el);
  };
  const ARIA_DISABLED_ROLES = new Set(["application", "button", "composite", "gridcell", "group", "input", "link",
    "menuitem", "scrollbar", "separator", "tab", "checkbox", "columnheader", "combobox", "grid", "listbox", "menu",
    "menubar", "menuitemcheckbox", "menuitemradio", "option", "radio", "radiogroup", "row", "rowheader",
    "searchbox", "select", "slider", "spinbutton", "switch", "tablist", "textbox", "toolbar", "tree", "treegrid",
    "treeitem"]);

  const NATIVE_CONTROLS = new Set(["button", "input", "select", "textarea", "option", "optgroup"]);
  const inDisabledFieldset = (el) => {
    const fs = el.closest("fieldset[disabled]");
    if (!fs) return false;
    const legend = fs.querySelector(":scope > legend");
    return !legend || !legend.contains(el);
  };
  const nativelyDisabled = (el) =>
    NATIVE_CONTROLS.has(el.localName) &&
    (el.hasAttribute("disabled") ||
      (el.localName === "option" && !!el.closest("optgroup[disabled]")) ||
      inDisabledFieldset(el));
  const ariaDisabledInChain = (el) => {
    for (let e = el; e; e = parentOrHost(e)) {
      const v = (e.getAttribute("aria-disabled") || "").toLowerCase();
      if (v === "true") return true;
      if (v === "false") return false;
    }
    return false;
  };
  const isDisabled = (el) =>
    nativelyDisabled(el) || (ARIA_DISABLED_ROLES.has(roleOf(el)) && ariaDisabledInChain(el));

  // ---- visibility -------------------------------------------------------------------------
  const isInert = (el) => {
    for (let e = el; e; e = parentOrHost(e)) if (e.inert || e.hasAttribute("inert")) return true;
    const modal = el.ownerDocument.querySelector("dialog:modal");
    if (modal && !modal.contains(el)) {
      // a modal dialog makes the rest of its document inert (shadow-including ancestry)
      for (let e = el; e; e = parentOrHost(e)) if (e === modal) return false;
      return true;
    }
    return false;
  };
  const styleHidden = (el) => {
    const style = getComputedStyle(el);
    if (style.display === "contents") {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && !styleHidden(c)) return false;
        if (c.nodeType === 3 && c.textContent.trim()) return false;
      }
      return true;
    }
    if (!el.checkVisibility({ visibilityProperty: true })) return true;
    return false;
  };
  const zeroSize = (el) => {
    if (getComputedStyle(el).display === "contents") return false;
    const r = el.getBoundingClientRect();
    return !(r.width > 0 && r.height > 0);
  };

  // ---- editability ------------------------------------------------------------------------
  const TYPE_INTO = new Set(["", "email", "number", "password", "search", "tel", "text", "url"]);
  const SET_VALUE = new Set(["color", "date", "time", "datetime-local", "month", "range", "week"]);
  const inputType = (el) => (el.getAttribute("type") || "").toLowerCase() === "" ? "" : el.type.toLowerCase();
  const isFillable = (el) => {
    if (el.localName === "input") {
      const t = inputType(el);
      return TYPE_INTO.has(t) || SET_VALUE.has(t);
    }
    return el.localName === "textarea" || el.isContentEditable;
  };
  const editingHost = (el) => {
    let e = el;
    while (e.parentElement && e.parentElement.isContentEditable) e = e.parentElement;
    return e;
  };
  const isReadonly = (el) => {
    if (el.localName === "input" || el.localName === "textarea") return el.readOnly;
    if (el.isContentEditable) return false;
    return (el.getAttribute("aria-readonly") || "") === "true";
  };

  // ---- description for messages -----------------------------------------------------------
  const describe = (el) => {
    if (!el) return "<unknown>";
    const attrs = [];
    for (const name of ["id", "class", "role", "type", "name", "href", "aria-label"]) {
      let v = el.getAttribute && el.getAttribute(name);
      if (v == null) continue;
      v = String(v);
      if (v.length > 40) v = v.slice(0, 40) + "…";
      attrs.push(v === "" ? name : `${name}="${v}"`);
    }
    let text = (el.textContent || "").replace(/\s+/g, " ").trim();
    if (text.length > 40) text = text.slice(0, 40) + "…";
    const open = `<${el.localName}${attrs.length ? " " + attrs.join(" ") : ""}>`;
    return text && el.children.length < 3 ? `${open}${text}</${el.localName}>` : open;
  };

  // ---- geometry ---------------------------------------------------------------------------
  const viewportRect = (doc) => {
    const vv = doc.defaultView.visualViewport;
    const w = vv ? vv.width : doc.documentElement.clientWidth;
    const h = vv ? vv.height : doc.documentElement.clientHeight;
    return { left: 0, top: 0, right: w, bottom: h };
  };
  const intersect = (a, b) => ({
    left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom),
  });
  const empty = (r) => !(r.right - r.left > 0.5 && r.bottom - r.top > 0.5);
  const clips = (el) => {
    const s = getComputedStyle(el);
    return s.overflowX !== "visible" || s.overflowY !== "visible" || s.contain.includes("paint");
  };
  // Client area (inside borders and scrollbars) of a clipping element, in viewport coords.
  const clientRect = (el) => {
    const r = el.getBoundingClientRect();
    const left = r.left + el.clientLeft, top = r.top + el.clientTop;
    return { left, top, right: left + el.clientWidth, bottom: top + el.clientHeight };
  };
  const isScrollable = (el) => {
    if (el === el.ownerDocument.scrollingElement) return true;
    const s = getComputedStyle(el);
    const sx = ["auto", "scroll", "overlay"].includes(s.overflowX) && el.scrollWidth > el.clientWidth;
    const sy = ["auto", "scroll", "overlay"].includes(s.overflowY) && el.scrollHeight > el.clientHeight;
    return sx || sy;
  };
  const clipAncestors = (el) => {
    const out = [];
    for (let e = flatParent(el); e; e = flatParent(e)) {
      if (e === e.ownerDocument.documentElement || e === e.ownerDocument.body) break;
      if (clips(e)) out.push(e);
      const pos = getComputedStyle(e).position;
      if (pos === "fixed") break;
    }
    return out;
  };
  // The element's rect clipped by its clipping ancestors and the viewport.
  const visibleBox = (el) => {
    const r = el.getBoundingClientRect();
    let box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    for (const c of clipAncestors(el)) box = intersect(box, clientRect(c));
    box = intersect(box, viewportRect(el.ownerDocument));
    return { rect: { x: r.left, y: r.top, width: r.width, height: r.height }, visible: empty(box) ? null :
      { x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top } };
  };

  // Does a wheel at (x, y) reach `container` for scrolling on the given axis?
  const scrollerAt = (doc, x, y) => {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const wheelReaches = (container, hit, dx, dy) => {
    // walk from the hit element up: the first ancestor that can scroll in the direction wins
    for (let e = hit; e; e = flatParent(e)) {
      if (e === container) return true;
      if (e === e.ownerDocument.documentElement) break;
      if (!isScrollable(e)) continue;
      const canY = dy > 0 ? e.scrollTop + e.clientHeight < e.scrollHeight - 1 : dy < 0 ? e.scrollTop > 0 : false;
      const canX = dx > 0 ? e.scrollLeft + e.clientWidth < e.scrollWidth - 1 : dx < 0 ? e.scrollLeft > 0 : false;
      const s = getComputedStyle(e);
      const okY = canY && ["auto", "scroll", "overlay"].includes(s.overflowY);
      const okX = canX && ["auto", "scroll", "overlay"].includes(s.overflowX);
      if (okX || okY) return false;
    }
    return container === container.ownerDocument.scrollingElement;
  };
  const pickWheelPoint = (container, region, dx, dy) => {
    const doc = container.ownerDocument;
    const fr = [0.5, 0.25, 0.75, 0.1, 0.9];
    for (const fy of fr) for (const fx of fr) {
      const x = region.left + (region.right - region.left) * fx;
      const y = region.top + (region.bottom - region.top) * fy;
      const hit = scrollerAt(doc, x, y);
      if (hit && wheelReaches(container, hit, dx, dy)) return { x, y };
    }
    return { x: (region.left + region.right) / 2, y: (region.top + region.bottom) / 2 };
  };

  // Next wheel step to bring `point` (viewport coords; default: centre of the element) into
  // view, innermost clipping container first. null = nothing to scroll in this frame.
  const scrollStep = (el, position) => {
    const r = el.getBoundingClientRect();
    const doc = el.ownerDocument;
    const px = position ? r.left + position.x : r.left + r.width / 2;
    const py = position ? r.top + position.y : r.top + r.height / 2;
    const chain = clipAncestors(el).filter(isScrollable);
    chain.push(doc.scrollingElement || doc.documentElement);
    const vp = viewportRect(doc);
    // visible region of each container = its client rect clipped by outer containers + viewport
    const regions = chain.map((c, i) => {
      let reg = c === doc.scrollingElement ? vp : clientRect(c);
      for (const outer of chain.slice(i + 1)) reg = intersect(reg, outer === doc.scrollingElement ? vp : clientRect(outer));
      return intersect(reg, vp);
    });
    let tx = px, ty = py;
    const margin = 2;
    const clamp = (v, lo, hi) => (hi - lo < 2 * margin ? (lo + hi) / 2 : Math.min(Math.max(v, lo + margin), hi - margin));
    for (let i = 0; i < chain.length; i++) {
      const c = chain[i];
      const own = c === doc.scrollingElement ? vp : clientRect(c);
      const inside = tx >= own.left + margin && tx <= own.right - margin && ty >= own.top + margin && ty <= own.bottom - margin;
      if (inside) continue;
      const region = regions[i];
      // delta: put the point at the container's centre (clamped by the browser)
      const dx = tx < own.left + margin || tx > own.right - margin ? tx - (own.left + own.right) / 2 : 0;
      const dy = ty < own.top + margin || ty > own.bottom - margin ? ty - (own.top + own.bottom) / 2 : 0;
      const canX = dx > 0 ? c.scrollLeft + c.clientWidth < c.scrollWidth - 1 : dx < 0 ? c.scrollLeft > 0 : false;
      const canY = dy > 0 ? c.scrollTop + c.clientHeight < c.scrollHeight - 1 : dy < 0 ? c.scrollTop > 0 : false;
      if (!empty(region) && (canX || canY)) {
        const at = pickWheelPoint(c, region, canX ? dx : 0, canY ? dy : 0);
        return { x: at.x, y: at.y, dx: canX ? dx : 0, dy: canY ? dy : 0, container: describe(c) };
      }
      // not reachable yet (or cannot scroll): outer containers must bring this one into view
      tx = clamp(tx, own.left, own.right);
      ty = clamp(ty, own.top, own.bottom);
    }
    return null;
  };
  const scrollPos = (el) => {
    const out = [];
    for (const c of clipAncestors(el)) out.push(c.scrollLeft, c.scrollTop);
    const se = el.ownerDocument.scrollingElement;
    if (se) out.push(se.scrollLeft, se.scrollTop);
    return out.join(",");
  };

  // ---- hit test (Playwright's expectHitTarget) ---------------------------------------------
  const hitTest = (target, x, y) => {
    const roots = [];
    for (let p = target; p;) {
      const root = p.getRootNode();
      if (!root || (root.nodeType !== 9 && root.nodeType !== 11)) break;
      roots.push(root);
      if (root.nodeType === 9) break;
      p = root.host;
    }
    let hit;
    for (let i = roots.length - 1; i >= 0; i--) {
      const root = roots[i];
      const els = root.elementsFromPoint(x, y);
      const single = root.elementFromPoint(x, y);
      if (single && els[0] && parentOrHost(single) === els[0] && getComputedStyle(single).display === "contents")
        els.unshift(single);
      if (els[0] && els[1] === single && roots.slice(i).some((r) => r.host === els[0])) els.shift();
      const inner = els[0];
      if (!inner) break;
      hit = inner;
      if (i && inner !== roots[i - 1].host) break;
    }
    const parents = [];
    let h = hit;
    while (h && h !== target) { parents.push(h); h = h.assignedSlot || parentOrHost(h); }
    if (h === target) return null;
    let desc = describe(parents[0] || target.ownerDocument.documentElement);
    for (let e = target; e; e = parentOrHost(e)) {
      const idx = parents.indexOf(e);
      if (idx !== -1) { if (idx > 1) desc += ` from ${describe(parents[idx - 1])} subtree`; break; }
    }
    return desc;
  };

  // ---- the per-action checks ----------------------------------------------------------------
  // action: click | dblclick | hover | drag | fill | select | focus | press | check-only
  const NEEDS_ENABLED = new Set(["click", "dblclick", "fill", "select", "press"]);
  const blocker = (reason, message, extra) => Object.assign({ reason, message }, extra || {});

  const fillTarget = (el) => {
    if (isFillable(el)) return { el: el.isContentEditable ? editingHost(el) : el };
    if (el.closest && el.parentElement && el.parentElement.isContentEditable) return { el: editingHost(el) };
    // wrapper: its fillable descendants (open shadow roots included)
    const found = [];
    const walk = (root) => {
      for (const c of root.querySelectorAll("*")) {
        if (c.shadowRoot) walk(c.shadowRoot);
        if (c.localName === "input" || c.localName === "textarea") { if (isFillable(c)) found.push(c); }
        else if (c.isContentEditable && !(c.parentElement && c.parentElement.isContentEditable)) found.push(c);
      }
    };
    walk(el);
    const usable = found.filter((c) => !styleHidden(c));
    if (usable.length === 1) return { el: usable[0] };
    if (usable.length > 1) return { ambiguous: usable.length, all: usable };
    return { none: true };
  };

  const focusTarget = (el) => {
    // the element, its nearest focusable ancestor (through slots) or its single editable descendant
    const focusable = (e) => e.tabIndex >= 0 || e.isContentEditable ||
      (["input", "select", "textarea", "button"].includes(e.localName) && !e.disabled) ||
      (e.localName === "a" && e.hasAttribute("href")) || e.hasAttribute("tabindex");
    if (el.isContentEditable) return editingHost(el);
    for (let e = el; e; e = flatParent(e)) {
      if (e.localName === "body" || e.localName === "html") break;
      if (focusable(e)) return e;
      if (e.shadowRoot && e.shadowRoot.delegatesFocus) return e;
    }
    const ft = fillTarget(el);
    if (ft.el) return ft.el;
    const desc = [];
    const walk = (root) => {
      for (const c of root.querySelectorAll("*")) { if (c.shadowRoot) walk(c.shadowRoot); if (focusable(c)) desc.push(c); }
    };
    walk(el);
    return desc.length === 1 ? desc[0] : null;
  };

  // The element input is aimed at for `action` (null if not connected).
  const actionTarget = (node, action) => {
    const el = toElement(node);
    if (!el || !el.isConnected) return { detached: true };
    if (action === "fill") {
      const ft = fillTarget(el);
      if (ft.ambiguous) return { el, ambiguous: ft.ambiguous };
      if (ft.none) return { el, notFillable: true };
      return { el: ft.el };
    }
    if (action === "select") {
      // follow a label to its control
      if (el.localName !== "select") {
        const lab = el.closest("label");
        if (lab && lab.control && lab.control.localName === "select") return { el: lab.control };
      }
      return { el };
    }
    if (action === "focus" || action === "press") {
      const f = focusTarget(el);
      return f ? { el: f } : { el, notFocusable: true };
    }
    return { el: retarget(el) };
  };

  // null when the element passes the action's checks, else {reason, message}.
  const check = (node, action) => {
    const t = actionTarget(node, action);
    if (t.detached) return blocker("detached", "element is not attached to the DOM");
    if (t.ambiguous) return blocker("ambiguous", `multiple fillable targets (${t.ambiguous})`, { permanent: true, count: t.ambiguous });
    const el = t.el;
    if (t.notFocusable) return blocker("not_focusable", "element is not focusable");
    if (action === "select" && el.localName !== "select") return blocker("not_editable", "element is not a <select> element");
    const visEl = t.notFillable ? el : el;
    if (action !== "focus" && action !== "press") {
      if (styleHidden(visEl) || isInert(visEl)) return blocker("hidden", "element is hidden or inert");
      if (action !== "select" && zeroSize(visEl)) return blocker("zero_size", "element has a zero-sized bounding box");
    } else if (isInert(el)) {
      return blocker("hidden", "element is hidden or inert");
    }
    if (NEEDS_ENABLED.has(action) && isDisabled(el)) return blocker("disabled", "element is disabled");
    if (action === "fill") {
      if (t.notFillable) return blocker("not_editable", "element is not an <input>, <textarea> or [contenteditable] element");
      if (isReadonly(el)) return blocker("not_editable", "element is not editable");
    }
    return null;
  };

  // ---- fill -----------------------------------------------------------------------------
  const fillPrepare = (node, value, clearFirst) => {
    const el = actionTarget(node, "fill").el;
    if (el.localName === "input") {
      const t = inputType(el);
      if (t === "number" && value.trim() !== "" && isNaN(Number(value.trim())))
        return { error: "Cannot type text into input[type=number]" };
      if (SET_VALUE.has(t)) {
        el.focus();
        el.value = value.trim();
        if (el.value !== value.trim()) return { error: `Malformed value for input[type=${t}]: ${JSON.stringify(value)}` };
        el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        el.dispatchEvent(new Event("change", { bubbles: true }));
        return { done: true };
      }
    }
    focusAndSelect(el, clearFirst);
    return { insert: true, before: readValue(el) };
  };
  const focusAndSelect = (el, clearFirst) => {
    if (el.localName === "input" || el.localName === "textarea") {
      el.focus();
      const len = el.value.length;
      try {
        if (clearFirst) el.setSelectionRange(0, len); else el.setSelectionRange(len, len);
      } catch (e) { // number/email inputs have no selection API
        if (clearFirst) el.select();
      }
      return;
    }
    const host = editingHost(el);
    host.focus();
    const sel = el.ownerDocument.getSelection();
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    if (!clearFirst) range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  };
  const readValue = (el) => {
    if (el.localName === "input" || el.localName === "textarea") return el.value;
    return el.innerText.replace(/\n$/, "");
  };
  const isFocused = (el) => {
    let a = el.ownerDocument.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a === el || (el.isContentEditable && a && a.contains && el.contains(a));
  };
  const normalise = (s) => String(s).normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  const fillVerify = (node, expected, before, clearFirst) => {
    const el = actionTarget(node, "fill").el;
    const got = readValue(el);
    const want = clearFirst ? expected : (before || "") + expected;
    if (got === want) return { ok: true, value: got };
    const strip = (s) => s.replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim();
    if (strip(got) === strip(want)) return { ok: true, value: got };
    if (normalise(got) === normalise(want) && (normalise(want) !== "" || got.trim() === "")) return { ok: true, value: got, formatted: true };
    return { ok: false, value: got, unchanged: got === (before || "") || (clearFirst && got === before) };
  };
  // Would a click at the fill target's press point activate a link inside the editor?
  const linkAt = (node, x, y) => {
    const el = actionTarget(node, "fill").el;
    let hit = el.ownerDocument.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) { const inner = hit.shadowRoot.elementFromPoint(x, y); if (!inner || inner === hit) break; hit = inner; }
    for (let e = hit; e && e !== el.parentElement; e = parentOrHost(e)) {
      if ((e.localName === "a" && e.hasAttribute("href")) || (e.getAttribute && e.getAttribute("role") === "link")) return describe(e);
      if (e === el) break;
    }
    return null;
  };
  // A point inside the editor that is not over a link, when there is one.
  const safePoint = (node) => {
    const el = actionTarget(node, "fill").el;
    const b = visibleBox(el).visible;
    if (!b) return null;
    const fr = [0.5, 0.9, 0.1, 0.75, 0.25, 0.97, 0.03];
    for (const fy of fr) for (const fx of fr) {
      const x = b.x + b.width * fx, y = b.y + b.height * fy;
      if (!linkAt(node, x, y) && !hitTest(el, x, y)) return { x, y };
    }
    return null;
  };

  // ---- select_option ---------------------------------------------------------------------
  const ws = (s) => String(s).replace(/\s+/g, " ").trim();
  const selectOption = (node, descriptors, clear) => {
    const select = actionTarget(node, "select").el;
    const options = [...select.options];
    const matches = (option, index, d) => {
      const labelOk = (l) => l === option.label || ws(l) === ws(option.label);
      if (d.valueOrLabel !== undefined && !(d.valueOrLabel === option.value || labelOk(d.valueOrLabel))) return false;
      if (d.value !== undefined && d.value !== option.value) return false;
      if (d.label !== undefined && !labelOk(d.label)) return false;
      if (d.index !== undefined && d.index !== index) return false;
      return true;
    };
    const chosen = [];
    if (!clear) {
      if (select.multiple) {
        for (const d of descriptors) {
          const found = options.filter((o, i) => matches(o, i, d));
          if (!found.length) return { missing: available(options) };
          for (const o of found) if (!chosen.includes(o)) chosen.push(o);
        }
      } else {
        const found = options.find((o, i) => descriptors.some((d) => matches(o, i, d)));
        if (!found) return { missing: available(options) };
        chosen.push(found);
      }
    }
    select.value = undefined;
    for (const o of options) o.selected = false;
    for (const o of chosen) o.selected = true;
    select.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    select.dispatchEvent(new Event("change", { bubbles: true }));
    return { values: chosen.map((o) => o.value) };
  };
  const available = (options) =>
    options.map((o) => (o.label === o.value ? JSON.stringify(o.label) : `${JSON.stringify(o.label)} (value ${JSON.stringify(o.value)})`)).join(", ") || "(none)";

  // ---- fused steps (one Runtime.callFunctionOn instead of several; same checks, same order) --
  // Press point of a box from visibleBox(): the given offset from the rect's top-left, else
  // the centre of the visible part (of the rect when nothing is visible).
  const pressPoint = (box, position) => {
    const r = box.rect;
    if (position) return { x: r.x + position.x, y: r.y + position.y };
    const v = box.visible || r;
    return { x: v.x + v.width / 2, y: v.y + v.height / 2 };
  };
  // The pointer path's first look at a candidate that passed check(): the next wheel step if
  // the press point is out of view; else the box and (unless forced) the hit test at the
  // press point.
  // `hidden`: the tab is in the background, where no animation frame runs and Chromium holds
  // pointer input until a ~5 s timeout; the driver brings the tab to the front first.
  // ---- the hit test at the moment the press lands (a click sent in one go) ----------------
  // A click whose move, press and release go out together has no pause after the move for a
  // second hit test (the move would wait for an animation frame). Instead, listeners armed
  // on the target's window test the hit when the trusted pointerdown arrives - after the
  // move's mouseenter/mouseover handlers ran - and, if something else is hit, swallow that
  // press and every event of the click, so nothing but the pointer's move reaches the page
  // (Playwright's hit target interceptor). ``disarm`` reports it; a timer disarms anyway.
  const CLICK_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick",
                        "contextmenu"];
  const armed = new WeakMap();
  const disarm = (node) => {
    const a = armed.get(node);
    if (!a) return { seen: false, hit: null };
    armed.delete(node);
    clearTimeout(a.timer);
    for (const type of CLICK_EVENTS) a.win.removeEventListener(type, a.listener, true);
    return { seen: a.seen, hit: a.hit };
  };
  const arm = (node, el, x, y) => {
    disarm(node);
    const win = el.ownerDocument.defaultView;
    const a = { win, seen: false, hit: null, listener: null, timer: 0 };
    a.listener = (e) => {
      if (!e.isTrusted) return;
      if (!a.seen && (e.type === "pointerdown" || e.type === "mousedown")) {
        a.seen = true;
        a.hit = hitTest(el, x, y);
      }
      if (a.hit) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    for (const type of CLICK_EVENTS) win.addEventListener(type, a.listener, true);
    a.timer = setTimeout(() => disarm(node), 5000);
    armed.set(node, a);
  };

  const pointerPrep = (node, action, position, force, armClick) => {
    const t = actionTarget(node, action);
    if (!t.el || t.detached) return { detached: true };
    const hidden = t.el.ownerDocument.visibilityState === "hidden";
    const step = scrollStep(t.el, position);
    if (step) return { step, hidden };
    const box = visibleBox(t.el);
    const p = pressPoint(box, position);
    const hit = force ? null : hitTest(t.el, p.x, p.y);
    // only in the top document: a frame's press point depends on its offset in the page
    const top = t.el.ownerDocument.defaultView === t.el.ownerDocument.defaultView.top;
    if (armClick && !force && !hit && top) {
      arm(node, t.el, p.x, p.y);
      return { box, hit, hidden, armed: true };
    }
    return { box, hit, hidden };
  };

  // ---- entry points (first argument: the element) ------------------------------------------
  const API = {
    version: 2,
    check,
    // check(), then (if it passes) API[name](node, ...args) in the same call
    checkThen: (node, action, name, ...args) => {
      const b = check(node, action);
      if (b) return { blocker: b };
      return { value: API[name](node, ...args) };
    },
    pointerPrep,
    disarm,
    // after the move: hit test at (x, y) (unless forced), then a fresh box
    afterMove: (node, action, x, y, force) => {
      const t = actionTarget(node, action);
      if (!t.el || !t.el.isConnected) return { hit: force ? null : "element is not attached to the DOM", box: null };
      const hit = force ? null : hitTest(t.el, x, y);
      return { hit, box: visibleBox(t.el) };
    },
    // fill's first look: the target (is it the element itself?), the next wheel step; when
    // in view and the target is the element, fillPrepare and isFocused in the same call
    fillStart: (node, value, clearFirst) => {
      const t = actionTarget(node, "fill");
      if (!t.el || t.detached) return { detached: true };
      const same = t.el === node;
      const step = scrollStep(t.el, null);
      if (step || !same) return { same, step: !!step };
      const prep = fillPrepare(node, value, clearFirst);
      if (prep.error || prep.done) return { same, prep };
      return { same, prep, focused: isFocused(t.el) };
    },
    describe: (el) => describe(toElement(el)),
    // the element input is aimed at, as a handle (the driver keeps it for the action)
    target: (node, action) => actionTarget(node, action).el || null,
    // geometry of the action target: rect + visible part, viewport coords of its frame
    box: (node, action) => {
      const t = actionTarget(node, action);
      if (!t.el || t.detached) return null;
      return visibleBox(t.el);
    },
    scrollStep: (node, action, position) => {
      const t = actionTarget(node, action);
      const step = t.el ? scrollStep(t.el, position) : null;
      // the scroll position the wheel's settling compares against, read in the same call
      if (step) step.pos = scrollPos(t.el);
      return step;
    },
    scrollPos: (node, action) => scrollPos(actionTarget(node, action).el),
    hitTest: (node, action, x, y) => {
      const t = actionTarget(node, action);
      if (!t.el || !t.el.isConnected) return "element is not attached to the DOM";
      return hitTest(t.el, x, y);
    },
    fillPrepare,
    fillVerify,
    focusForFill: (node, clearFirst) => { focusAndSelect(actionTarget(node, "fill").el, clearFirst); return isFocused(actionTarget(node, "fill").el); },
    isFocused: (node, action) => isFocused(actionTarget(node, action).el),
    linkAt,
    safePoint,
    selectOption,
    focus: (node, action) => {
      const el = actionTarget(node, action || "focus").el;
      if (!el) return false;
      if (el.isContentEditable) {
        const a = el.ownerDocument.activeElement;
        if (a && a !== el && a.blur && !isFocused(el)) a.blur();
      }
      el.focus();
      return isFocused(el) || el.ownerDocument.activeElement === el ||
        (el.shadowRoot && el.shadowRoot.delegatesFocus);
    },
    // the fillable descendants of a wrapper that holds several (what an ambiguity error lists)
    fillTargets: (node) => {
      const el = toElement(node);
      return (el && fillTarget(el).all) || [];
    },
    // resolves after `frames` animation frames (used instead of sleeping between steps)
    raf: (node, frames) => new Promise((resolve) => {
      let n = frames || 1;
      const tick = () => (--n <= 0 ? resolve(true) : requestAnimationFrame(tick));
      requestAnimationFrame(tick);
    }),
    // after a wheel: animation frames until the scroll position has changed (at most 20);
    // true if it moved. No wait for stillness (the box is read again before the press, and a
    // click's hit is tested as its press lands); one call where a frame and a read each were
    // a round trip of their own
    settleScroll: (node, action, before) => new Promise((resolve) => {
      let n = 0;
      const tick = () => {
        if (scrollPos(actionTarget(node, action).el || toElement(node)) !== before) return resolve(true);
        if (++n >= 20) return resolve(false);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }),
    // resolves on the next DOM/attribute change under the element's document, or after `ms`
    change: (node, ms) => new Promise((resolve) => {
      const doc = (toElement(node) || document.documentElement).ownerDocument;
      const mo = new MutationObserver(() => { mo.disconnect(); resolve("mutation"); });
      mo.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
      setTimeout(() => { mo.disconnect(); resolve("timeout"); }, ms);
    }),
  };
  return API;
})()
