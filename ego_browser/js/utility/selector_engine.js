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
//    text nodes end at child elements and continue across comments; exact text (text="x",
//    :text-is) also matches the smallest element whose whole text is x (getByText(exact));
//  - normalisation: U+200B/U+00AD removed, trimmed, whitespace runs -> one space;
//  - query order per document: for each root (the document, then every open shadow root,
//    depth-first in host order) its matches in tree order; selector lists are merged in
//    "DOM order" where a host's light children precede its shadow content;
//  - combinators of a complex CSS selector may cross shadow hosts (parent of a shadow root's
//    child is the host).
(() => {
  const VERSION = 9;
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

  // Exact text also matches an element whose whole normalised text is the string when no child
  // of it is (the smallest such), whatever inline elements split it: syntax highlighting turns
  // `print(base + x)` into spans, and Playwright's immediate-text rule then finds nothing where
  // its getByText(exact) does. Empty strings keep the immediate rule alone.
  function exactTextMatch(cache, element, text) {
    if (elementMatchesText(cache, element, strictMatcher(text)) !== 'none') return true;
    const needle = norm(text);
    return !!needle && elementMatchesText(cache, element, (t) => t.normalized === needle) === 'self';
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

  // complex: {full, c: [compound css], k: [combinator after compound i], f: [filters of the last
  // compound], g: general (filters before the last compound, or :has()), cf: [filters per
  // compound], lead: leading combinator of a relative selector (inside :has())}.
  // A filter: ['has'|'is'|'text', text] | ['matches', source, flags] | ['visible'] | ['sel', list].
  //
  // `env` bounds a query the way Playwright's scoped evaluator does: nothing at or above
  // env.scope takes part in matching (an element scope's own ancestors are outside the query),
  // and for a relative selector compound 0 is env.orig itself (Playwright's implicit :scope).
  function parentIn(el, env) {
    if (el === env.scope) return null;
    return parentOrHost(el);
  }

  function previousIn(el, env) {
    if (el === env.scope) return null;
    return el.previousElementSibling;
  }

  function filterOk(ctx, el, f) {
    switch (f[0]) {
      case 'has': {
        if (shouldSkipForText(el)) return false;
        return laxMatcher(f[1])(elementText(ctx.textCache, el));
      }
      case 'is': return exactTextMatch(ctx.textCache, el, f[1]);
      case 'text': return elementMatchesText(ctx.textCache, el, laxMatcher(f[1])) === 'self';
      case 'matches': {
        const key = 're\u0000' + f[1] + '\u0000' + f[2];
        let m = ctx.matchers.get(key);
        if (!m) { m = regexMatcher(f[1], f[2]); ctx.matchers.set(key, m); }
        return elementMatchesText(ctx.textCache, el, m) === 'self';
      }
      case 'visible': return isVisible(el);
      case 'sel': return hasSelector(ctx, el, f[1]);
      default: throw { invalid: 'unknown pseudo-class filter ' + f[0], part: '' };
    }
  }

  function compoundOk(ctx, el, cx, i, env) {
    if (el === env.scope) return false;
    if (i === 0 && cx.lead) return el === env.orig;
    if (!el.matches(cx.c[i])) return false;
    const fs = cx.cf ? cx.cf[i] : (i === cx.c.length - 1 ? cx.f : null);
    if (fs) for (const f of fs) if (!filterOk(ctx, el, f)) return false;
    return true;
  }

  function matchesParents(ctx, el, cx, i, env, memo) {
    if (i < 0) return true;
    let m = memo.get(el);
    if (m && m.has(i)) return m.get(i);
    // k[i] joins compound i to i + 1; with a lead, compound 0 is the scope and the lead joins it
    const comb = cx.lead ? (i === 0 ? cx.lead : cx.k[i - 1]) : cx.k[i];
    const prevComb = cx.lead ? (i - 1 === 0 ? cx.lead : cx.k[i - 2]) : cx.k[i - 1];
    let result = false;
    if (comb === '>') {
      const p = parentIn(el, env);
      result = !!p && compoundOk(ctx, p, cx, i, env) && matchesParents(ctx, p, cx, i - 1, env, memo);
    } else if (comb === '+') {
      const sib = previousIn(el, env);
      result = !!sib && compoundOk(ctx, sib, cx, i, env) && matchesParents(ctx, sib, cx, i - 1, env, memo);
    } else if (comb === ' ') {
      for (let p = parentIn(el, env); p; p = parentIn(p, env)) {
        if (compoundOk(ctx, p, cx, i, env)) {
          if (matchesParents(ctx, p, cx, i - 1, env, memo)) { result = true; break; }
          if (i > 0 && prevComb === ' ') break;
        }
      }
    } else if (comb === '~') {
      for (let sib = previousIn(el, env); sib; sib = previousIn(sib, env)) {
        if (compoundOk(ctx, sib, cx, i, env)) {
          if (matchesParents(ctx, sib, cx, i - 1, env, memo)) { result = true; break; }
          if (i > 0 && prevComb === '~') break;
        }
      }
    }
    if (!m) { m = new Map(); memo.set(el, m); }
    m.set(i, result);
    return result;
  }

  // Playwright's :has(): does any element in `el`'s scope match the relative selector list?
  function hasSelector(ctx, el, list) {
    for (const cx of list) {
      if (cx.lead) {
        const scope = parentOrHost(el) || el.getRootNode();
        const compounds = { c: [null, ...cx.c], k: cx.k, cf: [[], ...(cx.cf || cx.c.map((_, i) => i === cx.c.length - 1 ? cx.f : []))], lead: cx.lead };
        if (queryComplexGeneral(ctx, compounds, { scope, orig: el }, true).length) return true;
      } else if (queryComplexGeneral(ctx, cx, { scope: el, orig: el }, true).length) {
        return true;
      }
    }
    return false;
  }

  // The last compound from every root under env.scope, then its filters and the chain above.
  function queryComplexGeneral(ctx, cx, env, firstOnly) {
    const n = cx.c.length;
    const last = cx.c[n - 1];
    const roots = env.scope === ctx.doc ? ctx.roots : queryRoots(env.scope);
    const memo = new Map();
    const out = [];
    for (const root of roots) {
      const found = root.querySelectorAll(last);
      for (let i = 0; i < found.length; i++) {
        const el = found[i];
        if (compoundOk(ctx, el, cx, n - 1, env) && matchesParents(ctx, el, cx, n - 2, env, memo)) {
          out.push(el);
          if (firstOnly) return out;
        }
      }
    }
    return out;
  }

  function queryComplex(ctx, cx, scope) {
    if (cx.g || scope !== ctx.doc) return queryComplexGeneral(ctx, cx, { scope, orig: scope }, false);
    const roots = ctx.roots;
    const n = cx.c.length;
    const env = { scope: ctx.doc, orig: ctx.doc };
    let out;
    if (roots.length === 1) {
      out = Array.from(roots[0].querySelectorAll(cx.full));
    } else {
      // light DOM of the document: the browser's own matching is exact there
      out = Array.from(roots[0].querySelectorAll(cx.full));
      const last = cx.c[n - 1];
      const memo = new Map();
      const plain = { c: cx.c, k: cx.k };
      for (let r = 1; r < roots.length; r++) {
        const found = roots[r].querySelectorAll(last);
        for (let i = 0; i < found.length; i++) {
          if (matchesParents(ctx, found[i], plain, n - 2, env, memo)) out.push(found[i]);
        }
      }
    }
    if (cx.f && cx.f.length) {
      for (const f of cx.f) out = out.filter((el) => filterOk(ctx, el, f));
    }
    return out;
  }

  function checkList(doc, list) {
    for (const cx of list) {
      for (const css of [cx.full, ...cx.c]) {
        const err = checkCss(doc, css);
        if (err !== null) throw { invalid: err, part: css };
      }
      for (const fs of cx.cf || [cx.f || []]) {
        for (const f of fs) if (f[0] === 'sel') checkList(doc, f[1]);
      }
    }
  }

  function queryCss(ctx, spec, scope) {
    const doc = ctx.doc;
    checkList(doc, spec.list);
    if (spec.list.length === 1) return queryComplex(ctx, spec.list[0], scope);
    if (scope === doc && ctx.roots.length === 1 && !spec.list.some((cx) => cx.g || (cx.f && cx.f.length))) {
      return Array.from(doc.querySelectorAll(spec.list.map((cx) => cx.full).join(', ')));
    }
    let all = [];
    for (const cx of spec.list) all = all.concat(queryComplex(ctx, cx, scope));
    return sortInDOMOrder(all);
  }

  // ---------------------------------------------------------------- text=, xpath, href
  function allElements(ctx) {
    if (!ctx.all) ctx.all = queryAllRoots(ctx.roots, '*');
    return ctx.all;
  }

  function regexMatcher(source, flags) {
    let re;
    try {
      re = new RegExp(source, flags);
    } catch (e) {
      throw { invalid: String((e && e.message) || e), part: '/' + source + '/' + flags };
    }
    return (t) => { re.lastIndex = 0; return re.test(t.full); };
  }

  // Playwright's text engine from `scope`: the scope element itself, then everything under it
  // (shadow roots included); lax matches keep the smallest elements, regex ones 'self' only.
  function queryText(ctx, spec, scope) {
    const kind = spec.re !== undefined ? 'regex' : spec.strict ? 'strict' : 'lax';
    const matcher = kind === 'regex' ? regexMatcher(spec.re, spec.flags || '') :
      kind === 'strict' ? strictMatcher(spec.text) : laxMatcher(spec.text);
    const cache = ctx.textCache;
    const result = [];
    let lastNone = null;
    const elements = scope.nodeType === 1 ? [scope, ...queryAllRoots(queryRoots(scope), '*')] :
      scope === ctx.doc ? allElements(ctx) : queryAllRoots(queryRoots(scope), '*');
    const whole = kind === 'strict' && norm(spec.text) ? norm(spec.text) : null;
    const wholeMatcher = (t) => t.normalized === whole;
    for (const element of elements) {
      if (kind === 'lax' && lastNone && lastNone.contains(element)) continue;
      const m = elementMatchesText(cache, element, matcher);
      if (m === 'none') lastNone = element;
      if (m === 'self' || (m === 'selfAndChildren' && kind === 'strict')) result.push(element);
      else if (whole !== null && elementMatchesText(cache, element, wholeMatcher) === 'self') result.push(element);
    }
    return result;
  }

  function queryXPath(ctx, spec, scope) {
    const doc = ctx.doc;
    let expr = spec.xpath;
    // Playwright: an absolute path from an element scope is made relative to it
    if (expr.startsWith('/') && scope.nodeType !== 9) expr = '.' + expr;
    let it;
    try {
      it = doc.evaluate(expr, scope, null, XPathResult.ORDERED_NODE_ITERATOR_TYPE, null);
    } catch (e) {
      throw { invalid: String((e && e.message) || e), part: spec.xpath };
    }
    const result = [];
    for (let node = it.iterateNext(); node; node = it.iterateNext()) {
      if (node.nodeType === 1) result.push(node);
    }
    return result;
  }

  // label=: Playwright's getByLabel: elements whose labels match (aria-labelledby targets, else
  // aria-label, else for form controls their <label>s); lax = case-insensitive substring,
  // exact = the whole normalised label.
  function labelTexts(cache, el) {
    const ids = el.getAttribute('aria-labelledby');
    if (ids !== null) {
      const root = el.getRootNode();
      const found = [];
      for (const id of ids.trim().split(/\s+/)) {
        if (!id) continue;
        const ref = (root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id);
        if (ref) found.push(ref);
      }
      if (found.length) return found.map((r) => elementText(cache, r));
    }
    const aria = el.getAttribute('aria-label');
    if (aria !== null && aria.trim()) return [{ full: aria, normalized: norm(aria), immediate: [aria] }];
    const tag = el.nodeName;
    const control = ['BUTTON', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA'].includes(tag) ||
      (tag === 'INPUT' && el.type !== 'hidden');
    if (control && el.labels) return Array.from(el.labels).map((l) => elementText(cache, l));
    return [];
  }

  function queryLabel(ctx, spec, scope) {
    const needle = norm(spec.text);
    const lower = needle.toLowerCase();
    const ok = spec.re !== undefined ? regexMatcher(spec.re, spec.flags || '') :
      spec.exact ? (t) => t.normalized === needle : (t) => t.normalized.toLowerCase().includes(lower);
    const roots = scope === ctx.doc ? ctx.roots : queryRoots(scope);
    return queryAllRoots(roots, '*').filter((el) => labelTexts(ctx.textCache, el).some(ok));
  }

  function stripHash(url) {
    const i = url.indexOf('#');
    return i === -1 ? url : url.substring(0, i);
  }

  function queryHref(ctx, spec, scope) {
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
    const roots = scope === doc ? ctx.roots : queryRoots(scope);
    for (const el of queryAllRoots(roots, 'a[href], area[href]')) {
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

  // A header cell's role as Playwright (and ARIA in HTML) decides it from its neighbours; Chromium
  // calls a `th` next to a header cell and after a data cell a rowheader, Playwright a columnheader.
  function isNonEmptyDataCell(e) {
    return !!e && e.nodeName === 'TD' && (!!(e.textContent || '').trim() || e.children.length > 0);
  }
  function thRole(el) {
    const scope = el.getAttribute('scope');
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    const next = el.nextElementSibling, prev = el.previousElementSibling;
    if (!next && !prev) {
      const row = el.parentElement && el.parentElement.nodeName === 'TR' ? el.parentElement : null;
      const table = row && row.closest('table');
      if (table && table.rows.length <= 1) return null;
      return 'columnheader';
    }
    if (next && next.nodeName === 'TH' && prev && prev.nodeName === 'TH') return 'columnheader';
    if (isNonEmptyDataCell(next) || isNonEmptyDataCell(prev)) return 'rowheader';
    return 'columnheader';
  }

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
      case 'TH': return thRole(el) || 'generic';
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

  // A contenteditable editor's value is its text (a code editor, a rich-text field): find()
  // reports it as it does a textarea's. The snapshot shows that text as child lines instead.
  function editableValue(el) {
    if (!el.isContentEditable || (el.parentElement && el.parentElement.isContentEditable)) return null;
    const v = String(el.innerText || el.textContent || '').replace(/[\s\u00a0]+/g, ' ').trim();
    return v.length > 100 ? v.slice(0, 99) + '\u2026' : v;
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
      value: st.value === null ? editableValue(el) : st.value,
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
    return { doc, roots: queryRoots(doc), textCache: new Map(), matchers: new Map(), all: null };
  }

  // One engine from one scope (the document or an element), in Playwright's order.
  function queryIn(ctx, spec, scope) {
    switch (spec.k) {
      case 'css': return queryCss(ctx, spec, scope);
      case 'text': return queryText(ctx, spec, scope);
      case 'xpath': return queryXPath(ctx, spec, scope);
      case 'href': return queryHref(ctx, spec, scope);
      case 'label': return queryLabel(ctx, spec, scope);
      case 'chain': return runSteps(ctx, [scope], spec.steps, scope);
      case 'set': return within([scope], (ctx.sets || [])[spec.i] || []);
      default: throw { invalid: 'unknown selector kind ' + spec.k, part: '' };
    }
  }

  // Playwright's querySelectorAll over '>>' parts: each part from every element the previous
  // part found, in that order, duplicates dropped; nth= and visible= act on the set itself.
  function runSteps(ctx, scopes, steps, root) {
    let current = scopes;
    for (const step of steps) {
      if (step.k === 'nth') {
        current = pick(current, step);
      } else if (step.k === 'visible') {
        current = current.filter((el) => isVisible(el) === step.v);
      } else if (step.k === 'filter' && step.mode === 'chain') {
        // Playwright's internal:chain: the inner locator from each element, nth= per element
        const next = new Set();
        for (const scope of current) for (const el of runSteps(ctx, [scope], step.steps, scope)) next.add(el);
        current = Array.from(next);
      } else if (step.k === 'filter' && step.mode) {
        // Playwright's internal:and / internal:or: the other locator from the query's root
        const other = runSteps(ctx, [root || ctx.doc], step.steps, root);
        if (step.mode === 'and') {
          const keep = new Set(other);
          current = current.filter((el) => keep.has(el));
        } else {
          current = inDocumentOrder(Array.from(new Set([...current, ...other])));
        }
      } else if (step.k === 'filter') {
        current = current.filter((el) => filterKeeps(ctx, el, step) !== !!step.not);
      } else {
        const next = new Set();
        for (const scope of current) for (const el of queryIn(ctx, step, scope)) next.add(el);
        current = Array.from(next);
      }
    }
    return current;
  }

  // Tree order through shadow roots: a node's composed ancestor chain, compared top-down.
  function inDocumentOrder(els) {
    const path = (el) => { const out = []; for (let n = el; n; n = parentOrHost(n)) out.push(n); return out.reverse(); };
    const paths = new Map(els.map((el) => [el, path(el)]));
    return els.sort((a, b) => {
      const pa = paths.get(a), pb = paths.get(b);
      let i = 0;
      while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
      if (i === pa.length) return -1;
      if (i === pb.length) return 1;
      const x = pa[i], y = pb[i];
      const xHost = !x.parentElement && x.parentNode && x.parentNode.host === pa[i - 1];
      const yHost = !y.parentElement && y.parentNode && y.parentNode.host === pb[i - 1];
      if (xHost !== yHost) return xHost ? -1 : 1; // a host's shadow tree before its light children
      return x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    });
  }

  // Playwright's Locator.filter(): has-text (its internal:has-text matchers on the element's
  // whole text) and has (the inner steps find something inside the element).
  function filterKeeps(ctx, el, step) {
    if (step.steps) return runSteps(ctx, [el], step.steps, el).length > 0;
    const text = elementText(ctx.textCache, el);
    if (step.re !== undefined) return regexMatcher(step.re, step.flags || '')(text);
    if (step.strict) return text.normalized === norm(step.text);
    return laxMatcher(step.text)(text);
  }

  // Chain segments the page can run alone; `scopes` null means the document. An invalid part
  // comes back as an empty array carrying `invalid` (later segments pass it on).
  function chain(scopes, steps, sets) {
    if (scopes && scopes.invalid !== undefined) return scopes;
    const ctx = context(document);
    ctx.sets = sets;
    try {
      return runSteps(ctx, scopes ? Array.from(scopes) : [document], steps);
    } catch (e) {
      if (e && e.invalid !== undefined) {
        const out = [];
        out.invalid = e.invalid;
        out.part = e.part;
        return out;
      }
      throw e;
    }
  }

  // The role matches (found for the whole document by Chromium's tree) under each scope, in
  // Playwright's role-engine order: per scope, its descendants root by root; the scope itself
  // never matches.
  function within(scopes, els) {
    if (scopes && scopes.invalid !== undefined) return scopes;
    const wanted = new Set(els);
    const next = new Set();
    for (const scope of scopes ? Array.from(scopes) : [document]) {
      if (!wanted.size) break;
      for (const root of queryRoots(scope)) {
        const all = root.querySelectorAll('*');
        for (let i = 0; i < all.length; i++) if (wanted.has(all[i])) next.add(all[i]);
      }
    }
    return Array.from(next);
  }

  // A chain's last array, shaped like run()'s answer (nth, limit, describe, project, count).
  function finish(els, spec) {
    if (els.invalid !== undefined) {
      if (spec.countOnly) return { invalid: els.invalid, part: els.part };
      const out = [];
      out.meta = JSON.stringify({ invalid: els.invalid, part: els.part });
      return out;
    }
    const all = Array.from(els);
    const elements = pick(all, spec);
    if (spec.countOnly) return { count: all.length, total: elements.length };
    return shape(all, elements, spec);
  }

  function queryElements(spec) {
    const ctx = context(document);
    return queryIn(ctx, spec, document);
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
    return shape(all, elements, spec);
  }

  function shape(all, elements, spec) {
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
      const picked = pick(all, spec);
      // a wait for a state needs the first match's visibility too: by value, no handles to read back
      if (spec.visibleFirst) return { count: all.length, total: picked.length, visible: picked.length > 0 && isVisible(picked[0]) };
      return { count: all.length, total: picked.length };
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
    if (node.nodeType === 3) { pieces.push(node.nodeValue || ''); state.texts.push(node.nodeValue || ''); return; }
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
      // Chromium names a control from the flat tree: a slot shows the nodes assigned to it
      if (tag === 'SLOT') for (const n of el.assignedNodes()) collectHaystack(n, pieces, state, depth + 1);
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
    // texts apart too: a name made of inline pieces with no space between ("New" "Folder" in
    // two spans is "NewFolder") must not have the spans' attribute values cut into it
    const state = { unknown: false, pseudo, texts: [] };
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
    const hay = (pieces.join('') + ' ' + pieces.join(' ') + ' ' + state.texts.join('')).replace(ZW, '').replace(WS, ' ').toLowerCase();
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

  // 'y' surely the role, 'n' surely not, 'm' Chromium decides, 'r' the role is sure and
  // Chromium decides the rest (the name, whether it is exposed at all)
  function roleKind(el, role, named, modal) {
    if (el.localName.includes('-')) return 'm';
    const attr = el.getAttribute('role');
    if (el.nodeName === 'TH' && (attr === null || attr.trim() === '')) {
      const table = el.closest('table');
      const tableRole = table ? (table.getAttribute('role') || '').trim().toLowerCase() : '';
      if (tableRole !== 'presentation' && tableRole !== 'none') {
        if (thRole(el) !== role) return 'n';
        if (named || modal || !el.checkVisibility({ visibilityProperty: true }) || !ancestorsClear(el)) return 'r';
        return 'y';
      }
    }
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
      else if (k === 'm' || k === 'r') maybe++;
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

  // ---------------------------------------------------------------- role states
  // Playwright's role= state attributes, read from the DOM as its role engine does (the
  // element already has `role` in Chromium's tree).
  function ariaBool(v) {
    if (v === null) return undefined;
    const t = v.toLowerCase();
    return t === 'true' ? true : t === 'false' ? false : undefined;
  }
  const ARIA_DISABLED_ROLES = new Set(['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link',
    'menuitem', 'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu',
    'menubar', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader',
    'searchbox', 'select', 'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree', 'treegrid',
    'treeitem']);
  function nativelyDisabled(el) {
    if (!['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(el.nodeName)) return false;
    if (el.hasAttribute('disabled')) return true;
    if (el.nodeName === 'OPTION' && el.closest('optgroup[disabled]')) return true;
    const fs = el.closest('fieldset[disabled]');
    if (!fs) return false;
    const legend = fs.querySelector(':scope > legend');
    return !legend || !legend.contains(el);
  }
  function ariaDisabledChain(el) {
    for (let e = el; e; e = parentOrHost(e)) {
      const v = ariaBool(e.getAttribute('aria-disabled'));
      if (v !== undefined) return v;
    }
    return false;
  }
  function roleState(el, role, key) {
    switch (key) {
      case 'checked': {
        if (el.nodeName === 'INPUT' && el.indeterminate) return 'mixed';
        if (el.nodeName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
        const v = (el.getAttribute('aria-checked') || '').toLowerCase();
        return v === 'true' ? true : v === 'mixed' ? 'mixed' : false;
      }
      case 'pressed': {
        const v = (el.getAttribute('aria-pressed') || '').toLowerCase();
        return v === 'true' ? true : v === 'mixed' ? 'mixed' : false;
      }
      case 'selected':
        if (el.nodeName === 'OPTION') return el.selected;
        return ariaBool(el.getAttribute('aria-selected')) === true;
      case 'expanded':
        if (el.nodeName === 'DETAILS') return el.open;
        return ariaBool(el.getAttribute('aria-expanded'));
      case 'level': {
        const native = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 }[el.nodeName];
        if (native) return native;
        const attr = el.getAttribute('aria-level');
        const v = attr === null ? NaN : Number(attr);
        return Number.isInteger(v) && v >= 1 ? v : 0;
      }
      case 'disabled':
        return nativelyDisabled(el) || (ARIA_DISABLED_ROLES.has(role) && ariaDisabledChain(el));
      default: return undefined;
    }
  }
  function roleStatesMatch(el, role, states) {
    for (const [key, want] of states) if (roleState(el, role, key) !== want) return false;
    return true;
  }

  // ---------------------------------------------------------------- element reads
  // page.is_checked / is_enabled / is_visible / input_value / text_content / inner_text /
  // get_attribute and check/uncheck's state, with Playwright's semantics (elementState and
  // friends): a label stands for its control except for visibility and text. Returns
  // {value} or {error} (the element is not of a kind the read applies to).
  function checkedOf(el) {
    if (el.nodeName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
    const role = roleOf(el);
    if (['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'].includes(role)) {
      return (el.getAttribute('aria-checked') || '').toLowerCase() === 'true';
    }
    return 'error';
  }
  function readState(node, kind, arg) {
    const el = retarget(node, kind === 'visible' || kind === 'text' || kind === 'innerText' || kind === 'attribute' ?
      'none' : 'follow-label');
    if (!el || !el.isConnected) return { error: 'the element is no longer in the document', detached: true };
    switch (kind) {
      case 'checked': {
        const c = checkedOf(el);
        if (c === 'error') return { error: 'not a checkbox or radio button (<' + el.localName + '>)' };
        return { value: c, radio: el.nodeName === 'INPUT' && el.type === 'radio' };
      }
      case 'enabled':
        return { value: !(nativelyDisabled(el) || (ARIA_DISABLED_ROLES.has(roleOf(el) || '') && ariaDisabledChain(el))) };
      case 'visible': return { value: isVisible(el) };
      case 'value':
        if (el.nodeName !== 'INPUT' && el.nodeName !== 'TEXTAREA' && el.nodeName !== 'SELECT') {
          return { error: 'not an <input>, <textarea> or <select> element (<' + el.localName + '>)' };
        }
        return { value: el.value };
      case 'text': return { value: el.textContent };
      case 'innerText':
        if (!(el instanceof el.ownerDocument.defaultView.HTMLElement)) return { error: 'not an HTML element (<' + el.localName + '>)' };
        return { value: el.innerText };
      case 'attribute': return { value: el.getAttribute(arg) };
      default: return { error: 'unknown read ' + kind };
    }
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

  // The document's change clock (page.wait_for_settled, the snapshot header's "still
  // changing"): when the DOM last changed, from an observer that lives as long as this world.
  // Shadow roots are watched as their hosts are seen added (a web component's own updates).
  const installedAt = performance.now();
  let lastChange = null;
  // changes after the load, in runs (a gap over RUN_GAP ms starts a new run): one action's
  // effect is a short run; a page still drawing (hydration, a feed, an animation) a long one
  const RUN_GAP = 250;  // wide enough for a loaded renderer's late timers (a 50 ms ticker at load 30 had 100+ ms gaps)
  let lastLateChange = null, runStart = null;
  const clock = new MutationObserver((records) => {
    const now = performance.now();
    lastChange = now;
    if (document.readyState === 'complete') {
      if (lastLateChange === null || now - lastLateChange > RUN_GAP) runStart = now;
      lastLateChange = now;
    }
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && n.shadowRoot) watchChanges(n.shadowRoot);
      }
    }
  });
  const CHANGE_OPTS = { subtree: true, childList: true, attributes: true, characterData: true };
  function watchChanges(root) {
    try { clock.observe(root, CHANGE_OPTS); } catch (e) { /* a detached root */ }
  }
  watchChanges(document);
  for (const root of queryRoots(document)) if (root !== document) watchChanges(root);

  // [ms since the DOM last changed after the document's load, ms its run of changes has
  // lasted], or null when it has not changed since the load
  function sinceChange() {
    return lastLateChange === null ? null : [performance.now() - lastLateChange, lastLateChange - runStart];
  }

  // Resolves true once the DOM has not changed for `quietMs` (counted from this world's start
  // at the earliest), false when `timeoutMs` pass first.
  function domQuiet(quietMs, timeoutMs) {
    const deadline = performance.now() + Math.max(0, timeoutMs);
    return new Promise((resolve) => {
      const check = () => {
        const now = performance.now();
        const idle = now - (lastChange === null ? installedAt : Math.max(lastChange, installedAt));
        if (idle >= quietMs) return resolve(true);
        if (now >= deadline) return resolve(false);
        setTimeout(check, Math.max(1, Math.min(quietMs - idle, deadline - now)));
      };
      check();
    });
  }

  const api = {
    version: VERSION,
    sinceChange,
    domQuiet,
    run,
    count,
    chain,
    within,
    finish,
    roleStatesMatch,
    readState,
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
