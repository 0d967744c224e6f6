"""Sign-in through a real proxy (issue 34): deploy/haproxy-sso.cfg as shipped, with a userlist of
its own, in front of a server started with --auth-proxy-header X-Forwarded-User --auth-proxy-from
127.0.0.1 (HAProxy's address). A person signs in with basic auth and is that member over HTTP and
on a WebSocket without any token; a wrong password or none gets HAProxy's 401; a sign-in header a
client sends is replaced (SSO frontend) or removed (guests' frontend), so nobody names anyone;
a share-link guest comes in through the guests' frontend on its token; and a grant an admin makes
holds for the signed-in member at once."""
import base64
import contextlib
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from harness import SUBPROTOCOL, WAIT
from ports import free_port
from test_auth import OLD, mint
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = """userlist people
    user alice password {alice}
    user bob password {bob}
"""




def crypt(password: str) -> str:
    return subprocess.run(["openssl", "passwd", "-6", password], check=True, capture_output=True,
                          text=True).stdout.strip()


def basic(user: str, password: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def call(port: int, path: str, headers=None, method="GET", body=None) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return 0, None  # nothing listens (yet)
    with contextlib.suppress(ValueError):
        return status, json.loads(text)
    return status, text


@pytest.fixture
def sso(servers, tmp_path):
    if not shutil.which("haproxy"):
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    server = servers("--port", "0", "--memory", "--host", "127.0.0.1", "--auth-secret", str(tmp_path / "secrets"),
                     "--auth-proxy-header", "X-Forwarded-User", "--auth-proxy-from", "127.0.0.1",
                     "--trusted-proxy", "127.0.0.1")
    people = tmp_path / "people.cfg"
    people.write_text(PEOPLE.format(alice=crypt("alice's password"), bob=crypt("bob's password")))
    config = str(ROOT / "deploy" / "haproxy-sso.cfg")
    front, guests = free_port(), free_port()
    env = dict(os.environ, SHUFFLEBOARD_BIND=f"127.0.0.1:{front}", SHUFFLEBOARD_GUEST_BIND=f"127.0.0.1:{guests}",
               SHUFFLEBOARD_SERVER=f"127.0.0.1:{server.port}")
    check = subprocess.run(["haproxy", "-c", "-f", config, "-f", str(people)], env=env, capture_output=True,
                           text=True, timeout=30)
    assert check.returncode == 0, check.stdout + check.stderr
    log = open(tmp_path / "haproxy.log", "w")
    proc = subprocess.Popen(["haproxy", "-db", "-f", config, "-f", str(people)], env=env, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + WAIT
        while call(guests, "/healthz")[0] != 200:  # HAProxy listens (bounded: WAIT, then fail)
            assert proc.poll() is None, (tmp_path / "haproxy.log").read_text()
            assert time.monotonic() < deadline, "haproxy did not answer"
            time.sleep(0.05)
        yield server, front, guests
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def test_people_sign_in_through_haproxy_and_nobody_can_name_anyone(sso, tmp_path):
    server, front, guests = sso
    status, _ = call(front, "/api/me")
    assert status == 401, "HAProxy asks for a password"
    assert call(front, "/api/me", basic("alice", "wrong"))[0] == 401
    alice = basic("alice", "alice's password")
    assert call(front, "/api/me?board=demo", alice) == (
        200, {"via": "proxy", "member": "alice", "name": "alice", "role": "edit"})
    # A client that names someone else: HAProxy replaces the header.
    assert call(front, "/api/me", {**alice, "X-Forwarded-User": "bob"})[1]["member"] == "alice"
    # Through the guests' frontend, the header is removed: no token, no entry.
    assert call(guests, "/api/me", {"X-Forwarded-User": "alice"})[0] == 401
    # Nor straight to the server from another address (only HAProxy's is trusted).
    conn_status = call_from("127.0.0.2", server.port, "/api/me", {"X-Forwarded-User": "alice"})
    assert conn_status == 401

    # A WebSocket through HAProxy: signed in, no token in hello.
    with connect(f"ws://127.0.0.1:{front}/ws", subprotocols=[SUBPROTOCOL], additional_headers=alice,
                 open_timeout=WAIT) as ws:
        ws.send(json.dumps({"type": "hello", "board": "demo", "name": "ignored"}))
        welcome = next_of(ws, "welcome")
        me = next(u for u in welcome["users"] if u["id"] == welcome["you"])
        assert (me["name"], me["member"]) == ("alice", "alice")
        ws.send(json.dumps({"type": "toggle", "op": "a1", "base": welcome["seq"], "item": "t1", "on": True}))
        assert next_of(ws, "toggle")["member"] == "alice"
        # An admin (a token, through the guests' door) makes alice a viewer: her session is told.
        admin = mint(tmp_path, "demo", "--role", "admin")
        status, grant = call(guests, "/api/boards/demo/members/alice", {"Authorization": f"Bearer {admin}"}, "PUT",
                             {"role": "view"})
        assert (status, grant["role"]) == (200, "view")
        assert next_of(ws, "auth")["role"] == "view"
    # Bob, made an admin of the board by a grant, manages it signed in through HAProxy.
    assert call(guests, "/api/boards/demo/members/bob", {"Authorization": f"Bearer {admin}"}, "PUT",
                {"role": "admin"})[0] == 200
    status, listed = call(front, "/api/boards/demo/grants", basic("bob", "bob's password"))
    assert status == 200 and [(g["member"], g["role"]) for g in listed["grants"]] == [("alice", "view"), ("bob", "admin")]
    # A share link's guest joins through the guests' frontend on the link's token.
    status, link = call(front, "/api/boards/demo/links", basic("bob", "bob's password"), "POST", {"role": "edit"})
    assert status == 201, link
    with connect(f"ws://127.0.0.1:{guests}/ws", subprotocols=[SUBPROTOCOL], open_timeout=WAIT) as ws:
        ws.send(json.dumps({"type": "hello", "board": "demo", "name": "Guest", "token": link["token"]}))
        assert next_of(ws, "welcome")["type"] == "welcome"


def call_from(source: str, port: int, path: str, headers: dict) -> int:
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT, source_address=(source, 0))
    try:
        conn.request("GET", path, headers=headers)
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def next_of(ws, kind: str) -> dict:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        frame = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        for message in frame if isinstance(frame, list) else [frame]:
            assert message["type"] != "error", message
            if message["type"] == kind:
                return message
    raise AssertionError(f"no {kind}")
