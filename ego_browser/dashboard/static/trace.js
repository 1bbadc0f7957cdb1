// The trace viewer: renders window.EGO_TRACE (set by trace-data.js, next to this file) as
// rounds -> actions -> pictures and requests. It runs from a file (the exported zip, opened
// offline) or from the dashboard, so it loads nothing else. Every text from the trace goes
// in through textContent: a page's title or a request's URL is data, never markup.
(() => {
  'use strict';
  const trace = globalThis.EGO_TRACE;
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined) e.setAttribute(k, String(v));
    }
    for (const kid of kids) {
      if (kid === null || kid === undefined) continue;
      e.append(kid instanceof Node ? kid : String(kid));
    }
    return e;
  };
  const when = (t) => (t ? new Date(t * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');
  const target = (t) => {
    if (!t) return null;
    const said = t.locator || t.given || '';
    const what = [t.role, t.name ? JSON.stringify(t.name) : null].filter(Boolean).join(' ');
    return [said, what ? `(${what})` : ''].filter(Boolean).join(' ');
  };
  const picture = (name, caption) => {
    if (!name) return null;
    const src = (trace.pictures_base || 'pictures/') + name;
    return el('figure', {}, el('img', { src, alt: caption, loading: 'lazy' }), el('figcaption', {}, caption));
  };
  const requests = (list) => {
    if (!list || !list.length) return null;
    const rows = list.map((r) => el('tr', {},
      el('td', {}, r.method || ''), el('td', {}, r.status === null || r.status === undefined ? (r.failure || '…') : r.status),
      el('td', {}, r.resource_type || ''),
      el('td', {}, r.timing && r.timing.duration_ms !== null && r.timing.duration_ms !== undefined ? `${Math.round(r.timing.duration_ms)} ms` : ''),
      el('td', { class: 'url', title: r.url }, r.url || '')));
    return el('details', { class: 'net' }, el('summary', {}, `${list.length} request${list.length > 1 ? 's' : ''}`),
      el('table', { class: 'requests' },
        el('tr', {}, el('th', {}, 'method'), el('th', {}, 'status'), el('th', {}, 'type'), el('th', {}, 'time'), el('th', {}, 'url')),
        ...rows));
  };
  const caused = (a) => {
    const bits = [];
    if (a.navigation) bits.push(`navigation ${a.navigation.url || ''}`.trim());
    if (a.dialog) bits.push(`dialog ${a.dialog.type}: ${a.dialog.message || ''}`);
    if (a.popups && a.popups.length) bits.push(`popups ${a.popups.join(', ')}`);
    if (a.download) bits.push(`download ${a.download.suggested_filename || a.download.name || ''}`.trim());
    return bits.length ? el('div', { class: 'caused' }, bits.join(' · ')) : null;
  };
  // what the agent saw (a snapshot, cut) and said (a status note): no target, no pictures
  const look = (a) => el('li', { class: `action look ${a.op === 'task.set_status' ? 'note' : 'seen'}`, id: `action-${a.seq}`, 'data-op': a.op },
    a.op === 'task.set_status'
      ? el('div', {}, el('span', { class: 'op' }, 'note'), ' ', String(a.value || ''))
      : el('details', {}, el('summary', {}, el('span', { class: 'op' }, a.op), ` · ${a.page || ''} · ${a.ms} ms`),
        el('pre', { class: 'snapshot' }, a.snapshot || '')));
  const action = (a) => (a.op === 'page.snapshot' || a.op === 'task.set_status') ? look(a) : el('li', { class: 'action', id: `action-${a.seq}`, 'data-op': a.op },
    el('div', {},
      el('span', { class: 'op' }, a.op), ' ', el('span', { class: `outcome-${a.outcome}` }, a.outcome),
      a.error ? ` ${a.error}` : '', ` · ${a.page || ''} · ${a.ms} ms`),
    a.note ? el('div', { class: 'note-line' }, 'note: ', a.note) : null,
    target(a.target) ? el('div', { class: 'target' }, 'target: ', target(a.target)) : null,
    a.value !== null && a.value !== undefined ? el('div', { class: 'value' }, 'value: ', JSON.stringify(a.value)) : null,
    el('div', { class: 'urls' }, a.url_before === a.url_after ? (a.url_after || '') : `${a.url_before || ''} → ${a.url_after || ''}`),
    caused(a),
    el('div', { class: 'pictures' }, picture(a.picture_before, 'before'), picture(a.picture_after, 'after')),
    requests(a.requests));
  const round = (r) => el('section', { class: 'round', id: `round-${r.n}` },
    el('h2', {}, `Round ${r.n} `, el('span', { class: `status-${r.status}` }, r.status),
      ` · ${when(r.started)}`, r.ended ? ` · ${Math.round((r.ended - r.started) * 1000)} ms` : ''),
    r.error ? el('div', { class: 'status-failed' }, r.error) : null,
    r.script ? el('details', {}, el('summary', {}, 'script'), el('pre', { class: 'script' }, r.script)) : null,
    el('ol', { class: 'actions' }, ...r.actions.map(action)));
  const main = document.getElementById('rounds');
  if (!trace) return;
  main.textContent = '';
  const name = trace.space_name ? `${trace.space_name} (space ${trace.space_id})` : `space ${trace.space_id}`;
  document.getElementById('title').textContent = `Trace of ${name}`;
  const actions = trace.rounds.reduce((n, r) => n + r.actions.length, 0);
  document.getElementById('summary').textContent =
    `${trace.rounds.length} rounds, ${actions} actions${trace.exported ? ` · exported ${when(trace.exported)}` : ''}`;
  if (trace.video) main.append(el('video', { id: 'video', controls: '', src: trace.video, preload: 'metadata' }));
  for (const r of trace.rounds) main.append(round(r));
})();
