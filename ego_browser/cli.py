"""``python -m ego_browser``: run a round (stdin, ``-e CODE`` or a file) or a subcommand."""

from __future__ import annotations

import os
import sys

__all__ = ["main"]

ROUND_USAGE = """\
usage: python -m ego_browser [-e CODE | FILE | -]   run one round (default: the script on stdin)
       python -m ego_browser COMMAND [--help]     a sub-command:
"""


def _usage() -> str:
    from .commands import usage_lines

    return ROUND_USAGE + "".join(f"  {line}\n" for line in usage_lines()) + (
        "Every sub-command takes --help. Rounds: python -m ego_browser skill prints the usage guide.\n"
    )


def _is_command(head: str) -> bool:
    """Sub-command names are lower-case words; anything else is a script path (no import needed)."""
    if not head.replace("-", "").isalpha() or not head.islower():
        return False
    from .commands import COMMANDS

    return head in COMMANDS


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv == ["-"]:
        if sys.stdin is None or sys.stdin.isatty():
            sys.stderr.write(_usage())
            return 2
        return _round(sys.stdin.read(), "<stdin>")
    head = argv[0]
    if head in ("-h", "--help"):
        sys.stdout.write(_usage())
        return 0
    if head == "--version":
        from ._version import __version__

        print(__version__)
        return 0
    if head == "-e":
        if len(argv) != 2:
            sys.stderr.write("-e takes exactly one argument: the code to run\n" + _usage())
            return 2
        return _round(argv[1], "<string>")
    if _is_command(head):
        from . import commands

        return commands.dispatch(head, argv[1:])
    if head.startswith("-"):
        sys.stderr.write(f"unknown option {head}\n" + _usage())
        return 2
    path = head
    if len(argv) > 1:
        sys.stderr.write(f"unknown command {head!r} (or a script file given arguments)\n" + _usage())
        return 2
    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
    except OSError as exc:
        if not os.path.exists(path) and path.replace("-", "").isalpha():
            sys.stderr.write(f"unknown command {path!r}\n" + _usage())
            return 2
        sys.stderr.write(f"cannot read {path}: {exc.strerror}\n" + _usage())
        return 2
    return _round(source, os.path.abspath(path))


def _round(source: str, filename: str) -> int:
    """Run in the host's warm worker when one answers, else in this process (same runner)."""
    if not os.environ.get("EGO_BROWSER_NO_WORKER"):
        from .round_client import run

        status = run(source, filename)
        if status is not None:
            # the script ran in the worker's child, which wrote straight into our streams: this
            # process has nothing left to tear down, and the interpreter's own finalisation (its
            # modules and heap) cost every round ~3 ms more before the agent saw it end
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(status & 0xFF)  # what sys.exit(status) would leave as the exit status
    from .runner import run_source

    return run_source(source, filename)
