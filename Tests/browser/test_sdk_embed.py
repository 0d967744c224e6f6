"""The SDK in another site's page (issue 20, issue 22): examples/embed.html, served by
examples/serve.py from its own origin, shows a board with the SDK next to the bundled client on the
same board, each sees the other's moves and drags; and with a getToken() hook on short-lived tokens
(the site's token endpoint) it keeps its session past its first token's expiry."""
import base64
import json
import re
import subprocess
import sys
import threading

import pytest
from playwright.sync_api import expect

from conftest import Client
from harness import RECORD_SOCKETS, ROOT, Server
from test_auth import SECRET
from test_origins import free_port

SITE = re.compile(r"examples on (http://127\.0\.0\.1:\d+)/")


class Site:
    """examples/serve.py as a process on a free port: the embedding site (and its token endpoint)."""

    def __init__(self, args):
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "examples" / "serve.py"), "--port", "0", *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        found = threading.Event()
        self.origin = None

        def pump():
            for line in self.proc.stderr:
                m = SITE.search(line)
                if m and not found.is_set():
                    self.origin = m.group(1)
                    found.set()

        threading.Thread(target=pump, daemon=True).start()
        if not found.wait(20):
            self.stop()
            raise RuntimeError("examples/serve.py did not say where it serves within 20 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture
def site():
    made = []

    def make(*args):
        made.append(Site(args))
        return made[-1]

    yield make
    for s in made:
        s.stop()


@pytest.fixture
def own_server(server_binary, request):
    made = []

    def make(extra_args, port=0):
        made.append(Server(server_binary, re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)))
        return made[-1].start(port=port, extra_args=extra_args)

    yield make
    for s in made:
        s.stop()


def embed(contexts, site, server, board, name, extra="", before_goto=None):
    """The example page of `site` on `board` of `server`, joined."""
    p = contexts().new_page()
    if before_goto:
        before_goto(p)
    p.goto(f"{site.origin}/examples/embed.html?server={server.url}&board={board}&name={name}{extra}")
    expect(p.locator("#embed")).to_have_attribute("data-state", "open", timeout=10000)
    return p


def order(page, zone="grid"):
    return page.eval_on_selector_all(f'[data-zone="{zone}"] [data-item]', "els => els.map(e => e.dataset.item)")


def test_the_example_page_and_the_bundled_client_see_each_others_moves_and_drags(site, own_server, contexts):
    # (Server fixtures before `contexts`: its pages close before the servers stop.)
    # The site's origin and the server's own (for the bundled page) are the only ones allowed.
    s = site()
    port = free_port()
    server = own_server(["--allow-origin", f"http://127.0.0.1:{port}", "--allow-origin", s.origin], port=port)
    ann = Client(contexts, server, "b1", "Ann")
    bo = embed(contexts, s, server, "b1", "Bo")
    grid = [f"t{i}" for i in range(1, 13)]
    assert order(bo) == grid
    expect(bo.locator("#people")).to_contain_text("Ann")

    # The bundled page swaps t1 onto t5: the example page shows it, at seq 1.
    ann.drag("t1", '[data-item="t5"]')
    swapped = ["t5", "t2", "t3", "t4", "t1"] + grid[5:]
    expect(bo.locator("#embed")).to_have_attribute("data-seq", "1")
    assert order(bo) == swapped
    expect(bo.locator("#last")).to_contain_text("Ann swapped")

    # The example page swaps t2 and t3 (click, click): the bundled page shows it, and the op's
    # promise resolved with the committed op.
    bo.click('[data-item="t2"]')
    bo.click('[data-item="t3"]')
    expect(bo.locator("#last")).to_contain_text("(op 2)")
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", "2")
    assert ann.order() == ["t5", "t3", "t2", "t4", "t1"] + grid[5:]
    assert order(bo) == ann.order()

    # A drag on the bundled page shows on the example page: the held card, the card it is aimed
    # at, and the swap its drop commits.
    ann.lift("t4")
    held = bo.locator('[data-item="t4"][data-held-by]')
    expect(held).to_contain_text("held by Ann")
    ann.hover_to('[data-item="t6"]')
    expect(bo.locator('[data-item="t6"][data-aimed-by]')).to_have_count(1)
    ann.page.mouse.up()
    expect(held).to_have_count(0)
    expect(bo.locator("[data-aimed-by]")).to_have_count(0)
    expect(bo.locator("#embed")).to_have_attribute("data-seq", "3")
    assert order(bo) == ["t5", "t3", "t2", "t6", "t1", "t4"] + grid[6:]

    # And the server has what both show.
    assert server.zone("b1", "grid") == order(bo)


def expiry(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["e"]


def test_the_example_page_with_get_token_keeps_going_past_its_first_tokens_expiry(site, own_server, contexts,
                                                                                  tmp_path):
    secrets = tmp_path / "secrets"
    secrets.write_text(SECRET + "\n")
    server = own_server(["--auth-secret", str(secrets)])
    # Every token the site hands out lives 4 s: the page must refresh more than once.
    s = site("--auth-secret", str(secrets), "--ttl", "4s", "--shuffleboard", server.binary)
    p = embed(contexts, s, server, "club", "Cy", extra="&tokenUrl=/token",
              before_goto=lambda page: page.add_init_script(RECORD_SOCKETS))
    first = p.evaluate("window.__frames.sent")[0]
    assert first["type"] == "hello" and first["board"] == "club"
    ends = expiry(first["token"])
    # Past the first token's expiry (and the second the server may take): still the first socket,
    # with fresh tokens the server took.
    p.wait_for_function("(after) => Date.now() / 1000 > after", arg=ends + 1.5, timeout=15000)
    expect(p.locator("#embed")).to_have_attribute("data-state", "open")
    assert p.evaluate("window.__sockets") == 1
    received = p.evaluate("window.__frames.received")
    assert not any(m["type"] == "error" for m in received), received
    answers = [m for m in received if m["type"] == "auth"]
    assert answers and all(m["role"] == "edit" and m["exp"] > ends for m in answers)
    assert p.evaluate("window.board.token") != first["token"]
    # Its ops still commit.
    p.click('[data-item="t1"]')
    p.click('[data-item="t2"]')
    expect(p.locator("#last")).to_contain_text("(op 1)")
    assert order(p)[:2] == ["t2", "t1"]
