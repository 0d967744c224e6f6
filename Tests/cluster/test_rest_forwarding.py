"""REST ops on a node that does not own the board (issue 20: "in a cluster any node answers"):
the node relays `POST /api/boards/{id}/ops` to the owner and passes its answer back. Straight to
the non-owner, not through HAProxy: a committed op comes back 200 and the owner's WebSocket
clients see it; the owner checks the token (401/403 come back as it answered them); an owner
that stopped (SIGSTOP) gets the client 503 `elsewhere` within --forward-timeout, not a hang.
Waits have deadlines; nothing sleeps to synchronise."""
import http.client
import json
import time

from harness import Client, run_cli

SECRET = "a cluster test secret, long enough"


def post(node, board: str, op: dict, token: str | None = None, timeout: float = 10.0, source: str = "127.0.0.1"):
    """(status, JSON body, headers) of a REST op sent to `node` directly from address `source`."""
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=timeout, source_address=(source, 0))
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    try:
        conn.request("POST", f"/api/boards/{board}/ops", body=json.dumps(op), headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}"), dict(resp.getheaders())
    finally:
        conn.close()


def toggle(op_id: str, item: str = "t1", base: int = 0) -> dict:
    return {"type": "toggle", "op": op_id, "base": base, "item": item, "on": True}


def owned_by_n1(n1, board: str, token: str | None = None) -> Client:
    """A WebSocket client on n1 that makes the board there (n1 owns it from then on)."""
    ada = Client(n1.server)
    hello = {"type": "hello", "board": board, "name": "Ada"}
    if token is not None:
        hello["token"] = token
    ada.send(hello)
    ada.expect(lambda m: m["type"] == "welcome")
    ada.send(toggle("owner-0", item="t3"))
    assert ada.result_of("owner-0")["type"] == "toggle"
    return ada


def test_a_rest_op_sent_to_a_node_that_does_not_own_the_board_is_committed_by_the_owner(clusters):
    cluster = clusters(count=3, extra=("--log-level", "debug"))  # the owner's log names the op's address
    n1, n2, n3 = cluster.nodes
    ada = owned_by_n1(n1, "relayed")
    try:
        assert cluster.owner("relayed") == "n1"
        status, body, _ = post(n2, "relayed", toggle("rest-1", base=1), source="127.0.0.2")
        assert status == 200, body
        assert body["op"]["op"] == "rest-1" and body["op"]["type"] == "toggle"
        committed = ada.expect(lambda m: m["type"] == "toggle" and m.get("op") == "rest-1")
        assert committed["seq"] == body["seq"] == 2
        # A resend of the committed op id through another non-owner: acknowledged, not applied again.
        status, again, _ = post(n3, "relayed", toggle("rest-1", base=1))
        assert (status, again) == (200, {"seq": 2, "ack": True})
        # A refusal comes back as the owner gives it to its own clients.
        bad = {"type": "move", "op": "rest-2", "base": 2, "item": "nope", "zone": "tray", "before": None}
        relayed, direct = post(n2, "relayed", bad), post(n1, "relayed", bad)
        assert relayed[0] in (400, 409) and relayed[:2] == direct[:2], (relayed, direct)
        assert cluster.owner("relayed") == "n1", "the board stayed with its owner"
        assert [op["op"] for op in cluster.all_ops("relayed")[1]] == ["owner-0", "rest-1"]
        # The owner counted the op as the client's (its address came with the cluster key), not n2's.
        assert "from 127.0.0.2: op rest-1 on board relayed over HTTP" in n1.log()
    finally:
        ada.close()


def mint(tmp_path, board, *args):
    result = run_cli(["token", board, "--auth-secret", str(tmp_path / "secrets"), *args], str(tmp_path))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_owner_checks_the_token_of_a_relayed_rest_op(clusters, tmp_path):
    (tmp_path / "secrets").write_text(SECRET + "\n")
    cluster = clusters(count=2, extra=("--auth-secret", str(tmp_path / "secrets")))
    n1, n2 = cluster.nodes
    ada = owned_by_n1(n1, "club", token=mint(tmp_path, "club", "--name", "Ada"))
    try:
        status, body, _ = post(n2, "club", toggle("t-none", base=1))
        assert status == 401, body
        status, body, _ = post(n2, "club", toggle("t-view", base=1), token=mint(tmp_path, "club", "--role", "view"))
        assert status == 403, body
        status, body, _ = post(n2, "club", toggle("t-other", base=1), token=mint(tmp_path, "other"))
        assert status == 403, body
        status, body, _ = post(n2, "club", toggle("t-edit", base=1), token=mint(tmp_path, "club", "--name", "Bot"))
        assert status == 200, body
        assert ada.expect(lambda m: m.get("op") == "t-edit")["seq"] == body["seq"]
    finally:
        ada.close()


def test_an_owner_that_stopped_gets_the_client_503_within_the_forward_timeout(clusters):
    # A lease far longer than the forward timeout: n1 stays the owner while it is stopped.
    cluster = clusters(count=2, lease=20.0, extra=("--forward-timeout", "1"))
    n1, n2 = cluster.nodes
    # Ada stays on the board: were it left empty, n1 could give its lease up before the stop,
    # and then n2 would take the board and commit the op itself.
    ada = owned_by_n1(n1, "frozen")
    n1.pause()
    try:
        began = time.monotonic()
        status, body, headers = post(n2, "frozen", toggle("late-1", base=1), timeout=15)
        took = time.monotonic() - began
        assert status == 503 and body["error"] == "elsewhere" and body["owner"] == "n1", body
        assert {k.lower(): v for k, v in headers.items()}.get("retry-after") == "1"
        assert 0.9 <= took < 5.0, f"answered after {took:.1f} s"
        # n2 still answers its own requests meanwhile.
        assert n2.get("/healthz")[0] == 200
    finally:
        n1.resume()
        ada.close()
