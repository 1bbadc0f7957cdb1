// Reports the page's permission prompts to the host through the CDP binding `binding` (removed
// from the page's globals before page code can use it): geolocation, notifications, camera and
// microphone requests call it with JSON {name} when the permission is still "prompt", so the
// host can hand the space to the person. Wraps the prompting APIs once per document.
function permission_watch(binding) {
  const report = globalThis[binding];
  if (typeof report !== 'function' || globalThis.__egoPermWrapped) return;
  Object.defineProperty(globalThis, '__egoPermWrapped', {value: true});
  try { delete globalThis[binding]; } catch (e) {}
  const perms = navigator.permissions;
  const ask = (names) => {
    for (const name of names) {
      const p = perms && perms.query ? perms.query({name}).then(s => s.state, () => 'prompt')
                                     : Promise.resolve('prompt');
      p.then(state => { if (state === 'prompt') report(JSON.stringify({name})); });
    }
  };
  const geo = navigator.geolocation;
  if (geo) {
    for (const m of ['getCurrentPosition', 'watchPosition']) {
      const orig = geo[m];
      if (typeof orig === 'function') {
        geo[m] = function(...a) { ask(['geolocation']); return orig.apply(this, a); };
      }
    }
  }
  if (globalThis.Notification && typeof Notification.requestPermission === 'function') {
    const orig = Notification.requestPermission;
    Notification.requestPermission = function(...a) {
      if (Notification.permission === 'default') report(JSON.stringify({name: 'notifications'}));
      return orig.apply(this, a);
    };
  }
  const md = navigator.mediaDevices;
  if (md && typeof md.getUserMedia === 'function') {
    const orig = md.getUserMedia;
    md.getUserMedia = function(c, ...a) {
      const names = [];
      if (c && c.video) names.push('camera');
      if (c && c.audio) names.push('microphone');
      ask(names);
      return orig.call(this, c, ...a);
    };
  }
}
