// One read of `this` for page.is_checked/is_enabled/is_visible/input_value/text_content/
// inner_text/get_attribute and check's state (__egoSel.readState): {value} or {error}, or
// {missing: true} when the selector engine is not installed in this world yet.
function element_read(kind, arg) {
  return globalThis.__egoSel ? __egoSel.readState(this, kind, arg) : { missing: true };
}
