// The journal's record of an action's target (docs/learning.md): `this` is the element the
// action resolved to, in the utility world. Answers its role, name and field facts, and the
// locators that would find it again without a ref, each with whether it is unique in its
// document now, in order of stability: test id, id, label, name attribute, role+name, href
// (the last two are counted only when none before is unique: role+name then says unique null).
// `locator` is the first unique one, or null. Computed at action time, before any input.
function journal_target() {
  const el = this;
  const doc = el.ownerDocument || document;
  const sel = globalThis.__egoSel;
  const d = sel ? sel.describe(el) : { tag: el.localName, id: el.id || null, role: null, name: null };
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
  if (d.role && d.name && sel && settled) cands.push({ kind: 'role', locator: `role=${d.role}[name=${q(d.name)}]`, unique: null });
  if (d.role && d.name && sel && !settled) {
    let n = 0, seen = 0;
    for (const c of doc.querySelectorAll(`${el.localName}, [role]`)) {
      if (++seen > 3000) { n = 2; break; }
      const o = c === el ? d : sel.describe(c);
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
