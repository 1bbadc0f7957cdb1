// The top document's URL, title, viewport size (w, h), scroll position (sx, sy) and scrollable
// size (pw, ph): what page.info reports.
function page_info() {
  const d = document.documentElement, b = document.body;
  return {url: location.href, title: document.title, w: innerWidth, h: innerHeight,
          sx: scrollX, sy: scrollY,
          pw: Math.max(d ? d.scrollWidth : 0, b ? b.scrollWidth : 0),
          ph: Math.max(d ? d.scrollHeight : 0, b ? b.scrollHeight : 0)};
}
