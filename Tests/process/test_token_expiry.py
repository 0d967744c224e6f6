"""Tokens that end (issue 22) over real sockets: a session closes with 4401 "token expired" at its
token's expiry; `auth` with a fresh token keeps it; a view token makes its ops forbidden; a bad
token changes nothing. Tokens are minted by `shuffleboard token --ttl 3s`."""
import base64
import json
import time

import pytest
from harness import Client
from test_auth import OLD, mint


@pytest.fixture
def secured(servers, tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    return servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "secrets"))


def expiry(token: str) -> int:
    """The `e` claim of a token, seconds since 1970."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["e"]


def joined(server, token: str, name: str = "Ada") -> Client:
    c = Client(server)
    c.send({"type": "hello", "board": "demo", "name": name, "token": token})
    c.expect(lambda m: m["type"] == "welcome")
    return c


def open_and_quiet_until(c: Client, wall: float) -> None:
    """Nothing comes, and the server does not close, until the wall clock passes `wall` (a
    close would raise ConnectionClosed); then a ping still gets its pong."""
    with pytest.raises(TimeoutError):
        c.recv(timeout=max(0.0, wall - time.time()))
    c.send({"type": "ping"})
    c.expect(lambda m: m["type"] == "pong")


def test_a_token_of_a_few_seconds_closes_its_session_with_4401(secured, tmp_path):
    token = mint(tmp_path, "demo", "--role", "edit", "--ttl", "3s")
    holder = joined(secured, token)
    watcher = joined(secured, mint(tmp_path, "demo", "--role", "view"), "Wat")
    holder.send({"type": "dragStart", "item": "t1"})
    watcher.expect(lambda m: m["type"] == "dragStart" and m["item"] == "t1")
    error = holder.expect(lambda m: m["type"] == "error", timeout=10)
    closed_at = time.time()
    assert (error["code"], error["message"]) == ("unauthorized", "token expired")
    assert holder.wait_closed() == 4401
    assert holder.ws.protocol.close_rcvd.reason == "token expired"
    # Not before its expiry, and within the second the protocol promises (plus scheduling slack).
    assert expiry(token) - 0.05 <= closed_at < expiry(token) + 2.5
    # Its drag is released as for any close.
    drop = watcher.expect(lambda m: m["type"] == "drop")
    assert (drop["item"], drop["reason"]) == ("t1", "left")
    holder.close()
    watcher.close()


def test_a_refresh_keeps_the_session_past_the_first_tokens_expiry(secured, tmp_path):
    first = mint(tmp_path, "demo", "--role", "edit", "--ttl", "3s")
    c = joined(secured, first)
    fresh = mint(tmp_path, "*", "--role", "edit", "--ttl", "1h")
    c.send({"type": "auth", "token": fresh})
    assert c.expect(lambda m: m["type"] == "auth") == {"type": "auth", "role": "edit", "exp": expiry(fresh)}
    open_and_quiet_until(c, expiry(first) + 1.5)
    c.send({"type": "toggle", "op": "after", "base": 0, "item": "t1", "on": True})
    assert c.result_of("after")["type"] == "toggle"
    c.close()


def test_a_refresh_with_a_view_token_makes_ops_forbidden(secured, tmp_path):
    c = joined(secured, mint(tmp_path, "demo", "--role", "edit", "--ttl", "1h"))
    c.send({"type": "swap", "op": "before", "base": 0, "a": "t1", "b": "t2"})
    assert c.result_of("before")["type"] == "swap"
    c.send({"type": "auth", "token": mint(tmp_path, "demo", "--role", "view", "--ttl", "1h")})
    assert c.expect(lambda m: m["type"] == "auth")["role"] == "view"
    c.send({"type": "swap", "op": "after", "base": 1, "a": "t1", "b": "t2"})
    assert c.result_of("after")["reason"] == "forbidden"
    c.close()


def test_a_bad_refresh_leaves_the_session_on_its_old_token(secured, tmp_path):
    token = mint(tmp_path, "demo", "--role", "edit", "--ttl", "3s")
    c = joined(secured, token)
    good = mint(tmp_path, "demo", "--role", "admin", "--ttl", "1h")
    forged = good[:-2] + ("A" if good[-2] != "A" else "B") + good[-1]
    for bad in (forged, mint(tmp_path, "other", "--role", "admin", "--ttl", "1h"), "nonsense"):
        c.send({"type": "auth", "token": bad})
        assert c.expect(lambda m: m["type"] == "error")["code"] == "unauthorized"
    c.send({"type": "toggle", "op": "still", "base": 0, "item": "t1", "on": True})
    assert c.result_of("still")["type"] == "toggle", "still an editor, still open"
    secured.wait_for_log(r"auth for board demo refused")
    error = c.expect(lambda m: m["type"] == "error", timeout=10)
    assert error["message"] == "token expired", "the old expiry stands"
    assert c.wait_closed() == 4401
    c.close()
