"""The web client with access control on (issue 9): the token from the page's fragment, a prompt
when there is none, no reconnect loop when it is refused, links that keep the token."""
import re
import subprocess

import pytest
from playwright.sync_api import expect

from harness import Server

SECRET = "a browser test secret, long enough"


@pytest.fixture
def secured(server_binary, tmp_path, request):
    secrets = tmp_path / "secrets"
    secrets.write_text(SECRET + "\n")
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    s = Server(server_binary, name).start(extra_args=["--auth-secret", str(secrets)])
    s.secrets = str(secrets)
    yield s
    s.stop()


def token(server, board, role="edit", name=None):
    args = [server.binary, "token", board, "--role", role, "--auth-secret", server.secrets]
    if name:
        args += ["--name", name]
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=30).stdout.strip()


def page(browser, url):
    context = browser.new_context(viewport={"width": 760, "height": 720})
    context.set_default_timeout(5000)
    p = context.new_page()
    p.goto(url)
    return p


def test_a_token_in_the_fragment_joins_and_the_copied_link_keeps_it(browser, secured):
    t = token(secured, "club", name="Ann")
    p = page(browser, f"{secured.url}/?board=club#token={t}")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    expect(p.locator("#users")).to_contain_text("Ann")
    p.context.grant_permissions(["clipboard-read", "clipboard-write"])
    p.locator("#copy-link").click()
    expect(p.locator("#copy-link")).to_contain_text("Copied")
    assert p.evaluate("navigator.clipboard.readText()").endswith(f"?board=club#token={t}")
    # The token never went to the server in a request line.
    assert t not in open(secured.log_path).read()
    p.context.close()


def test_without_a_valid_token_the_page_asks_once_and_does_not_loop(browser, secured):
    p = page(browser, "about:blank")
    prompts = []
    p.on("dialog", lambda d: (prompts.append(d.message), d.dismiss()))
    sockets = []
    p.on("websocket", lambda ws: sockets.append(ws))
    p.goto(f"{secured.url}/?board=club")
    expect(p.locator("#conn")).to_have_text(re.compile("Not allowed"), timeout=10000)
    assert len(prompts) == 1 and "access token" in prompts[0]
    expect(p.locator("#toast")).to_contain_text("access token")
    assert len(sockets) == 1, "a refused token is not retried on its own"
    p.context.close()


def test_a_token_pasted_at_the_prompt_joins(browser, secured):
    t = token(secured, "club")
    p = page(browser, "about:blank")
    p.on("dialog", lambda d: d.accept(t))
    p.goto(f"{secured.url}/?board=club")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    assert p.evaluate("location.hash") == f"#token={t}"
    p.context.close()


def test_a_view_token_watches_but_cannot_move_tiles(browser, secured):
    # The editor first: a view token never creates the board (its hello for one that does not
    # exist yet is refused with 4404).
    editor = page(browser, f"{secured.url}/?board=club#token={token(secured, 'club', 'edit', 'Ed')}")
    expect(editor.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    viewer = page(browser, f"{secured.url}/?board=club#token={token(secured, 'club', 'view', 'Vi')}")
    expect(viewer.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    viewer.keyboard.press("Tab")
    box = viewer.locator('[data-item="t1"]').bounding_box()
    target = viewer.locator('[data-item="t5"]').bounding_box()
    viewer.mouse.move(box["x"] + 20, box["y"] + 20)
    viewer.mouse.down()
    viewer.mouse.move(box["x"] + 30, box["y"] + 30, steps=3)
    viewer.mouse.move(target["x"] + 20, target["y"] + 20, steps=8)
    viewer.mouse.up()
    # The server refused it: both pages still show the board as it was.
    first = lambda p: p.eval_on_selector_all('[data-zone="grid"] [data-item]', "els => els[0].dataset.item")
    viewer.wait_for_function("() => document.querySelector('#app').dataset.seq === '0'")
    expect(viewer.locator('[data-zone="grid"] [data-item]').first).to_have_attribute("data-item", "t1")
    assert first(editor) == "t1"
    editor.context.close()
    viewer.context.close()
