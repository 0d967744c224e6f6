"""Fixtures for the browser tests: one headless Debian chromium, one server per test."""
import os
import re
import shutil

import pytest
from playwright.sync_api import sync_playwright, expect

from harness import OUTPUT, Server

expect.set_options(timeout=5000)


def pytest_configure(config):
    OUTPUT.mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def server_binary():
    path = os.environ.get("SHUFFLEBOARD_BIN")
    if not path:
        pytest.exit("SHUFFLEBOARD_BIN is not set; run Tests/browser/run.sh", returncode=2)
    return path


@pytest.fixture(scope="session")
def browser():
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def server(server_binary, request):
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    s = Server(server_binary, name).start()
    yield s
    s.stop()


class Client:
    """One person: a browser context with one page on a board."""

    def __init__(self, browser, server, board, name, before_goto=None, **context_args):
        self.context = browser.new_context(viewport={"width": 760, "height": 720}, **context_args)
        self.context.set_default_timeout(5000)
        self.page = self.context.new_page()
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", self.console)
        self.name = name
        self.board = board
        if before_goto:
            before_goto(self.page)
        self.page.goto(f"{server.url}/?board={board}&name={name}")
        self.wait_connected()

    def console(self, m):
        # A refused or dropped socket is logged by the browser itself while a server restarts.
        if m.type == "error" and "WebSocket connection" not in m.text:
            self.errors.append(m.text)

    def settle(self, timeout=3000):
        """Waits until no animation runs (FLIP, glides), so boxes are where tiles will stay."""
        self.page.wait_for_function(
            "() => document.getAnimations().filter(a => a.playState === 'running').length === 0",
            timeout=timeout)

    def wait_connected(self, timeout=10000):
        expect(self.page.locator("#app")).to_have_attribute("data-connected", "true", timeout=timeout)

    def tile(self, item):
        return self.page.locator(f'[data-item="{item}"]')

    def order(self, zone="grid"):
        return self.page.eval_on_selector_all(f'[data-zone="{zone}"] [data-item]', "els => els.map(e => e.dataset.item)")

    def seq(self):
        return int(self.page.get_attribute("#app", "data-seq"))

    def mode(self, mode):
        self.page.click(f'[data-mode-button="{mode}"]')
        expect(self.page.locator("#app")).to_have_attribute("data-mode", mode)

    def center(self, selector):
        box = self.page.locator(selector).bounding_box()
        assert box, f"{selector} is not visible"
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def lift(self, item):
        """Presses on a tile and moves past the threshold: the tile is lifted."""
        self.settle()
        x, y = self.center(f'[data-item="{item}"]')
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        self.page.mouse.move(x + 8, y + 8, steps=2)
        expect(self.page.locator(".ghost")).to_have_count(1)

    def hover_to(self, selector, dx=0, dy=0):
        self.settle()
        x, y = self.center(selector)
        self.page.mouse.move(x + dx, y + dy, steps=8)

    def drag(self, item, selector):
        """A whole pointer drag of `item` onto the element `selector`."""
        self.lift(item)
        self.hover_to(selector)
        self.page.mouse.up()
        expect(self.page.locator(".ghost")).to_have_count(0)

    def close(self):
        self.context.close()


@pytest.fixture
def clients(browser, server, request):
    made = []

    def make(name, board="b1", **kw):
        c = Client(browser, server, board, name, **kw)
        made.append(c)
        return c

    yield make
    for c in made:
        if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
            c.page.screenshot(path=str(OUTPUT / f"{request.node.name}-{c.name}.png"))
        c.close()
    for c in made:
        assert not c.errors, f"{c.name}: page errors: {c.errors}"


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
