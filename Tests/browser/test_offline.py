"""Durable pending changes (issue 35): changes made while the server is down survive a reload and
a browser closed and opened again (a persistent profile), are shown as "saving…" with a count, are
sent with their op ids when the server is back and committed exactly once each (the op log says
so); one refused on return is listed in plain words; leaving asks first only while something is
unsaved; two tabs sending one kept op apply it once."""
import os
import shutil
import tempfile

import pytest
from playwright.sync_api import expect

from conftest import Client

GRID = [f"t{i}" for i in range(1, 13)]


def order(page, zone="grid"):
    return page.eval_on_selector_all(f'[data-zone="{zone}"] [data-item]', "els => els.map(e => e.dataset.item)")


def pending_ops(page):
    return page.evaluate("() => window.shuffleboard.session.state.pending.map((p) => p.op)")


def drag(page, item, onto):
    """A pointer drag of `item` onto the tile `onto` (swap mode: the two change places)."""
    page.wait_for_function(
        "() => document.getAnimations().filter(a => a.playState === 'running').length === 0", timeout=3000)
    box = page.locator(f'[data-item="{item}"]').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 8, y + 8, steps=2)
    expect(page.locator(".ghost")).to_have_count(1)
    box = page.locator(f'[data-item="{onto}"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    expect(page.locator(".ghost")).to_have_count(0)


def op_log(server, board):
    return server.get_json(f"/api/boards/{board}/ops?since=0")["ops"]


class Profile:
    """One persistent browser profile (a user data directory): closed and launched again, it is the
    same browser coming back, with its IndexedDB and its service worker."""

    def __init__(self, browser, errors):
        self.browser_type = browser.browser_type
        self.dir = tempfile.mkdtemp(prefix="shuffleboard-profile-")
        self.context = None
        self.errors = errors

    def launch(self):
        exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
        self.context = self.browser_type.launch_persistent_context(
            self.dir, executable_path=exe, headless=True, args=["--no-sandbox"], viewport={"width": 760, "height": 720})
        self.context.set_default_timeout(5000)
        self.context.on("page", self.errors.watch)
        return self.context

    def page(self, url):
        page = self.context.new_page()
        self.errors.watch(page)
        page.goto(url)
        return page

    def close(self):
        if self.context:
            self.context.close()
            self.context = None

    def remove(self):
        self.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def profile(browser, contexts):
    made = []

    def make():
        made.append(Profile(browser, contexts))
        return made[-1]

    yield make
    for p in made:
        p.remove()


@pytest.fixture
def durable_server(make_server, tmp_path):
    return make_server(data=tmp_path / "data")


def offline_ready(page):
    """Connected, and the service worker keeps every file the page loaded."""
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    expect(page.locator("#app")).to_have_attribute("data-offline-ready", "true", timeout=10000)


def ann_in_a_profile(server, profile, contexts):
    """Ann's page on b1 in a browser profile of her own, ready to work offline: (url, profile, page)."""
    contexts.allow_socket_errors()  # the page's reconnects while the server is down are refused
    contexts.allow("ERR_CONNECTION_REFUSED")  # the service worker's update check while it is down
    server.create("colors", "b1", title="b1")  # a link to a missing board asks first (issue 35)
    url = f"{server.url}/?board=b1&name=Ann"
    prof = profile()
    prof.launch()
    page = prof.page(url)
    offline_ready(page)
    return url, prof, page


def test_changes_made_while_the_server_is_down_survive_a_reload_and_a_new_browser_and_commit_once(
        durable_server, profile, contexts):
    server = durable_server
    url, prof, page = ann_in_a_profile(server, profile, contexts)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.type), d.accept()))

    port = server.port
    server.stop()
    expect(page.locator("#app")).to_have_attribute("data-connected", "false")
    drag(page, "t1", "t2")
    drag(page, "t5", "t6")
    drag(page, "t9", "t10")
    want = ["t2", "t1", "t3", "t4", "t6", "t5", "t7", "t8", "t10", "t9", "t11", "t12"]
    assert order(page) == want
    expect(page.locator("#unsaved")).to_have_text("3 unsaved changes")
    expect(page.locator('[data-item="t1"] .tile-pending')).to_have_text("saving…")
    expect(page.locator("[data-pending]")).to_have_count(6)
    ops = pending_ops(page)
    assert len(ops) == 3

    # A reload while the server is down: leaving asks first; the page opens from the service
    # worker with the board and the three changes, still pending.
    page.reload()
    assert dialogs == ["beforeunload"]
    expect(page.locator("#unsaved")).to_have_text("3 unsaved changes")
    assert order(page) == want
    assert pending_ops(page) == ops
    expect(page.locator("[data-pending]")).to_have_count(6)

    # The browser closed and opened again, the server still down: the same.
    prof.close()
    prof.launch()
    page = prof.page(url)
    expect(page.locator("#unsaved")).to_have_text("3 unsaved changes")
    assert order(page) == want
    assert pending_ops(page) == ops
    assert page.get_attribute("#app", "data-connected") == "false"

    # The server is back: each is sent with its op id and committed once.
    server.start(port=port)
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=15000)
    expect(page.locator("#app")).to_have_attribute("data-unsaved", "0", timeout=10000)
    expect(page.locator("#unsaved")).to_have_text("")
    expect(page.locator("[data-pending]")).to_have_count(0)
    log = op_log(server, "b1")
    assert [o["op"] for o in log] == ops
    assert server.zone("b1", "grid") == want
    assert order(page) == want

    # Nothing unsaved: leaving does not ask (a dialog here would be left open, and the page with it).
    dialogs.clear()
    page.on("dialog", lambda d: dialogs.append(d.type))
    with page.expect_event("close"):
        page.close(run_before_unload=True)
    assert dialogs == []


def test_a_change_refused_on_return_is_listed_in_plain_words(durable_server, profile, contexts):
    server = durable_server
    url, prof, page = ann_in_a_profile(server, profile, contexts)
    page.on("dialog", lambda d: d.accept())
    label = page.locator('[data-item="t1"] .tile-label').text_content()

    port = server.port
    server.stop()
    expect(page.locator("#app")).to_have_attribute("data-connected", "false")
    drag(page, "t1", "t2")
    expect(page.locator("#unsaved")).to_have_text("1 unsaved change")
    prof.close()

    # Meanwhile Bo moves the same tile.
    server.start(port=port)
    bo = Client(contexts, server, "b1", "Bo")
    bo.drag("t1", '[data-item="t3"]')
    bo_order = order(bo.page)

    prof.launch()
    page = prof.page(url)
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=15000)
    refused = page.locator("#refused li")
    expect(refused).to_have_count(1, timeout=10000)
    text = refused.text_content().replace("\u2068", "").replace("\u2069", "")
    assert text == f"Your swap of {label} conflicted with Bo's; it was not applied."
    expect(page.locator("#unsaved")).to_have_text("")
    # The board as it is: Bo's change, not Ann's.
    assert order(page) == bo_order
    assert len(op_log(server, "b1")) == 1  # Bo's alone


def test_two_tabs_sending_one_kept_change_apply_it_once(durable_server, contexts):
    contexts.allow_socket_errors()
    contexts.allow("ERR_CONNECTION_REFUSED")
    server = durable_server
    context = contexts()
    server.create("colors", "b1", title="b1")  # a link to a missing board asks first (issue 35)
    url = f"{server.url}/?board=b1&name=Ann"
    a = context.new_page()
    a.goto(url)
    offline_ready(a)
    b = context.new_page()
    b.goto(url)
    offline_ready(b)
    for p in (a, b):
        p.on("dialog", lambda d: d.accept())

    port = server.port
    server.stop()
    for p in (a, b):
        expect(p.locator("#app")).to_have_attribute("data-connected", "false")
    drag(a, "t1", "t2")
    [op] = pending_ops(a)
    # The other tab, reloaded, has the change too (one IndexedDB for the browser): both will send it.
    b.reload()
    expect(b.locator("#unsaved")).to_have_text("1 unsaved change")
    assert pending_ops(b) == [op]

    server.start(port=port)
    for p in (a, b):
        expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=15000)
        expect(p.locator("#app")).to_have_attribute("data-unsaved", "0", timeout=10000)
        expect(p.locator("#unsaved")).to_have_text("")
    assert [o["op"] for o in op_log(server, "b1")] == [op]
    want = ["t2", "t1", *GRID[2:]]
    assert server.zone("b1", "grid") == want
    assert order(a) == want and order(b) == want


def test_leaving_asks_while_typed_text_is_not_sent_and_only_then(server, contexts):
    server.create("kanban", "k1")
    page = contexts().new_page()
    page.goto(f"{server.url}/?board=k1&name=Ann")
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    asked = lambda: page.evaluate("""() => {
      const e = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(e);
      return e.defaultPrevented;
    }""")
    assert asked() is False
    field = page.locator('[data-add-card="todo"] input')
    field.fill("Buy milk")  # typed, not added yet
    assert asked() is True
    field.press("Enter")  # added: sent, and (connected) soon committed
    expect(page.locator("#app")).to_have_attribute("data-unsaved", "0")
    assert asked() is False
    # A card's editor: opening it is not typing; changing its text is, until it is committed.
    card = page.locator('[data-zone="todo"] [data-item]').first
    card.dblclick()
    label = page.locator('.card-editor [aria-label="Card label"]')
    expect(label).to_be_focused()
    assert asked() is False
    label.fill("Buy oat milk")
    assert asked() is True
    label.press("Enter")
    expect(page.locator(".card-editor")).to_have_count(0)
    expect(page.locator("#app")).to_have_attribute("data-unsaved", "0")
    assert asked() is False
