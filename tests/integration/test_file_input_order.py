"""File input is input: it runs in call order with the page's other actions (issue 35, point 3).

A click waiting for its element holds the page's input lock; a ``set_input_files`` (or a
chooser's ``set_files``) issued meanwhile waits for it, so the page sees the click first and
the files after it, as the agent issued them. Before, file input took no lock and set the
files while the click was still in progress.
"""

from __future__ import annotations

import asyncio
import threading

from tests.server import Response

#: a button appears only when the test releases the held request; the page logs, in order,
#: the click on it and every change of the file input
PAGE = """<input type=file id=f onchange="window.log.push('files')">
<script>
window.log = [];
fetch('{release}').then(() => {{
  const b = document.createElement('button');
  b.id = 'late'; b.textContent = 'Late';
  b.style.cssText = 'width:120px;height:40px';
  b.onclick = () => window.log.push('click');
  document.body.appendChild(b);
}});
</script>"""

CHOOSER = PAGE.replace("<input type=file id=f", "<button id=open style='width:120px;height:40px' "
                       "onclick=\"document.getElementById('f').click()\">open</button><input type=file id=f")


def _held(server, path: str) -> threading.Event:
    release = threading.Event()

    def hold(_req):
        release.wait(60)
        return Response("ok", content_type="text/plain")

    server.route(path, hold)
    return release


async def _until(predicate, what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.01)  # polls host state the test cannot await


async def _file_input_behind_a_click(host, page, server, release, set_files) -> list[str]:
    """Start a click that holds the input lock, then ``set_files()``; the page's log once both
    ended. The click's element appears only once the file input has either run or queued."""
    driver = host.drivers[page.target_id]
    queued = driver.stats["input_queued"]
    try:
        click = asyncio.ensure_future(page.click("#late", timeout=30000))
        await _until(driver.input_lock.locked, "the click started")
        files = asyncio.ensure_future(set_files())
        await _until(lambda: files.done() or driver.stats["input_queued"] > queued,
                     "the file input ran or waited for the click")
    finally:
        release.set()
    await click
    receipt = await files
    assert receipt.dialog is None
    return await page.evaluate("window.log")


async def test_set_input_files_waits_for_a_click_in_progress(task, host, server, tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("A")
    release = _held(server, "/fo-release")
    page = task.page("p1")
    await page.goto(server.page("/fo", PAGE.format(release="/fo-release")))
    log = await _file_input_behind_a_click(host, page, server, release,
                                           lambda: page.set_input_files("#f", str(a)))
    assert log == ["click", "files"]
    assert await page.evaluate("Array.from(document.getElementById('f').files).map(f => f.name)") == ["a.txt"]


async def test_chooser_set_files_waits_for_a_click_in_progress(task, host, server, tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("A")
    release = _held(server, "/foc-release")
    page = task.page("p1")
    await page.goto(server.page("/foc", CHOOSER.format(release="/foc-release")))
    waiter = page.wait_for_file_chooser()
    await page.click("#open")
    chooser = await waiter
    log = await _file_input_behind_a_click(host, page, server, release, lambda: chooser.set_files(str(a)))
    assert log == ["click", "files"]
