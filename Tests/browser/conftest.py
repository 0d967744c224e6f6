"""Fixtures for the browser tests: one headless Debian chromium, one server per test."""
import os
import re
import shutil

import pytest
from playwright.sync_api import sync_playwright, expect

from harness import OUTPUT, Server, center

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
def make_server(server_binary, request):
    """Starts servers for this test (`make_server(extra_args)`); every one is stopped at teardown."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    made = []

    def make(extra_args=()):
        s = Server(server_binary, name if not made else f"{name}-{len(made)}")
        made.append(s)
        return s.start(extra_args=list(extra_args))

    yield make
    for s in made:
        s.stop()


@pytest.fixture
def server(make_server):
    return make_server()


class Contexts:
    """Makes browser contexts (`contexts(**new_context_args)`) whose every page is watched: an
    uncaught exception or a console error fails the test, unless the test said to expect it
    (`allow`). All are closed at teardown."""

    def __init__(self, browser):
        self.browser = browser
        self.made = []
        self.errors = []
        # Nothing by default: a test that restarts the server or refuses sockets says so with
        # `allow_socket_errors()`, so that a socket error anywhere else fails its test.
        self.allowed: list[str] = []

    def __call__(self, **context_args):
        context_args.setdefault("viewport", {"width": 760, "height": 720})
        context = self.browser.new_context(**context_args)
        context.set_default_timeout(5000)
        context.on("page", self.watch)
        self.made.append(context)
        return context

    def allow(self, text):
        """Console errors that contain `text` are expected (say why where it is called)."""
        self.allowed.append(text)

    def allow_socket_errors(self):
        """For a test that restarts its server or has sockets refused: the browser itself logs
        "WebSocket connection to … failed" as a console error for each refused or dropped one."""
        self.allow("WebSocket connection")

    def watch(self, page):
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

    def close(self):
        for context in self.made:
            context.close()
        unexpected = [e for e in self.errors if not any(text in e for text in self.allowed)]
        assert not unexpected, f"page errors: {unexpected}"


@pytest.fixture
def contexts(browser, make_server):
    # After make_server, so torn down before it: every page is closed before any server this test
    # made stops. The other way round, a page whose server stopped first could try to reconnect
    # before its context closed and log ERR_CONNECTION_REFUSED (seen under load in CI, in a test
    # that listed its server fixture after `contexts`).
    made = Contexts(browser)
    yield made
    made.close()


def ensure_board(context, server, board):
    """Makes the colors board `board` (`POST /api/boards`, titled with its id: the board a hello
    used to make) unless it exists, as someone would by confirming the page's "Create it?"
    (issue 35: a link to a board that does not exist asks first). `board` may carry more of the
    query (`b1&mode=paint`). The request goes through the context, so https works too."""
    board_id = board.split("&")[0]
    answer = context.request.post(f"{server.url}/api/boards",
                                  data={"template": "colors", "id": board_id, "title": board_id})
    assert answer.status in (201, 409), (answer.status, answer.text())


class Client:
    """One person: a browser context with one page on a board."""

    def __init__(self, contexts, server, board, name, before_goto=None, **context_args):
        self.context = contexts(**context_args)
        self.page = self.context.new_page()
        self.name = name
        self.board = board
        if before_goto:
            before_goto(self.page)
        ensure_board(self.context, server, board)
        self.page.goto(f"{server.url}/?board={board}&name={name}")
        self.wait_connected()

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
        # A board that offers one mode shows no mode buttons (issue 35): it is in that mode.
        if self.page.get_attribute("#app", "data-mode") != mode:
            self.page.click(f'[data-mode-button="{mode}"]')
        expect(self.page.locator("#app")).to_have_attribute("data-mode", mode)

    def center(self, selector):
        return center(self.page, selector)

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
def clients(contexts, server, request):
    """Makes people on the test's server (`clients(name, board="b1", **kw)`); their pages' errors
    fail the test (`contexts`), and a failed test leaves a screenshot of each page."""
    made = []

    def make(name, board="b1", **kw):
        c = Client(contexts, server, board, name, **kw)
        made.append(c)
        return c

    yield make
    if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
        for c in made:
            c.page.screenshot(path=str(OUTPUT / f"{request.node.name}-{c.name}.png"))


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
