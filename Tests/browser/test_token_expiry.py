"""Tokens that end in the web client (issue 22): the bundled page, which has only the `#token=`
it was opened with, says its access has expired when the server closes with 4401 and does not
reconnect; a page given a `getToken()` hook refreshes before expiry and keeps going; a revoked
token ends the page with its own notice."""
import base64
import json
import re
import subprocess
import urllib.request

from playwright.sync_api import expect

from harness import RECORD_SOCKETS
from test_auth import secured  # noqa: F401 (a fixture)


def mint(server, board, ttl, role="edit"):
    args = [server.binary, "token", board, "--role", role, "--ttl", ttl, "--auth-secret", server.secrets]
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=30).stdout.strip()


def expiry(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["e"]


def test_a_five_second_token_ends_with_the_expired_notice_and_no_reconnect(contexts, secured):  # noqa: F811
    t = mint(secured, "club", "5s")
    p = contexts().new_page()
    # The page's sockets are counted in the page; its timers run on Playwright's clock.
    p.add_init_script(RECORD_SOCKETS)
    p.clock.install()
    p.goto(f"{secured.url}/?board=club#token={t}")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    # The server closes the session at the token's expiry (5 s, less the part of a second spent).
    expect(p.locator("#conn")).to_have_text("Your access has expired", timeout=10000)
    assert p.evaluate("window.__frames.received").count({"type": "error", "code": "unauthorized",
                                                        "message": "token expired"}) == 1
    expect(p.locator("#toast")).to_contain_text("Your access has expired")
    # A minute on the page's clock: far past the longest reconnect delay, so any reconnect the
    # page had planned has been made by now.
    p.clock.run_for(60_000)
    assert p.evaluate("window.__sockets") == 1, "an expired token is not retried"
    expect(p.locator("#conn")).to_have_text("Your access has expired")


def test_a_page_with_get_token_refreshes_and_keeps_going_past_its_first_tokens_expiry(contexts, secured):  # noqa: F811
    first = mint(secured, "club", "4s")
    fresh = []

    def next_token():
        fresh.append(mint(secured, "club", "1h"))
        return fresh[-1]

    p = contexts().new_page()
    p.expose_function("nextToken", next_token)
    p.add_init_script(RECORD_SOCKETS)
    p.add_init_script("window.shuffleboardConfig = { getToken: () => window.nextToken() };")
    p.goto(f"{secured.url}/?board=club#token={first}")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    # The refresh comes at 70–80% of the first token's remaining life, and the server answers it.
    p.wait_for_function("() => window.__frames.received.some((m) => m.type === 'auth')", timeout=10000)
    answer = next(m for m in p.evaluate("window.__frames.received") if m["type"] == "auth")
    assert answer == {"type": "auth", "role": "edit", "exp": expiry(fresh[0])}
    sent = [m for m in p.evaluate("window.__frames.sent") if m["type"] == "auth"]
    assert sent == [{"type": "auth", "token": fresh[0]}]
    # Past the first token's expiry (and the second the server may take), the page is still on
    # its first socket, connected, and its ops commit.
    p.wait_for_function("(after) => Date.now() / 1000 > after", arg=expiry(first) + 1.5, timeout=10000)
    expect(p.locator("#conn")).to_have_text(re.compile("Connected"))
    assert p.evaluate("window.__sockets") == 1
    assert not any(m["type"] == "error" for m in p.evaluate("window.__frames.received"))


def test_a_revoked_token_ends_the_page_with_the_revoked_notice(contexts, secured):  # noqa: F811
    t = mint(secured, "club", "1h")
    p = contexts().new_page()
    p.add_init_script(RECORD_SOCKETS)
    p.clock.install()
    p.goto(f"{secured.url}/?board=club#token={t}")
    expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    request = urllib.request.Request(f"{secured.url}/api/revocations", data=json.dumps({"token": t}).encode(),
                                     method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {mint(secured, 'club', '1h', role='admin')}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
    expect(p.locator("#conn")).to_have_text("Your access has been revoked", timeout=10000)
    p.clock.run_for(60_000)
    assert p.evaluate("window.__sockets") == 1, "a revoked token is not retried"
