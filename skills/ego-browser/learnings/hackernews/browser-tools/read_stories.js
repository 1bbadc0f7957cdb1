// Hacker News list pages: /, /news, /newest, /best, /ask, /show, /jobs, /front, /from?site=.
// Each story is <tr class="athing submission" id="<item id>"> followed by a row whose
// td.subtext holds score, author, age and the comments link. Runs as the body of
// `async (args) => { ... }`.
const limit = Number.isInteger(args.limit) && args.limit > 0 ? args.limit : 30;
const abs = (href) => {
  if (!href) return null;
  try { return new URL(href, location.href).href; } catch (e) { return href; }
};
const num = (text) => {
  const m = /(\d+)/.exec(String(text || '').replace(/,/g, ''));
  return m ? parseInt(m[1], 10) : null;
};
const stories = [];
for (const row of document.querySelectorAll('tr.athing')) {
  if (row.classList.contains('comtr')) continue; // a comment, not a story
  const link = row.querySelector('span.titleline > a');
  if (!link) continue;
  const next = row.nextElementSibling;
  const sub = next ? next.querySelector('td.subtext') : null;
  const score = sub ? sub.querySelector('span.score') : null;
  const user = sub ? sub.querySelector('a.hnuser') : null;
  const age = sub ? sub.querySelector('span.age') : null;
  let comments = null;
  if (sub) {
    const itemLinks = sub.querySelectorAll('a[href^="item?id="]');
    const last = itemLinks.length ? itemLinks[itemLinks.length - 1] : null;
    const text = last ? last.textContent.replace(/\u00a0/g, ' ').trim() : '';
    if (/^discuss$/i.test(text)) comments = 0;
    else if (/comment/i.test(text)) comments = num(text);
  }
  const rank = row.querySelector('span.rank');
  const site = row.querySelector('span.sitestr');
  const stamp = age ? (age.getAttribute('title') || '').split(' ')[0] : '';
  stories.push({
    id: row.id || null,
    rank: rank ? num(rank.textContent) : null,
    title: link.textContent.trim(),
    url: abs(link.getAttribute('href')),
    site: site ? site.textContent.trim() : null,
    score: score ? num(score.textContent) : null,
    user: user ? user.textContent.trim() : null,
    age: age ? age.textContent.trim() : null,
    time: stamp || null,
    comments,
    discussion_url: row.id ? abs('item?id=' + row.id) : null,
  });
  if (stories.length >= limit) break;
}
const more = document.querySelector('a.morelink');
return { page_url: location.href, stories, next_page: more ? abs(more.getAttribute('href')) : null };
