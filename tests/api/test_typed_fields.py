"""Named states and real fields (issue 10, point 6): the names are for code, the wire keeps its strings."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from ego_browser import errors
from ego_browser.driver.handles import ElementHandle
from ego_browser.host.core.store import Store
from ego_browser.states import CreatedBy, OpenedBy, Ownership, PageState

DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "api.md"


def _error_classes() -> list[type[errors.EgoError]]:
    found, pending = [], [errors.EgoError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def _annotated(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        names |= {n for n, t in vars(klass).get("__annotations__", {}).items() if "ClassVar" not in str(t)}
    return names


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda c: c.__name__)
def test_every_error_attribute_is_an_annotated_field(cls: type[errors.EgoError]) -> None:
    missing = [f for f in cls.fields if f not in _annotated(cls)]
    assert not missing, f"{cls.__name__}: fields without an annotation: {missing}"
    own = {n for n, t in vars(cls).get("__annotations__", {}).items() if "ClassVar" not in str(t)} - {"message"}
    stray = sorted(own - set(cls.fields))
    assert not stray, f"{cls.__name__}: annotated but not carried across the socket: {stray}"
    exc = cls("m", **{f: None for f in cls.fields})
    assert errors.from_wire(orjson.loads(orjson.dumps(errors.to_wire(exc)))).attrs() == exc.attrs()


def test_an_element_handle_only_takes_its_declared_fields() -> None:
    h = ElementHandle(session=None, context_id=1, object_id="o")  # type: ignore[arg-type]
    names = {f.name for f in dataclasses.fields(ElementHandle)}
    assert {"tier", "matched", "frame_candidates", "fused", "last_call_js"} <= names
    with pytest.raises(AttributeError):
        h.picked_by = "x"  # type: ignore[attr-defined]
    assert (h.tier, h.matched, h.frame_candidates, h.fused, h.last_call_js) == (0, (None, 1), 0, None, False)


def test_states_keep_the_documented_wire_strings() -> None:
    assert [m.value for m in Ownership] == ["agent", "agentDelegatedToUser", "user"]
    assert [m.value for m in PageState] == ["open", "closed", "released", "unmanaged"]
    assert [m.value for m in OpenedBy] == ["agent", "unknown"]
    assert [m.value for m in CreatedBy] == ["agent", "user"]
    api = DOCS.read_text(encoding="utf-8")
    for member in [*Ownership, *OpenedBy]:
        assert f'"{member}"' in api, f"{member!r} is not documented in docs/api.md"
    assert orjson.dumps({"o": Ownership.DELEGATED, "s": PageState.OPEN}) == b'{"o":"agentDelegatedToUser","s":"open"}'


def test_store_rows_come_back_typed_and_refuse_unknown_states(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.sqlite3")
    sid, page = store.create_space_with_page(name="s", isolated=False, context_id=None, profile_id="default",
                                             browser_instance="b", target_id="T0")
    assert (page.opened_by, page.state) == (OpenedBy.AGENT, PageState.OPEN)
    store.update_space(sid, ownership="agentDelegatedToUser", reason="handed_off")
    space = store.space(sid)
    assert space is not None
    assert type(space.ownership) is Ownership and space.ownership is Ownership.DELEGATED
    assert type(space.created_by) is CreatedBy and space.created_by is CreatedBy.AGENT
    # what the store holds is the plain string agents and older hosts read
    assert store.db.execute("SELECT ownership FROM spaces WHERE id=?", (sid,)).fetchone()[0] == "agentDelegatedToUser"
    row = store.add_page(sid, "#T1", "T1", "unknown", state="unmanaged")
    assert [type(r.state) for r in store.pages(sid)] == [PageState, PageState]
    assert row.opened_by is OpenedBy.UNKNOWN
    with pytest.raises(ValueError):
        store.update_space(sid, ownership="robot")
    with pytest.raises(ValueError):
        store.add_page(sid, "#T2", "T2", "unknown", state="half-open")
    assert store.space(sid).ownership is Ownership.DELEGATED  # type: ignore[union-attr]
