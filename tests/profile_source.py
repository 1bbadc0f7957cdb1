"""Build a real Chromium profile for the import tests: a served page logs the user in (a
cookie), stores localStorage, and the profile holds a bookmark and a granted permission.

Chromium has no CDP command that saves a bookmark or a persistent permission (CDP's
permission overrides live only in memory), so those two are written the way the browser's UI
would leave them -- in ``Bookmarks`` and ``Preferences`` -- before the launch; Chromium loads
them and writes both files back itself when it closes, which the fixture checks.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from pathlib import Path

from ego_browser.browser.launcher import launch_chromium
from ego_browser.cdp import Connection
from tests.server import Response, TestServer

BOOKMARK_URL = "https://bookmarked.example/reading-list"


def serve_login(server: TestServer) -> None:
    """``/login?user=NAME`` sets the session cookie; ``/whoami`` says who the cookie is."""

    def login(req):
        user = (req.query.partition("user=")[2] or "alice").split("&")[0]
        return Response(f"<title>logged in</title><p>hi {user}</p><script>localStorage.setItem('note', 'kept by "
                        f"{user}')</script>", headers={"Set-Cookie": f"session={user}; Path=/; Max-Age=86400; HttpOnly"})

    def whoami(req):
        cookie = req.headers.get("cookie", "")
        user = next((p.split("=", 1)[1] for p in cookie.split("; ") if p.startswith("session=")), None)
        text = f"logged in as {user}" if user else "logged out"
        return Response(f"<title>{text}</title><p id=who>{text}</p>")

    server.route("/login", login)
    server.route("/whoami", whoami)


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` with the SHA-256 of its bytes (symlinks by their target, FIFOs
    and other special files by their kind: reading a FIFO would block)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = "-> " + os.readlink(path)
            elif not path.is_file():
                out[rel] = "special " + oct(path.lstat().st_mode)
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


async def build_source_profile(user_data: Path, server: TestServer, user: str = "alice") -> None:
    origin = server.url("/").rstrip("/")
    profile = user_data / "Default"
    profile.mkdir(parents=True)
    (profile / "Bookmarks").write_text(json.dumps({"version": 1, "roots": {
        "bookmark_bar": {"type": "folder", "name": "Bookmarks bar", "id": "1", "children": [
            {"type": "url", "name": "Reading list", "url": BOOKMARK_URL, "id": "4"}]},
        "other": {"type": "folder", "name": "Other bookmarks", "id": "2", "children": []},
        "synced": {"type": "folder", "name": "Mobile bookmarks", "id": "3", "children": []},
    }}))
    (profile / "Preferences").write_text(json.dumps({"profile": {"content_settings": {"exceptions": {
        "geolocation": {f"{origin},*": {"setting": 1, "last_modified": "13300000000000000"}}}}}}))
    proc = launch_chromium(user_data, timeout=90)  # a loaded CI machine starts Chromium slowly
    try:
        conn = await Connection.connect(proc.ws_url)
        target = (await conn.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        sid = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        loaded = asyncio.get_running_loop().create_future()
        conn.on("Page.loadEventFired", lambda *_: loaded.done() or loaded.set_result(None), session_id=sid)
        await conn.send("Page.enable", session_id=sid)
        await conn.send("Page.navigate", {"url": server.url(f"/login?user={user}")}, session_id=sid)
        await asyncio.wait_for(loaded, 30)
        await conn.send("Browser.close")  # a clean exit writes cookies, prefs and bookmarks out
        await asyncio.to_thread(proc.proc.wait, 30)  # type: ignore[union-attr]
    finally:
        proc.terminate()
    prefs = json.loads((profile / "Preferences").read_text())
    assert f"{origin},*" in prefs["profile"]["content_settings"]["exceptions"]["geolocation"], "Chromium dropped the permission"
    assert BOOKMARK_URL in (profile / "Bookmarks").read_text(), "Chromium dropped the bookmark"
