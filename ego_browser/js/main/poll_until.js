// page.wait_for_function: calls `fn` (an async function around the agent's script) every
// `pollMs` until it answers truthy (-> true) or `timeoutMs` passed (-> false). The host
// starts it again in the new document when a navigation ends this one.
async function poll_until(fn, timeoutMs, pollMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise(r => setTimeout(r, pollMs));
  }
}
