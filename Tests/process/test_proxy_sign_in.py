"""Sign-in through a trusted proxy (issue 34) over real sockets: the user header is believed only
from --auth-proxy-from (a spoofed one from another address is ignored: that request stands on its
token, and gets 401 without one), a trusted request without it or with bad bytes in it gets 401,
a proxy user joins without a token under the proxy's name, and per-board grants (PUT, GET, DELETE
…/members/{member}, GET …/grants) are kept across a restart, reach a live session at once (a
downgraded editor is told and refused from then on) and go with their board; on two nodes sharing
PostgreSQL a grant made on one reaches a session on the other, and a proxy user's session and
REST op relayed to the board's owner keep their identity and role. Another source
address is another loopback address: the client's socket is bound to 127.0.0.2."""
import http.client
import json
import os
import signal
import subprocess
import uuid

import pytest
from harness import WAIT, Client
from test_auth import OLD, mint

PROXY = ("--auth-proxy-header", "X-Forwarded-User", "--auth-proxy-name-header", "X-Forwarded-Name",
         "--auth-proxy-from", "127.0.0.1/32")
TRUSTED, ELSEWHERE = "127.0.0.1", "127.0.0.2"
POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")


@pytest.fixture
def secrets(tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    return str(tmp_path / "secrets")


def request(server, method, path, source=TRUSTED, headers=None, body=None, token=None):
    """(status, JSON) of a request whose socket comes from `source`."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=WAIT, source_address=(source, 0))
    try:
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["content-type"] = "application/json"
        conn.request(method, path, body=data, headers=sent)
        answer = conn.getresponse()
        text = answer.read().decode()
        return answer.status, json.loads(text) if text else None
    finally:
        conn.close()


def as_user(member, name=None):
    """The proxy's headers; the name in UTF-8 (http.client sends str as Latin-1: this makes those bytes UTF-8)."""
    headers = {"X-Forwarded-User": member}
    if name:
        headers["X-Forwarded-Name"] = name.encode().decode("latin-1")
    return headers


def join(server, headers, source=TRUSTED, token=None, name="typed in the page"):
    c = Client(server, source_address=(source, 0), headers=headers)
    hello = {"type": "hello", "board": "demo", "name": name}
    if token:
        hello["token"] = token
    c.send(hello)
    return c


def test_the_header_is_believed_only_from_the_proxy(servers, tmp_path, secrets):
    server = servers("--port", "0", "--memory", "--auth-secret", secrets, *PROXY)
    assert request(server, "GET", "/api/me?board=demo", headers=as_user("alice", "Alice Ådahl")) == (
        200, {"via": "proxy", "member": "alice", "name": "Alice Ådahl", "role": "edit"})
    # The same header from another address is anyone's to send: ignored, so no token means 401.
    status, refused = request(server, "GET", "/api/me", source=ELSEWHERE, headers=as_user("alice"))
    assert (status, refused["error"]) == (401, "unauthorized")
    # From the proxy without the header: 401 too.
    assert request(server, "GET", "/api/boards", headers={})[0] == 401
    # A token still works beside the proxy, from anywhere (a share link's guest).
    token = mint(tmp_path, "demo", "--role", "view", "--name", "Guest")
    assert request(server, "GET", "/api/me?board=demo", source=ELSEWHERE, headers=as_user("alice"), token=token) == (
        200, {"via": "token", "member": None, "name": "Guest", "role": "view"})
    # Bad bytes from the proxy: 401, and the log line names the header, never its bytes.
    for value in ("alice smith", "al/ice", "a" * 65, "x" * 300, "ålice", "alice,bob"):
        status, refused = request(server, "GET", "/api/me", headers={"X-Forwarded-User": value.encode().decode("latin-1")})
        assert (status, refused["message"]) == (401, "the sign-in proxy named no valid user"), value
    assert request(server, "GET", "/api/me", headers=as_user("alice", "\x7fbell"))[0] == 401
    assert "smith" not in server.log() and "xxxxxxxx" not in server.log()
    server.wait_for_log(r"the x-forwarded-user header is not a member id")

    # WebSockets: from the proxy, hello needs no token and the proxy's name wins.
    alice = join(server, as_user("alice", "Alice Ådahl"))
    welcome = alice.expect(lambda m: m["type"] in ("welcome", "error"))
    assert welcome["type"] == "welcome", welcome
    me = next(u for u in welcome["users"] if u["id"] == welcome["you"])
    assert (me["name"], me["member"]) == ("Alice Ådahl", "alice")
    alice.send({"type": "toggle", "op": "a1", "base": welcome["seq"], "item": "t1", "on": True})
    done = alice.result_of("a1")
    assert done["type"] == "toggle" and done["member"] == "alice"
    # Spoofed from elsewhere without a token: refused like any hello without one.
    spoofed = join(server, as_user("alice"), source=ELSEWHERE)
    assert spoofed.expect(lambda m: m["type"] == "error")["code"] == "unauthorized"
    assert spoofed.wait_closed() == 4401
    # A bad header from the proxy: 4401.
    bad = join(server, as_user("not valid"))
    assert bad.expect(lambda m: m["type"] == "error")["code"] == "unauthorized"
    assert bad.wait_closed() == 4401
    # A guest with a token, from elsewhere, joins beside the proxy user.
    guest = join(server, {}, source=ELSEWHERE, token=mint(tmp_path, "demo", "--role", "edit"), name="Guest")
    assert guest.expect(lambda m: m["type"] in ("welcome", "error"))["type"] == "welcome"
    for c in (alice, spoofed, bad, guest):
        c.close()


def test_grants_are_kept_reach_live_sessions_and_go_with_their_board(servers, tmp_path, secrets):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets, *PROXY)
    admin = mint(tmp_path, "demo", "--role", "admin")
    alice = join(server, as_user("alice"))
    welcome = alice.expect(lambda m: m["type"] == "welcome")
    alice.send({"type": "toggle", "op": "a1", "base": welcome["seq"], "item": "t1", "on": True})
    assert alice.result_of("a1")["type"] == "toggle"  # the board is stored now
    # Only an admin of the board manages grants; requests are checked strictly.
    assert request(server, "PUT", "/api/boards/demo/members/bob", headers=as_user("alice"), body={"role": "admin"})[0] == 403
    for body in ({"role": "owner"}, {"role": "view", "extra": 1}, ["view"]):
        assert request(server, "PUT", "/api/boards/demo/members/bob", token=admin, body=body)[0] == 400, body
    assert request(server, "PUT", "/api/boards/demo/members/b%20b", token=admin, body={"role": "view"})[0] == 400
    everywhere = mint(tmp_path, "*", "--role", "admin")
    assert request(server, "PUT", "/api/boards/nothere/members/bob", token=everywhere, body={"role": "view"})[0] == 404
    # Bob is made an admin of the board; as a proxy user he then manages it himself.
    assert request(server, "PUT", "/api/boards/demo/members/bob", token=admin, body={"role": "admin"})[0] == 200
    # Alice holds a card; Bob makes her a viewer: she is told, lets go, and is refused from then on.
    alice.send({"type": "dragStart", "item": "t2"})
    alice.expect(lambda m: m["type"] == "dragStart" and m["item"] == "t2")
    status, grant = request(server, "PUT", "/api/boards/demo/members/alice", headers=as_user("bob"), body={"role": "view"})
    assert status == 200 and (grant["member"], grant["role"]) == ("alice", "view")
    released = alice.expect(lambda m: m["type"] in ("drop", "auth"))
    assert (released["type"], released["item"]) == ("drop", "t2"), "the hold goes first"
    told = alice.expect(lambda m: m["type"] == "auth")
    assert told["role"] == "view"
    alice.send({"type": "toggle", "op": "a2", "base": 1, "item": "t1", "on": False})
    refused = alice.result_of("a2")
    assert (refused["type"], refused["reason"]) == ("reject", "forbidden")
    assert request(server, "GET", "/api/me?board=demo", headers=as_user("alice"))[1]["role"] == "view"
    status, listed = request(server, "GET", "/api/boards/demo/grants", headers=as_user("bob"))
    assert status == 200 and [(g["member"], g["role"]) for g in listed["grants"]] == [("alice", "view"), ("bob", "admin")]
    assert listed["role"] == "edit"
    assert request(server, "GET", "/api/boards/demo/members/alice", token=admin)[1]["role"] == "view"
    alice.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    # Kept across a restart; taking a grant back gives the proxy's default again, at once.
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets, *PROXY)
    alice = join(server, as_user("alice"))
    welcome = alice.expect(lambda m: m["type"] == "welcome")
    alice.send({"type": "toggle", "op": "a3", "base": welcome["seq"], "item": "t1", "on": False})
    assert alice.result_of("a3")["reason"] == "forbidden"
    assert request(server, "DELETE", "/api/boards/demo/members/alice", token=admin) == (
        200, {"member": "alice", "removed": True})
    assert alice.expect(lambda m: m["type"] == "auth")["role"] == "edit"
    alice.send({"type": "toggle", "op": "a4", "base": welcome["seq"], "item": "t1", "on": False})
    assert alice.result_of("a4")["type"] == "toggle"
    assert request(server, "DELETE", "/api/boards/demo/members/alice", token=admin)[0] == 404
    assert request(server, "GET", "/api/boards/demo/members/alice", token=admin)[0] == 404
    # Deleting the board deletes its grants: a board made again under its id has none.
    alice.close()
    assert request(server, "DELETE", "/api/boards/demo", token=admin)[0] == 200
    assert request(server, "GET", "/api/boards/demo/grants", token=admin)[0] == 404
    # The id stays taken (409 `deleting`) until the revocations are loaded again (share links).
    server.wait_for_log(r"board demo is deleted", timeout=10)
    assert request(server, "POST", "/api/boards", token=mint(tmp_path, "*", "--role", "admin"),
                   body={"id": "demo", "template": "colors"})[0] == 201
    assert request(server, "GET", "/api/boards/demo/grants", token=admin)[1]["grants"] == []
    assert request(server, "GET", "/api/me?board=demo", headers=as_user("bob"))[1]["role"] == "edit"


@pytest.mark.skipif(not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")
def test_a_grant_made_on_one_node_reaches_a_session_on_another(servers, tmp_path, secrets):
    name = "g_" + uuid.uuid4().hex
    admin_db = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin_db, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    try:
        database = POSTGRES.rsplit("/", 1)[0] + "/" + name
        one = servers("--port", "0", "--store", database, "--node", "n1", "--auth-secret", secrets, *PROXY)
        two = servers("--port", "0", "--store", database, "--node", "n2", "--auth-secret", secrets, *PROXY)
        alice = join(two, as_user("alice"))
        welcome = alice.expect(lambda m: m["type"] == "welcome")
        alice.send({"type": "toggle", "op": "a1", "base": welcome["seq"], "item": "t1", "on": True})
        assert alice.result_of("a1")["type"] == "toggle"
        admin = mint(tmp_path, "demo", "--role", "admin")
        assert request(one, "PUT", "/api/boards/demo/members/alice", token=admin, body={"role": "view"})[0] == 200
        # Node two reloads the grants each second: its session hears of it without any request there.
        assert alice.expect(lambda m: m["type"] == "auth")["role"] == "view"
        alice.send({"type": "toggle", "op": "a2", "base": 1, "item": "t1", "on": False})
        assert alice.result_of("a2")["reason"] == "forbidden"
        # Bob comes in through node one; the board is node two's, so node one relays his session
        # and his REST op there, each under a token it mints for him.
        bob = join(one, as_user("bob", "Bob B"))
        welcome = bob.expect(lambda m: m["type"] == "welcome")
        me = next(u for u in welcome["users"] if u["id"] == welcome["you"])
        assert (me["name"], me["member"]) == ("Bob B", "bob")
        bob.send({"type": "toggle", "op": "b1", "base": welcome["seq"], "item": "t1", "on": False})
        assert bob.result_of("b1")["member"] == "bob"
        status, done = request(one, "POST", "/api/boards/demo/ops", headers=as_user("bob"),
                               body={"type": "toggle", "op": "r1", "base": 2, "item": "t2", "on": True})
        assert status == 200 and done["op"]["member"] == "bob", done
        # A grant change closes the relayed session with 1012; joining again brings the new role.
        assert request(one, "PUT", "/api/boards/demo/members/bob", token=admin, body={"role": "view"})[0] == 200
        assert bob.wait_closed() == 1012
        bob.close()
        bob = join(one, as_user("bob"))
        welcome = bob.expect(lambda m: m["type"] == "welcome")
        bob.send({"type": "toggle", "op": "b2", "base": welcome["seq"], "item": "t1", "on": True})
        assert bob.result_of("b2")["reason"] == "forbidden"
        bob.close()
        alice.close()
        for server in (one, two):
            server.signal(signal.SIGTERM)
            assert server.wait() == 0
    finally:
        subprocess.run([*admin_db, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
