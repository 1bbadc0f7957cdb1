"""ego_browser.pysource: CPython 3.11's spurious AST recursion-depth error is parsed again."""

from __future__ import annotations

import ast

import pytest

from ego_browser import pysource


def test_a_spurious_recursion_depth_error_is_parsed_again(monkeypatch):
    calls = []
    real = ast.parse

    def flaky(source, filename="<unknown>"):
        calls.append(filename)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=90, after=65)")
        return real(source, filename)

    monkeypatch.setattr(pysource.ast, "parse", flaky)
    tree = pysource.parse("x = 1\n", "m.py")
    assert isinstance(tree.body[0], ast.Assign) and calls == ["m.py", "m.py"]


def test_other_errors_are_raised_as_they_are(monkeypatch):
    def broken(source, filename="<unknown>"):
        raise SystemError("something else")

    with pytest.raises(SyntaxError):
        pysource.parse("def (:\n")
    monkeypatch.setattr(pysource.ast, "parse", broken)
    with pytest.raises(SystemError, match="something else"):
        pysource.parse("x = 1\n")


def test_a_fault_that_persists_is_not_hidden(monkeypatch):
    def always(source, filename="<unknown>"):
        raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")

    monkeypatch.setattr(pysource.ast, "parse", always)
    with pytest.raises(SystemError, match="mismatch"):
        pysource.parse("x = 1\n")
