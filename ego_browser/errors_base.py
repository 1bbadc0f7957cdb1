"""The root of ego_browser's error tree and its trip over the host socket.

``EgoError`` (every error an agent meets derives from it, with a stable ``EGO_*`` code) and
``to_wire``/``from_wire``; the tree itself is drawn in ``ego_browser/errors.py``, which
re-exports everything here. Kept apart so that the modules of the tree's branches
(``errors_learned.py``) import the root without importing the whole tree.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every round imports this module, typing costs ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, ClassVar

__all__ = ["EgoError", "from_wire", "to_wire"]


class EgoError(Exception):
    """Root of every ego_browser error; ``code`` is stable, ``message`` is ``str(e)``."""

    code: ClassVar[str] = "EGO_ERROR"
    #: attribute names carried across the host socket (besides the message); each is also
    #: annotated in the class body, so type checkers and readers see a real attribute
    fields: ClassVar[tuple[str, ...]] = ()
    message: str

    def __init__(self, message: str, **attrs: Any) -> None:
        super().__init__(message)
        self.message = message
        for name in self.fields:
            setattr(self, name, attrs.pop(name, None))
        if attrs:
            raise TypeError(f"{type(self).__name__} got unknown attributes: {sorted(attrs)}")

    def attrs(self) -> dict[str, Any]:
        return {name: getattr(self, name, None) for name in self.fields}

    def __reduce__(self) -> tuple[Any, ...]:  # keep pickling (multiprocessing, pytest-xdist) lossless
        return (_rebuild, (self.code, self.message, self.attrs()))


def _all_classes() -> dict[str, type[EgoError]]:
    found: dict[str, type[EgoError]] = {}
    pending = [EgoError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return found


_BY_CODE: dict[str, type[EgoError]] | None = None


def to_wire(exc: EgoError) -> dict[str, Any]:
    return {"code": exc.code, "message": exc.message, "attrs": exc.attrs()}


def from_wire(payload: dict[str, Any]) -> EgoError:
    """Rebuild the error the host raised; unknown codes stay plain ``EgoError``s with that code."""
    return _rebuild(payload.get("code", "EGO_ERROR"), payload.get("message", ""), payload.get("attrs") or {})


def _rebuild(code: str, message: str, attrs: dict[str, Any]) -> EgoError:
    global _BY_CODE
    if _BY_CODE is None:
        _BY_CODE = _all_classes()
    cls = _BY_CODE.get(code)
    if cls is None:
        exc = EgoError(message)
        exc.code = code  # type: ignore[misc]  # keep a newer host's code visible
        return exc
    return cls(message, **{k: v for k, v in attrs.items() if k in cls.fields})
