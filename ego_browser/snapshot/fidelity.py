"""Fidelity of a printed snapshot against Chromium's own accessibility tree (a measuring tool).

Used by the fidelity tests (``tests/integration/test_snapshot_browser.py``) and meant for benchmarks over
real pages (a corpus benchmark calls :func:`measure` once per page, right after the snapshot):

- **roles**: role and name of every ref-bearing node vs ``Accessibility.getFullAXTree``;
- **states**: checked, disabled, expanded, selected and value of every ref, and the level of
  every heading, vs the AX node's properties (a listbox's value: its selected options);
- **text**: every visible text string of every frame appears in the printed names/values;
- **controls**: every enabled, visible control with a box (buttons, inputs, selects, textareas,
  links, iframes, and every node Chromium's tree gives a control role: ``role=button``,
  ``menuitem``, ``tab``, ...) has a ref, open shadow roots and slotted content included.

Not imported by the runtime.
"""

from __future__ import annotations

from typing import Any

from .. import jsbundle
from ..errors import CdpError
from .twin import parse_snapshot

__all__ = ["measure", "ax_state", "our_state"]

_ROLE_ALIASES = {"image": "img", "Iframe": "iframe", "DisclosureTriangle": "button", "generic": "container",
                 "LabelText": "container", "MenuListPopup": "listbox", "RootWebArea": "root"}


async def _ax_all(frame: Any) -> list[dict[str, Any]]:
    params = {"frameId": frame.frame_id} if frame.parent_frame_id else {}
    try:
        res = await frame.session.send("Accessibility.getFullAXTree", params)
    except CdpError:  # a frame its session does not own by id (an OOPIF root): ask for the whole tree
        res = await frame.session.send("Accessibility.getFullAXTree")
    nodes: list[dict[str, Any]] = res["nodes"]
    return nodes


def _ax_role_name(n: dict[str, Any]) -> tuple[str, str]:
    role = n.get("role", {}).get("value", "")
    return _ROLE_ALIASES.get(role, role), " ".join(str(n.get("name", {}).get("value", "")).split())


_VALUE_ROLES = {"textbox", "searchbox", "spinbutton", "slider", "progressbar", "combobox", "listbox"}


def ax_state(n: dict[str, Any], by_id: dict[str, Any] | None = None) -> dict[str, Any]:
    """Chromium's checked/disabled/expanded/selected/level/value of an AX node, in our words.

    A listbox has no value in Chromium's tree: its selected options (which we print too) are."""
    props = {p["name"]: (p.get("value") or {}).get("value") for p in n.get("properties", ())}
    role = _ax_role_name(n)[0]
    out = {}
    checked = props.get("checked")
    if checked in ("true", "mixed"):
        out["checked"] = checked
    if props.get("disabled") is True:
        out["disabled"] = True
    if props.get("expanded") is not None:
        out["expanded"] = bool(props["expanded"])
    if props.get("selected") is True:
        out["selected"] = True
    if role == "heading":
        out["level"] = int(props.get("level") or 2)
    if role == "listbox" and by_id is not None:
        picked = []
        todo = list(n.get("childIds", ()))
        while todo:  # options may sit under an ignored wrapper
            c = by_id.get(todo.pop(0))
            if c is None:
                continue
            if _ax_role_name(c)[0] == "option":
                if any(p["name"] == "selected" and p["value"].get("value") is True for p in c.get("properties", ())):
                    picked.append(_ax_role_name(c)[1])
            else:
                todo.extend(c.get("childIds", ()))
        if picked:
            out["value"] = ", ".join(picked)
    elif role in _VALUE_ROLES:
        v = " ".join(str((n.get("value") or {}).get("value", "")).split())
        if v:
            out["value"] = v if len(v) <= 100 else v[:99] + "\u2026"
    return out


def our_state(role: str, state: str, value: str) -> dict[str, Any]:
    """The same fields read off a printed line's state marks and value."""
    marks = set(state.split())
    out: dict[str, Any] = {}
    if "[checked]" in marks:
        out["checked"] = "true"
    if "[checked=mixed]" in marks:
        out["checked"] = "mixed"
    if "[disabled]" in marks:
        out["disabled"] = True
    if "[expanded]" in marks or "[collapsed]" in marks:
        out["expanded"] = "[expanded]" in marks
    if "[selected]" in marks:
        out["selected"] = True
    for m in marks:
        if m.startswith("[level="):
            out["level"] = int(m[7:-1])
    if value:
        out["value"] = value
    return out


async def _visible_texts(frame: Any) -> list[str]:
    w = await frame.session.send("Page.createIsolatedWorld", {"frameId": frame.frame_id, "worldName": "fidelity"})
    js = jsbundle.call("fidelity", "visible_texts")
    r = await frame.session.send("Runtime.evaluate", {"expression": js, "returnByValue": True,
                                                      "contextId": w["executionContextId"]})
    texts: list[str] = r["result"]["value"]
    return texts


async def _control_backend_ids(frame: Any, name: str = "control_elements") -> set[int]:
    w = await frame.session.send("Page.createIsolatedWorld", {"frameId": frame.frame_id, "worldName": "fidelity"})
    js = jsbundle.call("fidelity", name)
    r = await frame.session.send("Runtime.evaluate", {
        "expression": js, "contextId": w["executionContextId"],
        "serializationOptions": {"serialization": "deep", "maxDepth": 2,
                                 "additionalParameters": {"maxNodeDepth": 0, "includeShadowTree": "none"}}})
    return {v["value"]["backendNodeId"] for v in r["result"]["deepSerializedValue"]["value"]}


#: Chromium roles of the nodes an agent acts on (the oracle's controls, with the native ones)
_CONTROL_ROLES = frozenset({"button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
                            "option", "slider", "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox",
                            "menuitemradio", "treeitem"})


def _ax_controls(nodes: list[dict[str, Any]]) -> set[int]:
    """Backend ids of the enabled nodes Chromium's tree gives a control role, wherever the DOM
    put them (open shadow roots, slotted content: the tree is built on the flat tree)."""
    out = set()
    for n in nodes:
        if _ax_role_name(n)[0] in _CONTROL_ROLES and "disabled" not in ax_state(n):
            out.add(n["backendDOMNodeId"])
    return out


async def measure(target: Any, ledger: Any, body: str) -> dict[str, Any]:
    """Compare ``body`` (a printed full-page snapshot without its header, taken with ``ledger``)
    with Chromium's view of ``target``'s frames. Backend ids must be settled (``engine.settle``).

    Returns counts ``{role_agree, role_total, state_agree, state_total, text_found, text_total,
    controls_bound, controls_total}`` and the first misses of each kind (``*_misses``)."""
    table = parse_snapshot(body)
    printed: dict[int, tuple[str, str]] = {}
    states: dict[int, dict[str, Any]] = {}
    for role, name, key, st, val in zip(table[1], table[2], table[4], table[7], table[8]):
        if key is not None:
            printed[key[1]] = (role, name)
            states[key[1]] = our_state(role, st, val)
    frames = {f.frame_id: f for f in target.frames()}
    everything = {fid: await _ax_all(f) for fid, f in frames.items()}
    nodes = {fid: [n for n in ns if n.get("backendDOMNodeId") is not None and not n.get("ignored")]
             for fid, ns in everything.items()}
    by_bid = {fid: {n["backendDOMNodeId"]: n for n in ns} for fid, ns in nodes.items()}
    by_id = {n["nodeId"]: n for ns in everything.values() for n in ns}
    out: dict[str, Any] = {k: 0 for k in ("role_agree", "role_total", "state_agree", "state_total", "text_found",
                                           "text_total", "controls_bound", "controls_total")}
    for k in ("role_misses", "state_misses", "text_misses", "control_misses"):
        out[k] = []
    for ref, (role, name) in printed.items():
        b = ledger.lookup(ref)
        n = by_bid.get(b.frame_id, {}).get(b.backend_node_id)
        got = _ax_role_name(n) if n is not None else None
        out["role_total"] += 1
        if got is not None and (got == (role, name) or (role == "container" and got[1] == name)):
            out["role_agree"] += 1  # focusable generic elements: Chromium says generic, we container
        else:
            out["role_misses"].append((ref, role, name, got))
        if n is None or name == "Password":
            continue  # not in Chromium's tree (a role miss already); a password's value is never printed
        out["state_total"] += 1
        theirs = ax_state(n, by_id)
        if states[ref] == theirs:
            out["state_agree"] += 1
        else:
            out["state_misses"].append((ref, (role, name), states[ref], theirs))
    # headings carry no ref: their levels are matched by name
    ax_headings = [(_ax_role_name(n)[1], ax_state(n).get("level")) for ns in nodes.values() for n in ns
                   if _ax_role_name(n)[0] == "heading"]
    squeezed = {("".join(n.split()), lvl) for n, lvl in ax_headings}
    for i, (role, name, st) in enumerate(zip(table[1], table[2], table[7])):
        if role == "heading":
            out["state_total"] += 1
            if not name:  # named from content shown as child lines: the name is their text
                j, parts = i + 1, []
                while j < len(table[0]) and table[0][j] > table[0][i]:
                    parts.append(table[2][j])
                    j += 1
                name = " ".join(parts)
            mine = (name, our_state(role, st, "").get("level"))
            if mine in ax_headings or ("".join(name.split()), mine[1]) in squeezed:
                out["state_agree"] += 1
            else:
                out["state_misses"].append(("heading", mine))
    shown = " ".join(table[2]) + " " + " ".join(table[8])
    for fid, f in frames.items():
        for t in await _visible_texts(f):
            out["text_total"] += 1
            if t in shown:
                out["text_found"] += 1
            else:
                out["text_misses"].append((fid, t))
        bound = {ledger.lookup(r).backend_node_id for r in printed if ledger.lookup(r).frame_id == fid}
        # the DOM's native controls and the nodes Chromium's tree calls controls, where a pointer reaches
        controls = await _control_backend_ids(f)
        controls |= _ax_controls(nodes[fid]) & await _control_backend_ids(f, "reachable_elements")
        out["controls_total"] += len(controls)
        out["controls_bound"] += len(controls & bound)
        out["control_misses"].extend((fid, bid) for bid in controls - bound)
    return out
