"""The package's walls (issue 35): which package may import which.

Each rule names a layer (a package, by dotted prefix) and the packages it must not import,
counting imports inside functions and under ``if TYPE_CHECKING:`` (a type-only import is
still a lower layer knowing a higher one), except where a rule says "at run time".
``docs/architecture.md`` ("The map") draws the same layers.

The round's path is checked by running it: ``python -m ego_browser`` with a script, in a
process of its own, must not load ``ego_browser.host``, nor must the warm worker's preload.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from .test_import_cycles import import_graph

REPO = Path(__file__).resolve().parent.parent.parent

#: (layer, what it must not import, why); prefixes match a package and everything under it
FORBIDDEN: list[tuple[str, tuple[str, ...], str]] = [
    ("ego_browser.cdp", ("ego_browser.driver", "ego_browser.host", "ego_browser.client", "ego_browser.wire",
                         "ego_browser.round", "ego_browser.cli", "ego_browser.snapshot", "ego_browser.selectors"),
     "the CDP transport is the bottom layer"),
    ("ego_browser.driver", ("ego_browser.host", "ego_browser.client", "ego_browser.wire", "ego_browser.round",
                            "ego_browser.cli"),
     "the page driver is below the host; what it needs of the host comes through driver/sites.py"),
    ("ego_browser.client", ("ego_browser.host", "ego_browser.round", "ego_browser.cli", "ego_browser.driver"),
     "a round's objects talk to the host only over the wire (ego_browser.wire)"),
    ("ego_browser.round", ("ego_browser.host", "ego_browser.cli"),
     "a round runs scripts against the client; the host is another process"),
    ("ego_browser.host", ("ego_browser.round", "ego_browser.cli"),
     "the host starts the warm worker as a process (host/core/worker_supervisor.py), it never imports it"),
    ("ego_browser.host.features", ("ego_browser.host.ops", "ego_browser.host.spaces", "ego_browser.host.embedded",
                                   "ego_browser.host.core.server", "ego_browser.host.core.features",
                                   "ego_browser.host.core.dispatch"),
     "a feature is per-host state below the operations and the spaces; it takes a Protocol of the Host"),
    ("ego_browser.host.spaces", ("ego_browser.host.ops", "ego_browser.host.embedded", "ego_browser.host.core.server",
                                 "ego_browser.host.core.features", "ego_browser.host.core.dispatch"),
     "the space domain is below the operations; it takes a Protocol of the Host"),
    ("ego_browser.host.core", ("ego_browser.host.ops", "ego_browser.host.embedded"),
     "the core loads the operation modules by name (dispatch.OP_MODULES), never by import"),
]

#: the wire imports nothing of ours but these (and itself)
WIRE_MAY_IMPORT = ("ego_browser.wire", "ego_browser.errors", "ego_browser.errors_base", "ego_browser.errors_learned",
                   "ego_browser.config", "ego_browser.jsonsafe")

#: imports only a type checker follows, allowed where a run-time import is not: (importer, imported)
TYPE_ONLY: set[tuple[str, str]] = set()
#: run-time imports forbidden, type-only allowed: a feature may name the Host in its annotations
RUN_TIME_ONLY = [("ego_browser.host.features", "ego_browser.host.core.host"),
                 ("ego_browser.host.spaces", "ego_browser.host.core.host")]

#: who may import the host package at all
HOST_IMPORTERS = ("ego_browser.host", "ego_browser.cli", "ego_browser.dashboard")


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(graph: dict[str, set[str]], runtime: dict[str, set[str]]) -> list[str]:
    found = []
    for mod, targets in graph.items():
        for target in targets:
            if target == "ego_browser" or _under(mod, target):
                continue
            for layer, banned, why in FORBIDDEN:
                if _under(mod, layer) and any(_under(target, b) for b in banned):
                    found.append(f"{mod} imports {target}: {why}")
            for layer, banned_rt in RUN_TIME_ONLY:
                if _under(mod, layer) and _under(target, banned_rt) and target in runtime.get(mod, set()):
                    found.append(f"{mod} imports {target} at run time (only a type checker may)")
            if _under(mod, "ego_browser.wire") and not any(_under(target, ok) for ok in WIRE_MAY_IMPORT):
                found.append(f"{mod} imports {target}: the wire imports nothing of ours but {WIRE_MAY_IMPORT}")
            if _under(target, "ego_browser.host") and not any(_under(mod, ok) for ok in HOST_IMPORTERS) and (
                    mod != "ego_browser" or target in runtime.get(mod, set())):
                # the package's __init__ names ``embedded`` for the type checker only (its lazy table)
                found.append(f"{mod} imports {target}: only the CLI and the dashboard start or reach a host")
    return sorted(set(found))


def test_the_layers_hold() -> None:
    found = violations(import_graph(type_checking=True), import_graph())
    assert not found, "layer rules broken:\n" + "\n".join(found)


@pytest.mark.parametrize("importer, imported", [
    ("ego_browser.client.channel", "ego_browser.host.core.dispatch"),
    ("ego_browser.wire.protocol", "ego_browser.client.channel"),
    ("ego_browser.driver.act", "ego_browser.host.core.page_site"),
    ("ego_browser.host.features.downloads", "ego_browser.host.ops.download_ops"),
    ("ego_browser.host.spaces.tabs", "ego_browser.host.ops.spaces"),
    ("ego_browser.round.runner", "ego_browser.host.core.host"),
    ("ego_browser.host.core.server", "ego_browser.round.worker"),
    ("ego_browser.selectors.engine", "ego_browser.host.core.store"),
])
def test_the_rules_see_a_violation(importer: str, imported: str) -> None:
    graph = {importer: {imported}}
    assert violations(graph, graph), f"{importer} -> {imported} passed the rules"


def test_a_feature_may_name_the_host_for_the_type_checker_only() -> None:
    edge = {"ego_browser.host.features.consent": {"ego_browser.host.core.host"}}
    assert not violations(edge, {})
    assert violations(edge, edge)


def _run(code: str, *args: str) -> str:
    env = dict(os.environ, EGO_BROWSER_NO_WORKER="1", EGO_BROWSER_HOME=tempfile.mkdtemp(prefix="ego-layers-"))
    proc = subprocess.run([sys.executable, *args, code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


PROBE = "import sys; print(sorted(m for m in sys.modules if m == 'ego_browser.host' or m.startswith('ego_browser.host.')))"


def test_a_round_does_not_load_the_host_package() -> None:
    # the in-process round: the runner, the client, the schema; the script sees what the round loaded
    assert _run(PROBE, "-m", "ego_browser", "-e") == "[]"


def test_the_warm_workers_preload_does_not_load_the_host_package() -> None:
    code = textwrap.dedent("""\
        import ego_browser.cli, ego_browser.cli.round_client
        from ego_browser.round.worker import _preload
        _preload()
        """) + PROBE
    assert _run(code, "-c") == "[]"


def test_the_probe_sees_the_host_package() -> None:
    assert "ego_browser.host.core.host" in _run("import ego_browser.host.core.host\n" + PROBE, "-c")


def test_client_modules_name_no_host_module() -> None:
    """The AST check, without the graph: no ``host`` import in any client/ file, at any depth."""
    offenders = [
        f"{p.relative_to(REPO)}: {name}"
        for mod, names in import_graph(type_checking=True).items() if _under(mod, "ego_browser.client")
        for p in [REPO / (mod.replace(".", "/") + ".py")]
        for name in names if _under(name, "ego_browser.host")
    ]
    assert not offenders, offenders
