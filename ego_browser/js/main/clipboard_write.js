// keyboard.paste: puts `text` (and `html` when given) on the clipboard from the top document and
// answers {saved, via}: `saved` is the text the clipboard held before (restored after the paste),
// `via` how it was written ("clipboard", "execCommand" with a one-shot copy listener, "failed").
async function clipboard_write(text, html) {
  let saved = null;
  try { saved = await navigator.clipboard.readText(); } catch (e) {}
  try {
    const items = {"text/plain": new Blob([text], {type: "text/plain"})};
    if (html != null) items["text/html"] = new Blob([html], {type: "text/html"});
    await navigator.clipboard.write([new ClipboardItem(items)]);
    return {saved, via: "clipboard"};
  } catch (e) {
    const onCopy = (ev) => {
      ev.stopImmediatePropagation(); ev.preventDefault();
      ev.clipboardData.setData("text/plain", text);
      if (html != null) ev.clipboardData.setData("text/html", html);
    };
    window.addEventListener("copy", onCopy, {capture: true, once: true});
    const ok = document.execCommand("copy");
    window.removeEventListener("copy", onCopy, {capture: true});
    return {saved, via: ok ? "execCommand" : "failed"};
  }
}
