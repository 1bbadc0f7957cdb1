"""Downloads (BEHAVIOURS.md B142–B145, B149)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from pathlib import Path

import pytest

from ego_browser import InvalidArgument, InvalidState

from tests.nav_helpers import click
from tests.server import Response

BODY = b"id,name\n1,alpha\n2,beta\n" + bytes(range(256))


def attachment(server, path: str, name: str, body: bytes = BODY, delay: float = 0.0) -> str:
    return server.route(path, Response(body, content_type="application/octet-stream", delay=delay,
                                       headers={"Content-Disposition": f'attachment; filename="{name}"'}))


def link(href: str) -> str:
    return f"<a id=d href='{href}' style='display:block;width:200px;height:40px'>download</a>"


async def test_b142_download_flow(host, task, server, tmp_path):
    attachment(server, "/b142/report", "report.csv")
    page = task.page("p1")
    await page.goto(server.page("/b142", link("/b142/report")))
    waiter = page.wait_for_event("download", timeout=10000)
    await click(host, page, "#d")
    dl = await waiter
    assert dl.page() is page
    assert "/b142/report" in dl.url()
    assert dl.suggested_filename() == "report.csv"
    assert await dl.failure() is None
    target = tmp_path / "new" / "dir" / "saved.csv"
    await dl.save_as(str(target))
    assert target.read_bytes() == BODY
    temp = await dl.path()
    assert temp != str(target) and os.path.basename(os.path.dirname(temp)).startswith("ego-browser-download-")
    assert Path(temp).read_bytes() == BODY
    await dl.delete()
    assert not os.path.exists(temp) and not os.path.exists(os.path.dirname(temp))
    assert target.exists()  # the saved copy stays


async def test_b143_two_spaces_never_mix(host, task, server, space_name):
    import ego_browser

    other = await ego_browser.task_space(space_name + "-b")
    try:
        attachment(server, "/b143/a", "a.bin", b"A" * 1000, delay=0.2)
        attachment(server, "/b143/b", "b.bin", b"B" * 2000, delay=0.2)
        pa, pb = task.page("p1"), other.page("p1")
        await pa.goto(server.page("/b143-a", link("/b143/a")))
        await pb.goto(server.page("/b143-b", link("/b143/b")))
        wb = pb.wait_for_event("download")
        wa = pa.wait_for_event("download")
        await click(host, pa, "#d")
        da = await wa
        assert da.suggested_filename() == "a.bin" and da.url().endswith("/b143/a")
        path_a = await da.path()
        assert not wb.done()  # B's waiter stays armed while A finishes
        await click(host, pb, "#d")
        db = await wb
        assert db.suggested_filename() == "b.bin" and db.url().endswith("/b143/b")
        path_b = await db.path()
        assert os.path.dirname(path_a) != os.path.dirname(path_b)
        assert Path(path_a).read_bytes() == b"A" * 1000 and Path(path_b).read_bytes() == b"B" * 2000
        await da.delete()
        assert not os.path.exists(path_a) and os.path.exists(path_b)
        await db.delete()
    finally:
        await other.finish(keep=[])


async def test_b149_download_invalid_use(host, task, server):
    attachment(server, "/b149/file", "f.txt")
    page = task.page("p1")
    await page.goto(server.page("/b149", link("/b149/file")))
    waiter = page.wait_for_event("download")
    with pytest.raises(InvalidState):
        page.wait_for_event("download")
    await click(host, page, "#d")
    dl = await waiter
    with pytest.raises(InvalidArgument, match="download.save_as requires an absolute file path"):
        await dl.save_as("rel.txt")
    await dl.delete()


async def test_download_waiter_timeout_and_no_waiter(host, task, server):
    attachment(server, "/dl-none/file", "none.txt")
    page = task.page("p1")
    await page.goto(server.page("/dl-none", link("/dl-none/file")))
    waiter = page.wait_for_event("download", timeout=200)
    with pytest.raises(ego_timeout(), match=r'page.wait_for_event\("download"\) timed out after 200ms'):
        await waiter
    await click(host, page, "#d")  # no waiter: the file is dropped when it finishes
    downloads_dir = host.run_dir / "downloads"
    for _ in range(100):
        if not any(downloads_dir.iterdir()):
            break
        await asyncio.sleep(0.02)
    assert not list(downloads_dir.iterdir())


def ego_timeout():
    from ego_browser import EgoTimeout

    return EgoTimeout


async def test_b145_downloads_across_rounds(rounds, server, tmp_path):
    attachment(server, "/b145/file", "round.txt")
    url = server.page("/b145", link("/b145/file") + "<script>window.state = 41</script>")
    script = (
        "task = await task_space('downloads-rounds')\n"
        "page = task.page('p1')\n"
        "{nav}"
        "w = page.wait_for_event('download')\n"
        "await page.evaluate(\"document.getElementById('d').click(); 1\")\n"
        "d = await w\n"
        "await d.save_as({target!r})\n"
        "print(page.target_id or (await task.tabs())[0]['target_id'], d.suggested_filename())\n"
        "print(await page.evaluate('window.state'))\n"
    )
    first = rounds.run(script.format(nav=f"await page.goto({url!r})\n", target=str(tmp_path / "one.txt")))
    assert first.returncode == 0, first.stderr
    second = rounds.run(script.format(nav="", target=str(tmp_path / "two.txt")))
    assert second.returncode == 0, second.stderr
    assert first.stdout.split()[0] == second.stdout.split()[0]  # same tab
    assert second.stdout.split()[1:] == ["round.txt", "41"]
    assert (tmp_path / "one.txt").read_bytes() == BODY and (tmp_path / "two.txt").read_bytes() == BODY
    assert hashlib.sha256((tmp_path / "two.txt").read_bytes()).hexdigest() == hashlib.sha256(BODY).hexdigest()


PDF = (b"%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj "
       b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF")


async def test_b144_inline_pdf_in_new_tab_is_a_page(host, task, server, tmp_path):
    """B144: an inline PDF opened with target=_blank is a popup Page, not a download; the
    viewer's snapshot shows the page count, and its own Download button (through ``loc=css:``)
    gives a Download whose page() is the viewer Page, with the exact bytes of the PDF."""
    server.route("/b144/doc.pdf", Response(PDF, content_type="application/pdf"))
    page = task.page("p1")
    await page.goto(server.page("/b144", "<a id=l target=_blank href='/b144/doc.pdf'"
                                " style='display:block;width:100px;height:30px'>pdf</a>"))
    waiter = page.wait_for_event("download", timeout=1500)
    receipt = await page.click("#l")
    assert len(receipt.popups) == 1
    viewer = task.page(receipt.popups[0]["label"])
    await viewer.wait_for_url("**/b144/doc.pdf")
    with pytest.raises(ego_timeout()):
        await waiter
    assert await viewer.url() == server.url("/b144/doc.pdf")
    # the viewer (an extension frame behind the PDF document) appears under the page's root
    # (the toolbar shows once the document has loaded: a progressbar until then)
    await viewer.wait_for_selector("#pageSelector", state="visible", timeout=10000)
    snap = await viewer.snapshot(scope="full_page")
    lines = [line.strip() for line in snap.splitlines()]
    assert lines[1] == "root" and lines[2].startswith("iframe [ref=")
    assert any(line.startswith('textbox "Page number"') for line in lines)
    # the page number box shows its value; the page count (one page) follows it, one inline text run
    number = next(i for i, line in enumerate(lines) if line.startswith('textbox "Page number"'))
    assert lines[number].endswith(": 1") and lines[number + 1] == '"/ 1"', lines[number:number + 2]
    # the viewer's own Download button saves the document through a Download
    download = viewer.wait_for_event("download", timeout=10000)
    await viewer.click('loc=css:cr-icon-button[aria-label="Download"]')
    dl = await download
    assert dl.page() is viewer
    target = tmp_path / "saved" / "doc.pdf"
    await dl.save_as(str(target))
    data = target.read_bytes()
    assert len(data) == len(PDF) and hashlib.sha256(data).hexdigest() == hashlib.sha256(PDF).hexdigest()
    assert await viewer.url() == server.url("/b144/doc.pdf"), "the source URL is unchanged"


async def test_a_canceled_download_fails_with_its_documented_code(host, task, server, tmp_path):
    """path()/save_as() of a download that did not finish raise DownloadFailed with its reason
    (they raised a host error: the error was built with a field it does not have)."""
    from ego_browser import DownloadFailed

    gate = threading.Event()
    server.route("/dl-cancel/file", Response(b"h" * 4096, content_type="application/octet-stream", chunks=[(gate, b"tail")],
                                             headers={"Content-Disposition": 'attachment; filename="slow.bin"'}))
    page = task.page("p1")
    await page.goto(server.page("/dl-cancel", link("/dl-cancel/file")))
    waiter = page.wait_for_event("download", timeout=10000)
    await click(host, page, "#d")
    dl = await waiter
    try:
        await dl.cancel()
        with pytest.raises(DownloadFailed) as err:
            await dl.save_as(str(tmp_path / "slow.bin"))
        assert err.value.reason == "canceled" and "/dl-cancel/file" in str(err.value)
        assert await dl.failure() == "canceled"
    finally:
        gate.set()
