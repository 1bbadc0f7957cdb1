// Profiles: [origin, {key: value}] of this document's localStorage, or null where the page
// may not use it (an opaque origin, storage blocked).
function local_storage_read() {
  try { return [location.origin, Object.assign({}, localStorage)]; } catch (e) { return null; }
}
