"""The web client with access control on (issue 9): the token from the page's fragment, a prompt
when there is none, no reconnect loop when it is refused, links that keep the token."""
import re
import subprocess

import pytest
from playwright.sync_api import expect

from harness import RECORD_SOCKETS

SECRET = "a browser test secret, long enough"


@pytest.fixture
def secured(make_server, tmp_path):
    secrets = tmp_path / "secrets"
    secrets.write_text(SECRET + "\n")
    s = make_server(["--auth-secret", str(secrets)])
    s.secrets = str(secrets)
    return s


def token(server, board, role="edit", name=None):
    args = [server.binary, "token", board, "--role", role, "--auth-secret", server.secrets]
    if name:
        args += ["--name", name]
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=30).stdout.strip()


def page(contexts, url, before_goto=None):
    """A page of its own (`contexts` fails the test on its errors) at `url`."""
    p = contexts().new_page()
    if before_goto:
        before_goto(p)
    p.goto(url)
    return p


def test_a_token_in_the_fragment_joins_and_the_copied_link_keeps_it(contexts, secured):
    t = token(secured, "club", name="Ann")
    p = page(contexts, f"{secured.url}/?board=club#token={t}")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    expect(p.locator("#users")).to_contain_text("Ann")
    p.context.grant_permissions(["clipboard-read", "clipboard-write"])
    p.locator("#copy-link").click()
    expect(p.locator("#copy-link")).to_contain_text("Copied")
    assert p.evaluate("navigator.clipboard.readText()").endswith(f"?board=club#token={t}")
    # The token never went to the server in a request line.
    assert t not in open(secured.log_path).read()


def test_without_a_valid_token_the_page_asks_once_and_does_not_loop(contexts, secured):
    p = page(contexts, "about:blank")
    prompts = []
    p.on("dialog", lambda d: (prompts.append(d.message), d.dismiss()))
    # The page first asks whether the board exists (issue 35); without a token the server says
    # 401, which the browser logs, and the page connects to let the server say why.
    contexts.allow("the server responded with a status of 401 (Unauthorized)")
    # The page's timers run on a fake clock, and its sockets are counted in the page.
    p.clock.install()
    p.add_init_script(RECORD_SOCKETS)
    p.goto(f"{secured.url}/?board=club")
    expect(p.locator("#conn")).to_have_text(re.compile("Not allowed"), timeout=10000)
    assert len(prompts) == 1 and "access token" in prompts[0]
    expect(p.locator("#toast")).to_contain_text("access token")
    # A minute on the page's clock: far past the longest reconnect delay (docs/web-client.md),
    # so any reconnect the page had planned has been made by now.
    p.clock.run_for(60_000)
    assert p.evaluate("window.__sockets") == 1, "a refused token is not retried on its own"
    expect(p.locator("#conn")).to_have_text(re.compile("Not allowed"))


def test_a_token_pasted_at_the_prompt_joins(contexts, secured):
    t = token(secured, "club")
    p = page(contexts, "about:blank")
    contexts.allow("the server responded with a status of 401 (Unauthorized)")  # as above
    p.on("dialog", lambda d: d.accept(t))
    p.goto(f"{secured.url}/?board=club")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    assert p.evaluate("location.hash") == f"#token={t}"


# True once the viewer sent a drag or an op, and the server answered each with `reject forbidden`
# (and never with a commit of an op of the viewer's).
VIEWER_REFUSED = """() => {
  const {sent, received} = window.__frames;
  const ops = sent.filter((m) => m.op).map((m) => m.op);
  const refused = received.filter((m) => m.type === 'reject' && m.reason === 'forbidden');
  const accepted = received.find((m) => m.op && ops.includes(m.op) && m.type !== 'reject');
  if (accepted) throw new Error('a viewer op was answered with ' + JSON.stringify(accepted));
  const dragRefused = refused.some((m) => !m.op);
  return sent.some((m) => m.type === 'dragStart') && dragRefused && ops.every((op) => refused.some((m) => m.op === op));
}"""


def pointer_drag(p, item: str, onto: str) -> None:
    """A whole mouse drag of tile `item` onto tile `onto`."""
    box = p.locator(f'[data-item="{item}"]').bounding_box()
    target = p.locator(f'[data-item="{onto}"]').bounding_box()
    # From the tile's middle: its corner holds the hover-revealed remove button.
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    p.mouse.move(x, y)
    p.mouse.down()
    p.mouse.move(x + 10, y + 10, steps=3)
    p.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
    p.mouse.up()


def test_a_view_token_watches_but_cannot_move_tiles(contexts, secured):
    # The editor first: a view token never creates the board (its hello for one that does not
    # exist yet is refused with 4404).
    editor = page(contexts, f"{secured.url}/?board=club#token={token(secured, 'club', 'edit', 'Ed')}")
    expect(editor.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    viewer = page(contexts, f"{secured.url}/?board=club#token={token(secured, 'club', 'view', 'Vi')}",
                  before_goto=lambda p: p.add_init_script(RECORD_SOCKETS))
    for p in (editor, viewer):
        expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    viewer.keyboard.press("Tab")
    pointer_drag(viewer, "t1", "t5")
    # The server refused everything the viewer sent about it (a drag, and a drop if the page sent
    # one before the drag's refusal came back): every op and the drag got `reject forbidden`.
    viewer.wait_for_function(VIEWER_REFUSED, timeout=5000)
    # So both pages still show the board as it was.
    first = lambda p: p.eval_on_selector_all('[data-zone="grid"] [data-item]', "els => els[0].dataset.item")
    expect(viewer.locator("#app")).to_have_attribute("data-seq", "0")
    expect(viewer.locator('[data-zone="grid"] [data-item]').first).to_have_attribute("data-item", "t1")
    assert first(editor) == "t1"
    # And the viewer does watch: the editor's swap shows on its page.
    pointer_drag(editor, "t1", "t5")
    expect(viewer.locator("#app")).to_have_attribute("data-seq", "1")
    expect(viewer.locator('[data-zone="grid"] [data-item]').first).to_have_attribute("data-item", "t5")
    assert first(editor) == "t5"
