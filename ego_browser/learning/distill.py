"""Distilling a space's journal (``host/core/journal.py``) into a draft learned tool (issue 28 §2).

:func:`distill` is pure: the journal, the span of rounds, the tool's name, the agent's renames
and what the last page showed in, the draft (source and facts) out. The draft is an
``async def run(page, *, <params>)`` over :class:`~ego_browser.learning.steps.Steps`:

* parameters are the literal values the agent typed or chose, named from the fields' labels
  (``Title`` -> ``title``), renamed by ``params={"title": "book_title"}``;
* steps use the stable locators the journal computed in the page (test id, id, label, name,
  role+name, href), never a ref;
* waits are what was observed: a step that navigated waits for the URL it reached;
* a GET form whose result URL carries the typed values becomes one ``goto`` of that URL with
  the parameters filled in (the site's own lever); a form the page submits to a JSON API with
  the typed values becomes one ``page.fetch`` of that API (``distill_api.py``);
* it ends with a post-condition from the last page (its message, heading and URL), checked
  before the tool reports success.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..errors import LearnJournalEmpty, LearnRoundFailed, LearnUnknownParam
from .distill_api import api_lever, render_fetch, rename_fetch

__all__ = ["Draft", "distill", "origin_of", "param_name"]

#: operations a tool replays (waits and dialogs are steps too; reads are not)
_REPLAYED = {"page.goto", "page.click", "page.dblclick", "page.fill", "page.type", "page.press",
             "page.select_option", "page.check", "page.uncheck", "page.set_checked", "page.wait_for_selector",
             "page.hover", "keyboard.type", "keyboard.insert_text", "keyboard.press", "page.set_input_files"}
#: operations after which a tool waits for the page to settle when the run saw them fetch
_SETTLED = {"page.goto", "page.click", "page.dblclick", "page.press", "page.select_option", "page.check",
            "page.uncheck", "page.set_checked", "keyboard.press"}
#: operations that fill a form's fields (between a refused value and its retry)
_FIELD_OPS = {"page.fill", "page.type", "page.select_option", "page.check", "page.uncheck", "page.set_checked",
              "page.set_input_files", "keyboard.type", "keyboard.insert_text"}
#: operations whose value becomes a parameter
_VALUED = {"page.fill", "page.type", "page.select_option", "keyboard.type", "keyboard.insert_text"}


@dataclass
class Draft:
    name: str
    origin: str
    path_prefix: str
    source: str
    params: dict[str, Any]
    postcondition: dict[str, Any]
    rounds: list[int]
    steps: list[dict[str, Any]] = field(default_factory=list)
    lever: str | None = None
    #: what the draft does not replay and the agent should know (actions on another page)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "origin": self.origin, "path_prefix": self.path_prefix, "source": self.source,
                "params": dict(self.params), "postcondition": dict(self.postcondition), "rounds": list(self.rounds),
                "lever": self.lever, "warnings": list(self.warnings)}


def origin_of(url: str | None) -> str:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""


def param_name(text: str | None, taken: set[str]) -> str:
    """A Python identifier for a field labelled ``text``, not in ``taken``."""
    base = re.sub(r"[^0-9a-zA-Z]+", "_", (text or "").strip().lower()).strip("_") or "value"
    if base[0].isdigit() or keyword.iskeyword(base) or base in ("page", "s"):
        base = f"value_{base}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _locator(action: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    target = action.get("target") or {}
    expect = {"role": target.get("role"), "name": target.get("name"), "locator": target.get("locator")}
    locator = target.get("locator")
    if not locator:
        given = target.get("given")
        # a ref means nothing in another page load: only a given selector can stand in
        if isinstance(given, str) and not re.fullmatch(r"@?\d+|ref=\d+", given.strip()):
            locator = given
        elif target.get("role") and target.get("name"):
            locator = f"role={target['role']}[name={_q(target['name'])}]"
        expect["locator"] = locator
    return locator, expect


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _selected(journal: dict[str, Any], rounds: list[int] | None) -> list[dict[str, Any]]:
    kept = journal.get("rounds") or []
    chosen = [r for r in kept if rounds is None or r["n"] in rounds]
    return chosen


def distill(journal: dict[str, Any], name: str, *, rounds: list[int] | None = None,
            params: dict[str, str] | None = None, last_page: dict[str, Any] | None = None,
            levers: bool = True) -> Draft:
    """The draft tool ``name`` from ``journal`` (``task.journal()``'s value); ``levers=False``
    keeps the steps the run took on the page (no GET-form URL, no JSON API calls)."""
    chosen = _selected(journal, rounds)
    actions = [a for r in chosen for a in r.get("actions") or () if a.get("outcome") == "ok" and a.get("op") in _REPLAYED]
    if not actions:
        what = "the whole journal" if rounds is None else f"rounds {rounds}"
        raise LearnJournalEmpty(
            f"task.learn: {what} of this space has no successful action to learn from; run the task once in this "
            "space (its rounds are journaled), then call task.learn", tool=name, reason="empty_journal")
    last = chosen[-1]
    if last.get("status") == "failed":
        raise LearnRoundFailed(
            f"task.learn: round {last['n']} (the last one to learn from) failed ({last.get('error')}); a tool is "
            "learned from a run that worked: finish the task in a round that succeeds, or pass rounds= ending with "
            "one that succeeded", tool=name, reason="last_round_failed")
    actions = _drop_retries(actions)
    page = actions[-1].get("page")
    others = sorted({str(a.get("page")) for a in actions if a.get("page") != page})
    left_out = sum(1 for a in actions if a.get("page") != page)
    # a tool replays one page: a popup's pick (or another tab's) is not in it, and the agent must
    # know, or the tool would do less than the run did and still find the last page's message
    warnings = [f"{left_out} action(s) on {', '.join(others)} (another page than {page}: a popup or a tab) are not "
                "replayed: if the task needs them, edit the tool (or learn from rounds on one page)"] if others else []
    actions = [a for a in actions if a.get("page") == page]
    final_url = actions[-1].get("url_after") or actions[-1].get("url_before") or ""
    origin = origin_of(final_url) or origin_of(actions[0].get("url_before"))
    taken: set[str] = set()
    steps: list[dict[str, Any]] = []
    values: dict[str, Any] = {}
    focused: dict[str, Any] = {}  # the element the last targeted step acted on: keyboard input goes there
    for action in actions:
        if action.get("target"):
            focused = action["target"]
        elif action["op"].startswith("keyboard."):
            action = {**action, "target": None, "_focus": focused}
        op = action["op"].split(".", 1)[1]
        if action["op"].startswith("keyboard."):
            op = "key_" + op  # keyboard input goes wherever the focus is: no locator
        step: dict[str, Any] = {"op": op, "url_before": action.get("url_before"), "url_after": action.get("url_after"),
                                "recorded": action.get("value")}
        fetched = [r for r in action.get("requests") or () if r.get("resource_type") in ("fetch", "xhr")]
        if op in ("click", "dblclick", "press", "key_press"):
            # the fetch/XHR calls it caused: the JSON-API lever (distill_api.py) reads them
            step["requests"] = fetched
        if fetched and action["op"] in _SETTLED:
            # a single-page app answers with a server round trip and a redraw, no navigation: the
            # next step waits until the page settled (else it may act on the node the redraw replaces)
            step["settle"] = True
        if op == "goto":
            step["url"] = action.get("value") or action.get("url_after")
        elif not op.startswith("key_"):
            step["locator"], step["expect"] = _locator(action)
            step["form"] = (action.get("target") or {}).get("form")
            if op == "set_input_files" and not step["locator"]:
                # given by the ref of the control that opens the chooser: the page's file input
                # stands in (a step error, never a guess, when the page has several)
                step["locator"] = 'css=input[type="file"]'
                step["expect"] = {**step["expect"], "locator": step["locator"]}
        if action["op"] == "page.set_input_files":
            # the journal keeps file names only (never a path): the tool takes the files each call
            pname = param_name((action.get("target") or {}).get("label") or (action.get("target") or {}).get("field")
                               or "files", taken)
            step["param"] = pname
            values[pname] = None
        elif action["op"] in _VALUED and isinstance(action.get("value"), str) and not action["value"].startswith("["):
            target = action.get("target") or action.get("_focus") or {}
            pname = param_name(target.get("label") or target.get("field") or target.get("name"), taken)
            step["param"] = pname
            values[pname] = action["value"]
        elif action["op"] in _VALUED and action.get("value") is not None and not isinstance(action["value"], str):
            # a choice given as a list or {value, label, index}: kept as the parameter's default
            pname = param_name((action.get("target") or {}).get("label") or (action.get("target") or {}).get("field"),
                               taken)
            step["param"] = pname
            values[pname] = action["value"]
        elif op in ("fill", "type", "key_type", "key_insert_text") and isinstance(action.get("value"), str):
            # a masked value: a secret is passed on by name, a password must be given at each call
            secret = re.fullmatch(r"\[secret:(.+)\]", action["value"])
            pname = param_name((action.get("target") or {}).get("label") or "password", taken)
            step["param"] = pname
            values[pname] = {"$secret": secret.group(1)} if secret else None
        elif op in ("press", "key_press"):
            step["key"] = action.get("value")
        elif op == "set_checked":
            step["checked"] = bool(action.get("value"))
        elif op in ("click", "dblclick") and isinstance(action.get("value"), dict) and action["value"].get("button"):
            step["button"] = str(action["value"]["button"])  # a right click (a context menu)
        elif op == "wait_for_selector":
            step["state"] = action.get("value") or "visible"
        moved = action.get("navigation") or (action.get("url_after") and action.get("url_before")
                                             and action["url_after"] != action["url_before"])
        if moved and op != "goto":
            step["wait_url"] = _url_pattern(action.get("url_after") or "", {})
        steps.append(step)
    lever = _get_lever(steps, values) if levers else None
    if lever is None and levers:
        found = api_lever(steps, origin, lambda key: param_name(key, taken))
        if found is not None:
            lever, picked = found
            values.update(picked)
    renames = dict(params or {})
    unknown = [k for k in renames if k not in values]
    if unknown:
        raise LearnUnknownParam(
            f"task.learn: parameter {unknown[0]!r} never appeared in the journal (the values typed or chosen are: "
            f"{', '.join(f'{k}={v!r}' for k, v in values.items()) or 'none'}); rename one of those",
            tool=name, reason="unknown_param")
    for old, new in renames.items():
        if not isinstance(new, str) or not new.isidentifier() or keyword.iskeyword(new) or new in ("page", "s"):
            raise LearnUnknownParam(f"task.learn: {new!r} is not a usable parameter name (a Python identifier)",
                                    tool=name, reason="bad_param_name")
    rename = {k: renames.get(k, k) for k in values}
    for step in steps:
        if "param" in step:
            step["param"] = rename[step["param"]]
        if step["op"] == "fetch_json":
            rename_fetch(step, rename)
        if step["op"] == "goto_template":
            step["query"] = [(k, "{" + rename[v[1:-1]] + "}" if v.startswith("{") and v[1:-1] in rename else v)
                             for k, v in step["query"]]
    values = {rename[k]: v for k, v in values.items()}
    api = next((s for s in reversed(steps) if s["op"] == "fetch_json"), None)  # the last call's answer
    if api:  # the call needs the site's page (its origin, its cookies), not the app drawn on it
        for step in steps:
            step.pop("settle", None)
    # the API's answer is the post-condition of a call: the page's UI never showed this one
    post = {"status": api["status"] or "2xx"} if api else _postcondition(final_url, last_page, values)
    if not api and not post.get("message") and not post.get("heading") and not steps[-1].get("wait_url") \
            and steps[-1]["op"] not in ("goto", "goto_template"):
        # a single-page app's result shows with no navigation, message or heading: the same URL
        # would hold on a page where the last step did nothing; the agent names what shows it
        warnings.append("the post-condition checks the URL only (the last step did not navigate and the page shows "
                        "no message or heading): add element='<locator of what shows the task done>' (or message=) "
                        "to the tool's done(...) before saving, or a run that did nothing would report success")
    prefix = _prefix([s.get("url_after") or s.get("url") or "" for s in steps])
    source = _render(name, origin, prefix, steps, values, post, [r["n"] for r in chosen], lever, warnings)
    return Draft(name=name, origin=origin, path_prefix=prefix, source=source, params=values, postcondition=post,
                 rounds=[r["n"] for r in chosen], steps=steps, lever=lever, warnings=warnings)


def _drop_retries(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A field typed again on the same page (no URL change between) was a value the page refused
    (a phone in the wrong format): the first value goes, and so does a submit between the two
    that is clicked again later (the attempt the page sent back with its error)."""
    out = list(actions)
    i = 0
    while i < len(out):
        a = out[i]
        loc = (a.get("target") or {}).get("locator")
        again = None
        if a["op"] in ("page.fill", "page.type") and loc:
            for j in range(i + 1, len(out)):
                b = out[j]
                if b.get("page") != a.get("page") or (b.get("url_before") or "") != (a.get("url_before") or ""):
                    break
                if b["op"] in ("page.fill", "page.type") and (b.get("target") or {}).get("locator") == loc:
                    again = j
                    break
        later = {(x.get("target") or {}).get("locator") for x in out[(again or 0) + 1:] if x["op"] == "page.click"}
        later.discard(None)

        def resent(x: dict[str, Any]) -> bool:
            return x["op"] == "page.click" and (x.get("target") or {}).get("locator") in later
        # a refused value is typed again with only other fields and the submit between; anything
        # else between (a single-page app's next dialog, opened with no URL change) is a new field
        if again is not None and any(not resent(x) and x["op"] not in _FIELD_OPS and x["op"] != "page.wait_for_selector"
                                     for x in out[i + 1:again]):
            again = None
        if again is None:
            i += 1
            continue
        kept = [x for x in out[i + 1:again] if not resent(x)]
        out = out[:i] + kept + out[again:]  # position i holds the next action now: look at it again
    return out


def _prefix(urls: list[str]) -> str:
    paths = [urlsplit(u).path for u in urls if u]
    if not paths:
        return "/"
    common = paths[0]
    for p in paths[1:]:
        while not p.startswith(common):
            common = common[: max(common.rstrip("/").rfind("/"), 0)] + "/"
            if common == "/":
                break
    return common if common.endswith("/") else common[: common.rfind("/") + 1] or "/"


def _get_lever(steps: list[dict[str, Any]], values: dict[str, Any]) -> str | None:
    """A GET form whose result URL carries the typed values: the fills and the submit become one
    ``goto`` of that URL with the parameters in it (and the form page's own ``goto`` goes)."""
    for i, step in enumerate(steps):
        if step["op"] not in ("click", "press") or not step.get("wait_url"):
            continue
        after = step.get("url_after") or ""
        query = dict(parse_qsl(urlsplit(after).query, keep_blank_values=True))
        form = step.get("form") or {}
        start = max((j for j in range(i) if steps[j]["op"] == "goto"), default=-1) + 1
        fills = [s for s in steps[start:i] if s["op"] in ("fill", "type", "select_option")]
        if not fills or not query or form.get("method", "get") != "get":
            continue
        matched = {s["param"]: k for s in fills if "param" in s for k, v in query.items() if v == values.get(s["param"])}
        if len(matched) != len(fills) or any(s["op"] not in ("fill", "type", "select_option", "click", "press")
                                             for s in steps[start:i]):
            continue
        parts = urlsplit(after)
        pairs = [(k, "{" + next(p for p, qk in matched.items() if qk == k) + "}" if k in matched.values() else v)
                 for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        steps[start - 1 if start > 0 else start:i + 1] = [{
            "op": "goto_template", "base": f"{parts.scheme}://{parts.netloc}{parts.path}", "query": pairs,
            "url_after": after, "params": list(matched)}]
        return f"GET form: {parts.path}?{'&'.join(k + '=' for k, _ in pairs)}"
    return None


def _url_pattern(url: str, values: dict[str, Any]) -> str:
    """The URL's origin and path as a pattern; a path segment that is a number (a record's id)
    matches any segment, and a number inside one (``BK-1041``, ``order-2027-0042``) any number, so
    another record's page matches too."""
    parts = urlsplit(url)
    segments = [r"[^/]+" if seg.isdigit() else r"\d+".join(re.escape(p) for p in re.split(r"\d{2,}", seg))
                for seg in parts.path.split("/")]
    return "^" + re.escape(f"{parts.scheme}://{parts.netloc}") + "/".join(segments) + r"(\?|#|$)"


def _postcondition(final_url: str, last_page: dict[str, Any] | None, values: dict[str, Any]) -> dict[str, Any]:
    post: dict[str, Any] = {"url": _url_pattern(final_url, values) if final_url else None}
    if last_page and last_page.get("url") == final_url:
        for key in ("message", "heading"):
            text = _stable(_template((last_page.get(key) or "").strip()[:200], values))
            if text:
                post[key] = text
    return post


def _stable(template: str) -> str:
    """What of a message holds for another run: a number of three digits or more that no parameter
    put there (a booking's number, a count of records) differs next time, so the longest part
    without one stands for the message (none under 8 characters: no message check)."""
    parts = [p.strip() for p in re.split(r"\d{3,}", template)]
    if len(parts) == 1:
        return template
    best = max(parts, key=len)
    return best if len(best) >= 8 else ""


def _template(text: str, values: dict[str, Any]) -> str:
    """``text`` with each parameter's recorded value replaced by ``{name}`` (braces doubled)."""
    out = text.replace("{", "{{").replace("}", "}}")
    for pname, value in sorted(values.items(), key=lambda kv: -len(str(kv[1] or ""))):
        if isinstance(value, str) and len(value) >= 2:
            out = out.replace(value, "{" + pname + "}")
    return out


def _render(name: str, origin: str, prefix: str, steps: list[dict[str, Any]], values: dict[str, Any],
            post: dict[str, Any], rounds: list[int], lever: str | None, warnings: list[str]) -> str:
    sig = ", ".join(f"{p}={v!r}" if v is not None else p for p, v in
                    sorted(values.items(), key=lambda kv: kv[1] is not None))
    lines = [
        f'"""Learned tool {name} for {origin}{prefix} (from rounds {", ".join(map(str, rounds))}).',
        "",
        "Edit freely before saving (task.save_tool); every step names what it expects, so a page that",
        'changed fails at that step with its candidates instead of doing something else."""',
        "",
        "from ego_browser.learning.steps import Steps",
        "",
        f"ORIGIN = {origin!r}",
        "",
        "",
        f"async def run(page, *, {sig}):" if sig else "async def run(page):",
        f"    s = Steps(page, tool={name!r}, origin=ORIGIN)",
    ]
    if lever:
        lines.append(f"    # the site's own lever: {lever}")
    for warning in warnings:
        lines.append(f"    # {'CHECK' if warning.startswith('the post-condition') else 'NOT REPLAYED'}: {warning}")
    n = 0
    for step in steps:
        n += 1
        op = step["op"]
        settle = ", settle=True" if step.get("settle") else ""
        if op == "goto":
            lines.append(f"    await s.goto({n}, {step['url']!r}{settle})")
            continue
        if op in ("key_type", "key_insert_text"):
            lines.append(f"    await s.{op}({n}, {step['param']})")
            continue
        if op == "key_press":
            wait = f", wait_url={step['wait_url']!r}" if step.get("wait_url") else ""
            lines.append(f"    await s.key_press({n}, {step.get('key')!r}{wait}{settle})")
            continue
        if op == "fetch_json":
            lines.append(render_fetch(n, step))
            continue
        if op == "goto_template":
            query = ", ".join(f"({k!r}, {v[1:-1]})" if v.startswith("{") and v.endswith("}") else f"({k!r}, {v!r})"
                              for k, v in step["query"])
            lines.append(f"    await s.goto_query({n}, {step['base']!r}, [{query}])")
            continue
        loc = step.get("locator")
        # a locator naming what was typed before (the link to the product searched for) follows the parameter
        expect = "{" + ", ".join(f"{k!r}: {_literal(v, values)}" for k, v in (step.get("expect") or {}).items()
                                 if v) + "}"
        wait = (f", wait_url={step['wait_url']!r}" if step.get("wait_url") else "") + settle
        head = f"{n}, {_literal(loc, values) if isinstance(loc, str) else repr(loc)}"
        if op in ("fill", "type", "select_option", "set_input_files"):
            lines.append(f"    await s.{op}({head}, {step['param']}, expect={expect}{wait})")
        elif op == "press":
            lines.append(f"    await s.press({head}, {step.get('key')!r}, expect={expect}{wait})")
        elif op == "set_checked":
            lines.append(f"    await s.set_checked({head}, {step.get('checked')!r}, expect={expect}{wait})")
        elif op == "wait_for_selector":
            lines.append(f"    await s.wait({head}, state={step.get('state')!r}, expect={expect})")
        elif step.get("button"):
            lines.append(f"    await s.{op}({head}, button={step['button']!r}, expect={expect}{wait})")
        else:
            lines.append(f"    await s.{op}({head}, expect={expect}{wait})")
    if "status" in post:
        lines.append(f"    return await s.done_api(status={post['status']!r})")
        return "\n".join(lines) + "\n"
    args = ", ".join(f"{k}={v!r}" for k, v in post.items() if v and k != "message" and k != "heading")
    texts = []
    for key in ("message", "heading"):
        if post.get(key):
            texts.append(f"{key}={_fstring(post[key])}")
    lines.append(f"    return await s.done({', '.join([a for a in (args, *texts) if a])})")
    return "\n".join(lines) + "\n"


def _literal(text: Any, values: dict[str, Any]) -> str:
    """``text`` as Python source: an f-string with ``{param}`` where a parameter's recorded value
    (three characters or more) appears in it, else a plain literal."""
    if not isinstance(text, str):
        return repr(text)
    found = [(p, v) for p, v in values.items() if isinstance(v, str) and len(v) >= 3 and v in text]
    if not found:
        return repr(text)
    return _fstring(_template(text, dict(found)))


def _fstring(template: str) -> str:
    """A Python literal for ``template``: an f-string when it holds ``{param}`` places."""
    if re.search(r"(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\}(?!\})", template):
        return "f" + repr(template)
    return repr(template.replace("{{", "{").replace("}}", "}"))
