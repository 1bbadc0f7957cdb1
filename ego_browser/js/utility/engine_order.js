// The document order of `els` (indexes into els, see __egoSel.order), or `missing` when the
// engine is not installed in this world (the caller installs it and asks again).
function engine_order(missing, ...els) {
  return globalThis.__egoSel ? __egoSel.order(els) : missing;
}
