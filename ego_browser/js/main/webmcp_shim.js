// WebMCP (issue 28 §2): navigator.modelContext for a browser that has none, so a page that
// registers tools for agents finds the API it feature-detects. It only keeps what the page
// registers, in this closure: nothing of ours is reachable from the page (no global, no
// property besides navigator.modelContext itself, no name of ours). The host reads the tools
// through the debugger (the closure's `registry`, driver/webmcp.py), never through the page.
// Not installed in frames, in insecure contexts ([SecureContext] in the draft), or where the
// browser has its own navigator.modelContext.
(() => {
  if (window.top !== window || !window.isSecureContext || 'modelContext' in navigator) return;
  const registry = new Map();
  const provided = new Set();
  const add = (tool) => {
    if (!tool || typeof tool !== 'object') throw new TypeError('a tool must be an object');
    const name = tool.name;
    if (typeof name !== 'string' || !name) throw new TypeError('a tool needs a name');
    if (typeof tool.execute !== 'function') throw new TypeError('tool ' + name + ' needs an execute function');
    if (registry.has(name)) throw new Error('a tool named ' + name + ' is already registered');
    registry.set(name, tool);
    return name;
  };
  const api = {
    provideContext(context) {
      for (const name of provided) registry.delete(name);
      provided.clear();
      for (const tool of (context && context.tools) || []) provided.add(add(tool));
    },
    clearContext() { registry.clear(); provided.clear(); },
    registerTool(tool) {
      const name = add(tool);
      return {unregister() { if (registry.get(name) === tool) registry.delete(name); }};
    },
    unregisterTool(name) { registry.delete(String(name)); provided.delete(String(name)); },
  };
  Object.defineProperty(Navigator.prototype, 'modelContext', {get() { return api; }, enumerable: true, configurable: true});
})()
