// Wikipedia Special:Search result page (/w/index.php?search=...&fulltext=1).
// Runs as the body of `async (args) => { ... }`.
const limit = Number.isInteger(args.limit) && args.limit > 0 ? args.limit : 20;
const text = (el) => (el ? el.textContent.replace(/[ \t\n\u00a0]+/g, ' ').trim() : null);
const results = [];
for (const li of document.querySelectorAll('ul.mw-search-results li.mw-search-result')) {
  const link = li.querySelector('.mw-search-result-heading a');
  if (!link) continue;
  results.push({
    title: link.getAttribute('title') || text(link),
    url: link.href,
    snippet: text(li.querySelector('.searchresult')),
    data: text(li.querySelector('.mw-search-result-data')),
  });
  if (results.length >= limit) break;
}
const info = document.querySelector('.results-info');
let total = null;
if (info) {
  const raw = info.getAttribute('data-mw-num-results-total');
  if (raw !== null) total = parseInt(raw, 10);
  else {
    const strong = info.querySelectorAll('strong');
    if (strong.length) total = parseInt(strong[strong.length - 1].textContent.replace(/[^\d]/g, ''), 10);
  }
  if (Number.isNaN(total)) total = null;
}
const dym = document.querySelector('.searchdidyoumean a');
const exists = document.querySelector('p.mw-search-exists a');
const box = document.querySelector('#searchText input, input[name="search"]');
return {
  query: box ? box.value : new URL(location.href).searchParams.get('search'),
  total,
  did_you_mean: text(dym),
  exact_match: exists ? { title: exists.getAttribute('title') || text(exists), url: exists.href } : null,
  no_results: !!document.querySelector('p.mw-search-nonefound'),
  results,
};
