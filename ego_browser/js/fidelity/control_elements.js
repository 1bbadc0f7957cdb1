// The fidelity oracle's ground truth for refs: the enabled, visible controls a pointer can reach
// (buttons, inputs, selects, textareas, links, eager iframes), open shadow roots included.
function control_elements() {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (!el.matches('button, input:not([type=hidden]), select, textarea, a[href], iframe')) continue;
      if (el.disabled || !el.checkVisibility({visibilityProperty: true}) || el.closest('[aria-hidden=true]')) continue;
      const r = el.getBoundingClientRect();  // no pointer reaches a zero-size box: no ref there
      if (!(r.width > 0 && r.height > 0) && getComputedStyle(el).display !== 'contents' && el.tagName !== 'IFRAME') continue;
      if (el.tagName === 'IFRAME' && el.loading === 'lazy') continue;
      out.push(el);
    }
  };
  walk(document);
  return out;
}
