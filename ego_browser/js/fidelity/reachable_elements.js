// The elements of the document (open shadow roots included) that could be controls by Chromium's
// accessibility tree and that a pointer can reach: rendered, with a box (or display: contents),
// not disabled, not in an aria-hidden subtree, not an option of a <select> (its value is printed).
// The oracle keeps those whose AX node has a control role.
function reachable_elements() {
  const out = [];
  const sel = '[role], [tabindex], [contenteditable], a[href], button, input:not([type=hidden]), select, ' +
    'textarea, summary';
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (!el.matches(sel) || el.disabled || el.closest('select, [aria-hidden=true]')) continue;
      const contents = getComputedStyle(el).display === 'contents';
      if (!contents && !el.checkVisibility({visibilityProperty: true})) continue;
      const r = el.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0) && !contents) continue;
      out.push(el);
    }
  };
  walk(document);
  return out;
}
