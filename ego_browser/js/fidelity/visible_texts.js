// The fidelity oracle's ground truth for text: every visible text node of the document (open
// shadow roots and slotted text included), whitespace-collapsed, skipping script/style/title/option/textarea
// text, aria-hidden subtrees and zero-width-only runs.
function visible_texts() {
  const out = [];
  // a parent with display: contents (a <slot>'s assigned text, a custom element host) has no box
  // and checkVisibility() says false: the text is shown when it is laid out itself
  const range = document.createRange();
  // a host's text is shown only through a slot that is itself in the flat tree: a slot that sits
  // as a light child of another host that no slot of its own shows renders nothing
  const inFlatTree = (x) => {
    while (x) {
      const up = x.parentNode;
      if (x.assignedSlot) { x = x.assignedSlot; continue; }
      if (up && up.nodeType === 1 && up.shadowRoot) return false;  // a host's child no slot shows
      x = up instanceof ShadowRoot ? up.host : up;
      if (x === document) return true;
    }
    return false;
  };
  const shown = (n, p) => {
    if (p.shadowRoot && !inFlatTree(n)) return false;  // a host's text that no slot shows
    if (p.checkVisibility({visibilityProperty: true})) return true;
    if (getComputedStyle(p).display !== 'contents' || getComputedStyle(p).visibility !== 'visible') return false;
    range.selectNodeContents(n);
    return range.getClientRects().length > 0;
  };
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      if (n.nodeType === 1) { if (n.shadowRoot) walk(n.shadowRoot); continue; }
      const p = n.parentElement;
      if (!p || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TITLE', 'OPTION', 'TEXTAREA'].includes(p.tagName)) continue;
      if (!shown(n, p) || p.closest('[aria-hidden=true]')) continue;
      const t = n.data.replace(/[\s\u00a0]+/g, ' ').trim();
      if (t && !/^[\u200b-\u200f\u2060\ufeff]+$/.test(t)) out.push(t);
    }
  };
  walk(document);
  return out;
}
