"""A real Selenium Grid 4 for the tests: a hub and two nodes on 127.0.0.1.

Each node drives Debian's chromium through Debian's chromedriver (``scripts/setup_grid.sh``
puts the jar in ``.deps/``). Ports are chosen by binding port 0 and passed to Java; a start
that loses a port to another process (the server exits early) is retried with new ports.
Every Java process runs in its own process group, so stopping a node takes the chromedriver
and Chromium it started along; nothing is signalled but the groups this module started.

Each node runs as if on another machine as far as files go (``Grid.private_files``): in a
mount namespace of its own, with an empty private tmpfs over the temp folder (where the test's
files, the host's home and the node's own temp files live). A file the host hands the node by
path, or a download the host would read from the node's folder by path, is then missing on
the other side, so the Grid tests prove the file transfers go through the Grid, not a shared
disk. Where namespaces are not available the nodes share the disk and those tests skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.procs import process_tree

ROOT = Path(__file__).resolve().parent.parent
GRID_VERSION = "4.48.0"
JAR = ROOT / ".deps" / f"selenium-server-{GRID_VERSION}.jar"
#: small heaps and the client compiler: three JVMs share two cores with the rest of the suite
JAVA_OPTS = ["-Xmx160m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
#: seconds for the whole Grid to report ready (three JVM start-ups on a loaded machine)
START_DEADLINE = 150.0
SESSIONS_PER_NODE = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class GridProcess:
    name: str
    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def descendants(self) -> set[int]:
        """Every live process below this one (chromedriver, Chromium and its helpers)."""
        return process_tree(self.proc.pid) - {self.proc.pid}

    def browser_pids(self) -> list[int]:
        """The main Chromium process of each session this node runs (chromedriver's children)."""
        out = []
        for pid in self.descendants():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    argv = fh.read().split(b"\0")
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b") ", 1)[1].split()[1])
                with open(f"/proc/{ppid}/cmdline", "rb") as fh:
                    parent = fh.read().split(b"\0")[0]
            except (OSError, IndexError, ValueError):
                continue
            if parent.endswith(b"chromedriver") and not any(a.startswith(b"--type=") for a in argv):
                out.append(pid)
        return out

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        # chromedriver and Chromium stay in the group when Java leaves without them
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)

    def tail(self, n: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


@dataclass
class Grid:
    hub: GridProcess
    nodes: list[GridProcess] = field(default_factory=list)
    workdir: str = ""
    #: the nodes' temp folders are their own (a mount namespace each): see the module's doc
    private_files: bool = False
    #: ... and the host's temp folder (its files, the test's files) is hidden from them
    hides_host_temp: bool = False

    @property
    def url(self) -> str:
        return self.hub.url

    def status(self, timeout: float = 5.0) -> dict:
        with urllib.request.urlopen(self.url + "/status", timeout=timeout) as resp:
            return json.loads(resp.read())["value"]

    def sessions(self) -> dict[str, list[str]]:
        """Node URI -> ids of the sessions it runs, asked of each node: the hub's /status
        learns of a deleted session later, through its event bus."""
        out: dict[str, list[str]] = {}
        for node in self.nodes:
            with urllib.request.urlopen(node.url + "/status", timeout=5.0) as resp:
                status = json.loads(resp.read())["value"]["node"]
            out[status["externalUri"].rstrip("/")] = [
                slot["session"]["sessionId"] for slot in status.get("slots", []) if slot.get("session")
            ]
        return out

    def session_alive(self, session_id: str) -> bool:
        """A WebDriver command on the session answers (a deleted one is an error at once)."""
        try:
            with urllib.request.urlopen(f"{self.url}/session/{session_id}/timeouts", timeout=10.0) as resp:
                return resp.status == 200
        except urllib.error.HTTPError:
            return False

    def node_for(self, uri: str) -> GridProcess:
        return next(n for n in self.nodes if n.url == uri.rstrip("/"))

    def stop(self) -> None:
        for p in [*self.nodes, self.hub]:
            p.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _java(args: list[str], log: Path, wrap: list[str] | None = None, java_opts: list[str] | None = None) -> subprocess.Popen:
    fh = open(log, "wb")  # noqa: SIM115 - the child keeps its copy; ours closes at once
    try:
        return subprocess.Popen(
            [*(wrap or []), "java", *JAVA_OPTS, *(java_opts or []), "-jar", str(JAR), *args],
            stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
        )
    finally:
        fh.close()


#: runs in the node's new mount namespace: tmpfs over each folder of $2 (":"-separated), then
#: the node's config ($1, read before it was hidden) written again and its temp folder ($3) made
_PRIVATE_FILES = """set -e
cfg=$(cat "$1"); c=$1; hide=$2; tmp=$3; shift 3
IFS=:; for d in $hide; do mkdir -p "$d"; mount -t tmpfs -o mode=1777 tmpfs "$d"; done; unset IFS
mkdir -p "${c%/*}" "$tmp"; printf '%s\n' "$cfg" > "$c"
exec "$@"
"""


def _unshare(probe_dir: Path) -> list[str] | None:
    """The command that gives a process a mount namespace of its own, if this machine allows it."""
    if shutil.which("unshare") is None:
        return None
    # as root a mount namespace is enough; otherwise a user namespace grants the mount
    cmd = ["unshare", "-m", "--propagation", "private"] if os.geteuid() == 0 else \
        ["unshare", "-c", "-m", "--keep-caps", "--propagation", "private"]
    try:
        probe = subprocess.run([*cmd, "mount", "-t", "tmpfs", "tmpfs", str(probe_dir)], capture_output=True,
                               timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return cmd if probe.returncode == 0 else None


def _hides_host_temp() -> bool:
    # the jar lives in the checkout: a checkout inside the temp folder keeps it visible
    return not ROOT.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())


def _private_files(unshare: list[str] | None, workdir: Path, config: Path, i: int) -> tuple[list[str] | None, list[str]]:
    """(the node's wrapper, its Java options): a private tmpfs over the temp folder, or over
    the node's own temp folder only when the checkout is inside the temp folder."""
    node_tmp = workdir / f"node{i}-tmp"
    if unshare is None:
        return None, []
    hide = [str(Path(tempfile.gettempdir()).resolve())] if _hides_host_temp() else [str(node_tmp)]
    wrap = [*unshare, "sh", "-c", _PRIVATE_FILES, "sh", str(config), ":".join(hide), str(node_tmp)]
    return wrap, [f"-Djava.io.tmpdir={node_tmp}"]


def _node_config(path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
    stereotype = json.dumps({"browserName": "chrome", "goog:chromeOptions": {"binary": chromium}})
    path.write_text(
        "[node]\n"
        "detect-drivers = false\n"
        f"max-sessions = {SESSIONS_PER_NODE}\n"
        "override-max-sessions = true\n"
        "session-timeout = 300\n"
        "enable-managed-downloads = true\n"
        "\n[[node.driver-configuration]]\n"
        'display-name = "chromium"\n'
        f'webdriver-executable = "{shutil.which("chromedriver") or "/usr/bin/chromedriver"}"\n'
        f"max-sessions = {SESSIONS_PER_NODE}\n"
        f"stereotype = '{stereotype}'\n"
    )


def _start_once(workdir: Path, nodes: int) -> Grid:
    hub_port, pub, sub = free_port(), free_port(), free_port()
    bus = ["--publish-events", f"tcp://127.0.0.1:{pub}", "--subscribe-events", f"tcp://127.0.0.1:{sub}"]
    hub_log = workdir / "hub.log"
    grid = Grid(GridProcess("hub", _java(["hub", "--host", "127.0.0.1", "--port", str(hub_port), *bus,
                                          "--session-request-timeout", "60"], hub_log), hub_port, hub_log),
                workdir=str(workdir))
    config = workdir / "node.toml"
    _node_config(config)
    probe_dir = workdir / "probe"
    probe_dir.mkdir()
    unshare = _unshare(probe_dir)
    grid.private_files = unshare is not None
    grid.hides_host_temp = unshare is not None and _hides_host_temp()
    for i in range(nodes):
        port = free_port()
        log = workdir / f"node{i}.log"
        wrap, opts = _private_files(unshare, workdir, config, i)
        proc = _java(["node", "--host", "127.0.0.1", "--port", str(port), *bus, "--config", str(config),
                      "--heartbeat-period", "5"], log, wrap, opts)
        grid.nodes.append(GridProcess(f"node{i}", proc, port, log))
    deadline = time.monotonic() + START_DEADLINE
    try:
        while True:
            for p in [grid.hub, *grid.nodes]:
                if p.proc.poll() is not None:
                    raise _Exited(f"{p.name} exited with status {p.proc.returncode}:\n{p.tail()}")
            with contextlib.suppress(OSError, ValueError, KeyError):
                status = grid.status(timeout=2.0)
                up = [n for n in status.get("nodes", []) if n.get("availability") == "UP"]
                if status.get("ready") and len(up) == nodes:
                    return grid
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the Grid did not report {nodes} nodes ready within {START_DEADLINE:.0f}s:\n"
                    + "\n".join(f"--- {p.name}\n{p.tail()}" for p in [grid.hub, *grid.nodes])
                )
            # a JVM's start-up has no event to wait on from here: poll /status
            time.sleep(0.5)
    except BaseException:
        for p in [*grid.nodes, grid.hub]:
            p.stop()
        raise


class _Exited(RuntimeError):
    """A Grid process ended during start-up (usually a port taken between choice and bind)."""


def start_grid(nodes: int = 2, attempts: int = 3) -> Grid:
    if not JAR.is_file():
        raise RuntimeError(f"{JAR} is missing: run `make setup` (scripts/setup_grid.sh fetches it)")
    if shutil.which("java") is None or shutil.which("chromedriver") is None:
        raise RuntimeError("java or chromedriver is missing: run `make setup` (scripts/setup_grid.sh)")
    last: Exception | None = None
    for _ in range(attempts):
        workdir = Path(tempfile.mkdtemp(prefix="ego-grid-"))
        try:
            return _start_once(workdir, nodes)
        except _Exited as exc:
            last = exc
            shutil.rmtree(workdir, ignore_errors=True)
    raise RuntimeError(f"the Grid did not start in {attempts} attempts: {last}")
