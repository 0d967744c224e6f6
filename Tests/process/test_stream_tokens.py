"""Event streams end with their token (issue 29, finding 1), written as the attack: a stream opened
with a `view` token kept every later op after the token was revoked (the WebSocket on the same
token was closed 4401 at once), and a stream on a 4 s token still delivered at 13 s. Now the
stream gets `event: revoked` / `event: expired` within a second and ends; reconnecting with the
same token is refused (401), and the ops committed after that are never sent on it."""

import time

import pytest
from harness import Client, run_cli
from test_rest_events import BOARD, Stream, post_op


@pytest.fixture
def secured(servers, tmp_path):
    (tmp_path / "secrets").write_text("a secret long enough to sign tokens\n")
    server = servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "secrets"))
    server.mint = lambda *args: mint(tmp_path, *args)
    assert server.http("POST", "/api/boards", BOARD, token=mint(tmp_path, "*", "--role", "admin"))[0] == 201
    return server


def mint(tmp_path, board: str, *args: str) -> str:
    result = run_cli(["token", board, "--auth-secret", str(tmp_path / "secrets"), *args], str(tmp_path))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def rest_op(server, token: str, n: int) -> None:
    op = {"type": "toggle", "op": f"after-{n}", "base": n, "item": "t1", "on": n % 2 == 0}
    status, body = post_op(server, op, token=token)
    assert status == 200, body


def ops_until_end(stream: Stream, deadline: float) -> tuple[list[str], dict | None]:
    """The op ids the stream delivers and the event that ends it (None: it did not end in time)."""
    ops: list[str] = []
    while time.monotonic() < deadline:
        try:
            event = stream.next_event(timeout=max(0.05, deadline - time.monotonic()))
        except EOFError:
            return ops, None
        except TimeoutError:
            break
        if event["event"] == "op":
            ops.append(event["data"]["op"])
        elif event["event"] in ("revoked", "expired"):
            with pytest.raises(EOFError):  # The stream ends right after it.
                stream.next(timeout=5)
            return ops, event
    raise AssertionError(f"the stream neither ended nor said why by the deadline; it delivered {ops}")


def test_a_stream_on_a_revoked_token_gets_revoked_and_ends_at_once(secured):
    leaked = secured.mint("ci", "--role", "view", "--name", "Leak")
    editor = secured.mint("ci", "--role", "edit")
    admin = secured.mint("ci", "--role", "admin")
    stream = Stream(secured, f"/api/boards/ci/events?since=0&token={leaked}")
    assert stream.status == 200
    watcher = Client(secured)
    watcher.send({"type": "hello", "board": "ci", "name": "Watch", "token": leaked})
    watcher.expect(lambda m: m["type"] == "welcome")
    rest_op(secured, editor, 0)
    assert stream.next_event()["data"]["op"] == "after-0"
    revoked_at = time.monotonic()
    assert secured.http("POST", "/api/revocations", body={"token": leaked}, token=admin)[0] == 200
    assert watcher.wait_closed() == 4401
    ops, end = ops_until_end(stream, deadline=revoked_at + 5)
    assert time.monotonic() - revoked_at < 1.0, "the stream must end within a second of the revocation"
    assert end == {"event": "revoked", "data": {"reason": "token revoked"}}, (ops, end)
    stream.close()
    watcher.close()
    # Nothing after it, and no way back in on the same token.
    for n in range(1, 4):
        rest_op(secured, editor, n)
    assert Stream(secured, f"/api/boards/ci/events?since=0&token={leaked}").status == 401


def test_a_stream_ends_with_expired_at_its_tokens_expiry(secured):
    short = secured.mint("ci", "--role", "view", "--ttl", "3s")
    editor = secured.mint("ci", "--role", "edit")
    stream = Stream(secured, f"/api/boards/ci/events?since=0&token={short}")
    assert stream.status == 200
    opened = time.monotonic()
    ops, end = ops_until_end(stream, deadline=opened + 8)
    assert end == {"event": "expired", "data": {"reason": "token expired"}}, (ops, end)
    elapsed = time.monotonic() - opened
    # Minted at most a second before it opened, with 3 s to live: it ends 2-4 s in (ticks are 250 ms).
    assert 1.5 < elapsed < 4.5, elapsed
    stream.close()
    rest_op(secured, editor, 0)
    assert Stream(secured, f"/api/boards/ci/events?since=0&token={short}").status == 401
