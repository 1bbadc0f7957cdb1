// The journal's record of an action's target (docs/learning.md): `this` is the element the
// action resolved to, in the utility world. Answers its role, name and field facts, and the
// locators that would find it again without a ref, each with whether it is unique in its
// document now, in order of stability: test id, id, label, name attribute, role+name, href
// (the last two are counted only when none before is unique: role+name then says unique null).
// `locator` is the first unique one, or null. Computed at action time, before any input.
function journal_target() {
  // the roles Chromium names from their content (ARIA's "name from: contents"): any other role's
  // name, read off its text in the page, is not the name its role selector matches
  const FROM_CONTENT = new Set(['button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'checkbox',
    'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'switch', 'treeitem', 'tooltip',
    'row', 'gridcell']);
  const el = this;
  const doc = el.ownerDocument || document;
  const sel = globalThis.__egoSel;
  // a name from content leaves out what is hidden from assistive tech (an aria-hidden icon:
  // Chromium names <li role=option><span aria-hidden>📄</span>draft.py</li> "draft.py"), and an
  // empty one falls back to the title (an icon button titled "New File")
  const contentText = (node) => {
    let out = '';
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out += c.nodeValue;
      else if (c.nodeType === 1 && c.getAttribute('aria-hidden') !== 'true' && !/^(script|style)$/.test(c.localName)) {
        out += contentText(c);
      }
    }
    return out;
  };
  const accName = (e, o) => {
    if (!o.role || !FROM_CONTENT.has(o.role) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') ||
        /^(input|select|textarea|img|area)$/.test(e.localName)) return o;
    const own = contentText(e).replace(/\s+/g, ' ').trim();
    return { ...o, name: own || (e.getAttribute('title') || '').replace(/\s+/g, ' ').trim() || null };
  };
  const describe = (e) => accName(e, sel.describe(e));
  const d = sel ? describe(el) : { tag: el.localName, id: el.id || null, role: null, name: null };
  const q = (s) => JSON.stringify(String(s));
  const count = (css) => { try { return doc.querySelectorAll(css).length; } catch (e) { return 0; } };
  const esc = (s) => (globalThis.CSS && CSS.escape) ? CSS.escape(s) : String(s).replace(/["\\]/g, '\\$&');
  const cands = [];
  const add = (kind, locator, unique) => cands.push({ kind, locator, unique: !!unique });
  for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy']) {
    const v = el.getAttribute(a);
    if (v) add('testid', a === 'data-testid' ? `data-testid=${v}` : `css=[${a}="${esc(v)}"]`, count(`[${a}="${esc(v)}"]`) === 1);
  }
  // ids made by frameworks (long numbers, hashes, colons) change between loads: not offered
  if (el.id && !/\d{4,}|^[0-9a-f-]{12,}$|[:]/i.test(el.id)) add('id', `id=${el.id}`, count(`[id="${esc(el.id)}"]`) === 1);
  const labelText = (e) => {
    const ls = e.labels;
    if (!ls || !ls.length) return null;
    // a label wrapping a select or a text area reads its options and text too (label=Action
    // --------- Delete ...): no locator the label engine would match again
    if (ls[0].querySelector('select, textarea')) return null;
    const t = (ls[0].innerText || ls[0].textContent || '').replace(/\s+/g, ' ').trim().replace(/\s*[*:]\s*$/, '');
    return t || null;
  };
  const label = labelText(el);
  if (label) {
    let n = 0;
    for (const c of doc.querySelectorAll('input, select, textarea, button, meter, output, progress')) {
      if (labelText(c) === label) n++;
    }
    add('label', `label=${q(label)}`, n === 1);
  }
  const fname = el.getAttribute('name');
  if (fname && /^(input|select|textarea|button)$/.test(el.localName)) {
    add('name', `css=${el.localName}[name="${esc(fname)}"]`, count(`${el.localName}[name="${esc(fname)}"]`) === 1);
  }
  // role+name is checked only when nothing more stable is unique: counting it describes every
  // element of the tag, which costs on a large page (an unchecked candidate says unique: null)
  const settled = cands.some((c) => c.unique);
  // a role Chromium does not name from its content (a menu's <li> whose label is in child
  // elements) has no accessible name: role=listitem[name=...] would never match it again, so it
  // is found by its text among the visible elements of its tag (a re-used menu keeps hidden ones)
  const authored = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.getAttribute('title') || label ||
    /^(input|select|textarea|img|area|fieldset|table)$/.test(el.localName);
  if (d.role && d.name && sel && !authored && !FROM_CONTENT.has(d.role)) {
    if (!settled) {
      let n = 0, seen = 0;
      for (const c of doc.querySelectorAll(el.localName)) {
        if (++seen > 3000) { n = 2; break; }
        if (c !== el && typeof c.checkVisibility === 'function' && !c.checkVisibility()) continue;
        if (c === el || (describe(c).name || '').toLowerCase().includes(d.name.toLowerCase())) n++;
      }
      // :has-text (any case, a part): :text-is skips an element whose child holds the whole text
      add('text', `css=${el.localName}:has-text(${q(d.name)}):visible`, n === 1);
    }
  } else if (d.role && d.name && sel && settled) cands.push({ kind: 'role', locator: `role=${d.role}[name=${q(d.name)}]`, unique: null });
  else if (d.role && d.name && sel && !settled) {
    let n = 0, seen = 0;
    for (const c of doc.querySelectorAll(`${el.localName}, [role]`)) {
      if (++seen > 3000) { n = 2; break; }
      const o = c === el ? d : describe(c);
      if (o.role === d.role && o.name === d.name) n++;
    }
    add('role', `role=${d.role}[name=${q(d.name)}]`, n === 1);
  }
  if (el.localName === 'a' && el.href && !cands.some((c) => c.unique)) {
    let n = 0;
    for (const a of doc.querySelectorAll('a[href]')) if (a.href === el.href) n++;
    add('href', `loc=href:${el.getAttribute('href')}`, n === 1);
  }
  const found = cands.find((c) => c.unique);
  const type = (el.getAttribute('type') || '').toLowerCase();
  const form = el.form || (el.closest && el.closest('form'));
  let frame = null;
  try { frame = window.top === window ? null : location.href; } catch (e) { frame = location.href; }
  return {
    tag: d.tag, role: d.role || null, name: d.name || null, type: type || null,
    password: el.localName === 'input' && type === 'password',
    field: fname || null, label: label,
    form: form ? { method: (form.getAttribute('method') || 'get').toLowerCase(), action: form.action || null } : null,
    frame, locator: found ? found.locator : null, locators: cands,
  };
}
