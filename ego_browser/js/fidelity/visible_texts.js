// The fidelity oracle's ground truth for text: every visible text node of the document (open
// shadow roots included), whitespace-collapsed, skipping script/style/title/option/textarea
// text, aria-hidden subtrees and zero-width-only runs.
function visible_texts() {
  const out = [];
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      if (n.nodeType === 1) { if (n.shadowRoot) walk(n.shadowRoot); continue; }
      const p = n.parentElement;
      if (!p || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TITLE', 'OPTION', 'TEXTAREA'].includes(p.tagName)) continue;
      if (!p.checkVisibility({visibilityProperty: true}) || p.closest('[aria-hidden=true]')) continue;
      const t = n.data.replace(/[\s\u00a0]+/g, ' ').trim();
      if (t && !/^[\u200b-\u200f\u2060\ufeff]+$/.test(t)) out.push(t);
    }
  };
  walk(document);
  return out;
}
