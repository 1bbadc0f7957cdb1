"""``ego-browser``: run a round (stdin, ``-e CODE`` or a file) or a subcommand."""

from __future__ import annotations

import os
import sys

#: typing's flag without importing typing (a round's start-up cost); mypy knows the name
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

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
    entry = argv is None  # this process's own command line: the round may end the process
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
        return _round(sys.stdin.read(), "<stdin>", reporting, entry)
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
        return _round(argv[1], "<string>", reporting, entry)
    if argv[:3] == ["host", "serve", "--ready-fd"] and len(argv) == 4 and argv[3].isdigit():
        # the host a round starts: straight to its lock and Chromium (host_start.spawn's argv)
        from ..host.core import serve_entry

        return serve_entry.main(int(argv[3]))
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
    return _round(source, os.path.abspath(path), reporting, entry)


#: ``ast.PyCF_ALLOW_TOP_LEVEL_AWAIT`` (importing ``ast`` costs a cold round ~20 ms)
_TOP_LEVEL_AWAIT = 0x2000
#: names a round finds preloaded that do not reach the browser
_NOT_BROWSER = frozenset({"asyncio", "json", "re", "help", "EgoError"})


def _uses_browser(source: str, filename: str) -> bool:
    """Whether the script names anything of the round's API (``task_space``, ``tools``, the
    ``ego_browser`` module ...), read off its compiled code: a script that does not compile, or
    uses none of it, starts no host."""
    from .._exports import RUNNER_GLOBALS

    try:
        code = compile(source, filename, "exec", flags=_TOP_LEVEL_AWAIT, dont_inherit=True)
    except Exception:  # noqa: BLE001 - SyntaxError, ValueError, RecursionError (too deep): the runner reports it
        return False
    wanted = set(RUNNER_GLOBALS) - _NOT_BROWSER
    stack = [code]
    while stack:
        co = stack.pop()
        if wanted.intersection(co.co_names):
            return True
        stack.extend(c for c in co.co_consts if hasattr(c, "co_names"))
    return False


def _round(source: str, filename: str, reporting: bool = False, entry: bool = False) -> int:
    """Run in the host's warm worker when one answers, else in this process (same runner).
    ``entry``: the round is this process's command (not ``main([...])`` called in-process):
    the process ends as soon as the round has."""
    if not os.environ.get("EGO_BROWSER_NO_WORKER"):
        from .round_client import run

        status = run(source, filename)
        if status is not None and reporting:
            return status
        if status is not None:
            # the script ran in the worker's child, which wrote straight into our streams: this
            # process has nothing left to tear down, and the interpreter's own finalisation (its
            # modules and heap) cost every round ~3 ms more before the agent saw it end
            _fast_exit(status)
    if _uses_browser(source, filename):
        # no worker answered (usually: no host runs): start the host now, so that Chromium boots
        # while this round imports the client; its first call waits for this start
        from ..client import host_start

        host_start.prestart()
    from ..round.runner import run_source

    status = run_source(source, filename)
    if reporting or not entry:
        return status
    _fast_exit(status)


def _fast_exit(status: int) -> NoReturn:
    """End the round's process as the warm worker's child ends (``round/spare.py``): exit
    handlers run and the streams are flushed, then the interpreter's own finalisation (every
    module and the heap: ~50 ms of a cold round, whose process imported the whole client) is
    skipped."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status & 0xFF)  # what sys.exit(status) would leave as the exit status
