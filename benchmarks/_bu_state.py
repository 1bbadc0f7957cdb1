"""browser-use's DOM state with no model; runs INSIDE benchmarks/.peers/bu-venv.

    bu-venv/bin/python benchmarks/_bu_state.py URL [--repeat N] [--full-page] [--text-out FILE]

Starts a ``BrowserSession`` on /usr/bin/chromium with the flags this machine needs, navigates
to URL, then times ``get_browser_state_summary(include_screenshot=False)`` plus
``dom_state.llm_representation()`` (the indexed text its agent sends to the model) ``repeat``
times. Timing is taken in this process, around exactly those two calls; browser start-up and
navigation are not in it. Prints one JSON line on stdout:
``{"seconds": [...], "chars": N, "bytes": N, "interactive": N, "text": "..." | null}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
import time


# no telemetry, no cloud, no extension downloads (there is no network here)
os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")
os.environ.setdefault("BROWSER_USE_CLOUD_SYNC", "false")
os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "error")
os.environ.setdefault("BROWSER_USE_SETUP_LOGGING", "false")


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--full-page", action="store_true", help="no 1000px viewport threshold")
    ap.add_argument("--text-out", help="write the last state text here instead of into the JSON")
    ap.add_argument("--executable", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--flag", action="append", default=[], help="a Chromium flag (peers.FLAGS passes them all)")
    opts = ap.parse_args()

    logging.disable(logging.WARNING)
    from browser_use import BrowserSession

    profile_dir = tempfile.mkdtemp(prefix="bu-profile-")
    session = BrowserSession(
        executable_path=opts.executable,
        headless=True,
        args=opts.flag,
        user_data_dir=profile_dir,
        enable_default_extensions=False,  # they would be downloaded
        highlight_elements=False,  # visual overlay, not part of the state text
        keep_alive=False,
    )
    if opts.full_page:
        _disable_viewport_threshold()
    samples: list[float] = []
    text = ""
    interactive = 0
    try:
        await session.start()
        await session.navigate_to(opts.url)
        for _ in range(max(1, opts.repeat)):
            t0 = time.perf_counter()
            state = await session.get_browser_state_summary(include_screenshot=False, cached=False)
            text = state.dom_state.llm_representation()
            samples.append(time.perf_counter() - t0)
            interactive = len(state.dom_state.selector_map)
    finally:
        try:
            await session.kill()
        except Exception:
            pass
        shutil.rmtree(profile_dir, ignore_errors=True)
    out = {
        "seconds": samples,
        "chars": len(text),
        "bytes": len(text.encode()),
        "interactive": interactive,
        "text": None,
    }
    if opts.text_out:
        with open(opts.text_out, "w") as fh:
            fh.write(text)
    else:
        out["text"] = text
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


def _disable_viewport_threshold() -> None:
    """browser-use keeps only elements within 1000 px of the viewport; lift that."""
    from browser_use.dom import service

    init = service.DomService.__init__

    def patched(self, *args, **kwargs):
        kwargs["viewport_threshold"] = None
        init(self, *args, **kwargs)

    service.DomService.__init__ = patched


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
