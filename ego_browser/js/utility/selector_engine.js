// ego_browser in-page selector engine.
//
// Installed once per execution context in the isolated "__ego_util" world (page scripts cannot
// see or patch it). Evaluating this file defines `globalThis.__egoSel` and yields `true`.
// The Python side (ego_browser/selectors/engine.py) sends a *spec* built by
// ego_browser/selectors/parse.py; nothing here parses selector strings except CSS validity,
// which only the browser can judge.
//
// Semantics follow Playwright's injected script (selectorEvaluator.ts, injectedScript.ts):
//  - text of an element: descendants' text incl. open shadow roots, minus script/style/noscript
//    and <head>; input[type=submit|button|reset] contributes its value; runs of *immediate*
//    text nodes end at child elements and continue across comments;
//  - normalisation: U+200B/U+00AD removed, trimmed, whitespace runs -> one space;
//  - query order per document: for each root (the document, then every open shadow root,
//    depth-first in host order) its matches in tree order; selector lists are merged in
//    "DOM order" where a host's light children precede its shadow content;
//  - combinators of a complex CSS selector may cross shadow hosts (parent of a shadow root's
//    child is the host).
(() => {
  const VERSION = 6;
  // the snapshot's element state (element_state.js, pasted in by the Python loader)
  const stateOf = __EGO_ELEMENT_STATE__;
  const G = globalThis;
  if (G.__egoSel && G.__egoSel.version === VERSION) return true;

  // ---------------------------------------------------------------- text
  const ZW = /[\u200b\u00ad]/g;
  const WS = /\s+/g;
  function norm(text) {
    return text.replace(ZW, '').trim().replace(WS, ' ');
  }

  function shouldSkipForText(node) {
    const name = node.nodeName;
    if (name === 'SCRIPT' || name === 'NOSCRIPT' || name === 'STYLE') return true;
    const doc = node.ownerDocument;
    return !!(doc && doc.head && doc.head.contains(node));
  }

  const EMPTY = { full: '', normalized: '', immediate: [] };

  // cache: Map<Node, {full, normalized, immediate}>; one per query run
  function elementText(cache, root) {
    let value = cache.get(root);
    if (value !== undefined) return value;
    if (shouldSkipForText(root)) {
      value = EMPTY;
    } else if (root.nodeName === 'INPUT' && (root.type === 'submit' || root.type === 'button' || root.type === 'reset')) {
      value = { full: root.value, normalized: norm(root.value), immediate: [root.value] };
    } else {
      value = { full: '', normalized: '', immediate: [] };
      let current = '';
      for (let child = root.firstChild; child; child = child.nextSibling) {
        const type = child.nodeType;
        if (type === 3) {
          const v = child.nodeValue || '';
          value.full += v;
          current += v;
        } else if (type === 8) {
          continue;
        } else {
          if (current) value.immediate.push(current);
          current = '';
          if (type === 1) value.full += elementText(cache, child).full;
        }
      }
      if (current) value.immediate.push(current);
      if (root.shadowRoot) value.full += elementText(cache, root.shadowRoot).full;
      if (value.full) value.normalized = norm(value.full);
    }
    cache.set(root, value);
    return value;
  }

  // 'none' | 'self' | 'selfAndChildren'
  function elementMatchesText(cache, element, matcher) {
    if (shouldSkipForText(element)) return 'none';
    if (!matcher(elementText(cache, element))) return 'none';
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1 && matcher(elementText(cache, child))) return 'selfAndChildren';
    }
    if (element.shadowRoot && matcher(elementText(cache, element.shadowRoot))) return 'selfAndChildren';
    return 'self';
  }

  function laxMatcher(text) {
    const needle = norm(text).toLowerCase();
    return (t) => t.normalized.toLowerCase().includes(needle);
  }

  function strictMatcher(text) {
    const needle = norm(text);
    return (t) => {
      if (!needle && !t.immediate.length) return true;
      return t.immediate.some((s) => norm(s) === needle);
    };
  }

  // ---------------------------------------------------------------- tree walking
  function parentOrHost(el) {
    if (el.parentElement) return el.parentElement;
    const p = el.parentNode;
    if (p && p.nodeType === 11 && p.host) return p.host;
    return null;
  }

  // The document and its open shadow roots in Playwright's _queryCSS order.
  function queryRoots(doc) {
    const out = [];
    const visit = (root) => {
      out.push(root);
      if (root.shadowRoot) visit(root.shadowRoot);
      const all = root.querySelectorAll('*');
      for (let i = 0; i < all.length; i++) {
        const sr = all[i].shadowRoot;
        if (sr) visit(sr);
      }
    };
    visit(doc);
    return out;
  }

  function queryAllRoots(roots, css) {
    if (roots.length === 1) return Array.from(roots[0].querySelectorAll(css));
    let out = [];
    for (const root of roots) {
      const found = root.querySelectorAll(css);
      for (let i = 0; i < found.length; i++) out.push(found[i]);
    }
    return out;
  }

  // Port of Playwright's sortInDOMOrder: tree order, a host's light children before its
  // shadow root's children; duplicates collapse.
  function sortInDOMOrder(elements) {
    const entries = new Map();
    const roots = [];
    const result = [];
    function append(element) {
      let entry = entries.get(element);
      if (entry) return entry;
      const parent = parentOrHost(element);
      if (parent) append(parent).children.push(element);
      else roots.push(element);
      entry = { children: [], taken: false };
      entries.set(element, entry);
      return entry;
    }
    for (const e of elements) append(e).taken = true;
    function visit(element) {
      const entry = entries.get(element);
      if (entry.taken) result.push(element);
      if (entry.children.length > 1) {
        const set = new Set(entry.children);
        entry.children = [];
        let child = element.firstElementChild;
        while (child && entry.children.length < set.size) {
          if (set.has(child)) entry.children.push(child);
          child = child.nextElementSibling;
        }
        child = element.shadowRoot ? element.shadowRoot.firstElementChild : null;
        while (child && entry.children.length < set.size) {
          if (set.has(child)) entry.children.push(child);
          child = child.nextElementSibling;
        }
      }
      entry.children.forEach(visit);
    }
    roots.forEach(visit);
    return result;
  }

  // ---------------------------------------------------------------- CSS
  function checkCss(doc, css) {
    try {
      doc.createDocumentFragment().querySelector(css);
      return null;
    } catch (e) {
      return String((e && e.message) || e);
    }
  }

  // complex: {full, c: [compound css], k: [combinator after compound i], f: [[kind, text]]}
  function matchesParents(el, cx, i, memo) {
    if (i < 0) return true;
    const key = i;
    let m = memo.get(el);
    if (m && m.has(key)) return m.get(key);
    const css = cx.c[i];
    const comb = cx.k[i];
    let result = false;
    if (comb === '>') {
      const p = parentOrHost(el);
      result = !!p && p.matches(css) && matchesParents(p, cx, i - 1, memo);
    } else if (comb === '+') {
      const s = el.previousElementSibling;
      result = !!s && s.matches(css) && matchesParents(s, cx, i - 1, memo);
    } else if (comb === ' ') {
      for (let p = parentOrHost(el); p; p = parentOrHost(p)) {
        if (p.matches(css)) {
          if (matchesParents(p, cx, i - 1, memo)) { result = true; break; }
          if (i > 0 && cx.k[i - 1] === ' ') break;
        }
      }
    } else if (comb === '~') {
      for (let s = el.previousElementSibling; s; s = s.previousElementSibling) {
        if (s.matches(css)) {
          if (matchesParents(s, cx, i - 1, memo)) { result = true; break; }
          if (i > 0 && cx.k[i - 1] === '~') break;
        }
      }
    }
    if (!m) { m = new Map(); memo.set(el, m); }
    m.set(key, result);
    return result;
  }

  function textFilter(cache, kind, text) {
    if (kind === 'has') {
      const matcher = laxMatcher(text);
      return (el) => !shouldSkipForText(el) && matcher(elementText(cache, el));
    }
    const matcher = strictMatcher(text);
    return (el) => elementMatchesText(cache, el, matcher) !== 'none';
  }

  function queryComplex(ctx, cx) {
    const roots = ctx.roots;
    const n = cx.c.length;
    let out;
    if (roots.length === 1) {
      out = Array.from(roots[0].querySelectorAll(cx.full));
    } else {
      // light DOM of the document: the browser's own matching is exact there
      out = Array.from(roots[0].querySelectorAll(cx.full));
      const last = cx.c[n - 1];
      const memo = new Map();
      for (let r = 1; r < roots.length; r++) {
        const found = roots[r].querySelectorAll(last);
        for (let i = 0; i < found.length; i++) {
          if (matchesParents(found[i], cx, n - 2, memo)) out.push(found[i]);
        }
      }
    }
    if (cx.f && cx.f.length) {
      for (const [kind, text] of cx.f) out = out.filter(textFilter(ctx.textCache, kind, text));
    }
    return out;
  }

  function queryCss(ctx, spec) {
    const doc = ctx.doc;
    for (const cx of spec.list) {
      for (const css of [cx.full, ...cx.c]) {
        const err = checkCss(doc, css);
        if (err !== null) throw { invalid: err, part: css };
      }
    }
    if (spec.list.length === 1) return queryComplex(ctx, spec.list[0]);
    if (ctx.roots.length === 1) return Array.from(doc.querySelectorAll(spec.list.map((cx) => cx.full).join(', ')));
    let all = [];
    for (const cx of spec.list) all = all.concat(queryComplex(ctx, cx));
    return sortInDOMOrder(all);
  }

  // ---------------------------------------------------------------- text=, xpath, href
  function allElements(ctx) {
    if (!ctx.all) ctx.all = queryAllRoots(ctx.roots, '*');
    return ctx.all;
  }

  function queryText(ctx, spec) {
    const strict = !!spec.strict;
    const matcher = strict ? strictMatcher(spec.text) : laxMatcher(spec.text);
    const cache = ctx.textCache;
    const result = [];
    let lastNone = null;
    for (const element of allElements(ctx)) {
      if (!strict && lastNone && lastNone.contains(element)) continue;
      const m = elementMatchesText(cache, element, matcher);
      if (m === 'none') lastNone = element;
      if (m === 'self' || (m === 'selfAndChildren' && strict)) result.push(element);
    }
    return result;
  }

  function queryXPath(ctx, spec) {
    const doc = ctx.doc;
    let it;
    try {
      it = doc.evaluate(spec.xpath, doc, null, XPathResult.ORDERED_NODE_ITERATOR_TYPE, null);
    } catch (e) {
      throw { invalid: String((e && e.message) || e), part: spec.xpath };
    }
    const result = [];
    for (let node = it.iterateNext(); node; node = it.iterateNext()) {
      if (node.nodeType === 1) result.push(node);
    }
    return result;
  }

  function stripHash(url) {
    const i = url.indexOf('#');
    return i === -1 ? url : url.substring(0, i);
  }

  function queryHref(ctx, spec) {
    const doc = ctx.doc;
    const raw = spec.href;
    const keepHash = raw.includes('#');
    let target = null;
    try {
      target = new URL(raw, doc.baseURI).href;
    } catch (e) {
      target = null;
    }
    const result = [];
    for (const el of queryAllRoots(ctx.roots, 'a[href], area[href]')) {
      if (target === null) {
        const attr = el.getAttribute('href') || '';
        if ((keepHash ? attr : stripHash(attr)) === raw) result.push(el);
        continue;
      }
      const href = el.href;
      if (typeof href !== 'string') continue;
      if ((keepHash ? href : stripHash(href)) === (keepHash ? target : stripHash(target))) result.push(el);
    }
    return result;
  }

  // ---------------------------------------------------------------- describe
  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox',
    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox',
    tel: 'textbox', text: 'textbox', url: 'textbox', password: 'textbox', '': 'textbox',
  };
  const TAG_ROLES = {
    ARTICLE: 'article', ASIDE: 'complementary', BUTTON: 'button', DD: 'definition', DETAILS: 'group',
    DIALOG: 'dialog', DT: 'term', FIELDSET: 'group', FIGURE: 'figure', H1: 'heading', H2: 'heading',
    H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', HR: 'separator', IFRAME: 'iframe',
    LI: 'listitem', MAIN: 'main', MATH: 'math', MENU: 'list', METER: 'meter', NAV: 'navigation',
    OL: 'list', OPTGROUP: 'group', OPTION: 'option', OUTPUT: 'status', P: 'paragraph',
    PROGRESS: 'progressbar', SUMMARY: 'button', TABLE: 'table', TBODY: 'rowgroup', TEXTAREA: 'textbox',
    TFOOT: 'rowgroup', THEAD: 'rowgroup', TR: 'row', UL: 'list', TD: 'cell', CAPTION: 'caption',
    BLOCKQUOTE: 'blockquote', CODE: 'code', EM: 'emphasis', STRONG: 'strong', DEL: 'deletion',
    INS: 'insertion', SUB: 'subscript', SUP: 'superscript', TIME: 'time', CANVAS: 'canvas',
  };

  function implicitRole(el) {
    const tag = el.nodeName;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'IMG': return el.getAttribute('alt') === '' && !el.hasAttribute('title') ? 'presentation' : 'img';
      case 'INPUT': {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (type === 'hidden') return null;
        if (el.hasAttribute('list') && ['', 'text', 'search', 'tel', 'url', 'email'].includes(type)) return 'combobox';
        return INPUT_ROLES[type] || 'textbox';
      }
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'TH': return el.closest('thead') || el.getAttribute('scope') === 'col' ? 'columnheader' : 'rowheader';
      case 'SECTION': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : 'generic';
      case 'FORM': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'form' : 'generic';
      case 'HEADER': return el.closest('article, aside, main, nav, section') ? 'generic' : 'banner';
      case 'FOOTER': return el.closest('article, aside, main, nav, section') ? 'generic' : 'contentinfo';
      case 'DIV': case 'SPAN': case 'B': case 'I': case 'U': case 'SMALL': case 'BDI': case 'BDO':
      case 'DATA': case 'PRE': case 'Q': case 'SAMP': case 'BODY': return 'generic';
      default: return TAG_ROLES[tag] || null;
    }
  }

  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit.toLowerCase();
    return implicitRole(el);
  }

  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'checkbox', 'radio', 'tab',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'switch', 'treeitem', 'tooltip',
    'row', 'gridcell', 'listitem', 'caption', 'term', 'sectionhead',
  ]);

  // A cheap in-page approximation; the snapshot's names come from Chromium's AX tree.
  function nameOf(el, role, cache) {
    const doc = el.ownerDocument;
    const labelledby = el.getAttribute('aria-labelledby');
    if (labelledby) {
      const parts = [];
      for (const id of labelledby.trim().split(/\s+/)) {
        const ref = doc.getElementById(id);
        if (ref) parts.push(ref.getAttribute('aria-label') || elementText(cache, ref).full);
      }
      const joined = norm(parts.join(' '));
      if (joined) return joined;
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return norm(label);
    const tag = el.nodeName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS' || tag === 'OUTPUT') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'INPUT' && (type === 'submit' || type === 'button' || type === 'reset')) {
        const v = el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
        return norm(v);
      }
      if (tag === 'INPUT' && type === 'image') return norm(el.getAttribute('alt') || el.getAttribute('value') || 'Submit');
      const labels = el.labels ? Array.from(el.labels) : [];
      const text = norm(labels.map((l) => elementText(cache, l).full).join(' '));
      if (text) return text;
      const title = el.getAttribute('title') || el.getAttribute('placeholder') || '';
      return norm(title);
    }
    if (tag === 'IMG' || tag === 'AREA') {
      const alt = el.getAttribute('alt');
      if (alt) return norm(alt);
    }
    if (tag === 'FIELDSET') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return norm(elementText(cache, legend).full);
    }
    if (tag === 'TABLE') {
      const caption = el.querySelector(':scope > caption');
      if (caption) return norm(elementText(cache, caption).full);
    }
    if (role && NAME_FROM_CONTENT.has(role)) {
      const text = elementText(cache, el).normalized;
      if (text) return text;
    }
    return norm(el.getAttribute('title') || '');
  }

  function isVisibleTextNode(node) {
    const range = node.ownerDocument.createRange();
    range.selectNode(node);
    const rect = range.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  // Playwright's isElementVisible (computeBox): checkVisibility(), visibility:visible, a
  // non-empty box; display:contents looks at its children.
  function isVisible(el) {
    const win = el.ownerDocument && el.ownerDocument.defaultView;
    const style = win ? win.getComputedStyle(el) : null;
    if (!style) return true;
    if (style.display === 'contents') {
      for (let child = el.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 1 && isVisible(child)) return true;
        if (child.nodeType === 3 && isVisibleTextNode(child)) return true;
      }
      return false;
    }
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
    if (style.visibility !== 'visible') return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  function describe(el, cache) {
    cache = cache || new Map();
    const role = roleOf(el);
    let text = elementText(cache, el).normalized;
    if (text.length > 200) text = text.substring(0, 200);
    const st = stateOf(el, role, null);
    return {
      tag: el.localName,
      id: el.id || null,
      role: role,
      name: nameOf(el, role, cache),
      text: text,
      visible: isVisible(el),
      value: st.value,
      checked: st.checked,
      disabled: st.disabled,
      expanded: st.expanded,
      selected: st.selected,
    };
  }

  // ---------------------------------------------------------------- retarget
  // Playwright's InjectedScript.retarget: 'none' | 'follow-label' | 'no-follow-label' | 'button-link'
  function retarget(node, behavior) {
    let element = node.nodeType === 1 ? node : node.parentElement;
    if (!element) return null;
    if (behavior === 'none') return element;
    if (!element.matches('input, textarea, select') && !element.isContentEditable) {
      if (behavior === 'button-link') element = element.closest('button, [role=button], a, [role=link]') || element;
      else element = element.closest('button, [role=button], [role=checkbox], [role=radio]') || element;
    }
    if (behavior === 'follow-label') {
      if (!element.matches('a, input, textarea, button, select, option, optgroup, [role=link], [role=button], [role=checkbox], [role=radio]') && !element.isContentEditable) {
        const label = element.closest('label');
        if (label && label.control) element = label.control;
      }
    }
    return element;
  }

  // ---------------------------------------------------------------- entry points
  function context(doc) {
    return { doc, roots: queryRoots(doc), textCache: new Map(), all: null };
  }

  function queryElements(spec) {
    const ctx = context(document);
    switch (spec.k) {
      case 'css': return queryCss(ctx, spec);
      case 'text': return queryText(ctx, spec);
      case 'xpath': return queryXPath(ctx, spec);
      case 'href': return queryHref(ctx, spec);
      default: throw { invalid: 'unknown selector kind ' + spec.k, part: '' };
    }
  }

  function pick(elements, spec) {
    const nth = spec.nth;
    if (nth === undefined || nth === null) return elements;
    const i = nth === -1 ? elements.length - 1 : nth;
    return i >= 0 && i < elements.length ? [elements[i]] : [];
  }

  // Array of elements (by reference) carrying `meta`: a JSON string with the total count, and
  // the describe() dicts when asked. `spec.limit` caps the elements handed back.
  function run(spec) {
    let all;
    try {
      all = queryElements(spec);
    } catch (e) {
      if (e && e.invalid !== undefined) {
        const out = [];
        out.meta = JSON.stringify({ invalid: e.invalid, part: e.part });
        return out;
      }
      throw e;
    }
    const elements = pick(all, spec);
    // one match and nothing to describe: the element itself (saves reading the array back)
    if (spec.single && elements.length === 1 && all.length === 1 && !spec.describe && !spec.project &&
        (spec.limit === undefined || spec.limit === null || spec.limit >= 1)) return elements[0];
    const limit = spec.limit;
    const out = limit === undefined || limit === null ? elements.slice() : elements.slice(0, limit);
    const meta = { count: all.length, total: elements.length };
    if (spec.describe) {
      const cache = new Map();
      meta.describe = out.map((el) => describe(el, cache));
    }
    if (spec.project) {
      const fn = (0, eval)('(' + spec.project + ')');
      meta.project = out.map((el) => fn(el));
    }
    out.meta = JSON.stringify(meta);
    return out;
  }

  function count(spec) {
    try {
      const all = queryElements(spec);
      return { count: all.length, total: pick(all, spec).length };
    } catch (e) {
      if (e && e.invalid !== undefined) return { invalid: e.invalid, part: e.part };
      throw e;
    }
  }

  // ---------------------------------------------------------------- role prefilter
  // A *superset* of the elements Chromium could give `spec.role` and a name containing every
  // word of `spec.words`; Chromium's AX tree then decides (engine.py queries each candidate's
  // subtree). Candidates: the role's possible tags, any [role] naming it, custom elements
  // (ElementInternals roles and names), contenteditable roots when asked. The name check looks at a
  // haystack of everything an accessible name can be built from: text (shadow included), all
  // attribute values and form values of the element and its descendants, its labels and
  // aria-labelledby targets, and ::before/::after strings (non-literal content keeps it).
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  function hasRoleToken(el, role) {
    const attr = el.getAttribute('role');
    if (!attr) return false;
    return attr.toLowerCase().split(/\s+/).includes(role);
  }

  function collectHaystack(node, pieces, state, depth) {
    if (depth > 64 || state.unknown) return;
    if (node.nodeType === 3) { pieces.push(node.nodeValue || ''); return; }
    if (node.nodeType !== 1 && node.nodeType !== 11) return;
    if (node.nodeType === 1) {
      const el = node;
      // custom elements may name themselves through ElementInternals: no attribute to see
      // <q> gets quotes from the UA style sheet's ::before/::after
      if (el.localName.includes('-') || el.nodeName === 'Q') { state.unknown = true; return; }
      for (const a of el.attributes) pieces.push(a.value);
      const tag = el.nodeName;
      if ((tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') && typeof el.value === 'string') pieces.push(el.value);
      const win = state.pseudo ? el.ownerDocument.defaultView : null;
      if (win) {
        for (const pseudo of ['::before', '::after']) {
          const content = win.getComputedStyle(el, pseudo).content;
          if (!content || content === 'none' || content === 'normal') continue;
          const m = /^"((?:[^"\\]|\\.)*)"$/.exec(content);
          if (m) pieces.push(m[1].replace(/\\(.)/g, '$1'));
          else { state.unknown = true; return; }
        }
      }
      if (el.shadowRoot) collectHaystack(el.shadowRoot, pieces, state, depth + 1);
    }
    for (let c = node.firstChild; c; c = c.nextSibling) collectHaystack(c, pieces, state, depth + 1);
  }

  // Whether any style sheet of the document or its shadow roots could give ::before/::after
  // content (a sheet we cannot read counts as yes).
  function mayHavePseudoContent(roots) {
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.selectorText !== undefined && /:(before|after)\b/i.test(rule.selectorText)) return true;
        if (rule.cssRules && visit(rule.cssRules)) return true;
        if (rule.styleSheet) {
          let inner;
          try { inner = rule.styleSheet.cssRules; } catch (e) { return true; }
          if (inner && visit(inner)) return true;
        }
      }
      return false;
    };
    for (const root of roots) {
      const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
      for (const sheet of sheets) {
        let rules;
        try { rules = sheet.cssRules; } catch (e) { return true; }
        if (!rules || visit(rules)) return true;
      }
    }
    return false;
  }

  function haystackHas(el, words, pseudo) {
    const pieces = [];
    const state = { unknown: false, pseudo };
    collectHaystack(el, pieces, state, 0);
    const labels = el.labels ? Array.from(el.labels) : [];
    for (const l of labels) collectHaystack(l, pieces, state, 0);
    const ids = el.getAttribute('aria-labelledby');
    if (ids) {
      const root = el.getRootNode();
      for (const id of ids.trim().split(/\s+/)) {
        const ref = (root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id);
        if (ref) collectHaystack(ref, pieces, state, 0);
      }
    }
    if (state.unknown) return true;
    const hay = (pieces.join('') + ' ' + pieces.join(' ')).replace(ZW, '').replace(WS, ' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  }

  function roleCandidates(spec) {
    const ctx = context(document);
    const tags = new Set(spec.tags || []);
    const role = spec.role;
    const words = spec.words && spec.words.length ? spec.words : null;
    const out = [];
    const pseudo = words ? mayHavePseudoContent(ctx.roots) : false;
    for (const el of allElements(ctx)) {
      if (!(tags.has(el.nodeName) || el.localName.includes('-') || hasRoleToken(el, role) || (spec.editable && el.isContentEditable) ||
            (el.namespaceURI !== HTML_NS && tags.has(el.nodeName.toUpperCase())))) continue;  // SVG <a>
      if (words && !haystackHas(el, words, pseudo)) continue;
      out.push(el);
    }
    return out;
  }

  // ---------------------------------------------------------------- role classification
  // For each role candidate (as roleCandidates): 'y' when its role is surely `spec.role` in
  // Chromium's tree and it is surely exposed (not ignored), 'n' when its role is surely
  // something else, 'm' (maybe) otherwise: Chromium's AX tree decides those. Sure roles are
  // native elements with an implicit role and no role attribute (a conservative subset of the
  // HTML-AAM mapping), and explicit role attributes whose first token is a role Chromium keeps
  // as written. Surely exposed: rendered and visible (checkVisibility), no aria-hidden, inert or
  // children-presentational ancestor (DOM or flat tree), no modal dialog in the document.
  // A named query turns 'y' into 'm' (names come from Chromium).
  const ROLE_INPUT_SURE = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox',
    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', text: 'textbox',
    email: 'textbox', tel: 'textbox', url: 'textbox',
  };
  const ROLE_HEADINGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);
  // Implicit role when sure, '' for "exposes no role at all", null when unsure.
  function sureImplicitRole(el) {
    const tag = el.nodeName;
    if (el.isContentEditable) return null;
    switch (tag) {
      case 'BUTTON':
        return el.hasAttribute('aria-pressed') || el.hasAttribute('aria-haspopup') ? null : 'button';
      case 'INPUT': {
        const t = el.type;
        if (t === 'hidden') return '';
        const r = ROLE_INPUT_SURE[t];
        if (!r) return null;
        if (el.hasAttribute('list')) return null;
        if (r === 'button' && (el.hasAttribute('aria-pressed') || el.hasAttribute('aria-haspopup'))) return null;
        if (r === 'checkbox' && el.hasAttribute('switch')) return null;
        return r;
      }
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
      case 'TEXTAREA': return 'textbox';
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    }
    if (ROLE_HEADINGS.has(tag)) return 'heading';
    return null;
  }
  // explicit roles Chromium keeps as written on ordinary (non-form, non-custom) elements
  const ROLE_EXPLICIT_SURE = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'heading', 'tab', 'tabpanel',
    'tablist', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'dialog', 'alertdialog',
    'navigation', 'main', 'slider', 'spinbutton', 'progressbar', 'tooltip', 'status', 'alert', 'radiogroup',
    'toolbar', 'combobox', 'listbox', 'search', 'banner', 'contentinfo', 'complementary', 'form', 'img',
  ]);
  // valid ARIA roles (a first token among these is the element's role, save none/presentation/generic)
  const ROLE_VALID = new Set([...ROLE_EXPLICIT_SURE, 'alert', 'application', 'article', 'blockquote', 'caption',
    'cell', 'code', 'columnheader', 'comment', 'definition', 'deletion', 'directory', 'document', 'emphasis',
    'feed', 'figure', 'grid', 'gridcell', 'group', 'insertion', 'list', 'listitem', 'log', 'marquee', 'math',
    'meter', 'note', 'option', 'paragraph', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar',
    'separator', 'strong', 'subscript', 'superscript', 'table', 'term', 'time', 'timer', 'tree', 'treegrid',
    'treeitem', 'image', 'mark', 'suggestion', 'sectionheader', 'sectionfooter']);
  const ROLE_NO_EXPLICIT_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'IMG', 'BODY', 'HTML', 'OPTION',
    'OPTGROUP', 'IFRAME', 'OBJECT', 'EMBED', 'VIDEO', 'AUDIO', 'CANVAS', 'DATALIST', 'LABEL', 'LEGEND']);
  // elements whose children Chromium may treat as presentational
  const ROLE_PRES_TAGS = new Set(['BUTTON', 'IMG', 'METER', 'PROGRESS', 'OPTION', 'HR', 'INPUT', 'SELECT',
    'TEXTAREA', 'svg', 'math', 'SUMMARY']);
  const ROLE_PRES_ROLES = new Set(['button', 'checkbox', 'img', 'image', 'meter', 'math', 'menuitemcheckbox',
    'menuitemradio', 'option', 'progressbar', 'radio', 'scrollbar', 'separator', 'slider', 'switch', 'tab']);

  function ancestorsClear(el) {
    // aria-hidden / inert / presentational-children ancestors, DOM chain then flat chain
    for (const step of [parentOrHost, (e) => e.assignedSlot || parentOrHost(e)]) {
      for (let e = el; e; e = step(e)) {
        const ah = e.getAttribute('aria-hidden');
        if (ah && ah.trim().toLowerCase() === 'true') return false;
        if (e.hasAttribute('inert')) return false;
        if (e !== el) {
          if (ROLE_PRES_TAGS.has(e.nodeName) || e.localName.includes('-')) return false;
          const r = e.getAttribute('role');
          if (r && ROLE_PRES_ROLES.has(r.trim().toLowerCase().split(/\s+/)[0])) return false;
        }
      }
    }
    return true;
  }

  function roleKind(el, role, named, modal) {
    if (el.localName.includes('-')) return 'm';
    const attr = el.getAttribute('role');
    let sure;
    if (attr !== null && attr.trim() !== '') {
      const first = attr.trim().toLowerCase().split(/\s+/)[0];
      if (first === role && ROLE_EXPLICIT_SURE.has(role) && !ROLE_NO_EXPLICIT_TAGS.has(el.nodeName) &&
          !el.isContentEditable) {
        sure = role;
      } else if (first !== role && ROLE_VALID.has(first) && !ROLE_NO_EXPLICIT_TAGS.has(el.nodeName)) {
        const implicit = sureImplicitRole(el);
        // a kept explicit role, and the implicit one (should Chromium drop it) is not `role` either
        if (implicit !== null && implicit !== role && !el.isContentEditable) return 'n';
        if (implicit === null && (el.nodeName === 'DIV' || el.nodeName === 'SPAN') && !el.isContentEditable) return 'n';
        return 'm';
      } else {
        return 'm';
      }
    } else {
      sure = sureImplicitRole(el);
      if (sure === null) return 'm';
      if (sure !== role) return 'n';
    }
    if (named || modal) return 'm';
    if (!el.checkVisibility({ visibilityProperty: true })) return 'm';
    return ancestorsClear(el) ? 'y' : 'm';
  }
  // roleCandidates() classified: the candidates that are not surely another role, in
  // document order, as an array with `meta` = JSON {kinds: "ymm..."} (one letter each).
  function roleClassify(spec) {
    const els = roleCandidates(spec);
    const role = spec.role;
    const named = !!spec.named;
    const modal = !!document.querySelector('dialog:modal');
    const out = [];
    let kinds = '';
    for (const el of els) {
      const k = roleKind(el, role, named, modal);
      if (k === 'n') continue;
      out.push(el);
      kinds += k;
    }
    out.meta = JSON.stringify({ kinds });
    return out;
  }

  // How many candidates surely have the role, or {maybe: n} when Chromium must decide some.
  function roleCount(spec) {
    const els = roleCandidates(spec);
    const role = spec.role;
    const modal = !!document.querySelector('dialog:modal');
    let yes = 0, maybe = 0;
    for (const el of els) {
      const k = roleKind(el, role, !!spec.named, modal);
      if (k === 'y') yes++;
      else if (k === 'm') maybe++;
    }
    return maybe ? { maybe } : { count: yes };
  }

  // Orders elements (from the AX tree) like Playwright's role engine: per root, tree order.
  function order(elements) {
    const index = new Map();
    const all = queryAllRoots(queryRoots(document), '*');
    for (let i = 0; i < all.length; i++) index.set(all[i], i);
    const keyed = [];
    for (let i = 0; i < elements.length; i++) {
      const el = elements[i];
      if (el && el.nodeType === 1 && index.has(el)) keyed.push([index.get(el), i]);
    }
    keyed.sort((a, b) => a[0] - b[0]);
    return keyed.map((k) => k[1]);
  }

  // Resolves at the next DOM mutation of the document (subtree, attributes, text) or after
  // `timeoutMs`; lets waits re-query on change instead of polling.
  function nextMutation(timeoutMs) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (value) => {
        if (done) return;
        done = true;
        observer.disconnect();
        clearTimeout(timer);
        resolve(value);
      };
      const observer = new MutationObserver(() => finish(true));
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
    });
  }

  const api = {
    version: VERSION,
    run,
    count,
    order,
    roleCandidates,
    roleClassify,
    roleCount,
    describe: (el) => describe(el, new Map()),
    describeAll: (els) => { const cache = new Map(); return els.map((el) => describe(el, cache)); },
    retarget,
    isVisible,
    elementText: (el) => elementText(new Map(), el).normalized,
    nextMutation,
    norm,
  };
  Object.defineProperty(G, '__egoSel', { value: api, configurable: true, writable: true, enumerable: false });
  return true;
})();
