// Profiles: writes `items` ({key: value}) into this document's localStorage, but only when the
// document is of `origin` (a redirect may have landed elsewhere). Answers whether it wrote.
function local_storage_seed(origin, items) {
  if (location.origin !== origin) return false;
  for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v);
  return true;
}
