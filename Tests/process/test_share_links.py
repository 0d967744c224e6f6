"""Share links made in the app (issue 34) over real sockets: an admin makes a link, someone joins
with its token and edits, the list never shows tokens, `/b/ID` sends a browser on with the
fragment left to it, the link survives a restart, and revoking it closes the live session with
4401 "token revoked" at once; on two nodes sharing PostgreSQL the other node's session closes too."""
import http.client
import os
import signal
import subprocess
import uuid

import pytest
from harness import Client
from test_auth import OLD, mint

POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")


@pytest.fixture
def secrets(tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    return str(tmp_path / "secrets")


def joined(server, token, name="Guest"):
    c = Client(server)
    c.send({"type": "hello", "board": "demo", "name": name, "token": token})
    c.expect(lambda m: m["type"] == "welcome")
    return c


def test_a_link_is_made_used_listed_kept_and_revoked(servers, tmp_path, secrets):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets)
    admin = mint(tmp_path, "demo", "--role", "admin")
    status, problem = server.http("POST", "/api/boards/demo/links", body={"role": "edit"}, token=admin)
    assert (status, problem["error"]) == (404, "unknown_board"), "a link is made for a board that exists"
    assert server.http("POST", "/api/boards", body={"id": "demo", "template": "colors"}, token=admin)[0] == 201
    status, made = server.http("POST", "/api/boards/demo/links", body={"role": "edit", "ttl": "2h"}, token=admin)
    assert status == 201, made
    assert made["role"] == "edit" and made["url"] == f"/b/demo#token={made['token']}"
    assert made["token"] not in server.log(), "the token is never logged"
    # A browser opening the link: /b/demo answers 302 to the page; the fragment never reaches the server.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/b/demo")
    answer = conn.getresponse()
    answer.read()
    conn.close()
    assert answer.status == 302 and answer.getheader("location") == "/?board=demo&join=1"
    # Bad requests: clear 400s, nothing stored.
    for body in ({"role": "admin"}, {"role": "view", "ttl": "1y"}, {"role": "view", "ttl": "91d"}, ["view"]):
        status, problem = server.http("POST", "/api/boards/demo/links", body=body, token=admin)
        assert status == 400 and problem["error"] == "bad_request", (body, problem)
    assert server.http("POST", "/api/boards/demo/links", body={"role": "view"},
                       token=mint(tmp_path, "demo", "--role", "edit"))[0] == 403
    guest = joined(server, made["token"])
    guest.send({"type": "toggle", "op": "g1", "base": 0, "item": "t1", "on": True})
    assert guest.result_of("g1")["type"] == "toggle"
    guest.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    # Kept across a restart, listed without its token.
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets)
    status, listed = server.http("GET", "/api/boards/demo/links", token=admin)
    assert status == 200 and [(l["id"], l["role"], l["exp"]) for l in listed["links"]] == [
        (made["id"], "edit", made["exp"])]
    assert made["token"] not in str(listed)
    guest, bystander = joined(server, made["token"]), joined(server, admin, "Admin")
    status, revoked = server.http("DELETE", f"/api/boards/demo/links/{made['id']}", token=admin)
    assert status == 200 and revoked["revoked"] is True
    error = guest.expect(lambda m: m["type"] == "error")
    assert (error["code"], error["message"]) == ("unauthorized", "token revoked")
    assert guest.wait_closed() == 4401
    bystander.send({"type": "toggle", "op": "b1", "base": 1, "item": "t1", "on": False})
    assert bystander.result_of("b1")["type"] == "toggle"
    assert server.http("GET", "/api/boards/demo", token=made["token"])[0] == 401
    assert server.http("GET", "/api/boards/demo/links", token=admin)[1]["links"] == []
    assert server.http("DELETE", f"/api/boards/demo/links/{made['id']}", token=admin)[0] == 404
    guest.close()
    bystander.close()


def test_a_deleted_boards_links_end_with_it(servers, tmp_path, secrets):
    """A board's links go with the board: its list is 404, and a board made again under the same
    id (by an admin, or by the old link's own hello, which may create boards) does not honour
    the old link's token, at once and after a restart (the store revoked it with the deletion)."""
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets)
    admin = mint(tmp_path, "demo", "--role", "admin")
    assert server.http("POST", "/api/boards", body={"id": "demo", "template": "colors"}, token=admin)[0] == 201
    status, made = server.http("POST", "/api/boards/demo/links", body={"role": "edit", "ttl": "2h"}, token=admin)
    assert status == 201, made
    guest = joined(server, made["token"])
    assert server.http("DELETE", "/api/boards/demo", token=admin)[0] == 200
    assert guest.wait_closed() == 4410
    status, problem = server.http("GET", "/api/boards/demo/links", token=admin)
    assert (status, problem["error"]) == (404, "unknown_board"), problem
    assert server.http("POST", "/api/boards/demo/links", body={"role": "view"}, token=admin)[0] == 404
    # The old link's hello: refused, and it made no board.
    late = Client(server)
    late.send({"type": "hello", "board": "demo", "name": "Late", "token": made["token"]})
    refused = late.expect(lambda m: m["type"] in ("welcome", "error"))
    assert refused["type"] == "error", refused
    late.close()
    # The id stays taken (409 `deleting`) until the revocations are loaded again, asked at once.
    server.wait_for_log(r"board demo is deleted, and the tokens of its links are revoked", timeout=10)
    made_again = server.http("POST", "/api/boards", body={"id": "demo", "template": "colors"}, token=admin)
    assert made_again[0] == 201, made_again
    for _ in range(2):
        assert server.http("GET", "/api/boards/demo/links", token=admin)[1]["links"] == []
        again = Client(server)
        again.send({"type": "hello", "board": "demo", "name": "Again", "token": made["token"]})
        error = again.expect(lambda m: m["type"] in ("welcome", "error"))
        assert (error["type"], error["code"]) == ("error", "unauthorized"), error
        again.close()
        server.signal(signal.SIGTERM)
        assert server.wait() == 0
        server = servers("--port", "0", "--data", data, "--auth-secret", secrets)


@pytest.mark.skipif(not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")
def test_a_link_revoked_on_one_node_closes_its_session_on_another(servers, tmp_path, secrets):
    name = "l_" + uuid.uuid4().hex
    admin_db = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin_db, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    try:
        database = POSTGRES.rsplit("/", 1)[0] + "/" + name
        one = servers("--port", "0", "--store", database, "--node", "n1", "--auth-secret", secrets)
        two = servers("--port", "0", "--store", database, "--node", "n2", "--auth-secret", secrets)
        admin = mint(tmp_path, "demo", "--role", "admin")
        assert one.http("POST", "/api/boards", body={"id": "demo", "template": "colors"}, token=admin)[0] == 201
        status, made = one.http("POST", "/api/boards/demo/links", body={"role": "edit", "ttl": "1h"}, token=admin)
        assert status == 201, made
        assert [l["id"] for l in two.http("GET", "/api/boards/demo/links", token=admin)[1]["links"]] == [made["id"]]
        guest = joined(one, made["token"])
        assert two.http("DELETE", f"/api/boards/demo/links/{made['id']}", token=admin)[0] == 200
        error = guest.expect(lambda m: m["type"] == "error")
        assert error["message"] == "token revoked"
        assert guest.wait_closed() == 4401
        guest.close()
        for server in (one, two):
            server.signal(signal.SIGTERM)
            assert server.wait() == 0
    finally:
        subprocess.run([*admin_db, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
