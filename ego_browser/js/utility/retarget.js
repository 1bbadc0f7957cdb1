// The element a pointer action on `this` should hit (__egoSel.retarget: a <span> in a button
// becomes the button; "follow-label" maps a label to its control), or null when it is `this`.
function retarget(behavior) {
  const r = globalThis.__egoSel && __egoSel.retarget(this, behavior);
  return r === this ? null : r;
}
