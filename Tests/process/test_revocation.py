"""Revocation (issue 22) over real sockets: `POST /api/revocations` closes a live session with
4401 "token revoked", the token is refused from then on (hello, API), the revocation survives a
restart, and `shuffleboard revoke` stores one without the API."""
import json
import signal

import pytest
from harness import Client, run_cli
from test_auth import OLD, mint


def joined(server, token):
    c = Client(server)
    c.send({"type": "hello", "board": "demo", "name": "Ada", "token": token})
    c.expect(lambda m: m["type"] == "welcome")
    return c


def refused_hello(server, token):
    c = Client(server)
    c.send({"type": "hello", "board": "demo", "name": "Ada", "token": token})
    error = c.expect(lambda m: m["type"] == "error")
    code = c.wait_closed()
    c.close()
    return error["code"], code


@pytest.fixture
def secrets(tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    return str(tmp_path / "secrets")


def test_a_revocation_closes_the_live_session_and_survives_a_restart(servers, tmp_path, secrets):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets)
    revoked = mint(tmp_path, "demo", "--role", "edit", "--name", "Victim")
    other = mint(tmp_path, "demo", "--role", "edit", "--name", "Bystander")  # another token: another name
    admin = mint(tmp_path, "demo", "--role", "admin")
    victim, bystander = joined(server, revoked), joined(server, other)
    status, body = server.http("POST", "/api/revocations", body={"token": revoked}, token=admin)
    assert status == 200 and len(body["revoked"]) == 64 and revoked not in json.dumps(body)
    error = victim.expect(lambda m: m["type"] == "error")
    assert (error["code"], error["message"]) == ("unauthorized", "token revoked")
    assert victim.wait_closed() == 4401
    assert victim.ws.protocol.close_rcvd.reason == "token revoked"
    bystander.send({"type": "toggle", "op": "still", "base": 0, "item": "t1", "on": True})
    assert bystander.result_of("still")["type"] == "toggle"
    assert refused_hello(server, revoked) == ("unauthorized", 4401)
    assert server.http("GET", "/api/boards/demo", token=revoked)[0] == 401
    assert server.http("GET", "/api/revocations", token=admin)[1]["revocations"][0]["id"] == body["revoked"]
    victim.close()
    bystander.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    # Restarted on the same data: refused from the first connection.
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets)
    assert refused_hello(server, revoked) == ("unauthorized", 4401)
    ok = joined(server, other)
    ok.close()


def test_shuffleboard_revoke_stores_a_revocation_without_the_api(servers, tmp_path, secrets):
    data = str(tmp_path / "data")
    token = mint(tmp_path, "demo", "--role", "view")
    result = run_cli(["revoke", token, "--auth-secret", secrets, "--data", data], str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert token not in result.stderr and "revoked token" in result.stderr
    bad = run_cli(["revoke", token[:-3] + "AAA", "--auth-secret", secrets, "--data", data], str(tmp_path))
    assert bad.returncode == 1 and "not a token" in bad.stderr
    server = servers("--port", "0", "--data", data, "--auth-secret", secrets)
    assert refused_hello(server, token) == ("unauthorized", 4401)
