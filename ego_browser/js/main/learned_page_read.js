// What a page shows for a learned tool's post-condition (issue 28): its first heading, its
// status message (an ARIA status or alert, an <output>, a conventional success/notice
// class) and its URL; `text` is the page's visible text (bounded) for a message elsewhere.
// A component-based app keeps its lists and status lines in open shadow roots, which neither
// querySelector nor innerText enters: they are read too (the document's own first).
function learned_page_read() {
  const text = (el) => el ? (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim() : null;
  const MESSAGE = '[role=status], [role=alert], output, .success, .ok, .notice, .message, .flash, .alert';
  const roots = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (roots.length >= 500) return;
      if (el.shadowRoot) { roots.push(el.shadowRoot); walk(el.shadowRoot); }
    }
  };
  walk(document);
  let msg = document.querySelector(MESSAGE);
  if (!text(msg)) {
    for (const root of roots) {
      const found = [...root.querySelectorAll(MESSAGE)].find((el) => text(el));
      if (found) { msg = found; break; }
    }
  }
  let body = document.body ? (document.body.innerText || '') : '';
  for (const root of roots) {
    if (body.length > 50000) break;
    for (const el of root.children) {
      if (el.localName !== 'style' && el.localName !== 'script') body += '\n' + (el.innerText || '');
    }
  }
  const heading = document.querySelector('h1') || roots.map((r) => r.querySelector('h1')).find(Boolean);
  return {heading: text(heading), message: text(msg), url: location.href,
          text: body.replace(/\s+/g, ' ').slice(0, 50000)};
}
