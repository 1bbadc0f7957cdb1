// Call one WebMCP tool of the page, `this` being the shim's registry: checks `args` against
// the tool's inputSchema (type object, required, the properties' JSON types and enums),
// awaits execute(args, client) until `timeout` ms, and answers {result} (the tool's return
// value as JSON), or {error: "unknown"|"bad_args"|"threw"|"is_error"|"timeout", ...}.
// Never throws: a tool's exception is the page's, reported as text.
async function webmcp_call(name, args, timeout) {
  const tool = this.get(name);
  if (!tool) return {error: 'unknown', available: Array.from(this.keys())};
  const schema = tool.inputSchema && typeof tool.inputSchema === 'object' ? tool.inputSchema : {};
  const problems = [];
  const typeOf = (v) => v === null ? 'null' : Array.isArray(v) ? 'array'
    : (typeof v === 'number' && Number.isInteger(v)) ? 'integer' : typeof v;
  const fits = (v, t) => t === undefined || (Array.isArray(t) ? t : [t]).some(
    (x) => x === typeOf(v) || (x === 'number' && typeOf(v) === 'integer'));
  for (const key of Array.isArray(schema.required) ? schema.required : [])
    if (!(key in args)) problems.push('missing required ' + key);
  const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  for (const [key, value] of Object.entries(args)) {
    const p = props[key];
    if (!p) { if (schema.additionalProperties === false) problems.push('unexpected ' + key); continue; }
    if (!fits(value, p.type)) problems.push(key + ' must be ' + [].concat(p.type).join(' or ') + ' (got ' + typeOf(value) + ')');
    else if (Array.isArray(p.enum) && !p.enum.some((e) => e === value)) problems.push(key + ' must be one of ' + JSON.stringify(p.enum));
  }
  if (problems.length) return {error: 'bad_args', problems, input_schema: JSON.parse(JSON.stringify(schema))};
  const client = {requestUserInteraction: async (callback) => callback()};
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve({late: true}), timeout); });
  let out;
  try {
    out = await Promise.race([Promise.resolve(tool.execute(args, client)).then((value) => ({value})), late]);
  } catch (e) {
    return {error: 'threw', message: String((e && e.message) || e)};
  } finally {
    clearTimeout(timer);
  }
  if (out.late) return {error: 'timeout'};
  let value;
  try { value = out.value === undefined ? null : JSON.parse(JSON.stringify(out.value)); } catch (e) {
    return {error: 'threw', message: 'the result is not JSON: ' + String((e && e.message) || e)};
  }
  if (value && typeof value === 'object' && value.isError === true) {
    const text = (Array.isArray(value.content) ? value.content : []).map((c) => c && c.text).filter(Boolean).join('\n');
    return {error: 'is_error', message: text || 'the tool reported an error', result: value};
  }
  return {result: value};
}
