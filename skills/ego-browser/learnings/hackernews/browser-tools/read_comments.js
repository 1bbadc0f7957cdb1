// Hacker News item page (/item?id=N): the story in table.fatitem and the comment tree
// (tr.athing.comtr rows, depth in td.ind[indent]). Runs as the body of `async (args) => {...}`.
const limit = Number.isInteger(args.limit) && args.limit > 0 ? args.limit : 100;
const abs = (href) => {
  if (!href) return null;
  try { return new URL(href, location.href).href; } catch (e) { return href; }
};
const num = (text) => {
  const m = /(\d+)/.exec(String(text || '').replace(/,/g, ''));
  return m ? parseInt(m[1], 10) : null;
};
const textOf = (el) => {
  if (!el) return null;
  const copy = el.cloneNode(true);
  copy.querySelectorAll('.reply').forEach((n) => n.remove());
  // keep paragraph breaks: HN separates paragraphs with <p> and no closing tags
  copy.querySelectorAll('p').forEach((p) => p.insertAdjacentText('beforebegin', '\n\n'));
  return copy.textContent.replace(/[ \t\u00a0]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
};

let story = null;
const fat = document.querySelector('table.fatitem');
if (fat) {
  const row = fat.querySelector('tr.athing');
  const link = fat.querySelector('span.titleline > a');
  const sub = fat.querySelector('td.subtext');
  const score = sub ? sub.querySelector('span.score') : null;
  const user = sub ? sub.querySelector('a.hnuser') : null;
  const age = sub ? sub.querySelector('span.age') : null;
  story = {
    id: row ? row.id : null,
    title: link ? link.textContent.trim() : null,
    url: link ? abs(link.getAttribute('href')) : null,
    score: score ? num(score.textContent) : null,
    user: user ? user.textContent.trim() : null,
    age: age ? age.textContent.trim() : null,
    text: textOf(fat.querySelector('div.toptext')) || null,
  };
}

const comments = [];
const stack = []; // ids of the current ancestors, by depth
for (const row of document.querySelectorAll('tr.athing.comtr')) {
  const ind = row.querySelector('td.ind');
  let depth = 0;
  if (ind && ind.hasAttribute('indent')) depth = parseInt(ind.getAttribute('indent'), 10) || 0;
  else if (ind && ind.querySelector('img')) depth = Math.round((parseInt(ind.querySelector('img').getAttribute('width'), 10) || 0) / 40);
  stack.length = depth;
  const body = row.querySelector('.commtext');
  const box = row.querySelector('div.comment');
  const user = row.querySelector('a.hnuser');
  const age = row.querySelector('span.age');
  comments.push({
    id: row.id || null,
    parent_id: depth > 0 ? stack[depth - 1] || null : null,
    depth,
    user: user ? user.textContent.trim() : null,
    age: age ? age.textContent.trim() : null,
    text: body ? textOf(body) : (box ? textOf(box) : null),
    dead: !body,
  });
  stack[depth] = row.id || null;
  if (comments.length >= limit) break;
}
const more = document.querySelector('a.morelink');
return { story, comments, more_url: more ? abs(more.getAttribute('href')) : null };
