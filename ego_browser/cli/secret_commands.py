"""``ego-browser secrets set NAME | list | rm NAME``: the person's secrets.

The value never comes as an argument (it would land in the shell's history and in ``ps``): it
is read from a hidden prompt (``getpass``) on a terminal, else one line of standard input
(``printf %s "$TOKEN" | ego-browser secrets set api``). Only the person runs this;
an agent names a secret in a round with ``secret("NAME")`` and never reads it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["configure", "run", "SUMMARY", "SYNOPSIS"]

SUMMARY = "store, list or remove the secrets an agent types by name (secret(\"NAME\")) without seeing them"
SYNOPSIS = "[list | set NAME | rm NAME]"


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")


def emit(ns: argparse.Namespace, data: Any, text: Callable[[Any], None]) -> None:
    if getattr(ns, "json", False):
        print(json.dumps(data, indent=1, sort_keys=True))
    else:
        text(data)


def configure(p: argparse.ArgumentParser) -> None:
    add_json(p)
    sub = p.add_subparsers(dest="action", metavar="{list,set,rm}")
    lst = sub.add_parser("list", help="the names of the stored secrets (never their values)",
                         description="The names of the stored secrets and where each is kept; never a value.")
    add_json(lst)
    put = sub.add_parser("set", help="store a secret: the value is read from a hidden prompt or one line of stdin",
                         description="Store a secret under NAME. The value is read from a hidden prompt on a "
                                     "terminal, else from one line of standard input; never from an argument.")
    put.add_argument("name", metavar="NAME")
    add_json(put)
    rm = sub.add_parser("rm", help="remove a stored secret", description="Remove the secret NAME.")
    rm.add_argument("name", metavar="NAME")
    add_json(rm)


def _read_value(name: str) -> str:
    if sys.stdin.isatty():
        import getpass

        value = getpass.getpass(f"value of secret {name!r} (not shown): ")
    else:
        value = sys.stdin.readline()
    return value.rstrip("\r\n")


def run(ns: argparse.Namespace) -> int:
    from ..host.core.secret_store import SecretStore, check_name, secret_key_path

    store = SecretStore()
    action = ns.action or "list"
    if action == "list":
        rows = [{"name": n, "where": store.where(n)} for n in store.names()]

        def text(rows: list[dict[str, str]]) -> None:
            if not rows:
                print("no secrets (store one with: ego-browser secrets set NAME)")
            for r in rows:
                print(f"{r['name']}\t{r['where']}")

        emit(ns, rows, text)
        return 0
    name = check_name(ns.name, f"secrets {action}")
    if action == "set":
        where = store.set(name, _read_value(name))
        shown = "the OS keyring" if where == "keyring" else f"the encrypted file (key: {secret_key_path()})"
        emit(ns, {"name": name, "where": where},
             lambda _d: print(f"secret {name!r} stored in {shown}; type it in a round with secret({name!r})"))
        return 0
    removed = store.remove(name)
    emit(ns, {"name": name, "removed": removed},
         lambda _d: print(f"secret {name!r} removed" if removed else f"no secret named {name!r}"))
    return 0 if removed else 1
