"""Reading Python source with :mod:`ast`, around a CPython 3.11 fault.

CPython 3.11 (before 3.11.8: python/cpython#106905) keeps the AST constructor's recursion depth
in state shared by every thread, so an ``ast.parse`` that runs while another thread parses too
(3.11 formats every traceback's carets with ``ast.parse``) can fail with ``SystemError: AST
constructor recursion depth mismatch`` on source that parses. That error says nothing about the
source: the parse is made again.
"""

from __future__ import annotations

import ast

__all__ = ["parse"]

_ATTEMPTS = 3


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``; a spurious recursion-depth ``SystemError`` is retried."""
    for attempt in range(_ATTEMPTS):
        try:
            return ast.parse(source, filename)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc) or attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")
