// The tools a page registered through navigator.modelContext, `this` being the shim's
// registry (a Map name -> tool, reached through the debugger): [{name, description,
// input_schema, annotations}], JSON only (a schema that is not JSON becomes null).
function webmcp_list() {
  const json = (v) => { try { return v === undefined ? null : JSON.parse(JSON.stringify(v)); } catch (e) { return null; } };
  const out = [];
  for (const [name, tool] of this) {
    out.push({name, description: typeof tool.description === 'string' ? tool.description : '',
              input_schema: json(tool.inputSchema), annotations: json(tool.annotations)});
  }
  return out;
}
