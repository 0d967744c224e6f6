"""As a new user tries it: scripts/cluster.sh, two browsers (headless Debian chromium) on one board
through HAProxy, the owner node killed, and both keep dragging, agreeing with the stored board."""

import json
import os
import re
import shutil
import time
import urllib.error
import urllib.request

from playwright.sync_api import expect, sync_playwright

from cluster import free_port
from test_cluster_script import Script, stop_leftovers


def grid(page) -> list[str]:
    return page.eval_on_selector_all('[data-zone="grid"] [data-item]', "els => els.map(e => e.dataset.item)")


def swap_first_two(page) -> None:
    """A keyboard drag: lift the first tile, aim at the next, drop (a swap)."""
    page.locator("[data-item]").first.focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")


def test_two_browsers_keep_dragging_through_haproxy_when_the_owner_dies():
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    script = Script(port)
    pids: list[int] = []
    tmp = None
    try:
        script.wait_for(r"Ctrl-C stops everything", timeout=90)
        text = "\n".join(script.lines)
        pids += [int(pid) for pid in re.findall(r"n\d  http://127\.0\.0\.1:\d+/  pid (\d+)", text)]
        tmp = re.search(r"temporary directory: (\S+)", text).group(1)

        def stored() -> dict:
            with urllib.request.urlopen(f"{base}/api/boards/demo", timeout=3) as r:
                return json.load(r)

        # The board first, as someone confirming the page's "Create it?" would (issue 35: a link
        # to a board that does not exist asks before making one); `?board=` takes the request
        # to the node HAProxy sends the board's pages to.
        made = urllib.request.Request(
            f"{base}/api/boards?board=demo", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"template": "colors", "id": "demo", "title": "demo"}).encode())
        try:
            with urllib.request.urlopen(made, timeout=10) as r:
                assert r.status == 201, r.status
        except urllib.error.HTTPError as e:
            assert e.code == 409, (e.code, e.read())  # made already (the script's own demo board)

        exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
            try:
                pages, sockets = [], {}
                for name in ("Ann", "Bo"):
                    page = browser.new_context().new_page()
                    sockets[page] = []
                    page.on("websocket", lambda ws, seen=sockets[page]: seen.append(ws))
                    page.goto(f"{base}/?board=demo&name={name}")
                    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
                    pages.append(page)
                ann, bo = pages
                swap_first_two(ann)
                expect(bo.locator("#app")).to_have_attribute("data-seq", "1", timeout=5000)
                owner = stored()["owner"]
                assert owner in ("n1", "n2", "n3"), owner

                script.command(f"kill {owner[1:]}")
                script.wait_for(f"killed {owner}", 10)
                killed_at = time.monotonic()
                # Both pages lose their connection and open a new one on their own (the page's backoff).
                deadline = time.monotonic() + 20
                while not all(len(sockets[page]) >= 2 for page in pages):
                    assert time.monotonic() < deadline, {page.url: len(sockets[page]) for page in pages}
                    ann.wait_for_timeout(50)  # lets Playwright deliver the pages' events
                for page in pages:
                    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=15000)
                swap_first_two(bo)
                for page in pages:
                    expect(page.locator("#app")).to_have_attribute("data-seq", "2", timeout=15000)
                after = stored()
                assert after["owner"] not in (None, owner), (owner, after["owner"], time.monotonic() - killed_at)
                want = next(z for z in after["board"]["zones"] if z["id"] == "grid")["items"]
                assert after["seq"] == 2 and grid(ann) == grid(bo) == want
            finally:
                browser.close()
    finally:
        script.stop()
        stop_leftovers(pids, tmp)
