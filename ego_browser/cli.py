"""``python -m ego_browser``: run a round (stdin, ``-e CODE`` or a file) or a subcommand."""

from __future__ import annotations

import os
import sys

__all__ = ["main"]

USAGE = """\
usage: python -m ego_browser [-e CODE | FILE | -]      run one round (default: the script on stdin)
       python -m ego_browser skill                    print the agent usage guide
       python -m ego_browser help [NAME]              API help
       python -m ego_browser spaces [take-over ID | give-back ID | new NAME]
       python -m ego_browser profiles [list | new NAME | rm ID | import --from BROWSER[:PROFILE] | --from-dir DIR]
       python -m ego_browser host start|stop|status
       python -m ego_browser doctor
       python -m ego_browser install-skill
       python -m ego_browser validate-skills [ROOT]
"""

SUBCOMMANDS = ("skill", "help", "spaces", "profiles", "host", "doctor", "install-skill", "validate-skills")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv == ["-"]:
        if sys.stdin is None or sys.stdin.isatty():
            sys.stderr.write(USAGE)
            return 2
        return _round(sys.stdin.read(), "<stdin>")
    head = argv[0]
    if head in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if head == "--version":
        from ._version import __version__

        print(__version__)
        return 0
    if head == "-e":
        if len(argv) != 2:
            sys.stderr.write("-e takes exactly one argument: the code to run\n" + USAGE)
            return 2
        return _round(argv[1], "<string>")
    if head in SUBCOMMANDS:
        from . import commands

        return commands.dispatch(head, argv[1:])
    if head.startswith("-"):
        sys.stderr.write(f"unknown option {head}\n" + USAGE)
        return 2
    path = head
    if len(argv) > 1:
        sys.stderr.write("a script file takes no further arguments\n" + USAGE)
        return 2
    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
    except OSError as exc:
        sys.stderr.write(f"cannot read {path}: {exc.strerror}\n" + USAGE)
        return 2
    return _round(source, os.path.abspath(path))


def _round(source: str, filename: str) -> int:
    """Run in the host's warm worker when one answers, else in this process (same runner)."""
    if not os.environ.get("EGO_BROWSER_NO_WORKER"):
        from .round_client import run

        status = run(source, filename)
        if status is not None:
            return status
    from .runner import run_source

    return run_source(source, filename)
