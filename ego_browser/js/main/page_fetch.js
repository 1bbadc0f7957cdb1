// page.fetch: window.fetch inside the page (its cookies, CORS and network rules). `o` holds
// {url, method, headers, body, timeout (ms), binary, init: {cache, credentials, ...}}. Answers
// {ok, status, status_text, url, headers, body} (body base64 when binary), or {error} where
// error is "timeout" or the browser's message. Never throws.
async function page_fetch(o) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), o.timeout);
  const init = {method: o.method, signal: ctrl.signal};
  if (o.headers) init.headers = o.headers;
  if (o.body !== null && o.body !== undefined) init.body = o.body;
  for (const k of ['cache', 'credentials', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy'])
    if (o.init[k] !== null && o.init[k] !== undefined) init[k] = o.init[k];
  try {
    const r = await window.fetch(o.url, init);
    const headers = {};
    r.headers.forEach((v, k) => { headers[k] = v; });
    let body;
    if (o.binary) {
      const b = new Uint8Array(await r.arrayBuffer());
      let s = '';
      for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
      body = btoa(s);
    } else {
      body = await r.text();
    }
    return {ok: r.ok, status: r.status, status_text: r.statusText, url: r.url, headers, body};
  } catch (e) {
    return {error: (e && e.name === 'AbortError') ? 'timeout' : String((e && e.message) || e)};
  } finally {
    clearTimeout(timer);
  }
}
