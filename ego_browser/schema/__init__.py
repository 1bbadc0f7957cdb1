"""The one declaration of the public API, and what is derived from it.

``spec.py`` declares every public function, method and property once (parameters, types,
defaults, return shape, errors, a short doc and an example) as plain Python data. From it:

- ``validate.py`` compiles, per member and on first use, a plain-Python argument checker
  with the member's exact signature (:func:`validated` wires it in front of a method);
- ``render.py`` produces ``help()``, the usage guide (``ego-browser skill``) and
  ``docs/api.md`` (``python -m ego_browser.schema.render docs``).

Importing this package is cheap: it imports neither ``spec`` nor ``validate``; a method
decorated with :func:`validated` compiles its checker on its first call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any, TypeVar

__all__ = ["validated", "check", "checker"]

F = TypeVar("F", bound=Callable[..., Any])
_checkers: dict[str, Callable[..., None]] = {}


def checker(name: str) -> Callable[..., None]:
    """The compiled argument checker of member ``name`` (``"Page.click"``), cached."""
    fn = _checkers.get(name)
    if fn is None:
        from .validate import compile_checker

        fn = _checkers[name] = compile_checker(name)
    return fn


def check(name: str, *args: Any, **kwargs: Any) -> None:
    """Validate a call of member ``name`` (methods: pass ``self`` first). Raises
    ``InvalidArgument`` for a bad value, ``TypeError`` for a wrong or missing argument."""
    checker(name)(*args, **kwargs)


def validated(name: str) -> Callable[[F], F]:
    """Check the arguments of a public method against the schema before running it.

    The method keeps its own signature (``inspect.signature`` follows ``__wrapped__``); the
    agreement test checks it against the declaration. Coroutine functions are checked when
    awaited, as a hand-written check at the top of the body would be.
    """

    def deco(fn: F) -> F:
        if iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                (_checkers.get(name) or checker(name))(*args, **kwargs)
                return await fn(*args, **kwargs)

            wrapper: Any = async_wrapper
        else:

            @functools.wraps(fn)
            def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                (_checkers.get(name) or checker(name))(*args, **kwargs)
                return fn(*args, **kwargs)

            wrapper = sync_wrapper
        wrapper.__schema_name__ = name
        return wrapper  # type: ignore[no-any-return]  # functools.wraps gave it fn's signature

    return deco
