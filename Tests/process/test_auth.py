"""Access control over real sockets (issue 9): tokens minted by `shuffleboard token`, refused
hellos (4401), view vs edit vs admin on WebSocket and HTTP, key rotation."""
import base64
import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request

import pytest
from harness import Client, run_cli
from websockets.exceptions import ConnectionClosed

OLD = "the old secret, long enough to sign"
NEW = "the new secret, which signs from now on"


def mint(tmp_path, board: str, *args: str) -> str:
    result = run_cli(["token", board, "--auth-secret", str(tmp_path / "secrets"), *args], str(tmp_path))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def hand_made(secret: str, payload: dict) -> str:
    """A token made without the server's code, to sign claims the CLI will not (an expiry passed)."""
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    signed = "v1." + b64(json.dumps(payload, separators=(",", ":")).encode())
    return signed + "." + b64(hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest())


@pytest.fixture
def secured(servers, tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    return servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "secrets"))


def refused(server, token):
    c = Client(server)
    hello = {"type": "hello", "board": "demo", "name": "x"}
    if token is not None:
        hello["token"] = token
    c.send(hello)
    error = c.expect(lambda m: m["type"] == "error")
    code = c.wait_closed()
    c.close()
    return error["code"], code


def test_hello_needs_a_valid_token_for_its_board(secured, tmp_path):
    good = mint(tmp_path, "demo", "--role", "edit")
    forged = good[:-2] + ("A" if good[-2] != "A" else "B") + good[-1]
    expired = hand_made(OLD, {"b": "demo", "r": "edit", "e": int(time.time()) - 1})
    for token in (None, forged, mint(tmp_path, "other", "--role", "admin"), expired, "nonsense"):
        assert refused(secured, token) == ("unauthorized", 4401), token
    secured.wait_for_log(r"hello for board demo refused")  # The log is read by a thread: wait for it.
    c = Client(secured)
    c.hello("demo", "Ada")  # no token
    assert c.welcome["code"] == "unauthorized"
    c.close()
    ok = Client(secured)
    ok.send({"type": "hello", "board": "demo", "name": "Ada", "token": good})
    assert ok.expect(lambda m: m["type"] == "welcome")["users"][0]["name"] == "Ada"
    ok.close()


def test_a_viewer_watches_an_editor_and_cannot_move_a_tile(secured, tmp_path):
    editor, viewer = Client(secured), Client(secured)
    editor.send({"type": "hello", "board": "demo", "name": "Ed", "token": mint(tmp_path, "demo", "--role", "edit")})
    editor.expect(lambda m: m["type"] == "welcome")
    viewer.send({"type": "hello", "board": "demo", "name": "Vi",
                 "token": mint(tmp_path, "demo", "--role", "view", "--name", "Watcher")})
    welcome = viewer.expect(lambda m: m["type"] == "welcome")
    assert [u["name"] for u in welcome["users"]] == ["Ed", "Watcher"], "the token's name wins"
    viewer.send({"type": "swap", "op": "v-1", "base": 0, "a": "t1", "b": "t2"})
    assert viewer.result_of("v-1")["reason"] == "forbidden"
    viewer.send({"type": "dragStart", "item": "t1"})
    assert viewer.expect(lambda m: m["type"] == "reject") == {
        "type": "reject", "op": None, "reason": "forbidden", "seq": 0, "item": "t1"}
    editor.send({"type": "swap", "op": "e-1", "base": 0, "a": "t1", "b": "t2"})
    assert viewer.expect(lambda m: m["type"] == "swap")["op"] == "e-1"
    editor.close()
    viewer.close()


def test_the_api_needs_bearer_tokens_with_the_right_role(secured, tmp_path):
    def call(method, path, token=None, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://127.0.0.1:{secured.port}{path}", data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    admin = mint(tmp_path, "*", "--role", "admin")
    assert call("POST", "/api/boards", admin, {"id": "plan", "template": "kanban"})[0] == 201
    status, body = call("GET", "/api/boards")
    assert status == 401 and body["error"] == "unauthorized"
    assert call("GET", "/api/boards/plan", mint(tmp_path, "plan", "--role", "view"))[0] == 200
    assert call("GET", "/api/boards/plan", mint(tmp_path, "other", "--role", "view"))[0] == 403
    assert call("POST", "/api/boards", mint(tmp_path, "x", "--role", "edit"), {"id": "x", "template": "paint"})[0] == 403
    status, body = call("DELETE", "/api/boards/plan", mint(tmp_path, "plan", "--role", "edit"))
    assert status == 403 and body["error"] == "forbidden"
    assert call("GET", "/api/boards", mint(tmp_path, "nope", "--role", "view")) == (200, {"boards": [], "next": None})
    assert call("DELETE", "/api/boards/plan", mint(tmp_path, "plan", "--role", "admin"))[0] == 200
    assert call("GET", "/api/templates")[0] == 200
    assert call("GET", "/healthz")[0] == 200


def test_a_view_token_never_creates_a_board(secured, tmp_path):
    """Issue 17 (5): a view token's hello for an unknown id is refused with 4404 and makes nothing,
    so an admin's create of that id works afterwards."""
    def hello(board, token):
        c = Client(secured)
        c.send({"type": "hello", "board": board, "name": "Eve", "token": token})
        answer = c.expect(lambda m: m["type"] in ("error", "welcome"))
        return c, answer

    view_all = mint(tmp_path, "*", "--role", "view")
    viewer, answer = hello("squat", view_all)
    assert answer["type"] == "error" and answer["code"] == "unknown_board", answer
    assert viewer.wait_closed() == 4404
    viewer.close()
    admin = mint(tmp_path, "*", "--role", "admin")
    assert secured.http("GET", "/api/boards/squat", token=admin)[0] == 404
    assert secured.http("POST", "/api/boards", {"id": "squat", "template": "kanban"}, token=admin)[0] == 201
    watcher, answer = hello("squat", view_all)
    assert answer["type"] == "welcome" and answer["board"]["id"] == "squat"
    watcher.close()
    editor, answer = hello("fresh", mint(tmp_path, "fresh", "--role", "edit"))
    assert answer["type"] == "welcome", "an edit token still makes a board on hello"
    editor.close()


def test_a_rotated_secret_keeps_old_tokens_working(servers, tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    old_token = mint(tmp_path, "demo", "--role", "edit")
    (tmp_path / "secrets").write_text(f"{NEW}\n{OLD}\n")
    new_token = mint(tmp_path, "demo", "--role", "edit")
    server = servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "secrets"))
    for token in (old_token, new_token):
        c = Client(server)
        c.send({"type": "hello", "board": "demo", "name": "Ro", "token": token})
        assert c.expect(lambda m: m["type"] in ("welcome", "error"))["type"] == "welcome"
        c.close()
    # The new secret signs: a server that knows only the old one refuses the new token.
    (tmp_path / "old-only").write_text(f"{OLD}\n")
    old_server = servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "old-only"))
    assert refused(old_server, new_token) == ("unauthorized", 4401)


def test_token_command_and_bad_secret_files(tmp_path):
    (tmp_path / "short").write_text("too short\n")
    result = run_cli(["token", "demo", "--auth-secret", str(tmp_path / "short")], str(tmp_path))
    assert result.returncode == 1 and "16 bytes" in result.stderr
    for args in (["token"], ["token", "demo"], ["token", "demo", "--auth-secret", "f", "--ttl", "1y"],
                 ["token", "demo", "--auth-secret", "f", "--role", "god"], ["token", "no/slash", "--auth-secret", "f"]):
        assert run_cli(args, str(tmp_path)).returncode == 2, args
    result = run_cli(["serve", "--port", "0", "--memory", "--auth-secret", str(tmp_path / "missing")], str(tmp_path))
    assert result.returncode == 1 and "--auth-secret" in result.stderr


def test_listening_beyond_loopback_without_auth_warns(servers):
    server = servers("--host", "0.0.0.0", "--port", "0", "--memory", wait=False)
    server.wait_for_log(r"listening on http://0\.0\.0\.0:\d+/")
    assert "warning listening on 0.0.0.0 without --auth-secret" in server.log()
