"""Event streams end with their token on every node (issue 29, finding 1): a revocation posted to
one node of a cluster ends, within 2 s, an event stream that another node (the board's owner)
serves, with `event: revoked`; the owner learns of it at its next reload of the store's
revocations, as it closes WebSocket sessions."""
import http.client
import json
import time

from test_tokens import joined, mint


def test_a_revocation_on_one_node_ends_a_stream_the_owner_serves(clusters, tmp_path):
    (tmp_path / "secrets").write_text("a cluster test secret, long enough\n")
    cluster = clusters(count=2, extra=("--auth-secret", str(tmp_path / "secrets")))
    n1, n2 = cluster.nodes
    owner = joined(n1, mint(tmp_path, "club", "--name", "Owner"), "x")
    owner.send({"type": "toggle", "op": "o-0", "base": 0, "item": "t3", "on": True})
    assert owner.result_of("o-0")["type"] == "toggle"  # the board is stored, with n1 its owner
    leaked = mint(tmp_path, "club", "--role", "view", "--name", "Leak")
    admin = mint(tmp_path, "*", "--role", "admin")

    conn = http.client.HTTPConnection("127.0.0.1", n1.server.port, timeout=10)
    conn.request("GET", f"/api/boards/club/events?since=1&token={leaked}")
    sock = conn.sock  # http.client hands the socket to the response of a stream that ends with it.
    stream = conn.getresponse()
    assert stream.status == 200

    status, body = n2.server.http("POST", "/api/revocations", body={"token": leaked}, token=admin)
    assert status == 200, body
    posted = time.monotonic()
    sock.settimeout(3)
    lines = []
    while time.monotonic() - posted < 3:
        line = stream.fp.readline()
        if not line:
            break
        lines.append(line.decode().rstrip("\n"))
    ended = time.monotonic() - posted
    assert "event: revoked" in lines, lines
    assert json.loads(lines[lines.index("event: revoked") + 1][len("data: "):]) == {"reason": "token revoked"}
    assert ended < 2.0, f"the stream ended {ended:.2f} s after the revocation on another node"
    conn.close()
    # The owner's own session (another token) goes on.
    owner.send({"type": "toggle", "op": "o-1", "base": 1, "item": "t2", "on": True})
    assert owner.result_of("o-1")["type"] == "toggle"
    owner.close()
