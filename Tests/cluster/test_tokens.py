"""Tokens that end across a cluster (issue 22): three nodes on one PostgreSQL with access
control. A revocation posted to one node closes a session that another node forwards to the
board's owner, within the revocation reload interval and slack; a forwarded session refreshes its
token with `auth` through the forward, and one whose token runs out is closed with 4401 "token
expired" by the owner.

A token's expiry is whole seconds (`--ttl 3s` lasts 2 to 3 s) and each `shuffleboard token` is a
process start: every token is minted before the first join, the short ones last, with SHORT seconds
(enough for the joins, forwards and a refresh that must come before they run out)."""
import base64
import json
import time

from harness import Client, run_cli

SECRET = "a cluster test secret, long enough"
# Every node reloads the store's revocations this often (RevocationList.reloadEvery).
RELOAD = 1.0
SHORT = "6s"


def mint(tmp_path, board, *args):
    result = run_cli(["token", board, "--auth-secret", str(tmp_path / "secrets"), *args], str(tmp_path))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def expiry(token: str) -> int:
    """The `e` claim of a token, seconds since 1970."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["e"]


def joined(node, token, name):
    c = Client(node.server)
    c.send({"type": "hello", "board": "club", "name": name, "token": token})
    c.expect(lambda m: m["type"] == "welcome")
    return c


def test_revocation_refresh_and_expiry_reach_forwarded_sessions(clusters, tmp_path):
    (tmp_path / "secrets").write_text(SECRET + "\n")
    cluster = clusters(count=3, extra=("--auth-secret", str(tmp_path / "secrets")))
    n1, n2, n3 = cluster.nodes
    owner_token = mint(tmp_path, "club", "--name", "Owner")
    revoked = mint(tmp_path, "club", "--name", "Revoked")
    admin = mint(tmp_path, "*", "--role", "admin")
    fresh = mint(tmp_path, "club", "--role", "view", "--ttl", "1h", "--name", "Refresher")
    # The short ones last, the refresher's first: it runs out no later than the expiring one.
    refresher_token = mint(tmp_path, "club", "--ttl", SHORT, "--name", "Refresher")
    expiring_token = mint(tmp_path, "club", "--ttl", SHORT, "--name", "Expiring")
    owner = joined(n1, owner_token, "x")
    owner.send({"type": "toggle", "op": "o-0", "base": 0, "item": "t3", "on": True})
    assert owner.result_of("o-0")["type"] == "toggle"  # the board is stored, with n1 its owner
    victim = joined(n2, revoked, "x")  # forwarded by n2 to n1, the owner
    refresher = joined(n3, refresher_token, "x")
    expiring = joined(n2, expiring_token, "x")
    assert n3.server.http("GET", "/api/boards/club", token=admin)[1]["owner"] == "n1"

    # A refresh through the forward: the owner answers it.
    refresher.send({"type": "auth", "token": fresh})
    assert refresher.expect(lambda m: m["type"] == "auth")["role"] == "view"
    assert time.time() < expiry(refresher_token), "refreshed before its first token ran out"
    refresher.send({"type": "toggle", "op": "r-1", "base": 1, "item": "t1", "on": True})
    assert refresher.result_of("r-1")["reason"] == "forbidden"

    # A baseline from this run: a forwarded op's round trip (n2 to n1, stored in PostgreSQL).
    started = time.monotonic()
    victim.send({"type": "toggle", "op": "v-0", "base": 1, "item": "t3", "on": False})
    assert victim.result_of("v-0")["type"] == "toggle"
    op_trip = time.monotonic() - started

    # A revocation made on n3 closes the session n2 forwards to n1, within the owner's next reload
    # of the revocations, plus slack (more when this run's round trips are slow).
    status, body = n3.server.http("POST", "/api/revocations", body={"token": revoked}, token=admin)
    assert status == 200, body
    posted = time.monotonic()
    bound = RELOAD + 2.0 + 20 * op_trip
    error = victim.expect(lambda m: m["type"] == "error", timeout=bound)
    assert (error["code"], error["message"]) == ("unauthorized", "token revoked")
    assert victim.wait_closed(timeout=max(0.0, bound - (time.monotonic() - posted))) == 4401
    print(f"revocation closed the forwarded session {time.monotonic() - posted:.3f} s after it was posted"
          f" (bound {bound:.2f} s; a forwarded op's round trip took {op_trip * 1000:.1f} ms)")

    # The short token of the session n2 forwards runs out: the owner closes it, n2 passes 4401 on.
    error = expiring.expect(lambda m: m["type"] == "error", timeout=expiry(expiring_token) - time.time() + 10)
    assert error["message"] == "token expired"
    assert expiring.wait_closed() == 4401
    # The refreshed one is still there, past its first token's expiry, and so is the owner's own session.
    assert time.time() >= expiry(refresher_token) - 0.05, "the refresher's first token has run out"
    refresher.send({"type": "ping"})
    refresher.expect(lambda m: m["type"] == "pong")
    owner.send({"type": "toggle", "op": "o-1", "base": 1, "item": "t2", "on": True})
    assert owner.result_of("o-1")["type"] == "toggle"
    for c in (owner, victim, refresher, expiring):
        c.close()
