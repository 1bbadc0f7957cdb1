"""File inputs and file choosers (BEHAVIOURS.md B138–B141, B149)."""

from __future__ import annotations

import pytest

from ego_browser import FileChooserOpened, InvalidArgument, InvalidState, SelectorAmbiguous

from tests.nav_helpers import click

INPUTS = """
<input type=file id=multi multiple><label for=multi id=lab>files</label>
<input type=file id=single>
<div id=wrap><span>one inside</span><input type=file id=inner></div>
<div id=two><input type=file><input type=file></div>
<div id=host></div>
<script>
  const fileNames = (el) => Array.from(el.files).map(f => f.name);
  const outer = document.getElementById('host').attachShadow({mode: 'open'});
  outer.innerHTML = '<div id=mid></div>';
  const inner = outer.getElementById('mid').attachShadow({mode: 'open'});
  inner.innerHTML = '<input type=file id=deep>';
  window.deepNames = () => fileNames(inner.getElementById('deep'));
  window.names = (id) => fileNames(document.getElementById(id));
</script>
"""

CHOOSER = """
<input type=file id=f multiple style='width:200px;height:40px'
  onchange="window.names = Array.from(this.files).map(f => f.name); window.answer = confirm('Upload ' + this.files.length + '?')">
<button id=open style='width:200px;height:40px' onclick="document.getElementById('f').click()">open</button>
"""


@pytest.fixture
def files(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("A")
    b.write_text("BB")
    return str(a), str(b)


async def test_b138_set_input_files(task, server, files):
    a, b = files
    page = task.page("p1")
    await page.goto(server.page("/b138", INPUTS))
    receipt = await page.set_input_files("#multi", [a, b])
    assert receipt.dialog is None and receipt.popups == []
    assert await page.evaluate("names('multi')") == ["a.txt", "b.txt"]
    await page.set_input_files("label[for=multi]", a)
    assert await page.evaluate("names('multi')") == ["a.txt"]
    await page.set_input_files("#wrap", b)
    assert await page.evaluate("names('inner')") == ["b.txt"]
    await page.set_input_files("#host", a)
    assert await page.evaluate("deepNames()") == ["a.txt"]
    with pytest.raises(SelectorAmbiguous, match="multiple file inputs"):
        await page.set_input_files("#two", a)
    with pytest.raises(InvalidArgument, match="takes one"):
        await page.set_input_files("#single", [a, b])
    with pytest.raises(InvalidArgument, match="not found"):
        await page.set_input_files("#single", a + ".missing")


async def test_b139_unarmed_chooser_raises(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/b139", CHOOSER))
    with pytest.raises(FileChooserOpened) as info:
        await click(host, page, "#f")
    assert info.value.code == "EGO_FILE_CHOOSER_OPENED"
    assert "page.wait_for_file_chooser" in str(info.value) and "page.set_input_files" in str(info.value)
    assert await page.evaluate("document.getElementById('f').files.length") == 0
    assert await page.evaluate("window.names === undefined") is True


async def test_b140_b141_chooser_waiter_and_dialog(host, task, server, files):
    a, b = files
    page = task.page("p1")
    await page.goto(server.page("/b140", CHOOSER))
    waiter = page.wait_for_file_chooser()
    receipt = await click(host, page, "#open")
    assert receipt.dialog is None
    chooser = await waiter
    assert chooser.is_multiple() is True
    receipt = await chooser.set_files([a, b])
    # B141: the change handler's confirm() comes back in the receipt and stays open
    assert receipt.dialog is not None and receipt.dialog["type"] == "confirm"
    assert receipt.dialog["message"] == "Upload 2?"
    assert await page.accept_dialog() is True
    assert await page.evaluate("[window.names, window.answer]") == [["a.txt", "b.txt"], True]
    with pytest.raises(InvalidState, match="already handled"):
        await chooser.set_files(a)
    # the context-manager form
    async with page.expect_file_chooser() as info:
        await click(host, page, "#f")
    chooser = await info.value
    receipt = await chooser.set_files(b)
    assert receipt.dialog["message"] == "Upload 1?"
    assert await page.dismiss_dialog() is True
    assert await page.evaluate("[window.names, window.answer]") == [["b.txt"], False]


async def test_b149_one_chooser_waiter_per_page(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b149c", CHOOSER))
    first = page.wait_for_file_chooser(timeout=5000)
    with pytest.raises(InvalidState):
        page.wait_for_file_chooser()
    first.cancel()
    await __import__("asyncio").gather(first, return_exceptions=True)
    again = page.wait_for_file_chooser(timeout=5000)  # cancelling disarmed the first one
    again.cancel()


async def test_set_input_files_by_snapshot_ref(task, server, files):
    """A ref from the snapshot designates the file input (the form an agent uses after a snapshot)."""
    import re

    a, _ = files
    page = task.page("p1")
    await page.goto(server.page("/files-ref", "<form><label for=up>Attach:</label><input type=file id=up></form>"))
    snap = await page.snapshot()
    ref = re.search(r'button "Attach:" \[ref=(\d+)', snap).group(1)
    await page.set_input_files("@" + ref, a)
    assert await page.evaluate("Array.from(document.getElementById('up').files).map(f => f.name)") == ["a.txt"]
