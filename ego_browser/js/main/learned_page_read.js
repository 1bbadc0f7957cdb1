// What a page shows for a learned tool's post-condition (issue 28): its first heading, its
// status message (an ARIA status or alert, an <output>, a conventional success/notice
// class) and its URL; `text` is the page's visible text (bounded) for a message elsewhere.
function learned_page_read() {
  const text = (el) => el ? (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim() : null;
  const msg = document.querySelector('[role=status], [role=alert], output, .success, .ok, .notice, .message, .flash, .alert');
  const body = document.body ? (document.body.innerText || '') : '';
  return {heading: text(document.querySelector('h1')), message: text(msg), url: location.href,
          text: body.replace(/\s+/g, ' ').slice(0, 50000)};
}
