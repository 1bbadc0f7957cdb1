"""`make demo`: an agent's task on a small bundled shop, round by round.

Serves `demo/site/` on 127.0.0.1 (a free port), then runs several rounds through
`ego-browser`, each a separate process as an agent would run them, printing the
script and what the agent reads back. State (the space, its page labels, refs) lives in the
host between rounds. The demo uses its own data directory and stops its host at the end.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "demo" / "site"


def serve() -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def round_(n: int, title: str, script: str, env: dict[str, str]) -> str:
    script = textwrap.dedent(script).strip() + "\n"
    print(f"\n━━ round {n}: {title}")
    print(textwrap.indent(script, "  │ "), end="")
    proc = subprocess.run(
        [sys.executable, "-m", "ego_browser"], input=script, text=True, capture_output=True, env=env, timeout=120
    )
    out = proc.stdout.rstrip()
    print("  ▼ output")
    print(textwrap.indent(out or "(nothing printed)", "    "))
    if proc.returncode != 0:
        print(textwrap.indent(proc.stderr.rstrip(), "    ! "))
        raise SystemExit(f"round {n} failed with exit status {proc.returncode}")
    return out


def main() -> int:
    httpd, base = serve()
    home = os.environ.get("EGO_DEMO_HOME") or tempfile.mkdtemp(prefix="ego-demo-")
    env = {**os.environ, "EGO_BROWSER_HOME": home}
    print(f"demo shop on {base}; ego_browser data in {home}")
    try:
        out = round_(1, "open the shop in a new task space", f"""
            task = await task_space("demo: cheapest kettle")
            page = task.page("p1")
            await page.goto("{base}/")
            print("space", task.space_id, "page", page.label, "title:", await page.title())
            print(await page.snapshot())
        """, env)
        space_id = int(out.split()[1])
        round_(2, "search (the same space and page, a new process)", f"""
            page = (await task_space({space_id})).page("p1")
            await page.fill("loc=role:searchbox[name=\\"Search products\\"]", "kettle")
            await page.press("#q", "Enter")
            await page.wait_for_url("**/search.html?q=kettle")
            print(await page.snapshot(scope="full_page"))
        """, env)
        round_(3, "pick the cheapest result and add it to the cart", f"""
            page = (await task_space({space_id})).page("p1")
            rows = await page.evaluate('''() => [...document.querySelectorAll("#results tr")].map(r => ({{
                name: r.cells[0].innerText, href: r.querySelector("a").href,
                price: parseFloat(r.cells[1].innerText.replace(/[^0-9.]/g, ""))}}))''')
            cheapest = min(rows, key=lambda r: r["price"])
            print("cheapest:", cheapest["name"], cheapest["price"])
            await page.click(f'text="{{cheapest["name"]}}"')
            await page.wait_for_url("**/product.html?id=*")
            await page.click("loc=role:button[name=\\"Add to cart\\"]")
            print(await page.snapshot())
        """, env)
        round_(4, "check the cart, then finish and close the space", f"""
            task = await task_space({space_id})
            page = task.page("p1")
            await page.click("loc=href:/cart.html")
            await page.wait_for_url("**/cart.html")
            print(await page.snapshot())
            print(await task.finish(keep=[]))
        """, env)
        print("\ndemo finished: 4 rounds, one task space, state carried by the host between processes")
        return 0
    finally:
        subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], env=env, capture_output=True, timeout=60)
        httpd.shutdown()


if __name__ == "__main__":
    sys.exit(main())
