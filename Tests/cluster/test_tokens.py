"""Tokens that end across a cluster (issue 22): three nodes on one PostgreSQL with access
control. A revocation posted to one node closes, within 2 s, a session that another node
forwards to the board's owner; a forwarded session refreshes its token with `auth` through the
forward, and one whose token runs out is closed with 4401 "token expired" by the owner."""
import time

from harness import Client, run_cli

SECRET = "a cluster test secret, long enough"


def mint(tmp_path, board, *args):
    result = run_cli(["token", board, "--auth-secret", str(tmp_path / "secrets"), *args], str(tmp_path))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def joined(node, token, name):
    c = Client(node.server)
    c.send({"type": "hello", "board": "club", "name": name, "token": token})
    c.expect(lambda m: m["type"] == "welcome")
    return c


def test_revocation_refresh_and_expiry_reach_forwarded_sessions(clusters, tmp_path):
    (tmp_path / "secrets").write_text(SECRET + "\n")
    cluster = clusters(count=3, extra=("--auth-secret", str(tmp_path / "secrets")))
    n1, n2, n3 = cluster.nodes
    owner = joined(n1, mint(tmp_path, "club", "--name", "Owner"), "x")
    owner.send({"type": "toggle", "op": "o-0", "base": 0, "item": "t3", "on": True})
    assert owner.result_of("o-0")["type"] == "toggle"  # the board is stored, with n1 its owner
    revoked = mint(tmp_path, "club", "--name", "Revoked")
    victim = joined(n2, revoked, "x")  # forwarded by n2 to n1, the owner
    refresher = joined(n3, mint(tmp_path, "club", "--ttl", "3s", "--name", "Refresher"), "x")
    expiring = joined(n2, mint(tmp_path, "club", "--ttl", "3s", "--name", "Expiring"), "x")
    admin = mint(tmp_path, "*", "--role", "admin")
    assert n3.server.http("GET", "/api/boards/club", token=admin)[1]["owner"] == "n1"

    # A refresh through the forward: the owner answers it.
    fresh = mint(tmp_path, "club", "--role", "view", "--ttl", "1h", "--name", "Refresher")
    refresher.send({"type": "auth", "token": fresh})
    assert refresher.expect(lambda m: m["type"] == "auth")["role"] == "view"
    refresher.send({"type": "toggle", "op": "r-1", "base": 1, "item": "t1", "on": True})
    assert refresher.result_of("r-1")["reason"] == "forbidden"

    # A revocation made on n3 closes the session n2 forwards to n1, within 2 s.
    status, body = n3.server.http("POST", "/api/revocations", body={"token": revoked}, token=admin)
    assert status == 200, body
    posted = time.monotonic()
    error = victim.expect(lambda m: m["type"] == "error", timeout=2.0)
    assert (error["code"], error["message"]) == ("unauthorized", "token revoked")
    assert victim.wait_closed(timeout=2.0 - (time.monotonic() - posted)) == 4401

    # The 3 s token of the session n2 forwards runs out: the owner closes it, n2 passes 4401 on.
    error = expiring.expect(lambda m: m["type"] == "error", timeout=10)
    assert error["message"] == "token expired"
    assert expiring.wait_closed() == 4401
    # The refreshed one is still there, and so is the owner's own session.
    refresher.send({"type": "ping"})
    refresher.expect(lambda m: m["type"] == "pong")
    owner.send({"type": "toggle", "op": "o-1", "base": 1, "item": "t2", "on": True})
    assert owner.result_of("o-1")["type"] == "toggle"
    for c in (owner, victim, refresher, expiring):
        c.close()
