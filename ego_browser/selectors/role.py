"""``loc=role:``: roles and names as Chromium's accessibility tree computes them.

``Accessibility.queryAXTree`` on a whole document computes every name (45-70 ms on the
500-row page) and hangs in an off-screen out-of-process iframe, so when the role's possible
elements are known, an in-page prefilter (``__egoSel.roleCandidates``) returns a *superset*
of the matches and Chromium is asked about each candidate alone
(``getPartialAXTree(fetchRelatives=false)``, up to 40 candidates). Beyond that, or for other
roles, one whole-document query; after 2 s without an answer the candidates are asked one by
one (or, without candidates, ``getFullAXTree`` answers).
Ignored (hidden) nodes never match; names compare after whitespace normalisation, ``name=``
exactly, ``name*=`` as a case-insensitive substring. Matches come back in Playwright's order.

Most candidates need no accessibility call at all: the page classifies each one
(``__egoSel.roleClassify``/``roleCount``) as surely the role and surely exposed (a native
element with its implicit role and no role attribute, or an explicit role Chromium keeps as
written; rendered, visible, no aria-hidden/inert/presentational ancestor), surely another role
(dropped), or unsure. Only the unsure ones are asked of Chromium, one ``getPartialAXTree`` each
(up to 40; beyond that the whole-document path above). A name filter makes every candidate
unsure (names are Chromium's), and so does a modal dialog in the document.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from typing import Any

from .. import jsbundle
from .. import jsonsafe
from ..cdp.errors import ContextDestroyed
from ..errors import CdpChannelUnavailable, CdpError, EgoTimeout
from ._core import (
    _MISSING,
    _ROLE_ALIASES,
    DEFAULT_GROUP,
    FrameLike,
    Match,
    Query,
    SessionLike,
    _backend_ids,
    _dumps,
    _evaluate,
    _exception_text,
    _FrameResult,
    _nth_index,
    _release,
    _with_context,
)
from .parse import ParsedSelector, normalize_whitespace
from .role_parse import py_flags

#: roles whose possible elements are known: candidates are these tags, any [role] naming the
#: role, custom elements (and contenteditable roots for textbox); other roles query the document
_H = ("H1", "H2", "H3", "H4", "H5", "H6")
_IMG = ("IMG", "INPUT", "svg", "CANVAS", "OBJECT", "EMBED", "PICTURE")
_ROLE_TAGS: dict[str, tuple[str, ...]] = {
    "button": ("BUTTON", "INPUT"),
    "link": ("A", "AREA"),
    "checkbox": ("INPUT",),
    "radio": ("INPUT",),
    "switch": ("INPUT",),
    "textbox": ("INPUT", "TEXTAREA"),
    "searchbox": ("INPUT",),
    "combobox": ("INPUT", "SELECT"),
    "spinbutton": ("INPUT",),
    "slider": ("INPUT",),
    "heading": _H,
    "img": _IMG,
    "image": _IMG,
    "listitem": ("LI", "DT", "DD"),
    "list": ("UL", "OL", "MENU", "DL"),
    "navigation": ("NAV",),
    "main": ("MAIN",),
    "form": ("FORM",),
    "dialog": ("DIALOG",),
    "alertdialog": ("DIALOG",),
    "table": ("TABLE",),
    "row": ("TR",),
    "cell": ("TD", "TH"),
    "gridcell": ("TD", "TH"),
    "columnheader": ("TH", "TD"),
    "rowheader": ("TH", "TD"),
    "listbox": ("SELECT", "DATALIST"),
    "option": ("OPTION",),
    "progressbar": ("PROGRESS",),
    "meter": ("METER",),
    "separator": ("HR",),
    "tab": (),
    "tabpanel": (),
    "tablist": (),
    "menu": ("MENU",),
    "menubar": (),
    "menuitem": (),
    "menuitemcheckbox": (),
    "menuitemradio": (),
    "tree": (),
    "treeitem": (),
    "grid": ("TABLE",),
    "radiogroup": (),
    "tooltip": (),
    "alert": (),
    "status": ("OUTPUT",),
}
#: up to this many candidates, one getPartialAXTree each beats a whole-document query
_MAX_CANDIDATES = 40
_tmp_groups = iter(range(1, 1 << 62))
#: a whole-document queryAXTree hangs in an off-screen out-of-process iframe (its rendering
#: is throttled); past this deadline getFullAXTree answers instead
_DOC_QUERY_TIMEOUT = 2.0


def _words(parsed: ParsedSelector) -> list[str]:
    """Words the accessible name must contain (the in-page prefilter); none for a regex."""
    if parsed.name is None or parsed.name_op == "re":
        return []
    needle = normalize_whitespace(parsed.name).lower()
    return needle.split(" ") if needle else []


def _candidate_spec(parsed: ParsedSelector) -> dict[str, Any]:
    role = parsed.role or ""
    # a name or a state is Chromium's (or the page's) to judge: every candidate is unsure then
    return {"role": role, "tags": list(_ROLE_TAGS[role]), "words": _words(parsed),
            "editable": role == "textbox", "named": parsed.name is not None or bool(parsed.states)}


def text_matches(actual: str, op: str, value: str, exact: bool, flags: str = "") -> bool:
    """Playwright's matchesAttributePart on a normalised accessible name or description."""
    actual = normalize_whitespace(actual)
    if op == "re":
        return re.search(value, actual, py_flags(flags)) is not None
    value = normalize_whitespace(value)
    if not exact:
        actual, value = actual.upper(), value.upper()
    if op == "=":
        return actual == value
    if op == "*=":
        return value in actual
    if op == "^=":
        return actual.startswith(value)
    if op == "$=":
        return actual.endswith(value)
    if op == "|=":
        return actual == value or actual.startswith(value + "-")
    if op == "~=":
        return value in actual.split(" ")
    return False


async def _role_candidates(frame: FrameLike, parsed: ParsedSelector, timeout: float) -> tuple[list[str], str] | None:
    """Object ids of a superset of the matches (in a temporary object group), or None."""
    role = parsed.role or ""
    if role not in _ROLE_TAGS:
        return None
    spec = {"role": role, "tags": list(_ROLE_TAGS[role]), "words": _words(parsed), "editable": role == "textbox"}
    group = f"ego-sel-tmp-{next(_tmp_groups)}"
    res = await _evaluate(frame, f"__egoSel.roleCandidates({_dumps(spec)})", by_value=False, group=group, timeout=timeout)
    array_id = res.get("objectId")
    description = res.get("description") or ""
    if array_id is None or description == "Array(0)":
        await _release_group(frame.session, group)
        return [], group
    props = await frame.session.send("Runtime.getProperties", {"objectId": array_id, "ownProperties": True}, timeout=timeout)
    oids = [p["value"]["objectId"] for p in props.get("result", ()) if p.get("name", "").isdigit() and (p.get("value") or {}).get("objectId")]
    return oids, group


async def _release_group(session: SessionLike, group: str) -> None:
    try:
        await session.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=5.0)
    except (CdpError, CdpChannelUnavailable):
        pass


async def _partial_node(session: SessionLike, object_id: str, timeout: float) -> list[dict[str, Any]]:
    try:
        r = await session.send(
            "Accessibility.getPartialAXTree", {"objectId": object_id, "fetchRelatives": False}, timeout=timeout
        )
    except CdpError:
        return []
    nodes: list[dict[str, Any]] = r.get("nodes", [])
    return nodes[:1]


async def _document_query(frame: FrameLike, roles: tuple[str, ...], timeout: float) -> list[dict[str, Any]]:
    """One queryAXTree per role over the whole document; EgoTimeout after 2 s (see above)."""
    session = frame.session

    async def call(ctx: int) -> dict[str, Any]:
        doc = await session.send(
            "Runtime.evaluate", {"expression": "document", "contextId": ctx, "objectGroup": DEFAULT_GROUP},
            timeout=timeout,
        )
        remote: dict[str, Any] = doc["result"]  # a RemoteObject
        return remote

    doc = await _with_context(frame, call, timeout=timeout)
    doc_id = doc.get("objectId")
    if not doc_id:
        return []
    nodes: list[dict[str, Any]] = []
    try:
        for role in roles:
            r = await session.send(
                "Accessibility.queryAXTree", {"objectId": doc_id, "role": role},
                timeout=min(timeout, _DOC_QUERY_TIMEOUT),
            )
            nodes.extend(r.get("nodes", ()))
    finally:
        await _release(session, doc_id)
    return nodes


def _name_ok(node: dict[str, Any], parsed: ParsedSelector) -> bool:
    if parsed.name is not None:
        actual = str((node.get("name") or {}).get("value") or "")
        if not text_matches(actual, parsed.name_op or "=", parsed.name, parsed.name_exact, parsed.name_flags):
            return False
    for key, want in parsed.states:
        if key == "description":
            actual = str((node.get("description") or {}).get("value") or "")
            if want[0] == "re":
                ok = text_matches(actual, "re", want[1], True, want[2])
            else:
                ok = text_matches(actual, want[0], want[1], want[2])
            if not ok:
                return False
    return True


async def _ax_nodes(frame: FrameLike, parsed: ParsedSelector, timeout: float) -> list[dict[str, Any]]:
    """Non-ignored AX nodes of the frame's document with the role and name asked for."""
    session = frame.session
    assert parsed.role is not None, "the parser gives every role selector its role"
    roles = _ROLE_ALIASES.get(parsed.role, (parsed.role,))
    nodes: list[dict[str, Any]] = []
    candidates = await _role_candidates(frame, parsed, timeout)
    oids, group = candidates if candidates is not None else ([], None)
    try:
        if candidates is not None and len(oids) <= _MAX_CANDIDATES:
            for r in await asyncio.gather(*(_partial_node(session, o, timeout) for o in oids)):
                nodes.extend(r)
        else:
            try:
                nodes = await _document_query(frame, roles, timeout)
            except EgoTimeout:
                if candidates is not None:
                    for r in await asyncio.gather(*(_partial_node(session, o, timeout) for o in oids)):
                        nodes.extend(r)
                else:
                    nodes = (await session.send("Accessibility.getFullAXTree", {}, timeout=timeout)).get("nodes", [])
    finally:
        if group is not None:
            await _release_group(session, group)
    nodes = [n for n in nodes if (n.get("role") or {}).get("value") in roles]
    out = []
    seen: set[int] = set()
    for node in nodes:
        if node.get("ignored"):
            continue
        backend = node.get("backendDOMNodeId")
        if backend is None or backend in seen:
            continue
        if not _name_ok(node, parsed):
            continue
        seen.add(backend)
        out.append(node)
    return out


#: states the page judges (Playwright reads them from the DOM, not from the AX tree)
_DOM_STATES = ("checked", "pressed", "selected", "expanded", "level", "disabled")


async def _query_role(frame: FrameLike, parsed: ParsedSelector, q: Query) -> _FrameResult:
    states = [(k, v) for k, v in parsed.states if k in _DOM_STATES]
    if not states:
        return await _query_role_base(frame, parsed, q)
    limit, nth, objects, timeout = q.limit, q.nth, q.objects, q.timeout
    # every match, then the page keeps those in the asked states; nth and limit after that
    temp = f"ego-sel-tmp-{next(_tmp_groups)}"
    group = q.object_group if (objects and q.object_group) else temp
    found = await _query_role_base(frame, parsed, replace(q, limit=None, nth=None, objects=True, object_group=group))
    session = frame.session
    matches = found.matches
    if matches:
        r = await session.send(
            "Runtime.callFunctionOn",
            {"functionDeclaration": "function(role, states, ...els) { return els.map((e) => __egoSel.roleStatesMatch(e, role, states)); }",
             "objectId": matches[0].object_id,
             "arguments": [{"value": parsed.role}, {"value": [[k, v] for k, v in states]}]
             + [{"objectId": m.object_id} for m in matches],
             "returnByValue": True},
            timeout=timeout,
        )
        if r.get("exceptionDetails"):
            raise CdpError("selector engine error: " + _exception_text(r["exceptionDetails"]),
                           method="Runtime.callFunctionOn", cdp_code=None, cdp_message=None)
        flags = r["result"].get("value") or []
        kept = [m for m, ok in zip(matches, flags) if ok]
    else:
        kept = []
    count_all = len(kept)
    if nth is not None:
        i = _nth_index(nth, count_all)
        chosen = [kept[i]] if i is not None else []
    else:
        chosen = kept
    total = len(chosen)
    out = chosen if limit is None else chosen[:limit]
    if not objects:
        await _release_group(session, temp)
        return _FrameResult([], count_all, total)
    keep_ids = {id(m) for m in out}
    drop = [m.object_id for m in matches if id(m) not in keep_ids and m.object_id]
    if drop:
        await asyncio.gather(*(_release(session, o) for o in drop))
    return _FrameResult(out, count_all, total)


async def _query_role_base(frame: FrameLike, parsed: ParsedSelector, q: Query) -> _FrameResult:
    if (parsed.role or "") in _ROLE_TAGS:
        if not q.objects and parsed.name is None:
            # a count the page can give alone when every candidate is sure
            res = await _evaluate(frame, f"__egoSel.roleCount({_dumps(_candidate_spec(parsed))})", by_value=True,
                                  group=None, timeout=q.timeout)
            value = res.get("value") or {}
            if "count" in value:
                n = int(value["count"])
                return _FrameResult([], n, n if q.nth is None else int(_nth_index(q.nth, n) is not None))
        found = await _query_role_classified(frame, parsed, q)
        if found is not None:
            return found
    return await _query_role_ax(frame, parsed, q)


async def _query_role_classified(frame: FrameLike, parsed: ParsedSelector, q: Query) -> _FrameResult | None:
    """The in-page classification path; None when too many candidates are unsure (the
    caller then takes the whole-document path)."""
    limit, nth, describe, objects, project, timeout = q.limit, q.nth, q.describe, q.objects, q.project, q.timeout
    object_group = q.object_group
    session = frame.session
    temp = None if (objects and object_group) else f"ego-sel-tmp-{next(_tmp_groups)}"
    group = object_group if temp is None else temp
    res = await _evaluate(frame, f"__egoSel.roleClassify({_dumps(_candidate_spec(parsed))})", by_value=False,
                          group=group, timeout=timeout)
    array_id = res.get("objectId")
    oids: list[str] = []
    kinds = ""
    if array_id is not None and (res.get("description") or "") != "Array(0)":
        props = await session.send("Runtime.getProperties", {"objectId": array_id, "ownProperties": True},
                                   timeout=timeout)
        by_index: dict[int, str] = {}
        for prop in props.get("result", ()):
            name = prop.get("name")
            value = prop.get("value") or {}
            if name == "meta":
                kinds = jsonsafe.loads(value.get("value") or "{}").get("kinds", "")
            elif name is not None and name.isdigit() and value.get("objectId"):
                by_index[int(name)] = value["objectId"]
        oids = [by_index[i] for i in sorted(by_index)]
    if array_id is not None and temp is None:
        await _release(session, array_id)
    if len(kinds) != len(oids):  # an engine without roleClassify meta: let Chromium decide all
        kinds = "m" * len(oids)
    # "r": the page is sure of the role (a th, by Playwright's rule), Chromium judges the rest
    unsure = [i for i, k in enumerate(kinds) if k in ("m", "r")]
    if len(unsure) > _MAX_CANDIDATES:
        if temp is not None:
            await _release_group(session, temp)
        else:
            await asyncio.gather(*(_release(session, o) for o in oids))
        return None
    roles = _ROLE_ALIASES.get(parsed.role or "", (parsed.role,))
    ax: dict[int, dict[str, Any]] = {}
    if unsure:
        for i, nodes in zip(unsure, await asyncio.gather(*(_partial_node(session, oids[i], timeout) for i in unsure))):
            node = nodes[0] if nodes else None
            if (node is not None and not node.get("ignored")
                    and (kinds[i] == "r" or (node.get("role") or {}).get("value") in roles) and _name_ok(node, parsed)):
                ax[i] = node
    matched = [i for i, k in enumerate(kinds) if k == "y" or i in ax]
    count_all = len(matched)
    if not objects:
        if temp is not None:
            await _release_group(session, temp)
        return _FrameResult([], count_all, count_all if nth is None else int(_nth_index(nth, count_all) is not None))
    if nth is not None:
        pick = _nth_index(nth, count_all)
        chosen = [matched[pick]] if pick is not None else []
    else:
        chosen = matched
    total = len(chosen)
    keep = chosen if limit is None else chosen[:limit]
    kept = set(keep)
    drop = [o for i, o in enumerate(oids) if i not in kept]
    infos: list[dict[str, Any]] = [{} for _ in keep]
    if keep and (describe or project):
        fn = "function(...els) { const d = __egoSel.describeAll(els);"
        if project:
            fn += f" const p = ({project}); d.forEach((x, i) => x.project = p(els[i]));"
        fn += " return d; }"
        r = await session.send(
            "Runtime.callFunctionOn",
            {"functionDeclaration": fn, "objectId": oids[keep[0]],
             "arguments": [{"objectId": oids[i]} for i in keep], "returnByValue": True},
            timeout=timeout,
        )
        if not r.get("exceptionDetails"):
            infos = r["result"].get("value") or infos
    if describe:
        # names are Chromium's: ask about the sure ones kept (the unsure ones were asked already)
        need = [i for i in keep if i not in ax]
        for i, nodes in zip(need, await asyncio.gather(*(_partial_node(session, oids[i], timeout) for i in need))):
            if nodes:
                ax[i] = nodes[0]
    backend: dict[int, int | None] = {i: ax[i].get("backendDOMNodeId") for i in keep if i in ax}
    if q.backend_ids:
        need = [i for i in keep if backend.get(i) is None]
        if need:
            for i, b in zip(need, await _backend_ids(session, [oids[i] for i in need], timeout)):
                backend[i] = b
    matches = []
    for i, info in zip(keep, infos):
        info = dict(info)
        info["role"] = parsed.role
        node = ax.get(i)
        if node is not None:
            info["name"] = normalize_whitespace(str((node.get("name") or {}).get("value") or ""))
        matches.append(Match(frame, backend.get(i), oids[i], info))
    if drop:
        await asyncio.gather(*(_release(session, o) for o in drop))
    return _FrameResult(matches, count_all, total)


async def _query_role_ax(frame: FrameLike, parsed: ParsedSelector, q: Query) -> _FrameResult:
    """Roles and names from Chromium's AX tree only (roles the page cannot classify)."""
    limit, nth, describe, objects, project, timeout = q.limit, q.nth, q.describe, q.objects, q.project, q.timeout
    object_group = q.object_group
    session = frame.session
    nodes = await _ax_nodes(frame, parsed, timeout)
    count_before = len(nodes)
    if not objects:
        total = count_before if nth is None else int(_nth_index(nth, count_before) is not None)
        return _FrameResult([], count_before, total)
    if not nodes:
        return _FrameResult([], 0, 0)

    async def resolve_all(ctx: int) -> tuple[int, list[tuple[dict[str, Any], str]]] | str:
        async def one(node: dict[str, Any]) -> str | None:
            try:
                params: dict[str, Any] = {"backendNodeId": node["backendDOMNodeId"], "executionContextId": ctx}
                if object_group:
                    params["objectGroup"] = object_group
                r = await session.send("DOM.resolveNode", params, timeout=timeout)
            except ContextDestroyed:
                raise
            except CdpError:
                return None
            oid: str | None = r["object"].get("objectId")
            return oid

        oids = await asyncio.gather(*(one(n) for n in nodes))
        pairs = [(n, o) for n, o in zip(nodes, oids) if o]
        if len(pairs) > 1:
            r = await session.send(
                "Runtime.callFunctionOn",
                {
                    "functionDeclaration": jsbundle.function("utility", "engine_order"),
                    "executionContextId": ctx,
                    "arguments": [{"value": _MISSING}] + [{"objectId": o} for _, o in pairs],
                    "returnByValue": True,
                },
                timeout=timeout,
            )
            if r.get("exceptionDetails"):
                raise CdpError("selector engine error: " + _exception_text(r["exceptionDetails"]),
                               method="Runtime.callFunctionOn", cdp_code=None, cdp_message=None)
            order = r["result"].get("value")
            if order == _MISSING:
                return _MISSING
            pairs = [pairs[i] for i in order]
        return ctx, pairs

    ctx, pairs = await _with_context(frame, resolve_all, timeout=timeout)
    count_all = len(pairs)
    if nth is not None:
        i = _nth_index(nth, count_all)
        chosen = [pairs[i]] if i is not None else []
    else:
        chosen = pairs
    total = len(chosen)
    keep = chosen if limit is None else chosen[:limit]
    drop = [o for _, o in pairs if all(o != k for _, k in keep)]
    infos: list[dict[str, Any]] = [{} for _ in keep]
    if keep and (describe or project):
        fn = "function(...els) { const d = __egoSel.describeAll(els);"
        if project:
            fn += f" const p = ({project}); d.forEach((x, i) => x.project = p(els[i]));"
        fn += " return d; }"
        r = await session.send(
            "Runtime.callFunctionOn",
            {"functionDeclaration": fn, "executionContextId": ctx,
             "arguments": [{"objectId": o} for _, o in keep], "returnByValue": True},
            timeout=timeout,
        )
        if not r.get("exceptionDetails"):
            infos = r["result"].get("value") or infos
    matches = []
    for (node, oid), info in zip(keep, infos):
        info = dict(info)
        info["role"] = parsed.role
        info["name"] = normalize_whitespace(str((node.get("name") or {}).get("value") or ""))
        matches.append(Match(frame, node["backendDOMNodeId"], oid, info))
    if drop:
        await asyncio.gather(*(_release(session, o) for o in drop))
    return _FrameResult(matches, count_all, total)

