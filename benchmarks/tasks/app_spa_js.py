"""The Scratchpad SPA's stylesheet and script (app_spa.py serves them inline in ``/lab``).

Plain custom elements with open shadow roots, no framework; see app_spa.py for the shapes and
why each is there.
"""

CSS = """
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#222;background:#fff}
body.theme-dark{background:#1e1e1e;color:#ddd}
body.theme-high-contrast{background:#000;color:#ff0}
#splash{padding:40px;font-size:18px}
#app{display:grid;grid-template-columns:260px 1fr;grid-template-rows:32px 1fr 24px;height:100vh}
x-menubar{grid-column:1/3}
x-filebrowser{border-right:1px solid #ccc;overflow:auto}
#main{overflow:auto;padding:6px}
footer{grid-column:1/3;border-top:1px solid #ccc;padding:2px 8px;font-size:12px}
.menu{position:fixed;background:#fff;color:#222;border:1px solid #999;box-shadow:2px 2px 6px #0004;min-width:180px;z-index:10}
.menu ul{list-style:none;margin:0;padding:4px 0}
.menu li{display:flex;gap:8px;padding:3px 10px;cursor:pointer}
.menu li:hover{background:#def}
.menu li .label{flex:1}.menu li .key{color:#777}
.menu li[role=presentation]{height:1px;background:#ccc;margin:4px 0;padding:0;cursor:default}
.editor{font:13px/1.5 monospace;border:1px solid #ccc;min-height:120px;padding:6px;white-space:pre}
.editor .kw{color:#708}.editor .num{color:#164}.editor .var{color:#05a}
textarea.placeholder{width:100%;min-height:120px}
.output pre{background:#f4f4f4;color:#222;padding:6px;min-height:1.5em}
[role=tablist]{display:flex;gap:4px;border-bottom:1px solid #ccc}
[role=tab]{padding:3px 10px;border:1px solid #ccc;border-bottom:0}
[role=dialog]{position:fixed;top:30%;left:35%;background:#fff;color:#222;border:1px solid #888;padding:16px;z-index:20}
"""

JS = r"""
(function () {
  'use strict';
  var cwd = '', doc = null, dirty = false, pending = 0;
  // issue 28's drift run (app_spa.SpaApp.drift): a redesign renamed ids and classes, moved the
  // toolbars' buttons and asks for a confirmation before a save and a theme change
  var D = !!SPA.drift, DOC_STATUS = D ? 'status-doc' : 'doc-status', THEME_STATUS = D ? 'status-theme' : 'theme-status';
  function confirmFirst(title, okLabel, go) {
    if (!D) return go();
    var d = document.createElement('div');
    d.setAttribute('role', 'dialog'); d.setAttribute('aria-modal', 'true'); d.setAttribute('aria-label', title);
    d.innerHTML = '<p>' + esc(title) + '</p><p><button type="button" class="ok">' + esc(okLabel) +
      '</button> <button type="button" class="cancel">Cancel</button></p>';
    document.body.appendChild(d);
    d.querySelector('.ok').addEventListener('click', function () { d.remove(); go(); });
    d.querySelector('.cancel').addEventListener('click', function () { d.remove(); });
  }
  function api(path, body) {
    var opts = body === undefined ? {} : {method: 'POST', headers: {'Content-Type': 'application/json'},
                                            body: JSON.stringify(body)};
    return fetch(path, opts).then(function (r) { return r.json(); });
  }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) {
    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; }); }
  function command(el, cmd, detail) {
    el.dispatchEvent(new CustomEvent('command', {bubbles: true, composed: true, detail: {cmd: cmd, arg: detail}}));
  }

  // -- components: every control lives in a shadow root ---------------------------------------
  class XButton extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      var s = this.attachShadow({mode: 'open'}), me = this;
      s.innerHTML = '<style>button{border:0;background:none;padding:4px 6px;cursor:pointer;font-size:15px}</style>' +
        '<button type="button" title="' + esc(this.getAttribute('label')) + '"><span aria-hidden="true">' +
        esc(this.getAttribute('icon') || '\u25a1') + '</span></button>';
      s.querySelector('button').addEventListener('click', function () { command(me, me.getAttribute('cmd')); });
    }
  }
  class XSelect extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      var s = this.attachShadow({mode: 'open'});
      s.innerHTML = '<select aria-label="' + esc(this.getAttribute('label')) + '">' +
        this.getAttribute('options').split(',').map(function (o) { return '<option>' + esc(o) + '</option>'; }).join('') +
        '</select>';
    }
  }
  class XToolbar extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      this.setAttribute('role', 'toolbar');
      this.attachShadow({mode: 'open'}).innerHTML =
        '<style>:host{display:flex;gap:2px;padding:2px;border-bottom:1px solid #ccc}</style><slot></slot>';
    }
  }
  class XMenubar extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      var s = this.attachShadow({mode: 'open'});
      s.innerHTML = '<style>ul{display:flex;list-style:none;margin:0;padding:4px;gap:12px}li{cursor:pointer}</style>' +
        '<ul role="menubar" aria-label="Main menu"><li role="menuitem" tabindex="-1" data-menu="file"><div>File</div></li>' +
        '<li role="menuitem" tabindex="-1" data-menu="settings"><div>Settings</div></li>' +
        '<li role="menuitem" tabindex="-1" data-menu="help"><div>Help</div></li></ul>';
      s.querySelector('ul').addEventListener('click', function (e) {
        var li = e.target.closest('li'); if (!li) return;
        var r = li.getBoundingClientRect();
        showMenu(topMenu, MENUS[li.dataset.menu], r.left, r.bottom + 2, null);
      });
    }
  }
  class XFileBrowser extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      var s = this.attachShadow({mode: 'open'});
      s.innerHTML = '<style>ul{list-style:none;margin:0;padding:4px;min-height:320px}li{padding:2px 6px;cursor:default}' +
        'li[aria-selected=true]{background:#def}nav{padding:4px;font-size:12px}</style>' +
        '<x-toolbar aria-label="file browser">' + (D ? '<x-button label="New File" cmd="new-file" icon="\ud83d\udcc4"></x-button>' +
        '<x-button label="New Folder" cmd="new-folder" icon="\ud83d\udcc1"></x-button>' :
        '<x-button label="New Folder" cmd="new-folder" icon="\ud83d\udcc1"></x-button>' +
        '<x-button label="New File" cmd="new-file" icon="\ud83d\udcc4"></x-button>') +
        '<x-button label="Upload" cmd="upload" icon="\u2b06"></x-button>' +
        '<x-button label="Refresh" cmd="refresh" icon="\u21bb"></x-button></x-toolbar>' +
        '<nav aria-label="Path"></nav><ul role="listbox" tabindex="0" aria-label="Files"></ul>';
      var list = s.querySelector('ul');
      list.addEventListener('contextmenu', function (e) {
        e.preventDefault();
        var li = e.target.closest('li');
        if (li) showMenu(ctxMenu, li.dataset.type === 'folder' ? FOLDER_MENU : FILE_MENU, e.clientX, e.clientY, li.dataset.path);
        else showMenu(ctxMenu, DIR_MENU, e.clientX, e.clientY, cwd);
      });
      list.addEventListener('dblclick', function (e) {
        var li = e.target.closest('li'); if (li) openPath(li.dataset.path, li.dataset.type);
      });
      list.addEventListener('click', function (e) {
        var li = e.target.closest('li');
        list.querySelectorAll('li').forEach(function (x) { x.setAttribute('aria-selected', String(x === li)); });
      });
      s.querySelector('nav').addEventListener('click', function (e) {
        var a = e.target.closest('a'); if (!a) return; e.preventDefault(); cwd = a.dataset.dir; refreshList();
      });
    }
    render(data) {
      var s = this.shadowRoot, parts = data.path ? data.path.split('/') : [];
      s.querySelector('nav').innerHTML = '<a href="#" data-dir="">Home</a>' + parts.map(function (p, i) {
        return ' / <a href="#" data-dir="' + esc(parts.slice(0, i + 1).join('/')) + '">' + esc(p) + '</a>'; }).join('');
      s.querySelector('ul').innerHTML = data.items.map(function (it) {
        return '<li role="option" aria-selected="false" data-path="' + esc(it.path) + '" data-type="' + it.type + '">' +
          '<span aria-hidden="true">' + (it.type === 'folder' ? '\ud83d\udcc1 ' : '\ud83d\udcc4 ') + '</span>' +
          '<span class="name">' + esc(it.name) + '</span></li>'; }).join('');
    }
  }
  customElements.define('x-button', XButton);
  customElements.define('x-select', XSelect);
  customElements.define('x-toolbar', XToolbar);
  customElements.define('x-menubar', XMenubar);
  customElements.define('x-filebrowser', XFileBrowser);

  // -- menus: one element per menu, its <li> nodes re-used for every menu it shows -------------
  var FILE_MENU = [['Open', 'open', 'Enter'], ['Rename', 'rename', 'F2'], ['Delete', 'delete', 'Del'],
                   ['Duplicate', 'duplicate', ''], null, ['Copy Path', 'copy-path', ''], ['Download', 'download', '']];
  var FOLDER_MENU = [['Open', 'open', 'Enter'], ['Rename', 'rename', 'F2'], ['Delete', 'delete', 'Del'], null,
                     ['Copy Path', 'copy-path', '']];
  var DIR_MENU = [['New Folder', 'new-folder', ''], ['New File', 'new-file', ''], null, ['Paste', 'paste', 'Ctrl+V'],
                  ['Refresh', 'refresh', 'F5']];
  var MENUS = {
    file: [['New File', 'new-file', ''], ['New Folder', 'new-folder', ''], null, ['Save', 'save', 'Ctrl+S'],
           ['Close', 'close', '']],
    settings: [['Theme', 'theme-menu', '\u203a'], null, ['Autosave Documents', 'noop', ''],
               ['Show Line Numbers', 'noop', ''], null, ['Settings Editor', 'noop', 'Ctrl+,']],
    help: [['About Scratchpad', 'noop', ''], ['Keyboard Shortcuts', 'noop', '']]
  };
  function makeMenu(label) {
    var m = document.createElement('div');
    m.className = 'menu'; m.setAttribute('role', 'menu'); m.setAttribute('aria-label', label); m.hidden = true;
    m.innerHTML = '<ul></ul>';
    document.body.appendChild(m);
    m.addEventListener('click', function (e) {
      var li = e.target.closest('li');
      if (!li || li.getAttribute('role') === 'presentation') return;
      var cmd = li.dataset.cmd, arg = m.target;
      if (cmd === 'theme-menu') {
        var r = li.getBoundingClientRect();
        showMenu(subMenu, ['Light', 'Dark', 'High Contrast'].map(function (t) {
          return [t, 'theme:' + t, t === document.body.dataset.theme ? '\u2713' : '']; }), r.right, r.top, null);
        return;
      }
      hideMenus();
      run(cmd, arg);
    });
    return m;
  }
  function showMenu(menu, items, x, y, target) {
    if (menu !== subMenu) hideMenus();
    var ul = menu.querySelector('ul');
    items.forEach(function (it, i) {
      var li = ul.children[i] || ul.appendChild(document.createElement('li'));
      li.hidden = false;
      if (it === null) {
        li.setAttribute('role', 'presentation'); li.removeAttribute('tabindex'); li.innerHTML = ''; li.dataset.cmd = '';
      } else {
        li.removeAttribute('role'); li.tabIndex = -1; li.dataset.cmd = it[1];
        li.innerHTML = '<div class="icon"></div><div class="label">' + esc(it[0]) + '</div><div class="key">' +
          esc(it[2]) + '</div>';
      }
    });
    for (var i = items.length; i < ul.children.length; i++) ul.children[i].hidden = true;
    menu.target = target; menu.style.left = x + 'px'; menu.style.top = y + 'px'; menu.hidden = false;
  }
  function hideMenus() { [ctxMenu, topMenu, subMenu].forEach(function (m) { m.hidden = true; }); }
  var ctxMenu, topMenu, subMenu;

  // -- dialogs ---------------------------------------------------------------------------------
  function ask(title, value, okLabel, done) {
    var d = document.createElement('div');
    d.setAttribute('role', 'dialog'); d.setAttribute('aria-modal', 'true'); d.setAttribute('aria-label', title);
    d.innerHTML = '<h2>' + esc(title) + '</h2><label>Name <input type="text" value="' + esc(value) + '"></label>' +
      '<p><button type="button" class="ok">' + esc(okLabel) + '</button> <button type="button" class="cancel">Cancel' +
      '</button></p><p class="error" role="alert"></p>';
    document.body.appendChild(d);
    var input = d.querySelector('input');
    function ok() {
      done(input.value.trim()).then(function (res) {
        if (res && res.error) d.querySelector('.error').textContent = res.error; else d.remove();
      });
    }
    d.querySelector('.ok').addEventListener('click', ok);
    d.querySelector('.cancel').addEventListener('click', function () { d.remove(); });
    input.addEventListener('keydown', function (e) { if (e.key === 'Enter') ok(); if (e.key === 'Escape') d.remove(); });
    input.focus(); input.select();
  }

  // -- commands: each a server round trip, then a redraw with no navigation ----------------------
  function run(cmd, arg) {
    if (cmd === 'new-folder') return ask('New folder', 'Untitled Folder', 'Create', function (name) {
      return api('/api/contents/new', {dir: cwd, type: 'folder', name: name}).then(function (r) {
        if (!r.error) refreshList(); return r; }); });
    if (cmd === 'new-file') return ask('New file', 'untitled.py', 'Create', function (name) {
      return api('/api/contents/new', {dir: cwd, type: 'file', name: name}).then(function (r) {
        if (!r.error) { refreshList(); openPath(r.path, 'file'); } return r; }); });
    if (cmd === 'refresh') return refreshList();
    if (cmd === 'open') return openPath(arg, arg && !/\.[a-z]+$/.test(arg) ? 'folder' : 'file');
    if (cmd === 'rename') return ask('Rename file', arg.split('/').pop(), 'Rename', function (name) {
      return api('/api/contents/rename', {path: arg, name: name}).then(function (r) {
        if (!r.error) refreshList(); return r; }); });
    if (cmd === 'delete' || cmd === 'duplicate') return api('/api/contents/' + cmd, {path: arg}).then(refreshList);
    if (cmd === 'save') return save();
    if (cmd === 'run') return runDoc();
    if (cmd === 'restart') { if (doc) doc.panel.querySelector('pre').textContent = ''; return; }
    if (cmd && cmd.indexOf('theme:') === 0) {
      var t = cmd.slice(6);
      return confirmFirst('Apply the ' + t + ' theme?', 'Apply', function () {
        return api('/api/settings', {theme: t}).then(function (s) { applyTheme(s.theme); }); });
    }
  }
  function applyTheme(t) {
    document.body.dataset.theme = t;
    document.body.className = 'theme-' + t.toLowerCase().replace(/ /g, '-');
    document.getElementById(THEME_STATUS).textContent = 'Theme: ' + t;
  }
  function refreshList() {
    var fb = document.querySelector('x-filebrowser');
    return api('/api/contents/list?path=' + encodeURIComponent(cwd)).then(function (data) { fb.render(data); });
  }
  function openPath(path, type) {
    if (type === 'folder') { cwd = path; return refreshList(); }
    setDirty(false);
    doc = {path: path};
    renderDoc(null);
    return api('/api/contents/get?path=' + encodeURIComponent(path)).then(function (r) {
      if (doc && doc.path === path) renderDoc(r.content);
    });
  }
  // the whole panel is drawn anew: toolbar, editor (a placeholder until the model is there), output
  function renderDoc(content, output) {
    var main = document.getElementById('main');
    var name = doc.path.split('/').pop();
    main.innerHTML = '<div role="tablist" aria-label="Documents"><div role="tab" aria-selected="true">' + esc(name) +
      '<span class="dirty" aria-hidden="true"></span></div></div>' +
      '<section class="doc" aria-label="' + esc(name) + '"><x-toolbar aria-label="document">' +
      (D ? '<x-button label="Run" cmd="run" icon="\u25b6"></x-button><x-button label="Save" cmd="save" icon="\ud83d\udcbe">'
         : '<x-button label="Save" cmd="save" icon="\ud83d\udcbe"></x-button><x-button label="Run" cmd="run" icon="\u25b6">') +
      '</x-button><x-button label="Restart" cmd="restart" icon="\u21bb"></x-button>' +
      '<x-select label="Language" options="Python,Text"></x-select></x-toolbar><div class="editor-host"></div>' +
      '<section class="' + (D ? 'result' : 'output') + '" aria-label="Output"><pre></pre></section></section>';
    doc.panel = main.querySelector('section.doc');
    var host = doc.panel.querySelector('.editor-host');
    if (content === null) {
      host.innerHTML = '<textarea class="placeholder" aria-label="Editor" readonly>Loading\u2026</textarea>';
    } else {
      host.appendChild(makeEditor(content));
    }
    if (output) doc.panel.querySelector('pre').textContent = output;
  }
  function makeEditor(text) {
    var ed = document.createElement('div');
    ed.className = 'editor'; ed.contentEditable = 'true'; ed.spellcheck = false;
    ed.setAttribute('role', 'textbox'); ed.setAttribute('aria-multiline', 'true'); ed.setAttribute('aria-label', 'Editor');
    highlight(ed, text);
    ed.addEventListener('input', function () {
      setDirty(true);
      clearTimeout(ed.timer);
      ed.timer = setTimeout(function () { highlight(ed, editorText()); }, 400);
    });
    return ed;
  }
  // tokens in spans, as a highlighter does: the text of a line is split over inline elements
  function highlight(ed, text) {
    ed.innerHTML = text.replace(/\n+$/, '').split('\n').map(function (line) {
      var html = line.replace(/(\s+)|([A-Za-z_]\w*)|(\d+)|(.)/g, function (m, sp, name, num, other) {
        if (sp) return sp;
        if (name) return '<span class="' + (/^(print|def|return|import|if|else|for|in)$/.test(name) ? 'kw' : 'var') +
          '">' + name + '</span>';
        if (num) return '<span class="num">' + num + '</span>';
        return esc(other);
      });
      return '<div class="line">' + (html || '<br>') + '</div>';
    }).join('');
  }
  function editorText() {
    var ed = doc && doc.panel && doc.panel.querySelector('.editor');
    return ed ? ed.innerText.replace(/\u00a0/g, ' ') : '';
  }
  function setDirty(v) {
    dirty = v;
    var mark = document.querySelector('[role=tab] .dirty');
    if (mark) mark.textContent = v ? ' \u25cf' : '';
    document.getElementById(DOC_STATUS).textContent = v ? 'Modified' : 'Saved';
    window.onbeforeunload = v ? function (e) { e.preventDefault(); e.returnValue = ''; return ''; } : null;
  }
  function save() {
    if (!doc) return;
    var text = editorText();
    return confirmFirst('Save changes to ' + doc.path.split('/').pop() + '?', 'Yes, save', function () {
      return api('/api/contents/save', {path: doc.path, content: text}).then(function () {
        setDirty(false); renderDoc(text, doc.panel.querySelector('pre').textContent);
      });
    });
  }
  function runDoc() {
    if (!doc) return;
    var text = editorText(), wasDirty = dirty;
    return api('/api/run', {path: doc.path, content: text}).then(function (r) {
      renderDoc(text, r.output); setDirty(wasDirty);
    });
  }

  // -- boot: a splash while the extensions load, then the shell, then the file list -------------
  async function boot() {
    var splash = document.getElementById('splash');
    for (var i = 0; i < SPA.extensions; i++) {
      await fetch('/api/ext/' + i);
      splash.textContent = 'Loading Scratchpad\u2026 ' + Math.round((i + 1) * 100 / SPA.extensions) + '%';
    }
    var app = document.getElementById('app');
    app.innerHTML = '<x-menubar></x-menubar><x-filebrowser></x-filebrowser>' +
      '<main id="main" aria-label="Main area"><p>Open a file, or create one with New File.</p></main>' +
      '<footer><span id="' + DOC_STATUS + '">Saved</span> \u00b7 <span id="' + THEME_STATUS + '"></span></footer>';
    ctxMenu = makeMenu('Context menu'); topMenu = makeMenu('Menu'); subMenu = makeMenu('Submenu');
    applyTheme(SPA.theme);
    document.addEventListener('command', function (e) { run(e.detail.cmd, e.detail.arg); });
    document.addEventListener('mousedown', function (e) {
      if (!e.target.closest || !e.target.closest('.menu')) hideMenus();
    });
    await refreshList();
    splash.remove(); app.hidden = false;
    if (navigator.sendBeacon) navigator.sendBeacon('/__timing', JSON.stringify({ms: performance.now(), spa: true}));
  }
  boot();
})();
"""
