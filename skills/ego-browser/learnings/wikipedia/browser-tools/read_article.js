// Wikipedia article page (/wiki/<Title>), Vector 2022 and legacy markup.
// Runs as the body of `async (args) => { ... }`.
const maxParagraphs = Number.isInteger(args.paragraphs) && args.paragraphs >= 0 ? args.paragraphs : 3;
const clean = (el) => {
  if (!el) return null;
  const copy = el.cloneNode(true);
  copy.querySelectorAll('sup.reference, sup.noprint, .mw-editsection, style, link, .mw-ref').forEach((n) => n.remove());
  copy.querySelectorAll('br').forEach((n) => n.replaceWith('\n'));
  copy.querySelectorAll('li').forEach((n) => n.insertAdjacentText('beforeend', '\n'));
  return copy.textContent.replace(/[ \t\u00a0]+/g, ' ').replace(/ *\n[ \n]*/g, '\n').trim();
};
const root = document.querySelector('#mw-content-text .mw-parser-output') || document.querySelector('#mw-content-text');
const heading = document.querySelector('#firstHeading');
const titleMain = heading ? heading.querySelector('.mw-page-title-main') : null;
const canonical = document.querySelector('link[rel="canonical"]');
const redirected = document.querySelector('.mw-redirectedfrom a');
const isHeading = (el) => /^H[2-6]$/.test(el.tagName) || el.classList.contains('mw-heading');

const lead = [];
if (root) {
  for (const el of root.children) {
    if (isHeading(el)) break;
    if (el.tagName !== 'P' || el.classList.contains('mw-empty-elt')) continue;
    const text = clean(el);
    if (text) lead.push(text);
    if (lead.length >= maxParagraphs) break;
  }
}

let infobox = null;
const box = root ? root.querySelector('table.infobox') : null;
if (box) {
  const above = box.querySelector('th.infobox-above, caption.infobox-title, caption');
  const rows = [];
  for (const tr of box.querySelectorAll('tr')) {
    const th = tr.querySelector(':scope > th.infobox-label') || tr.querySelector(':scope > th[scope="row"]');
    const td = tr.querySelector(':scope > td.infobox-data') || (th ? tr.querySelector(':scope > td') : null);
    if (th && td) rows.push({ label: clean(th), value: clean(td) });
  }
  infobox = { title: clean(above), rows };
}

const sections = [];
if (root) {
  for (const h of root.querySelectorAll('h2, h3, h4')) {
    if (h.closest('.navbox, table, #toc, .toc')) continue;
    const legacy = h.querySelector('.mw-headline');
    const id = h.id || (legacy ? legacy.id : '') || null;
    const title = clean(legacy || h);
    if (title) sections.push({ level: Number(h.tagName.slice(1)), id, title });
  }
}

const categories = [...document.querySelectorAll('#catlinks .mw-normal-catlinks li a')].map((a) => a.textContent.trim());
return {
  title: (titleMain || heading) ? (titleMain || heading).textContent.trim() : document.title,
  url: location.href,
  canonical_url: canonical ? canonical.href : null,
  short_description: clean(document.querySelector('.shortdescription')) || null,
  redirected_from: redirected ? redirected.textContent.trim() : null,
  is_disambiguation: !!document.querySelector('#disambigbox, .dmbox-disambig') || categories.includes('Disambiguation pages'),
  lead,
  infobox,
  sections,
  categories,
};
