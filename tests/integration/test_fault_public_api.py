"""Every public input yields a result or a documented EgoError (issue 9, point 13).

Hypothesis drives the public API of a real embedded host and a real page with arguments of
wrong types, lone surrogates, huge ints, non-JSON values, bad URLs, bad paths, bad selectors,
keys and scripts (mixed with valid ones, so calls also get deep into the host). Whatever
escapes must be an ``EgoError`` whose code is one of the documented ones; only ``page.cdp`` /
``task.cdp`` may pass the browser's own refusal (``EGO_CDP_ERROR``) through. Nothing may hang.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ego_browser
from ego_browser import errors

#: the codes docs/api.md lists (the errors topic is generated from these classes)
DOCUMENTED = {
    getattr(errors, name).code for name in errors.__all__
    if isinstance(getattr(errors, name), type) and issubclass(getattr(errors, name), errors.EgoError)
} - {"EGO_ERROR"}

NASTY = [None, True, -1, 0, 1.5, 10**30, -(2**64), 2**63, float("nan"), float("inf"), -float("inf"), "",
         "\ud800", "a\udc00b", [], {}, object(), b"x", {1, 2}, {"x": 10**30, "y": 1}, {"a": object()},
         [[[["deep"]]]], {"x": float("nan"), "y": 0}]
URLS = ["x", "http://", "http://[::1", "javascript:void 0", "chrome://version", "about:blank#\ud800", "\x00",
        "data:text/html,\ud800", "file:///nonexistent-ego", "http://127.0.0.1:1/", "ftp://127.0.0.1/x",
        "http://" + "a" * 300 + ".invalid/"]
SELECTORS = ["@999999999999999999999", "@0", "@", "##", "text=", "xpath=//[", "loc=role:", "[",
             "x >> nth=99999999999", "text=\ud800", "#q", "#s", "#b", "#f", "#nope", ":has(", "@1", "a >> b >> c",
             "loc=role:button[name=\"\ud800\"]", "text=" + "x" * 5000]
SCRIPTS = ["() => window", "() => document.body", "1n", "Symbol()", "(", "() => { throw new Error('x') }",
           "() => new Proxy({}, {get() { throw 1 }})", "x => x", "() => '\ud800'", "() => [1, [2, [3]]]",
           "document.title", "() => { const a = []; a.push(a); return a }", "async () => { await 0; return 1 }"]
KEYS = ["", "NoSuchKey", "\ud800", "Control+", "+", "a", "Shift+A", "Enter", "F13", "Control+Shift+Alt+Meta+x"]
CDP = ["Runtime.evaluate", "No.such", "", "Page.navigate", "Input.dispatchKeyEvent", "Target.getTargets",
       "Runtime.\ud800"]

_TMP = tempfile.mkdtemp(prefix="ego-fuzz-")
_FILE = os.path.join(_TMP, "upload.txt")
with open(_FILE, "w") as _f:
    _f.write("x")

PAGE_HTML = """<form><input id=q><select id=s><option>a</option><option>b</option></select>
<input type=file id=f></form><button id=b>b</button><a href="#x">l</a><p id=t>text</p><script>t.textContent += "\\ud800"</script>"""


def _ms(*ok):
    return st.sampled_from(ok or (1, 50, 300))


def _choice(*values):
    return st.sampled_from(values)


def _str(*values):
    return st.one_of(st.sampled_from(values), st.text(max_size=20))


SELECTOR = st.sampled_from(SELECTORS)
SCRIPT = st.sampled_from(SCRIPTS)
KEY = st.sampled_from(KEYS)
NUM = st.sampled_from([0, 1, 50.5, -3, 1e9, 2**53])
POINT = st.one_of(st.none(), st.sampled_from([{"x": 1, "y": 1}, {"x": -1e9, "y": 1e9}]))
PATH = st.sampled_from([os.path.join(_TMP, "out.png"), "/", "/proc/self/mem", "relative.png", "\x00",
                        "/dev/null/x.png", os.path.join(_TMP, "\ud800.png"), _TMP])
JSONISH = st.one_of(st.sampled_from([1, "s", [1, 2], {"a": 1}, 2**53, "\ud800", {"\udc00": 1}]), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3), max_leaves=6))
#: a value of the wrong kind for any parameter (one parameter per call gets one)
NASTY_VALUE = st.sampled_from(NASTY + [2**31, 1e300, -5])


def _url(server_urls):
    return st.sampled_from(URLS + server_urls)


def calls(url: str):
    """(owner, member, positional args, keyword args)."""
    U = _url([url, url + "#frag", url.replace("/fuzz", "/missing")])
    T = _ms()
    page = {
        "url": {}, "title": {}, "info": {},
        "snapshot": {"scope": _choice("only_within_viewport", "full_page", "subtree"), "root": SELECTOR,
                     "include_action_marks": _choice(True, False), "max_length": st.one_of(st.none(), _ms(10, 100000))},
        "screenshot": {"path": PATH, "full_page": _choice(False, True),
                       "clip": st.one_of(st.none(), st.sampled_from([{"x": 0, "y": 0, "width": 10, "height": 10},
                                                                     {"x": 0, "y": 0, "width": 1e9, "height": 1e9}]))},
        "find": {"selector": SELECTOR, "limit": st.one_of(st.sampled_from([1, 5]))},
        "count": {"selector": SELECTOR},
        "locator": {"selector": SELECTOR, "has_text": st.one_of(st.none(), _str("a", "\ud800")),
                    "has": st.one_of(st.none(), st.sampled_from(["li", 5, "@1"]))},
        "goto": {"url": U, "referer": st.one_of(st.none(), _url([url])), "timeout": _ms(300, 3000),
                 "wait_until": _choice("commit", "domcontentloaded", "load", "networkidle")},
        "reload": {"timeout": _ms(300, 3000), "wait_until": _choice("commit", "load")},
        "wait_for_load_state": {"state": _choice("domcontentloaded", "load", "networkidle"), "timeout": T,
                                "idle_ms": _ms(1, 50)},
        "wait_for_url": {"matcher": st.one_of(U, st.just("**")), "timeout": T},
        "wait_for_selector": {"selector": SELECTOR, "state": _choice("attached", "detached", "visible", "hidden"),
                              "timeout": T},
        "wait_for_function": {"js": SCRIPT, "arg": JSONISH, "timeout": T, "polling": _ms(10, 100)},
        "wait_for_timeout": {"ms": _ms(0, 1, 20)},
        "click": {"selector": SELECTOR, "button": _choice("left", "right"), "click_count": _ms(1, 2),
                  "delay": _ms(0, 1), "position": POINT, "force": _choice(False, True), "timeout": T},
        "dblclick": {"selector": SELECTOR, "position": POINT, "timeout": T},
        "hover": {"selector": SELECTOR, "position": POINT, "timeout": T},
        "drag_and_drop": {"source": SELECTOR, "target": SELECTOR, "source_position": POINT, "timeout": T},
        "fill": {"selector": SELECTOR, "value": _str("v", "\ud800", "x" * 1000), "clear_first": _choice(True, False),
                 "timeout": T},
        "select_option": {"selector": SELECTOR, "value": st.one_of(st.sampled_from(
            ["a", {"index": 1}, {"index": 10**30}, ["a", "b"], {"value": "\ud800"}, {"label": 5}])),
            "timeout": T},
        "focus": {"selector": SELECTOR, "timeout": T},
        "press": {"selector": SELECTOR, "key": KEY, "delay": _ms(0, 1), "timeout": T},
        "accept_dialog": {"prompt_text": st.one_of(st.none(), _str("ok"))},
        "dismiss_dialog": {},
        "set_input_files": {"selector": SELECTOR, "files": st.one_of(
            st.sampled_from([_FILE, [_FILE], "/nonexistent-ego/x", "/", [_FILE, "\x00"], "relative.txt"])),
            "timeout": T},
        "fetch": {"url": U, "timeout": _ms(300, 3000), "save_as": st.one_of(st.none(), PATH),
                  "method": _str("GET", "POST", "B@D METHOD"), "headers": st.one_of(st.none(), st.sampled_from(
                      [{"X-A": "b"}, {"X-A": "\ud800"}, {"bad header": "x"}, {"X": "a\nb"}])),
                  "body": st.one_of(st.none(), _str("b"))},
        "evaluate": {"js": SCRIPT, "arg": JSONISH},
        "cdp": {"method": _str(*CDP), "params": st.one_of(st.none(), st.sampled_from(
            [{"expression": "1"}, {"expression": "\ud800"}, {"x": 10**30}])), "timeout": T},
    }
    mouse = {
        "click": {"x": NUM, "y": NUM, "button": _choice("left"), "click_count": _ms(1), "delay": _ms(0)},
        "move": {"x": NUM, "y": NUM, "steps": st.one_of(st.sampled_from([1, 3]))},
        "down": {"button": _choice("left", "middle")}, "up": {"button": _choice("left", "middle")},
        "wheel": {"delta_x": NUM, "delta_y": NUM},
    }
    keyboard = {
        "down": {"key": KEY}, "up": {"key": KEY}, "press": {"key": KEY, "delay": _ms(0)},
        "type": {"text": _str("hi", "\ud800"), "delay": _ms(0)}, "insert_text": {"text": _str("hi", "\ud800")},
        "paste": {"content": st.one_of(st.sampled_from(["p", {"text": "t", "html": "<b>x</b>"}, {"text": "\ud800"},
                                                        {"text": 5}]))},
    }
    space = {
        "page": {"label": _str("p1", "p99", "\ud800")}, "pages": {}, "tabs": {},
        "set_status": {"text": _str("working", "x" * 600, "\ud800")},
        "cdp": {"method": _str(*CDP), "params": st.one_of(st.none(), st.sampled_from([{"x": 10**30}])),
                "timeout": T},
    }
    top = {
        "list_task_spaces": {}, "profiles": {},
        "claim_task_space": {"space_id": st.one_of(st.sampled_from([999999, -1, 2**63 - 1]))},
        "site_skills": {"url": st.one_of(st.none(), _url([url]))},
        "learn_context": {"url": st.one_of(st.none(), _url([url]))},
    }
    table = {"page": page, "mouse": mouse, "keyboard": keyboard, "space": space, "top": top}

    @st.composite
    def one_call(draw):
        owner, member = draw(st.sampled_from(sorted((o, m) for o, ms in table.items() for m in ms)))
        params = table[owner][member]
        bad = draw(st.sampled_from([None, *params])) if params else None
        kwargs = {name: draw(NASTY_VALUE if name == bad else strategy) for name, strategy in params.items()}
        return owner, member, kwargs

    return one_call()


@pytest.fixture(scope="module")
async def fuzz(host, server):
    url = server.page("/fuzz", PAGE_HTML)
    task = await ego_browser.task_space("public-api-fuzz")
    page = await task.new_page()
    await page.goto(url)
    state = {"task": task, "page": page, "url": url}
    cwd = os.getcwd()
    os.chdir(_TMP)  # relative paths the fuzz passes (fetch save_as) land in a scratch folder
    try:
        yield state
    finally:
        os.chdir(cwd)
        try:
            await task.finish(keep=[])
        except ego_browser.EgoError:
            pass


async def _recover(state) -> None:
    """Back to a usable page at the fixture URL with no dialog, keys or buttons held."""
    page = state["page"]
    try:
        await page.dismiss_dialog()
        for key in ("Shift", "Control", "Alt", "Meta"):
            await page.keyboard.up(key)
        for button in ("left", "middle", "right"):
            await page.mouse.up(button=button)
        if await page.url() != state["url"]:
            await page.goto(state["url"])
        return
    except ego_browser.EgoError:
        pass
    page = await state["task"].new_page()
    await page.goto(state["url"])
    state["page"] = page


@settings(max_examples=int(os.environ.get("EGO_FUZZ_EXAMPLES", "80")), deadline=None, derandomize=True,
          database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
async def test_public_api_raises_only_documented_errors(fuzz, data):
    owner, name, kwargs = data.draw(calls(fuzz["url"]))
    target = {"page": fuzz["page"], "mouse": fuzz["page"].mouse, "keyboard": fuzz["page"].keyboard,
              "space": fuzz["task"], "top": ego_browser}[owner]
    fn = getattr(target, name)
    sig = inspect.signature(fn)
    args, kw = [], {}
    for pname, value in kwargs.items():
        p = sig.parameters[pname]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append((list(sig.parameters).index(pname), value))
        else:
            kw[pname] = value
    args = [v for _i, v in sorted(args, key=lambda t: t[0])]
    described = f"{owner}.{name}(*{args!r}, **{kw!r})"
    if os.environ.get("EGO_FUZZ_TRACE"):
        print("CALL", described[:200], flush=True)
    try:
        result = fn(*args, **kw)
        if asyncio.iscoroutine(result):
            await asyncio.wait_for(result, 120)  # nothing hangs
    except ego_browser.EgoError as exc:
        assert exc.code in DOCUMENTED, f"{described} raised an undocumented code {exc.code}: {exc}"
        if name != "cdp":
            assert exc.code != "EGO_CDP_ERROR", f"{described} leaked the browser's message: {exc}"
        assert str(exc), described
    except asyncio.TimeoutError:
        pytest.fail(f"{described} did not return within 120s")
    except Exception as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{described} raised {type(exc).__name__}: {exc}")
    finally:
        await _recover(fuzz)


def test_documented_codes_are_listed_in_the_docs():
    from ego_browser.schema.render import DOCS_PATH

    text = DOCS_PATH.read_text()
    assert all(code in text for code in DOCUMENTED)
