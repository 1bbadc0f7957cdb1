// ego_browser snapshot walker: installed once per isolated world ("ego_snapshot") of a frame.
//
// __egoSnap(root, opts) walks one document (or the subtree of `root`), open shadow roots
// included, child frames excluded (each frame is walked by its own call), and returns
//   [token, json, newElements]
// json = {"r": rows, "e": lids of newElements, "p": pending count, "k": keys|null}
// rows = flat preorder array, stride 9: depth, role, name, flags, lid, url, locs, state, value
//   flags: 1 ref-bearing, 4 iframe, 8 lazy iframe
//   url:   a link's href; same-origin ones as a path (/a?b#c), relative to this document
//   state: "[checked] [disabled] ..." (element_state.js, formatted by stateText), value: ": value" text
//   lid:   per-document local id of a ref-bearing element or iframe (0 otherwise). Elements
//          that get a new lid are returned in newElements (their lids in "e"), so that the
//          caller learns their backend node ids once per document; with opts.eager false only
//          iframes are, and the others wait in `pending` until __egoSnapTake() hands them over
// opts = {viewport, locs, marks, eager, reset, allKeys, countAll}
//   locs:  locally unique stable-locator candidates, best first, separated by "\x1f"
// keys = every locator key of this document with its count (for uniqueness across frames)
// Nothing here mutates the page, focuses, scrolls or loads anything.
(() => {
  if (globalThis.__egoSnap) return globalThis.__egoSnapToken;
  const token = Math.random().toString(36).slice(2) + Date.now().toString(36);
  let lids = new WeakMap();
  let nextLid = 1;
  // elements given a local id whose backend node id the caller has not fetched yet (lazy mode)
  const pending = new Map();
  // hands the pending elements over: [json [lid, ...], [element, ...]]
  globalThis.__egoSnapTake = function () {
    const ids = [], els = [];
    for (const [id, el] of pending) { ids.push(id); els.push(el); }
    pending.clear();
    return [JSON.stringify(ids), els];
  };

  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'treeitem', 'scrollbar', 'gridcell']);
  const ALWAYS_REF = new Set(['iframe', 'dialog', 'alertdialog']);
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'gridcell',
    'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'tooltip', 'switch', 'checkbox',
    'radio', 'term', 'legend', 'caption', 'code', 'strong', 'emphasis']);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BASE']);
  const BLOCK = new Set(['DIV', 'P', 'LI', 'UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'TR', 'TD', 'TH', 'TABLE',
    'SECTION', 'ARTICLE', 'HEADER', 'FOOTER', 'NAV', 'MAIN', 'ASIDE', 'FORM', 'FIELDSET', 'BLOCKQUOTE', 'PRE',
    'DL', 'DT', 'DD', 'FIGURE', 'FIGCAPTION', 'ADDRESS', 'BR', 'HR', 'LABEL', 'SUMMARY', 'DETAILS']);
  // (a <slot> stands for the nodes assigned to it: they are walked in its place)
  const TRANSPARENT = new Set(['HTML', 'BODY', 'THEAD', 'TBODY', 'TFOOT', 'SLOT']);
  const LANDMARK_IN_SECTION = new Set(['ARTICLE', 'ASIDE', 'MAIN', 'NAV', 'SECTION']);
  const ROLE_ALIASES = {image: 'img', none: 'presentation'};
  const VALID_ROLES = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button',
    'caption', 'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition',
    'deletion', 'dialog', 'directory', 'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid',
    'gridcell', 'group', 'heading', 'img', 'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'mark',
    'marquee', 'math', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'meter', 'navigation',
    'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row',
    'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status',
    'strong', 'subscript', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time',
    'timer', 'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem']);
  const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;
  const stateOf = __EGO_ELEMENT_STATE__;
  // roles whose lines can carry a state or a value (besides ref-bearing nodes)
  const STATE_ROLES = new Set(['heading', 'option', 'row', 'tab', 'treeitem', 'cell', 'columnheader', 'rowheader',
    'progressbar', 'listbox', 'combobox', 'slider', 'spinbutton', 'textbox', 'searchbox', 'checkbox', 'radio']);
  // tags whose text flows with the text around them (merged into one text line when they hold only text)
  const INLINE = new Set(['SPAN', 'B', 'I', 'EM', 'STRONG', 'SMALL', 'CODE', 'ABBR', 'CITE', 'Q', 'SUB', 'SUP',
    'MARK', 'U', 'S', 'DEL', 'INS', 'KBD', 'SAMP', 'VAR', 'TT', 'FONT', 'BDI', 'BDO', 'DFN', 'TIME', 'DATA', 'BIG',
    'STRIKE', 'NOBR', 'WBR']);
  const WS = /[\s\u00a0]+/g;
  const WS_ONLY = /^[\s\u00a0]*$/;

  const collapse = (s) => (s ? s.replace(WS, ' ').trim() : '');
  // one state text per element: "[level=2]", "[checked] [disabled]", ...; value separately
  function stateText(st) {
    let out = '';
    if (st.level !== null) out += ' [level=' + st.level + ']';
    if (st.checked === true) out += ' [checked]'; else if (st.checked === 'mixed') out += ' [checked=mixed]';
    if (st.pressed === true) out += ' [pressed]'; else if (st.pressed === 'mixed') out += ' [pressed=mixed]';
    if (st.selected === true) out += ' [selected]';
    if (st.expanded === true) out += ' [expanded]'; else if (st.expanded === false) out += ' [collapsed]';
    if (st.disabled) out += ' [disabled]';
    if (st.required) out += ' [required]';
    if (st.invalid) out += ' [invalid]';
    if (st.readonly) out += ' [readonly]';
    if (st.focused) out += ' [focused]';
    return out.length ? out.slice(1) : '';
  }
  function deepActive(doc) {
    let a = doc.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a === doc.body || a === doc.documentElement ? null : a;
  }
  const squash = (s) => s.replace(WS, '');
  const q = (s) => (s.indexOf('"') < 0 && s.indexOf('\\') < 0) ? '"' + s + '"'
    : '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  // an attribute value in a CSS locator: bare when it is a plain identifier, else quoted
  const qa = (s) => (IDENT.test(s) ? s : q(s));
  const nameKey = (el, nm) => 'css:' + el.localName + '[name=' + qa(nm) + ']';
  const VIS = {visibilityProperty: true};

  function inputRole(el) {
    const t = (el.getAttribute('type') || 'text').toLowerCase();
    switch (t) {
      case 'hidden': return null;
      case 'button': case 'submit': case 'reset': case 'image': return 'button';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'file': return 'button';
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'email': case 'tel': case 'text': case 'url': case 'password':
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      case 'color': case 'date': case 'datetime-local': case 'month': case 'time': case 'week': return 'textbox';
      default: return 'textbox';
    }
  }

  function implicitRole(el, tag) {
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : 'container';
      case 'BUTTON': return 'button';
      case 'INPUT': return inputRole(el);
      case 'TEXTAREA': return 'textbox';
      case 'SELECT': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'OPTION': return 'option';
      case 'OPTGROUP': return 'group';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'UL': case 'OL': case 'MENU': return 'list';
      case 'LI': return 'listitem';
      case 'TABLE': return 'table';
      case 'TR': return 'row';
      case 'TD': return 'cell';
      case 'TH': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'CAPTION': return 'caption';
      case 'IMG': return 'img';
      case 'SVG': case 'svg': return 'svg';
      case 'CANVAS': return 'canvas';
      case 'IFRAME': case 'FRAME': return 'iframe';
      case 'DIALOG': return 'dialog';
      case 'NAV': return 'navigation';
      case 'MAIN': return 'main';
      case 'ASIDE': return 'complementary';
      case 'HEADER': case 'FOOTER': {
        for (let p = el.parentElement; p; p = p.parentElement) if (LANDMARK_IN_SECTION.has(p.tagName)) return 'container';
        return tag === 'HEADER' ? 'banner' : 'contentinfo';
      }
      case 'FORM': return 'form';
      case 'SECTION': return (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) ? 'region' : 'container';
      case 'ARTICLE': return 'article';
      case 'P': return 'paragraph';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'FIELDSET': return 'group';
      case 'DETAILS': return 'group';
      case 'SUMMARY': return 'button';
      case 'HR': return 'separator';
      case 'PROGRESS': return 'progressbar';
      case 'METER': return 'meter';
      case 'OUTPUT': return 'status';
      case 'DL': return 'list';
      case 'DT': return 'term';
      case 'DD': return 'definition';
      case 'FIGURE': return 'figure';
      case 'VIDEO': return 'video';
      case 'AUDIO': return 'audio';
      default: return 'container';
    }
  }

  function roleOf(el, tag) {
    const attr = el.getAttribute('role');
    if (attr) {
      for (let r of attr.trim().toLowerCase().split(/\s+/)) {
        r = ROLE_ALIASES[r] || r;
        if (VALID_ROLES.has(r)) {
          if (r === 'generic' || r === 'presentation') return isFocusable(el, tag) ? implicitRole(el, tag) : 'container';
          return r;
        }
      }
    }
    return implicitRole(el, tag);
  }

  function isFocusable(el, tag) {
    if (el.hasAttribute('tabindex')) return el.tabIndex >= 0 || el.getAttribute('tabindex') !== null;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    switch (tag) {
      case 'BUTTON': case 'SELECT': case 'TEXTAREA': case 'IFRAME': case 'SUMMARY': return true;
      case 'INPUT': return el.type !== 'hidden';
      case 'A': case 'AREA': return el.hasAttribute('href');
    }
    return false;
  }

  function byId(el, id) {
    const root = el.getRootNode();
    return (root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id);
  }

  // text of a subtree for name computation (accname "name from content", simplified like Chromium)
  function textOf(node, skipEl, depth) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || depth > 20) return '';
    const el = node;
    if (el === skipEl) {
      return '';
    }
    const tag = el.tagName;
    if (SKIP.has(tag)) return '';
    if (depth > 0) {
      if (el.getAttribute('aria-hidden') === 'true') return '';
      if (!el.checkVisibility() && !boxless(el)) return '';
      const al = el.getAttribute('aria-label');
      if (al && al.trim()) return ' ' + al + ' ';
      if (tag === 'IMG') return ' ' + (el.getAttribute('alt') || '') + ' ';
      if (tag === 'INPUT') {
        const r = inputRole(el);
        if (r === 'button') return ' ' + (el.value || '') + ' ';
        if (r === 'textbox' || r === 'searchbox' || r === 'combobox' || r === 'spinbutton') return ' ' + el.value + ' ';
        return '';
      }
      if (tag === 'SELECT') {
        const o = el.selectedOptions && el.selectedOptions[0];
        return ' ' + (o ? o.textContent : '') + ' ';
      }
      if (tag === 'TEXTAREA') return ' ' + el.value + ' ';
    }
    let out = '';
    const sr = el.shadowRoot;
    const kids = sr ? sr.childNodes : el.childNodes;
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      if (k.nodeType === 1 && k.tagName === 'SLOT') {
        const assigned = k.assignedNodes();
        const list = assigned.length ? assigned : k.childNodes;
        for (let j = 0; j < list.length; j++) out += textOf(list[j], skipEl, depth + 1);
      } else if (k.nodeType === 1 && BLOCK.has(k.tagName)) {
        out += ' ' + textOf(k, skipEl, depth + 1) + ' ';
      } else {
        out += textOf(k, skipEl, depth + 1);
      }
    }
    return out;
  }

  function labelsText(el) {
    const labels = el.labels;
    if (!labels || !labels.length) return '';
    let s = '';
    for (let i = 0; i < labels.length; i++) s += ' ' + textOf(labels[i], el, 0);
    return collapse(s);
  }

  function nameOf(el, tag, role) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      let s = '';
      for (const id of lb.trim().split(/\s+/)) {
        const t = byId(el, id);
        if (t) s += ' ' + (t === el ? (el.getAttribute('aria-label') || '') : textOf(t, null, 0));
      }
      s = collapse(s);
      if (s) return s;
    }
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) return collapse(al);
    let s = '';
    switch (tag) {
      case 'INPUT': {
        const t = (el.getAttribute('type') || 'text').toLowerCase();
        if (t === 'button' || t === 'submit' || t === 'reset') {
          s = el.getAttribute('value');
          if (s === null) s = t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '';
          s = collapse(s);
          if (s) return s;
          break;
        }
        if (t === 'image') { s = collapse(el.getAttribute('alt') || el.getAttribute('value') || ''); return s || 'Submit'; }
        s = labelsText(el); if (s) return s;
        s = collapse(el.getAttribute('title')); if (s) return s;
        return collapse(el.getAttribute('placeholder'));
      }
      case 'TEXTAREA': case 'SELECT': {
        s = labelsText(el); if (s) return s;
        s = collapse(el.getAttribute('title')); if (s) return s;
        return tag === 'TEXTAREA' ? collapse(el.getAttribute('placeholder')) : '';
      }
      case 'BUTTON': case 'METER': case 'PROGRESS': case 'OUTPUT':
        s = labelsText(el); if (s) return s; break;
      case 'IMG': case 'AREA':
        s = collapse(el.getAttribute('alt')); if (s) return s; break;
      case 'FIELDSET': {
        const lg = el.querySelector(':scope > legend'); if (lg) { s = collapse(textOf(lg, null, 0)); if (s) return s; } break;
      }
      case 'TABLE': {
        const c = el.caption; if (c) { s = collapse(textOf(c, null, 0)); if (s) return s; } break;
      }
      case 'FIGURE': {
        const c = el.querySelector(':scope > figcaption'); if (c) { s = collapse(textOf(c, null, 0)); if (s) return s; } break;
      }
      case 'IFRAME': case 'FRAME':
        return collapse(el.getAttribute('title'));
      case 'SVG': case 'svg': {
        const t = el.querySelector(':scope > title'); if (t) { s = collapse(t.textContent); if (s) return s; } break;
      }
    }
    if (NAME_FROM_CONTENT.has(role)) {
      s = collapse(textOf(el, null, 0));
      if (s) return s;
    }
    return collapse(el.getAttribute('title'));
  }

  // display: contents (every <slot>, many custom element hosts) makes no box of its own, so
  // checkVisibility() says false, yet its children are laid out in its place
  const boxless = (el) => getComputedStyle(el).display === 'contents';

  function countKey(keys, k) { keys.set(k, (keys.get(k) || 0) + 1); }

  function countAttrs(h, keys, hrefKeys) {
    const id = h.id;
    if (id) countKey(keys, 'css:#' + id);
    const nm = h.getAttribute('name');
    if (nm !== null) countKey(keys, nameKey(h, nm));
    const tid = h.getAttribute('data-testid');
    if (tid !== null) countKey(keys, 'css:[data-testid=' + qa(tid) + ']');
    const tag = h.tagName;
    if ((tag === 'A' || tag === 'AREA') && h.hasAttribute('href')) {
      countKey(keys, 'href:' + h.getAttribute('href'));
      countKey(hrefKeys, stripHash(String(h.href)));
    }
  }

  function countHidden(el, keys, hrefKeys) {
    // a hidden subtree still counts for CSS and href locators (the selector engine sees it)
    if (el.hasAttributes()) countAttrs(el, keys, hrefKeys);
    const list = el.querySelectorAll('[id],[name],[data-testid],a[href],area[href]');
    for (let i = 0; i < list.length; i++) countAttrs(list[i], keys, hrefKeys);
  }

  function stripHash(u) {
    const i = u.indexOf('#');
    return i < 0 ? u : u.slice(0, i);
  }

  // roles whose name comes from content but that are not controls: when their content is shown
  // as child lines the name is not repeated on their own line
  function structuralFromContent(role) {
    return NAME_FROM_CONTENT.has(role) && !INTERACTIVE.has(role);
  }

  globalThis.__egoSnap = function (root, opts) {
    const viewport = !!opts.viewport;
    const wantLocs = !!opts.locs;
    // with action marks every locator candidate sits on a line that has a ref and shows its role
    // and name, so role locators are implied and never printed: no need to count them
    const roleLocs = wantLocs && !opts.marks;
    const doc = document;
    const vw = window.innerWidth, vh = window.innerHeight;
    const rows = [];
    const origin = location.origin && location.origin !== 'null' ? location.origin : '';
    const active = deepActive(doc);
    const ariaDisabled = doc.querySelector('[aria-disabled]') !== null;
    if (root && !root.isConnected) return [token, '{"gone":1}', []];  // removed or replaced
    if (opts.reset) {
      // the caller lost its map of local ids (a new host, or a new world record): start over
      lids = new WeakMap();
      pending.clear();
    }
    const newEls = [];
    const newIds = [];
    const eager = !!opts.eager;
    const keys = new Map();       // locator key -> count in this document
    const hrefKeys = new Map();   // resolved href (no fragment) -> count
    const cands = [];             // [rowIndex, el, role, name] for ref rows (locator candidates)
    let labelForIds = null;       // ids a <label for=...> names, read once per walk when needed

    // a button that a <label> names (el.labels is exact but scans the document: on a page of
    // 500 buttons, asked of each, it cost the first snapshot ~28 ms; most buttons have none)
    function hasLabel(el) {
      if (!el.closest('label')) {
        if (!el.id) return false;
        if (labelForIds === null) {
          labelForIds = new Set();
          for (const l of doc.querySelectorAll('label[for]')) labelForIds.add(l.htmlFor);
        }
        if (!labelForIds.has(el.id)) return false;
      }
      return !!(el.labels && el.labels.length);
    }

    // iframes always come back as nodes (their backend id hangs child frames under them)
    function lidOf(el, now) {
      let id = lids.get(el);
      if (id === undefined) {
        id = nextLid++;
        lids.set(el, id);
        if (eager || now) { newEls.push(el); newIds.push(id); } else pending.set(id, el);
      }
      return id;
    }

    function inView(el, box) {
      const r = box || el.getBoundingClientRect();
      return r.right >= 0 && r.bottom >= 0 && r.left <= vw && r.top <= vh && (r.width > 0 || r.height > 0);
    }

    // returns true when something in view was emitted (viewport scope), else whether anything was emitted
    function walkChildren(parent, depth, parentVisible) {
      const sr = parent.nodeType === 1 ? parent.shadowRoot : null;
      if (sr) return walkList(sr.childNodes, depth, parentVisible);
      if (parent.nodeType === 1 && parent.tagName === 'SLOT') {
        const assigned = parent.assignedNodes();
        return walkList(assigned.length ? assigned : parent.childNodes, depth, parentVisible);
      }
      return walkList(parent.childNodes, depth, parentVisible);
    }

    // viewport scope: a table row lies inside its own box (cells are laid out in it), so an
    // off-screen row is skipped without measuring its cells, and once a row is below the
    // viewport, the rows after it in the same section are too
    let rowBelow = false;

    function skipOffscreen(el) {
      if (wantLocs) countHidden(el, keys, hrefKeys);
    }

    // parentVisible for text: 1 (shown), 2 (shown but out of the viewport) or 0 (hidden)
    // Adjacent inline text runs (text nodes and inline elements that hold only text, such as
    // "Welcome, <b>admin</b>.") make one text line. Text rows keep their edge spaces (collapsed to
    // one) while they can still grow, so that joined runs read as the page shows them; the core
    // trims them when it prints.
    function walkList(list, depth, parentVisible) {
      let any = false;
      let below = false;
      let run = -1;  // row index of the open text line at this depth
      for (let i = 0; i < list.length; i++) {
        const k = list[i];
        const nt = k.nodeType;
        if (nt === 3) {
          if (parentVisible !== 1) continue;
          const t = k.data;
          if (t.length === 0) continue;
          const c = t.replace(WS, ' ');
          if (run >= 0 && run === rows.length - 9) {
            rows[run + 2] += c;
            continue;
          }
          if (c === ' ') continue;
          run = rows.length;
          rows.push(depth, 'text', c, 0, 0, '', '', '', '');
          any = true;
        } else if (nt === 1) {
          const tag = k.tagName;
          if (below && tag === 'TR') { skipOffscreen(k); continue; }
          rowBelow = false;
          const at = rows.length;
          if (walkEl(k, depth, parentVisible)) any = true;
          if (rowBelow) below = true;
          if (INLINE.has(tag) && rows.length > at && inlineOnly(at, depth)) {
            const txt = rows.length > at + 9 ? rows[at + 11] : '';
            rows.length = at;
            if (run >= 0 && run === at - 9) {
              rows[run + 2] += txt;
            } else if (txt && txt !== ' ') {
              run = at;
              rows.push(depth, 'text', txt, 0, 0, '', '', '', '');
            }
          } else if (rows.length > at || BLOCK.has(tag)) {
            run = -1;
          }
        }
      }
      return any;
    }

    // the rows from `at` are a plain wrapper (no role, name, ref or state) over at most one text line
    function inlineOnly(at, depth) {
      const n = rows.length - at;
      if (n !== 9 && n !== 18) return false;
      if (rows[at + 1] !== 'container' || rows[at + 2] || rows[at + 3] || rows[at + 7]) return false;
      return n === 9 || (rows[at + 10] === 'text' && rows[at + 9] === depth + 1);
    }

    function rowOffscreen(el) {
      const r = el.getBoundingClientRect();
      if (r.top > vh) { rowBelow = true; return true; }
      if (r.left > vw || r.right < 0) return true;
      if (r.bottom < 0) {
        // a cell spanning rows reaches below its row
        const cells = el.cells;
        for (let i = 0; i < cells.length; i++) if (cells[i].rowSpan !== 1) return false;
        return true;
      }
      return false;
    }

    // pv: what walkList says of the parent (1 shown, 2 shown out of the viewport, 0 hidden)
    function walkEl(el, depth, pv) {
      const tag = el.tagName;
      if (SKIP.has(tag)) return false;
      const hasAttrs = el.hasAttributes();
      // one call in the common case: visible with the visibility property implies rendered
      let visible = el.checkVisibility(VIS);
      // a box of its own to measure (display: contents has none: it is where its parent is)
      let boxed = true;
      if (!visible && !el.checkVisibility()) {
        // the walk only reaches an element whose ancestors are rendered, so display: contents
        // here means shown in its parent's place
        const cs = getComputedStyle(el);
        if (cs.display !== 'contents') {
          if (wantLocs) countHidden(el, keys, hrefKeys);
          return false;
        }
        boxed = false;
        visible = cs.visibility === 'visible';
      }
      if (hasAttrs && el.getAttribute('aria-hidden') === 'true') {
        if (wantLocs) countHidden(el, keys, hrefKeys);
        return false;
      }
      if (viewport && tag === 'TR' && visible && !roleLocs && rowOffscreen(el)) {
        skipOffscreen(el);
        return false;
      }
      if (TRANSPARENT.has(tag) && !(hasAttrs && el.hasAttribute('role'))) {
        return walkChildren(el, depth, visible ? (viewport && !(boxed ? inView(el) : pv === 1) ? 2 : 1) : 0);
      }
      const role = hasAttrs ? roleOf(el, tag) : implicitRole(el, tag);
      if (role === null) return false;
      if (role === 'iframe' && (el.loading === 'lazy' || el.getAttribute('loading') === 'lazy')) {
        let cd = null;
        try { cd = el.contentDocument; } catch (e) { cd = null; }
        const src = el.getAttribute('src');
        if (cd && cd.URL === 'about:blank' && src && src !== 'about:blank' && !el.hasAttribute('srcdoc')) return false;
      }
      const focusable = hasAttrs || tag === 'BUTTON' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'IFRAME' ||
        tag === 'SUMMARY' || tag === 'INPUT' ? isFocusable(el, tag) : false;
      let isRef = INTERACTIVE.has(role) || ALWAYS_REF.has(role) || focusable;
      if (role === 'option' && el.closest('select')) isRef = false;
      let box = null;
      if (isRef && visible && !ALWAYS_REF.has(role)) {
        // no pointer reaches a zero-size box (an icon link whose image failed, a collapsed menu):
        // the line stays, without a ref (the action layer would refuse it as zero-sized)
        box = el.getBoundingClientRect();
        if (!(box.width > 0 && box.height > 0) && getComputedStyle(el).display !== 'contents') isRef = false;
      }
      if (isRef && focusable && !INTERACTIVE.has(role) && !ALWAYS_REF.has(role) && !el.isContentEditable &&
          visible && saysNothing(el, tag, role)) {
        // focusable only to take keyboard focus (a menu's separator, a widget's spacer): nothing
        // on it says what acting on it would do
        isRef = false;
      }
      const start = rows.length;
      const here = viewport ? (boxed ? inView(el, box) : pv === 1) : true;
      const labelled = hasAttrs && (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby'));
      let name = '';
      let deferName = false;
      let flags = 0;
      let lid = 0;
      let url = '';
      if (visible) {
        if (wantLocs && hasAttrs) {
          const id = el.id;
          if (id) countKey(keys, 'css:#' + id);
          const nm = el.getAttribute('name');
          if (nm !== null) countKey(keys, nameKey(el, nm));
          const tid = el.getAttribute('data-testid');
          if (tid !== null) countKey(keys, 'css:[data-testid=' + qa(tid) + ']');
          if (role === 'link' && el.hasAttribute('href')) {
            countKey(keys, 'href:' + el.getAttribute('href'));
            countKey(hrefKeys, stripHash(String(el.href)));
          }
        }
        if (role !== 'container' || labelled) {
          // cheap path: name from a single text child
          const fc = el.firstChild;
          // (not for a control with a <label>: its name is the label's, as nameOf says, and a
          // label repeating it is dropped on that ground: <label>Beta<button>alpha</button></label>)
          if (NAME_FROM_CONTENT.has(role) && fc && fc.nodeType === 3 && !fc.nextSibling && !labelled &&
              !el.shadowRoot && tag !== 'INPUT' && tag !== 'SELECT' && tag !== 'TEXTAREA' && tag !== 'IMG' &&
              !(tag === 'BUTTON' && hasLabel(el))) {
            name = collapse(fc.data);
          } else if ((structuralFromContent(role) && !labelled) || (viewport && !here && !roleLocs)) {
            // computed after the children: often not needed at all
            deferName = true;
          } else {
            name = nameOf(el, tag, role);
          }
        }
        if (isRef) { flags |= 1; }
        if (role === 'iframe') {
          flags |= 4;
          if (el.loading === 'lazy' || el.getAttribute('loading') === 'lazy') flags |= 8;
        }
        if (isRef || role === 'iframe') lid = lidOf(el, role === 'iframe');
        if (role === 'link') {
          url = el.href ? String(el.href) : '';
          if (origin && url.length > origin.length && url.startsWith(origin) && url[origin.length] === '/') {
            url = url.slice(origin.length);
          }
        }
        if (roleLocs && isRef && INTERACTIVE.has(role)) countKey(keys, 'role:' + role + '[name=' + q(name) + ']');
        let st = '', val = '';
        if (isRef || STATE_ROLES.has(role)) {
          const s = stateOf(el, role, active, ariaDisabled);
          st = stateText(s);
          if (s.value) val = s.value;
        }
        rows.push(depth, role, name, flags, lid, url, '', st, val);
        if (wantLocs && isRef) cands.push(start, el, role, name);
      } else {
        // visibility:hidden element: not shown itself, but a visible descendant can be
        rows.push(depth, 'container', '', 0, 0, '', '', '', '');
      }
      let any = false;
      if (tag === 'SELECT') {
        if (visible && here) {
          for (const o of el.options) {
            const st = o.selected ? (o.disabled ? '[selected] [disabled]' : '[selected]') : o.disabled ? '[disabled]' : '';
            rows.push(depth + 1, 'option', collapse(o.label || o.textContent), 0, 0, '', '', st, '');
          }
        }
      } else if (role !== 'iframe' && tag !== 'TEXTAREA' && tag !== 'INPUT' && tag !== 'IMG' && tag !== 'CANVAS') {
        const childStart = rows.length;
        any = walkChildren(el, depth + 1, visible ? (here ? 1 : 2) : 0);
        if (deferName && (any || !viewport || here)) {
          if (structuralFromContent(role) && !labelled) {
            // shown content: no name on this line, unless the content is text only and is the name
            if (rows.length === childStart) {
              name = nameOf(el, tag, role);
            } else if (onlyText(childStart)) {
              const nm = nameOf(el, tag, role);
              if (nm && squash(joinText(childStart)) === squash(nm)) { rows.length = childStart; name = nm; }
            }
          } else {
            name = nameOf(el, tag, role);
          }
          rows[start + 2] = name;
        } else if (visible && name && NAME_FROM_CONTENT.has(role) && rows.length > childStart) {
          // name from content that repeats the text children: print it once, on this line
          if (onlyText(childStart) && squash(joinText(childStart)) === squash(name)) rows.length = childStart;
          else if (!INTERACTIVE.has(role) && !labelled) rows[start + 2] = '';
        }
        if (tag === 'LABEL' && visible && rows.length > childStart) dropLabelRepeat(el, depth + 1, childStart);
      }
      if (viewport && !here && !any) {
        rows.length = start;
        while (cands.length && cands[cands.length - 4] >= start) cands.length -= 4;
        return false;
      }
      return true;
    }

    // a label's own text that only repeats the name of its (shown) control is printed once, as
    // that name: <label for=email>Email</label> <input id=email> prints one line, textbox "Email"
    function dropLabelRepeat(label, depth, from) {
      const ctl = label.control;
      // the control must print in this walk (a subtree rooted at the label would lose the text)
      if (!ctl || (root && !root.contains(ctl)) || !ctl.checkVisibility() || (viewport && !inView(ctl))) return;
      const inside = label.contains(ctl);
      let text = '', others = 0;
      for (let i = from; i < rows.length; i += 9) {
        if (rows[i] !== depth) continue;
        if (rows[i + 1] === 'text') text += rows[i + 2];
        else others++;
      }
      if (!text || others > (inside ? 1 : 0)) return;
      const ctag = ctl.tagName;
      if (squash(text) !== squash(nameOf(ctl, ctag, roleOf(ctl, ctag)))) return;
      const kept = [];
      const moved = new Map();  // old row index -> new one (locator candidates point at rows)
      for (let i = from; i < rows.length; i += 9) {
        if (rows[i] === depth && rows[i + 1] === 'text') continue;
        moved.set(i, from + kept.length);
        for (let j = 0; j < 9; j++) kept.push(rows[i + j]);
      }
      rows.length = from;
      for (let i = 0; i < kept.length; i++) rows.push(kept[i]);
      for (let i = cands.length - 4; i >= 0 && cands[i] >= from; i -= 4) cands[i] = moved.get(cands[i]);
    }

    // no text and no name: neither its content nor a label says what it is
    function saysNothing(el, tag, role) {
      if (!el.shadowRoot && !WS_ONLY.test(el.textContent)) return false;  // the common case, cheaply
      return !collapse(textOf(el, null, 0)) && !nameOf(el, tag, role) && !el.querySelector('img, svg, canvas, input');
    }

    function onlyText(from) {
      for (let i = from; i < rows.length; i += 9) {
        const r = rows[i + 1];
        if (rows[i + 3] !== 0) return false;
        if (r === 'text') continue;
        if (r === 'container' && !rows[i + 2]) continue;
        return false;
      }
      return true;
    }

    function joinText(from) {
      let joined = '';
      for (let i = from; i < rows.length; i += 9) if (rows[i + 1] === 'text') joined += rows[i + 2];
      return joined;
    }

    let top = root;
    if (!top) {
      top = doc.documentElement;
      rows.push(0, 'root', '', 0, 0, '', '', '', '');
      if (top) walkEl(top, 1, 1);
    } else {
      walkEl(top, 0, 1);
      if (wantLocs && opts.countAll) {
        // locator uniqueness is judged against the whole document, not only the subtree
        const save = rows.length;
        const cmark = cands.slice();
        keys.clear(); hrefKeys.clear();
        walkEl(doc.documentElement, 0, 1);
        rows.length = save;
        cands.length = 0;
        for (let i = 0; i < cmark.length; i++) cands.push(cmark[i]);
      }
    }

    if (wantLocs) {
      for (let i = 0; i < cands.length; i += 4) {
        const at = cands[i], el = cands[i + 1], role = cands[i + 2], name = cands[i + 3];
        const out = [];
        if (el.hasAttributes()) {
          const id = el.id;
          if (id && IDENT.test(id) && keys.get('css:#' + id) === 1) out.push('css:#' + id);
          if (role === 'link' && el.hasAttribute('href')) {
            const raw = el.getAttribute('href');
            if (raw.indexOf('#') < 0 && keys.get('href:' + raw) === 1 && hrefKeys.get(stripHash(String(el.href))) === 1) {
              out.push('href:' + raw);
            }
          }
          const tid = el.getAttribute('data-testid');
          if (tid !== null) {
            const k = 'css:[data-testid=' + qa(tid) + ']';
            if (keys.get(k) === 1) out.push(k);
          }
          const nm = el.getAttribute('name');
          if (nm !== null) {
            const k = nameKey(el, nm);
            if (keys.get(k) === 1) out.push(k);
          }
        }
        if (roleLocs && name && INTERACTIVE.has(role)) {
          const k = 'role:' + role + '[name=' + q(name) + ']';
          if (keys.get(k) === 1) out.push(k);
        }
        if (out.length) {
          if (out.length > 1) out.sort((a, b) => a.length - b.length);
          rows[at + 6] = out.length > 1 ? out.join('\x1f') : out[0];
        }
      }
    }
    let keyList = null;
    if (wantLocs && opts.allKeys) {
      keyList = [];
      for (const [k, v] of keys) keyList.push(k, v);
    }
    capText(rows);
    return [token, JSON.stringify({r: rows, e: newIds, p: pending.size, k: keyList}), newEls];
  };
  // a page's text is bounded per line and per look (a 50 MB text node printed 52 MB): a line's name
  // or value keeps its first NODE_TEXT chars, and once the look has TOTAL_TEXT chars of text, each
  // later one keeps LATE_TEXT. Lines are only shortened, never dropped: no control is lost. The
  // mark says what was cut and how to read it all (in the name's quotes: no quote, no backslash).
  const NODE_TEXT = 4000, TOTAL_TEXT = 400000, LATE_TEXT = 200;
  function capText(rows) {
    let used = 0;
    for (let i = 0; i < rows.length; i += 9) {
      for (const at of [i + 2, i + 8]) {
        const s = rows[at];
        if (!s) continue;
        const keep = used >= TOTAL_TEXT ? LATE_TEXT : Math.min(NODE_TEXT, Math.max(LATE_TEXT, TOTAL_TEXT - used));
        if (s.length > keep) {
          // never half a surrogate pair (a lone surrogate breaks the JSON answer's decoding)
          const k = (s.charCodeAt(keep - 1) & 0xfc00) === 0xd800 ? keep - 1 : keep;
          rows[at] = s.slice(0, k) + ' …[cut ' + (s.length - k) + ' chars; page.inner_text(selector) reads it all]';
          used += keep;
        } else {
          used += s.length;
        }
      }
    }
  }
  globalThis.__egoSnapToken = token;
  return token;
})()
