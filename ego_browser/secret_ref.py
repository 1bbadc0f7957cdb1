"""``secret("github")``: a secret named in a round, whose value the round never holds.

The marker is a one-key dict, ``{"$secret": "github"}``, so it travels to the host as exactly
that (orjson sends dict subclasses as dicts; the journal records that shape as
``[secret:github]``). The host swaps in the value at the moment it types it (``host/core/secret_book``)
and masks the value in everything it answers; printing the marker shows ``[secret:github]``.
"""

from __future__ import annotations

import re
from typing import Any

from .schema import validated

__all__ = ["Secret", "secret", "check_name", "marker_name", "NAME_RE", "KEY"]

#: a secret's name: what scripts, the journal and the masks show; letters, digits, . _ -
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
#: the marker's one key on the wire
KEY = "$secret"


def check_name(name: Any, api: str = "secret") -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        from .errors import InvalidArgument

        raise InvalidArgument(
            f"{api}: a secret's name is 1-64 letters, digits, '.', '_' or '-' starting with a letter or digit "
            f"(got {name!r})", api=api, option="name", expected="a secret name such as 'github'")
    return name


class Secret(dict[str, str]):
    """The marker ``secret(name)`` returns; pass it where a page.fill value or keyboard text goes."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__({KEY: check_name(name)})

    @property
    def name(self) -> str:
        return self[KEY]

    def __repr__(self) -> str:
        return f"[secret:{self[KEY]}]"

    __str__ = __repr__


@validated("secret")
def secret(name: str) -> Secret:
    """The marker of the person's secret ``name`` (stored with ``ego-browser secrets set NAME``)."""
    return Secret(name)


def marker_name(value: Any) -> str | None:
    """The secret's name when ``value`` is a marker (a ``Secret`` or its wire form), else None."""
    if isinstance(value, dict) and len(value) == 1:
        name = value.get(KEY)
        if isinstance(name, str) and NAME_RE.match(name):
            return name
    return None
