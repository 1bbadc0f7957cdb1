// ego_browser element state, shared by the snapshot walker (snapshot_walker.js) and the selector
// engine's find rows (selector_engine.js): the Python loaders paste this expression where those
// sources say __EGO_ELEMENT_STATE__, so both report the same state in the same words.
//
// stateOf(el, role, active, ariaDisabled) -> {checked, pressed, disabled, expanded, selected, required, invalid,
//   readonly, focused, level, value}; a field is null where it does not apply to the element.
// ariaDisabled false: the caller knows no element of the document has aria-disabled (skips a
// closest() per element on a walk).
// Everything is read live (el.checked, el.value, :disabled ...), never from the attribute, so a
// snapshot shows what the person or the agent typed or ticked. Nothing here mutates the page.
(function () {
  const VALUE_MAX = 100;  // characters of a value before it is cut with "…" (docs: "Snapshot notation")
  const CHECK_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const SELECT_ROLES = new Set(['option', 'tab', 'row', 'gridcell', 'treeitem', 'cell', 'columnheader', 'rowheader']);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'progressbar', 'combobox', 'listbox']);
  const FORM = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'OPTION', 'OPTGROUP', 'FIELDSET']);
  const TEXT_INPUT = new Set(['text', 'search', 'email', 'tel', 'url', 'password', 'number', 'date', 'time',
    'datetime-local', 'month', 'week']);
  const WS = /[\s\u00a0]+/g;

  const attr = (el, a) => {
    const v = el.getAttribute(a);
    return v === null ? null : v.trim().toLowerCase();
  };
  // a selector this Chromium may not know (:open, :user-invalid) matches nothing
  const matches = (el, sel) => {
    try { return el.matches(sel); } catch (e) { return false; }
  };
  const clip = (s) => {
    s = String(s).replace(WS, ' ').trim();
    return s.length > VALUE_MAX ? s.slice(0, VALUE_MAX - 1) + '…' : s;
  };

  function valueOf(el, tag, role) {
    if (tag === 'INPUT') {
      const t = el.type;
      if (t === 'password') return el.value ? '***' : '';  // never printed: only "something is there"
      if (t === 'checkbox' || t === 'radio' || t === 'button' || t === 'submit' || t === 'reset' ||
          t === 'image' || t === 'file' || t === 'hidden') return null;
      return clip(el.value);
    }
    if (tag === 'TEXTAREA') return clip(el.value);
    if (tag === 'SELECT') {
      const out = [];
      for (const o of el.selectedOptions) out.push(clip(o.label || o.textContent));
      return out.join(', ');
    }
    if (tag === 'PROGRESS') return el.position < 0 ? '' : clip(String(el.value));
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar') {
      const vt = el.getAttribute('aria-valuetext');
      if (vt !== null && vt.trim()) return clip(vt);
      const vn = el.getAttribute('aria-valuenow');
      return vn === null ? '' : clip(vn);
    }
    return null;  // contenteditable and ARIA widgets: their content is shown as child lines
  }

  return function stateOf(el, role, active, ariaDisabled) {
    const tag = el.tagName;
    const form = FORM.has(tag);
    const s = {checked: null, pressed: null, disabled: false, expanded: null, selected: null, required: false,
      invalid: false, readonly: false, focused: !!active && el === active, level: null, value: null};
    if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) {
      s.checked = el.type === 'checkbox' && el.indeterminate ? 'mixed' : el.checked;
    } else if (CHECK_ROLES.has(role)) {
      const a = attr(el, 'aria-checked');
      s.checked = a === 'mixed' ? 'mixed' : a === 'true';
    }
    if (role === 'button') {
      const a = attr(el, 'aria-pressed');
      if (a === 'true') s.pressed = true; else if (a === 'mixed') s.pressed = 'mixed'; else if (a === 'false') s.pressed = false;
    }
    s.disabled = (form && el.matches(':disabled')) ||
      (ariaDisabled !== false ? el.closest('[aria-disabled=true]') !== null : attr(el, 'aria-disabled') === 'true');
    const ex = attr(el, 'aria-expanded');
    if (ex === 'true' || ex === 'false') s.expanded = ex === 'true';
    else if (tag === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS' &&
             el.parentElement.querySelector(':scope > summary') === el) s.expanded = el.parentElement.open;
    else if (tag === 'SELECT' && role === 'combobox') s.expanded = matches(el, ':open');  // its popup
    if (tag === 'OPTION') s.selected = el.selected;
    else if (SELECT_ROLES.has(role)) {
      const a = attr(el, 'aria-selected');
      if (a === 'true' || a === 'false') s.selected = a === 'true';
    }
    if (form) s.required = el.required === true;
    if (!s.required && attr(el, 'aria-required') === 'true') s.required = true;
    const inv = attr(el, 'aria-invalid');
    if (inv !== null && inv !== '' && inv !== 'false') s.invalid = true;
    else if (form && tag !== 'BUTTON' && tag !== 'FIELDSET') s.invalid = matches(el, ':user-invalid');
    if ((tag === 'TEXTAREA' || (tag === 'INPUT' && TEXT_INPUT.has(el.type))) && el.readOnly) s.readonly = true;
    else if (attr(el, 'aria-readonly') === 'true') s.readonly = true;
    if (role === 'heading') {
      const lv = parseInt(el.getAttribute('aria-level'), 10);
      s.level = lv > 0 ? lv : /^H[1-6]$/.test(tag) ? +tag[1] : 2;
    }
    if (VALUE_ROLES.has(role)) s.value = valueOf(el, tag, role);
    return s;
  };
})()
