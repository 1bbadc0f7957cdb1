"""Fixture pages for the ref rules (issue 29 findings 2 and 3, issue 30 point 2).

Each reproduces a shape of a real single-page application:

- ``REUSED_MENU``: a context menu that re-uses its item nodes, relabelled for each target (the
  ref that named "Rename" in one menu names "New Folder" in the next);
- ``REPLACED_EDITOR``: an editor element that the app replaces with an identical one once its
  "model" is ready (``window.replaceEditor(label)``), next to a second, differently placed one;
- ``site_page(name, other)``: one page of a two-page site sharing its header, sidebar and footer
  (refs kept across the navigation) with a different main part.
"""

from __future__ import annotations

__all__ = ["REUSED_MENU", "REPLACED_EDITOR", "site_page"]

REUSED_MENU = """
<main><h1>Files</h1>
<ul aria-label="File list">
 <li><button id=file>notes.txt</button></li>
 <li><button id=folder>Documents</button></li>
</ul>
<ul role=menu id=menu aria-label="Context menu" hidden>
 <li role=menuitem tabindex=-1></li>
 <li role=menuitem tabindex=-1></li>
</ul>
<p id=log>nothing ran</p></main>
<script>
const menu = document.getElementById('menu');
const items = [...menu.children];
function openMenu(labels) {
  labels.forEach((label, i) => { items[i].textContent = label; });
  menu.hidden = false;
}
document.getElementById('file').onclick = () => openMenu(['Rename', 'Delete']);
document.getElementById('folder').onclick = () => openMenu(['New Folder', 'Upload']);
items.forEach((li) => li.addEventListener('click', () => {
  document.getElementById('log').textContent = 'ran ' + li.textContent;
  menu.hidden = true;
}));
</script>
"""

REPLACED_EDITOR = """
<main><h1>Untitled.py</h1>
<section aria-label="Cell 1"><div class=host>
 <div role=textbox contenteditable=true aria-label="Code editor" class=editor>x = 1</div>
</div></section>
<section aria-label="Cell 2"><div class=host>
 <div role=textbox contenteditable=true aria-label="Markdown editor" class=editor># notes</div>
</div></section>
<button id=run onclick="document.getElementById('out').textContent = 'ran: ' +
  document.querySelector('[aria-label=&quot;Cell 1&quot;] .editor').textContent">Run</button>
<p id=out></p></main>
<script>
// the app draws a placeholder editor, then replaces it once its model is ready
window.replaceEditor = (cell, label) => {
  const old = document.querySelector('[aria-label="' + cell + '"] .editor');
  const fresh = document.createElement('div');
  fresh.className = 'editor';
  fresh.setAttribute('role', 'textbox');
  fresh.setAttribute('contenteditable', 'true');
  fresh.setAttribute('aria-label', label);
  fresh.textContent = old.textContent;
  old.replaceWith(fresh);
  return 1;
};
</script>
"""


def site_page(name: str, links: dict[str, str], main: str) -> str:
    """A page of the shared-chrome site: ``links`` are the sidebar's (text -> url)."""
    side = "".join(f'<li><a href="{url}">{text}</a></li>' for text, url in links.items())
    return f"""
<header><a href="/">Acme admin</a> <button>Sign out</button>
 <a href="/profile/{name}">Profile</a></header>
<nav aria-label="Sidebar"><ul>{side}</ul></nav>
<main><h1>{name}</h1>{main}</main>
<footer><a href="/help">Help</a></footer>
"""
