"""Issue 31, point 9: a 50 MB text node printed 52 MB in a snapshot. Every look caps a line's text
and the look's text, says so on the cut line, and keeps every control."""

from __future__ import annotations

import re
import resource
import time

import pytest

#: a page with one 50 MB text node between two buttons, and many long paragraphs after them
_BIG = """<button id=a>Before</button><p id=big></p><button id=b>After</button><div id=many></div>
<script>
const many = document.getElementById('many');
for (let i = 0; i < 300; i++) {
  const p = document.createElement('p'); p.textContent = 'para' + i + ' ' + 'y'.repeat(3000); many.appendChild(p);
  const b = document.createElement('button'); b.textContent = 'ctl' + i; many.appendChild(b);
}
</script>"""


@pytest.mark.parametrize("scope", ["only_within_viewport", "full_page"])
async def test_a_50mb_text_node_is_cut_and_says_so(task, server, scope):
    page = task.page("p1")
    await page.goto(server.page("/big-text-" + scope, _BIG))
    # 5 MB of text: Chromium's own layout of 50 MB takes over 15 s on the 2-core test machine
    # (measured), before the snapshot starts. Set after the load: the 50 MB node is the page's own text, not a slow load
    await page.evaluate("document.getElementById('big').textContent = 'x '.repeat(5 * 512 * 1024)")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.monotonic()
    out = await page.snapshot(scope=scope)
    took = time.monotonic() - t0
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert len(out) < 500_000, len(out)
    assert "…[cut " in out and "page.inner_text(selector) reads it all" in out
    line = next(x for x in out.splitlines() if "x x x x" in x)
    assert len(line) < 5_000 and int(re.search(r"…\[cut (\d+) chars", line)[1]) > 5_000_000, line[:200]
    assert 'button "Before"' in out
    if scope == "full_page":
        assert 'button "After"' in out
        # the whole look's budget shortens later text, never drops a control
        for i in range(300):
            assert f'button "ctl{i}"' in out, i
        assert out.count("…[cut ") > 100
    assert took < 30, took  # bounded time under a loaded 2-core machine (was: 52 MB through CDP)
    assert grown_mb < 200, grown_mb
    # the interactive look keeps the controls and a cut text stays cut
    inter = await page.snapshot(scope=scope, interactive=True)
    assert 'button "Before"' in inter and len(inter) < 500_000
    # the whole text is still there to read
    assert len(await page.inner_text("#big")) > 5_000_000
