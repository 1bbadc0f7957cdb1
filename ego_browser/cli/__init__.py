"""``ego-browser``: run a round (stdin, ``-e CODE`` or a file) or a subcommand."""

from __future__ import annotations

import os
import sys

__all__ = ["main"]

ROUND_USAGE = """\
usage: ego-browser [--verbose] [--json] [-e CODE | FILE | -]   run one round (default: the script on stdin;
                                                    --json: its outcome as one JSON object;
                                                    --verbose: debug log lines on stderr)
       ego-browser COMMAND [--help]     a sub-command:
"""


def _usage() -> str:
    from .commands import usage_lines

    return ROUND_USAGE + "".join(f"  {line}\n" for line in usage_lines()) + (
        "Every sub-command takes --help. Rounds: ego-browser skill prints the usage guide.\n"
    )


def _is_command(head: str) -> bool:
    """Sub-command names are lower-case words; anything else is a script path (no import needed)."""
    if not head.replace("-", "").isalpha() or not head.islower():
        return False
    from .commands import COMMANDS

    return head in COMMANDS


def main(argv: list[str] | None = None, *, reporting: bool = False) -> int:
    """``reporting``: called by ``--json`` for the round itself, which must return here (its
    report is still to be printed) rather than end the process the fast way."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--verbose"]:
        # debug log lines on stderr for this command or round (the worker's child gets the env)
        os.environ["EGO_BROWSER_LOG"] = "debug"
        argv = argv[1:]
    if os.environ.get("EGO_BROWSER_LOG"):
        from ..errors import EgoError
        from ..logsetup import to_stderr

        try:
            to_stderr()
        except EgoError as exc:
            sys.stderr.write(f"{exc.code}: {exc.message}\n")
            return 2
    if argv[:1] == ["--json"]:
        # the round's outcome as one JSON object (its output, error, calls and receipts, duration)
        rest = argv[1:]
        if rest and _is_command(rest[0]):
            sys.stderr.write("--json before a round; sub-commands take their own --json\n" + _usage())
            return 2
        from ..round.report import run_json

        return run_json(lambda: main(rest, reporting=True))
    if not argv or argv == ["-"]:
        if sys.stdin is None or sys.stdin.isatty():
            sys.stderr.write(_usage())
            return 2
        return _round(sys.stdin.read(), "<stdin>", reporting)
    head = argv[0]
    if head in ("-h", "--help"):
        sys.stdout.write(_usage())
        return 0
    if head == "--version":
        from .._version import __version__

        print(__version__)
        return 0
    if head == "-e":
        if len(argv) != 2:
            sys.stderr.write("-e takes exactly one argument: the code to run\n" + _usage())
            return 2
        return _round(argv[1], "<string>", reporting)
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
    return _round(source, os.path.abspath(path), reporting)


def _round(source: str, filename: str, reporting: bool = False) -> int:
    """Run in the host's warm worker when one answers, else in this process (same runner)."""
    if not os.environ.get("EGO_BROWSER_NO_WORKER"):
        from .round_client import run

        status = run(source, filename)
        if status is not None and reporting:
            return status
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
    from ..round.runner import run_source

    return run_source(source, filename)
