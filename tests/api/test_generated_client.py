"""The public classes are generated from the declarations (issue 10, point 1).

``client/_generated.py`` is checked in; regenerating it from the schema and the hand-written
bases must give the same text, so a declaration changed without regenerating (or a hand edit
of the generated module) fails here.
"""

from __future__ import annotations

import inspect
import typing

from ego_browser.client import _generated
from ego_browser.schema import gen_client
from ego_browser.schema.spec import members


def test_generated_modules_are_up_to_date():
    current = gen_client.GENERATED_PATH.read_text(encoding="utf-8")
    assert current == gen_client.generate(), (
        "client/_generated.py is stale: run python -m ego_browser.schema.gen_client")
    exports = gen_client.EXPORTS_PATH.read_text(encoding="utf-8")
    assert exports == gen_client.generate_exports(), (
        "ego_browser/_exports.py is stale: run python -m ego_browser.schema.gen_client")


def test_public_names_come_from_the_schema():
    import ego_browser
    from ego_browser.round import runner
    from ego_browser.schema.spec import CLASSES, FUNCTIONS, OBJECTS

    from ego_browser import errors

    top_classes = {info.runtime for owner, info in CLASSES.items() if "." not in owner}
    # exactly the schema's names, the error tree and the version: nothing listed by hand
    assert sorted(ego_browser.__all__) == sorted(set(FUNCTIONS) | top_classes | set(OBJECTS) | set(errors.__all__)
                                                 | {"__version__"})
    assert len(ego_browser.__all__) == len(set(ego_browser.__all__))
    assert set(dir(ego_browser)) >= set(ego_browser.__all__)
    for name in set(FUNCTIONS) | top_classes:
        assert getattr(ego_browser, name) is not None
    assert set(runner.RUNNER_GLOBALS) >= (set(FUNCTIONS) - {"embedded"}) | set(OBJECTS)
    assert "embedded" not in runner.RUNNER_GLOBALS


def test_generated_members_have_real_signatures_and_docs():
    click = _generated.Page.click
    assert "click" in _generated.Page.__dict__  # generated, not hand-written
    hints = typing.get_type_hints(inspect.unwrap(click), vars(_generated))
    assert hints["button"] == typing.Literal["left", "middle", "right"]
    assert hints["position"] == typing.Optional[dict[str, float]]
    assert inspect.signature(click).parameters["timeout"].default == 3000
    assert " ".join(click.__doc__.split()) == " ".join(members()["Page.click"].doc.split())


def test_hand_written_members_are_not_generated():
    # context managers and members whose results are built in the round stay in the bases
    for name in ("expect_navigation", "wait_for_event", "evaluate", "screenshot"):
        assert name not in _generated.Page.__dict__
        assert hasattr(_generated.Page, name)
    assert "new_page" not in _generated.TaskSpace.__dict__
