"""``help()`` and the usage guide, rendered from the API schema (``ego_browser.schema``)."""

from __future__ import annotations

__all__ = ["help", "guide", "topics"]


def help(name: object = None) -> None:  # noqa: A001 - the documented API name
    """Print the overview, or one member (``"Page.click"``) or topic (``"selectors"``)."""
    from .schema.render import help_text

    print(help_text(name), end="")


def guide() -> str:
    """The usage guide printed by ``ego-browser skill``."""
    from .schema.render import guide as render_guide

    return render_guide()


def topics() -> list[str]:
    """Every help topic: the declared members and the prose topics."""
    from .schema.render import topic_names
    from .schema.spec import members

    return [*members(), *topic_names()]
