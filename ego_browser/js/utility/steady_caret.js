// A caret that does not blink in the documents our spaces open (CSS caret-animation: manual).
//
// Run at each new document's start in our utility world (driver/preload.py). A blinking caret
// repaints its page twice a second while a text field has focus: an agent that filled a field
// and thinks (or waits for its turn among many agents) kept its renderer, the GPU process and
// the browser busy with ~6 ms of CPU a second per space, against ~1 ms for a space at rest
// (issue 31 §2). The caret stays shown; only its blinking stops, as with the "no blinking"
// accessibility setting. The sheet is adopted by the document (the page's own assignments of
// document.adoptedStyleSheets may drop it: the caret then blinks again, nothing else changes).
(() => {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("* { caret-animation: manual !important; }");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch (e) {
    // an engine without constructable sheets: the caret blinks, as before
  }
  return true;
})()
