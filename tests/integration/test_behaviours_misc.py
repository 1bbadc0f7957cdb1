"""Behaviours without a home elsewhere, through the public API (BEHAVIOURS.md B71, B111, B113,
B158, B161, B163).

Pages record what they receive with ``event.isTrusted`` so the tests check what a user would
check: which control reacted, how often, and that the input was real. B71 and B161 span two
rounds (``python -m ego_browser`` processes against a background host).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import math
import re
import struct
import wave
from pathlib import Path

import ego_browser
from tests.server import Response


# -- B71: a file-chooser upload that removes its dialog leaves other refs valid ------------------

B71_PAGE = """
<form id=f onsubmit="event.preventDefault(); window.submitted = document.getElementById('addr').value">
  <label>Address <input id=addr name=addr></label>
</form>
<div role=dialog aria-label="Upload dialog" id=dlg>
  <button id=pick onclick="document.getElementById('file').click()">Choose file</button>
  <input type=file id=file hidden
    onchange="window.uploaded = Array.from(this.files).map(f => f.name); document.getElementById('dlg').remove()">
</div>
<script>
window.keys = [];
window.inputs = [];
const addr = document.getElementById('addr');
addr.addEventListener('keydown', e => keys.push(e.key + (e.isTrusted ? '' : ':untrusted')));
addr.addEventListener('input', e => inputs.push(e.isTrusted));
</script>
"""


def test_b71_upload_that_removes_its_dialog_keeps_other_refs(rounds, server, tmp_path):
    url = server.page("/b71", B71_PAGE)
    upload = tmp_path / "proof.txt"
    upload.write_text("proof")
    first = rounds.run(
        "import re\n"
        "task = await task_space('b71-upload')\n"
        "page = task.page('p1')\n"
        f"await page.goto({url!r})\n"
        "snap = await page.snapshot()\n"
        "r = {m.group(1): m.group(2) for m in re.finditer(r'\"([^\"]*)\"(?: \\[[a-z]+(?:=[^\\]]*)?\\])* \\[ref=(\\d+)', snap)}\n"
        "waiter = page.wait_for_file_chooser()\n"
        "await page.click('@' + r['Choose file'])\n"
        "chooser = await waiter\n"
        f"await chooser.set_files({str(upload)!r})\n"
        "print(json.dumps({'addr': r['Address'], 'uploaded': await page.evaluate('window.uploaded'),"
        " 'dialog': await page.evaluate(\"!!document.getElementById('dlg')\")}))\n"
    )
    assert first.returncode == 0, first.stderr
    state = json.loads(first.stdout.strip().splitlines()[-1])
    assert state["uploaded"] == ["proof.txt"] and state["dialog"] is False
    addr = state["addr"]
    second = rounds.run(
        "task = await task_space('b71-upload')\n"
        "page = task.page('p1')\n"
        f"await page.fill('@{addr}', '221B Baker Street')\n"
        f"await page.press('@{addr}', 'Enter')\n"
        "print(json.dumps(await page.evaluate('[window.submitted, keys, inputs]')))\n"
        "await task.finish(keep=[])\n"
    )
    assert second.returncode == 0, second.stderr
    submitted, keys, inputs = json.loads(second.stdout.strip().splitlines()[-1])
    assert submitted == "221B Baker Street"
    assert keys == ["Enter"], "one trusted Enter on the address field"
    assert inputs == [True]


# -- B111: media controls -----------------------------------------------------------------------


def _wav(seconds: float = 3.0, rate: int = 8000) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(
            struct.pack("<h", int(6000 * math.sin(2 * math.pi * 440 * i / rate))) for i in range(int(seconds * rate))
        ))
    return buf.getvalue()


def _ranged(data: bytes, content_type: str):
    """A handler serving ``data`` with byte-range support, as media servers do (seeking needs it)."""

    def handler(req) -> Response:
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", req.headers.get("range", ""))
        if not m:
            return Response(data, content_type=content_type, headers={"Accept-Ranges": "bytes"})
        start = int(m.group(1) or 0)
        end = min(int(m.group(2)) if m.group(2) else len(data) - 1, len(data) - 1)
        return Response(data[start:end + 1], status=206, content_type=content_type, headers={
            "Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{end}/{len(data)}"})

    return handler


# Records ~1 s of an animated canvas as VP8 WebM in the browser itself (no video encoder is
# needed on the machine); the bytes are then served like any other video file.
RECORD_WEBM = """async () => {
  const c = document.createElement('canvas'); c.width = 64; c.height = 48; document.body.append(c);
  const g = c.getContext('2d'); let n = 0;
  const rec = new MediaRecorder(c.captureStream(30), {mimeType: 'video/webm;codecs=vp8'});
  const parts = []; rec.ondataavailable = e => parts.push(e.data);
  const paint = setInterval(() => { g.fillStyle = `hsl(${(n++ * 40) % 360},80%,50%)`; g.fillRect(0, 0, 64, 48); }, 30);
  rec.start();
  await new Promise(r => setTimeout(r, 1000));
  rec.stop(); await new Promise(r => rec.onstop = r); clearInterval(paint); c.remove();
  const b = new Uint8Array(await new Blob(parts).arrayBuffer());
  let s = ''; for (const x of b) s += String.fromCharCode(x); return btoa(s);
}"""

MEDIA_PAGE = """
<video id=v src=/b111.webm width=160 height=120 style="background:#222"></video>
<audio id=a src=/b111.wav></audio>
<div>
<button id=play>Play video</button><button id=pause>Pause video</button>
<button id=rate>Rate 1.5</button><button id=mute>Toggle mute</button>
<button id=seek>Seek audio</button><button id=vol>Audio volume</button>
</div>
<script>
const v = document.getElementById('v'), a = document.getElementById('a');
window.ev = {video: [], audio: []};
window.clicks = [];
for (const [k, el] of [['video', v], ['audio', a]])
  for (const t of ['play', 'playing', 'pause', 'seeking', 'seeked', 'ratechange', 'volumechange', 'error'])
    el.addEventListener(t, () => ev[k].push(t));
const on = (id, fn) => document.getElementById(id).addEventListener('click', e => {
  clicks.push(id + (e.isTrusted ? '' : ':untrusted')); fn();
});
on('play', () => v.play());
on('pause', () => v.pause());
on('rate', () => { v.playbackRate = 1.5; });
on('mute', () => { v.muted = !v.muted; });
on('seek', () => { a.currentTime = 1.2; });
on('vol', () => { a.volume = 0.25; });
</script>
"""


async def test_b111_media_controls(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b111-rec", "<p>recorder</p>"))
    webm = base64.b64decode(await page.evaluate(RECORD_WEBM))
    assert webm[:4] == b"\x1a\x45\xdf\xa3", "an EBML (WebM) header"
    server.route("/b111.webm", _ranged(webm, "video/webm"))
    server.route("/b111.wav", _ranged(_wav(), "audio/wav"))
    await page.goto(server.page("/b111", MEDIA_PAGE))
    await page.wait_for_function("v.readyState >= 2 && a.readyState >= 1", timeout=5000)

    await page.click("#play")
    await page.wait_for_function("v.currentTime >= 0.15", timeout=3000)
    await page.click("#pause")
    # "pause" is a queued media event: it follows `paused` becoming true
    await page.wait_for_function("v.paused && ev.video.includes('pause')", timeout=2000)
    assert await page.evaluate("v.currentTime") >= 0.15
    video_events = await page.evaluate("ev.video")
    for name in ("play", "playing", "pause"):
        assert name in video_events, video_events
    await page.click("#rate")
    await page.click("#mute")
    assert await page.evaluate("[v.playbackRate, v.muted]") == [1.5, True]
    await page.wait_for_function("ev.video.includes('ratechange') && ev.video.includes('volumechange')", timeout=2000)
    await page.click("#mute")
    assert await page.evaluate("v.muted") is False
    assert await page.evaluate("clicks") == ["play", "pause", "rate", "mute", "mute"]

    # another Page is snapshotted; the first Page's audio controls still work
    other = await task.new_page()
    await other.goto(server.page("/b111-other", "<button>Elsewhere</button>"))
    assert "Elsewhere" in await other.snapshot()
    await page.click("#seek")
    await page.wait_for_function("ev.audio.includes('seeked')", timeout=3000)
    assert abs(await page.evaluate("a.currentTime") - 1.2) < 0.05
    await page.click("#vol")
    assert await page.evaluate("a.volume") == 0.25
    await page.wait_for_function("ev.audio.includes('volumechange')", timeout=2000)
    audio_events = await page.evaluate("ev.audio")
    assert "seeking" in audio_events and "seeked" in audio_events and "volumechange" in audio_events
    assert "error" not in audio_events and "error" not in video_events
    assert await page.evaluate("[v.error, a.error]") == [None, None]
    assert await page.evaluate("clicks.slice(5)") == ["seek", "vol"]
    shot = await page.screenshot()
    assert Path(shot).stat().st_size > 500


# -- B113: a control drawn on a canvas ----------------------------------------------------------

CANVAS_PAGE = """
<canvas id=c width=320 height=160 style="position:absolute;left:40px;top:60px"></canvas>
<script>
const c = document.getElementById('c'), g = c.getContext('2d');
window.hits = []; window.moves = 0;
let on = false;
function draw() {
  g.fillStyle = '#fff'; g.fillRect(0, 0, 320, 160);
  g.fillStyle = on ? '#0a0' : '#a00'; g.fillRect(110, 60, 100, 40);
  g.fillStyle = '#fff'; g.font = '16px sans-serif'; g.fillText(on ? 'ON' : 'OFF', 145, 86);
}
draw();
window.control = {x: 110, y: 60, w: 100, h: 40};
c.addEventListener('mousemove', e => { if (e.isTrusted) moves++; });
c.addEventListener('click', e => {
  const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
  if (x >= 110 && x <= 210 && y >= 60 && y <= 100) { hits.push(e.isTrusted); on = !on; draw(); }
});
</script>
"""


async def test_b113_mouse_click_on_a_drawn_canvas_control(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b113", CANVAS_PAGE))
    before = Path(await page.screenshot()).read_bytes()
    # the canvas draws the control; the snapshot cannot see it, so it is found by its pixels' position
    assert "OFF" not in await page.snapshot()
    x, y = await page.evaluate(
        "(() => { const r = c.getBoundingClientRect();"
        " return [r.left + control.x + control.w / 2, r.top + control.y + control.h / 2]; })()"
    )
    await page.mouse.move(x, y)
    await page.mouse.click(x, y)
    assert await page.evaluate("hits") == [True], "activated exactly once, by a trusted click"
    assert await page.evaluate("moves") >= 1
    after = Path(await page.screenshot()).read_bytes()
    assert after[:8] == b"\x89PNG\r\n\x1a\n" and after != before


# -- B158: a deleted ledger entry is adopted again; older tabs stay unmanaged ---------------------


async def test_b158_deleted_popup_record_is_adopted_again(host, task, server):
    server.page("/b158-child", "<p>child</p>", title="Child")
    page = task.page("p1")
    await page.goto(server.page(
        "/b158", "<button id=b style='width:200px;height:40px' onclick=\"window.open('/b158-child')\">open</button>"
    ))
    receipt = await page.click("#b")
    assert len(receipt.popups) == 1
    old_label, tid = receipt.popups[0]["label"], receipt.popups[0]["target_id"]
    host.store.delete_page_record(task.space_id, old_label)
    tabs = {t["target_id"]: t for t in await task.tabs()}
    assert tid in tabs
    again = tabs[tid]
    assert again["label"] is not None and again["opened_by"] == "agent"
    assert again["label"] != old_label, "labels are never reused"
    popup = task.page(again["label"])
    await popup.wait_for_url("**/b158-child")
    assert await popup.evaluate("document.body.textContent") == "child"


async def test_b158_tabs_older_than_the_control_boundary_stay_unmanaged(host, space_name, server):
    server.page("/b158-late", "<p>late</p>")
    t = await ego_browser.task_space(space_name)
    page = t.page("p1")
    await page.goto(server.page("/b158-opener", "<p>opener</p>"))
    opener = next(tab["target_id"] for tab in await t.tabs() if tab["label"] == "p1")
    # a tab this Page opens while the user owns the space
    await page.evaluate("setTimeout(() => window.open('/b158-late'), 300); 1")
    report = await t.finish(keep="all")
    assert report["closed_space"] is False
    late = None
    for _ in range(100):
        targets = (await host.browser.conn.send("Target.getTargets"))["targetInfos"]
        late = next((i["targetId"] for i in targets if i["url"].endswith("/b158-late")), None)
        if late:
            break
        await asyncio.sleep(0.03)
    assert late is not None, "the page opened its tab while the user owned the space"
    claimed = await ego_browser.claim_task_space(t.space_id)
    try:
        tabs = await claimed.tabs()
        # the opener and its late tab are both listed, neither managed
        assert {opener, late} <= {tab["target_id"] for tab in tabs}, tabs
        assert [tab["label"] for tab in tabs] == [None] * len(tabs), "no tab from before the claim is managed"
        assert await claimed.pages() == []
    finally:
        for tab in await claimed.tabs():
            await claimed.cdp("Target.closeTarget", {"targetId": tab["target_id"]})
        await claimed.finish(keep=[])


# -- B161: the next round routes a text selector into the out-of-process frame -------------------


def test_b161_next_round_routes_into_the_out_of_process_frame(rounds, server):
    server.page("/b161-frame", (
        "<button id=act onclick=\"this.textContent = 'clicked ' + (++window.n || (window.n = 1))"
        " + (event.isTrusted ? ' trusted' : ' untrusted')\">Frame action</button>"
    ))
    frame_url = server.url("/b161-frame", host="localhost")
    url = server.page("/b161", f"<h1>Outer</h1><iframe src='{frame_url}' width=300 height=80></iframe>")
    first = rounds.run(
        "task = await task_space('b161-oopif')\n"
        "page = task.page('p1')\n"
        f"await page.goto({url!r})\n"
        "await page.wait_for_load_state()\n"
        "print('ready')\n"
    )
    assert first.returncode == 0, first.stderr
    second = rounds.run(
        "task = await task_space('b161-oopif')\n"
        "page = task.page('p1')\n"
        "print(await page.snapshot())\n"
        "print('---')\n"
        "await page.click('text=\"Frame action\"')\n"
        "found = await page.find('text=\"clicked 1 trusted\"')\n"
        "targets = (await task.cdp('Target.getTargets'))['targetInfos']\n"
        "print(json.dumps({'found': [f['frame'] for f in found],"
        " 'iframes': [t['url'] for t in targets if t['type'] == 'iframe']}))\n"
        "await task.finish(keep=[])\n"
    )
    assert second.returncode == 0, second.stderr
    snap, _, tail = second.stdout.partition("---")
    lines = [line.strip() for line in snap.splitlines()]
    i = next(i for i, line in enumerate(lines) if line.startswith("iframe"))
    assert lines[i + 1] == "root" and any('"Frame action"' in line for line in lines[i + 1:]), snap
    result = json.loads(tail.strip().splitlines()[-1])
    assert result["found"] == [frame_url], "one trusted click landed in the frame"
    assert frame_url in result["iframes"], "the frame is out of process"


# -- B163: complex evaluate round-trips --------------------------------------------------------

STRINGS = {
    "unicode": "héllo wörld — 日本語 Ελληνικά 😀 \U0001f9ea",
    "quotes": "it's \"double\" and 'single' and `back` ${not_a_template} \\ backslash",
    "script": "</script><script>throw 1</script><!-- -->",
    "separators": "line\u2028separator\u2029paragraph",
    "controls": "tab\tnewline\nreturn\r",
}


async def test_b163_complex_evaluate_round_trips(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b163", "<div id=root><button id=b>B</button></div>"))
    # strings: through arg, and written into the JS source itself
    assert await page.evaluate("(v) => v", STRINGS) == STRINGS
    for value in STRINGS.values():
        assert await page.evaluate("() => " + json.dumps(value, ensure_ascii=False)) == value
        assert await page.evaluate("(v) => v.length", value) == len(value.encode("utf-16-le")) // 2
    assert await page.evaluate("String.fromCharCode(0x2028, 0x2029)") == "\u2028\u2029"
    # 96 nested rows
    rows = await page.evaluate(
        "() => Array.from({length: 96}, (_, i) => ({id: i, name: `row ${i}`, cells: [i, i * 2, {deep: {deeper: [i, null, true]}}]}))"
    )
    assert rows == [{"id": i, "name": f"row {i}", "cells": [i, i * 2, {"deep": {"deeper": [i, None, True]}}]}
                    for i in range(96)]
    nested = await page.evaluate("() => { let o = {leaf: 'end'}; for (let i = 0; i < 96; i++) o = {row: i, child: o}; return o; }")
    depth, node = 0, nested
    while "child" in node:
        assert node["row"] == 95 - depth
        node, depth = node["child"], depth + 1
    assert depth == 96 and node == {"leaf": "end"}
    # class instances come back as their own enumerable data
    point = await page.evaluate(
        "() => { class Point { constructor(x, y) { this.x = x; this.y = y; } get len() { return Math.hypot(this.x, this.y); } }"
        " class Point3 extends Point { constructor() { super(3, 4); this.z = 0; } }"
        " const p = new Point3(); return {p, len: p.len, name: p.constructor.name, isPoint: p instanceof Point}; }"
    )
    assert point == {"p": {"x": 3, "y": 4, "z": 0}, "len": 5, "name": "Point3", "isPoint": True}
    # a CustomEvent, dispatched and received in the page
    event = await page.evaluate(
        "() => new Promise(r => { const b = document.getElementById('b');"
        " b.addEventListener('ego-event', e => r({type: e.type, detail: e.detail, trusted: e.isTrusted,"
        " bubbles: e.bubbles, isCustom: e instanceof CustomEvent}), {once: true});"
        " b.dispatchEvent(new CustomEvent('ego-event', {detail: {n: 1, s: 'x', list: [1, 'two']}, bubbles: true})); })"
    )
    assert event == {"type": "ego-event", "detail": {"n": 1, "s": "x", "list": [1, "two"]}, "trusted": False,
                     "bubbles": True, "isCustom": True}
    # a requestAnimationFrame round trip
    assert await page.evaluate(
        "() => new Promise(r => requestAnimationFrame(t1 => requestAnimationFrame(t2 => r(t2 > t1))))"
    ) is True
    # DOM writes are seen later, by evaluate and by the snapshot
    await page.evaluate(
        "(text) => { const d = document.createElement('p'); d.id = 'later'; d.textContent = text;"
        " document.getElementById('root').append(d); document.body.dataset.mark = 'written'; }",
        "Written by evaluate",
    )
    assert await page.evaluate("[document.getElementById('later').textContent, document.body.dataset.mark]") == [
        "Written by evaluate", "written"]
    assert "Written by evaluate" in await page.snapshot()
    assert await page.evaluate("document.visibilityState") == "visible"
