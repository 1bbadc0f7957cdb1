"""An imported profile's own Chromium, launched on the profile's directory.

Bookmarks, history, saved logins and extensions load only from a browser's own profile
directory (``browser_profiles/chromium_dir.py``), so a space on an imported profile runs in a
Chromium of its own beside the host's browser: this provider launches it (keeper and pipe,
as the local provider does), the host's ``BrowserLink.open_extra`` adds it to the routed
connection, and ``host/features/profile_contexts.py`` stops it when the profile's last space finishes and
when the host stops. It is never reattached by a later host: it dies with the host (the
launch runs on the host's own launcher thread, which lives until the host stops, so the
kernel's parent-death signal fires when that thread or the process ends, and never with a
short-lived worker thread) and the next host reopens the spaces' pages in a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..browser_profiles import chromium_dir
from ..browser_profiles.store import Profile
from ..cdp import Connection
from ..cdp.pipe import UNIX_PREFIX, connect_unix
from .launcher import launch_chromium
from .providers import OpenedBrowser, Provider

__all__ = ["ProfileProvider"]

class ProfileProvider(Provider):
    kind = "profile"

    def __init__(self, profile: Profile, run_dir: Path, launcher: ThreadPoolExecutor) -> None:
        self.profile = profile
        self.run_dir = run_dir
        #: one thread of the host's, alive until the host stops (see the module's doc)
        self.launcher = launcher

    async def open(self) -> OpenedBrowser:
        user_data = await asyncio.to_thread(chromium_dir.prepare, self.profile)
        pid_tag = self.profile["id"][:24]
        # a short name: a Unix socket's path has a 107-byte limit
        socket_path = self.run_dir / f"p-{pid_tag}.sock"
        launch = functools.partial(
            launch_chromium, user_data, extra_args=chromium_dir.launch_args(self.profile),
            log_path=self.run_dir / f"chromium-{pid_tag}.log", die_with_parent=True, socket_path=socket_path,
        )
        process = await asyncio.get_running_loop().run_in_executor(self.launcher, launch)
        try:
            stream = await connect_unix(process.ws_url[len(UNIX_PREFIX):], timeout=10.0)
        except BaseException:
            await asyncio.to_thread(process.terminate)
            raise
        conn = Connection(stream, process.ws_url)
        instance = str(stream.hello.get("instance") or process.instance)
        return OpenedBrowser(conn=conn, kind=self.kind, endpoint=process.ws_url, instance=instance, owned=True,
                             where=f"profile {self.profile['id']}", process=process)

    async def release(self, browser: OpenedBrowser, *, kill: bool) -> None:
        # never reattached (see the module's doc): it always goes with its last space
        with contextlib.suppress(Exception):
            await browser.conn.close()
        if browser.process is not None:
            await asyncio.to_thread(browser.process.terminate)
