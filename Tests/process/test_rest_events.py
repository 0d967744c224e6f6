"""Boards other software drives and watches (issue 20): `POST /api/boards/{id}/ops` and the event
stream `GET /api/boards/{id}/events` (Server-Sent Events), with strict real clients: Python's
http.client for both, and a raw socket for a reader that stops reading."""

import contextlib
import http.client
import json
import socket
import threading
import time

import pytest
from harness import WAIT, Client, run_cli

BOARD = {
    "id": "ci",
    "title": "Deploys",
    "zones": [
        {"id": "todo", "items": [{"label": "Build", "color": "red"}, {"label": "Deploy", "color": "blue"},
                                 {"label": "Check", "color": "green"}]},
        {"id": "done", "items": []},
    ],
}


def post_op(server, op: dict | bytes, conn: http.client.HTTPConnection | None = None, board: str = "ci",
            token: str | None = None, content_type: str = "application/json") -> tuple[int, dict]:
    """POST one op; on `conn` (kept alive) when given."""
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    body = op if isinstance(op, bytes) else json.dumps(op).encode()
    headers = {"content-type": content_type}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request("POST", f"/api/boards/{board}/ops", body=body, headers=headers)
    resp = conn.getresponse()
    data = json.loads(resp.read())
    if own:
        conn.close()
    return resp.status, data


class Stream:
    """An event-stream reader on http.client: `events()` parses the SSE fields as a browser does."""

    def __init__(self, server, path: str, headers: dict | None = None):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
        self.conn.request("GET", path, headers=headers or {})
        # A stream ends with the connection (`connection: close`): http.client hands the socket to
        # the response, so keep it to set read timeouts on.
        self.sock = self.conn.sock
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = dict(self.resp.getheaders())

    def next(self, timeout: float = WAIT) -> dict:
        """The next event or comment: {"id", "event", "data"} or {"comment"}; EOFError at the end."""
        self.sock.settimeout(timeout)
        fields: dict = {}
        while True:
            line = self.resp.fp.readline()
            if not line:
                raise EOFError("the stream ended")
            line = line.decode().rstrip("\n")
            if line == "":
                if fields:
                    return fields
                continue
            if line.startswith(":"):
                return {"comment": line[1:].strip()}
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                fields["data"] = json.loads(value)
            elif name in ("id", "event", "retry"):
                fields[name] = value

    def next_event(self, timeout: float = WAIT) -> dict:
        """The next event, skipping comments and the `retry` line."""
        deadline = time.monotonic() + timeout
        while True:
            e = self.next(max(0.05, deadline - time.monotonic()))
            if "event" in e:
                return e

    def close(self) -> None:
        self.resp.close()
        self.sock.close()


@pytest.fixture
def server(servers):
    s = servers("--port", "0", "--memory", "--stream-keepalive", "0.2")
    assert s.http("POST", "/api/boards", BOARD)[0] == 201
    return s


def test_a_rest_op_is_answered_once_durable_and_resent_ids_are_acknowledged(server):
    status, body = post_op(server, {"type": "move", "op": "ci-1", "base": 0, "item": "t2", "zone": "done",
                                    "before": None})
    assert status == 200, body
    assert body["seq"] == 1
    assert body["op"] == {"type": "move", "op": "ci-1", "by": body["op"]["by"], "member": "api", "seq": 1, "item": "t2",
                          "zone": "done", "before": None}
    assert server.all_ops("ci")[1] == [body["op"]]
    # The same op id again (a retry after a lost answer): acknowledged, not applied twice.
    assert post_op(server, {"type": "move", "op": "ci-1", "base": 0, "item": "t2", "zone": "done",
                            "before": None}) == (200, {"seq": 1, "ack": True})
    assert server.all_ops("ci")[0] == 1


def test_bad_bodies_get_400_naming_the_field(server):
    cases = [
        ({"type": "toggle", "op": "x", "item": "t1", "on": True}, '"base"'),
        ({"type": "toggle", "op": "x", "base": 0, "on": True}, '"item"'),
        ({"type": "toggle", "op": "x", "base": 0, "item": "t1"}, '"on"'),
        ({"type": "move", "op": "x", "base": 0, "item": "t1", "zone": "done"}, '"before"'),
        ({"type": "dragStart", "item": "t1"}, '"type" must be an op'),
        ({"op": "x"}, '"type"'),
    ]
    for op, named in cases:
        status, body = post_op(server, op)
        assert status == 400, (op, body)
        assert body["error"] == "bad_request" and named in body["message"], (op, body)
    status, body = post_op(server, b"{not json")
    assert status == 400 and "JSON" in body["message"]
    # The API's write rules: JSON only.
    assert post_op(server, {"type": "toggle", "op": "x", "base": 0, "item": "t1", "on": True},
                   content_type="text/plain")[0] == 415
    assert server.all_ops("ci")[0] == 0, "nothing was applied"


def test_refusals_are_409_with_the_websocket_reasons(server):
    ws = Client(server, "ci", name="Dragger")
    try:
        ws.send({"type": "dragStart", "item": "t1"})
        ws.expect(lambda m: m["type"] == "dragStart")
        status, body = post_op(server, {"type": "toggle", "op": "h", "base": 0, "item": "t1", "on": True})
        assert status == 409 and body["reason"] == "held" and body["by"] == ws.welcome["you"], body
        assert post_op(server, {"type": "toggle", "op": "u", "base": 0, "item": "nope", "on": True})[1]["reason"] \
            == "unknown_item"
        ws.send({"type": "drop", "item": "t1"})
        ws.send({"type": "swap", "op": "w", "base": 0, "a": "t1", "b": "t3"})
        assert ws.result_of("w")["type"] == "swap"
        status, body = post_op(server, {"type": "swap", "op": "c", "base": 0, "a": "t1", "b": "t2"})
        assert (status, body["reason"], body["seq"]) == (409, "conflict", 1), body
        status, body = post_op(server, {"type": "toggle", "op": "b", "base": 9, "item": "t1", "on": True})
        assert (status, body["reason"]) == (409, "bad_base"), body
    finally:
        ws.close()


def test_rest_ops_and_a_websocket_client_see_one_order(server):
    ws = Client(server, "ci", name="Sock")
    stream = Stream(server, "/api/boards/ci/events?since=0")
    results: list[dict] = []

    def rest() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
        for n in range(30):
            status, body = post_op(server, {"type": "add", "op": f"r{n}", "base": 0, "zone": "done",
                                            "before": None, "item": {"label": f"rest {n}"}}, conn=conn)
            assert status == 200, body
            results.append(body)
        conn.close()

    try:
        worker = threading.Thread(target=rest)
        worker.start()
        for n in range(30):
            ws.send({"type": "add", "op": f"w{n}", "base": 0, "zone": "todo", "before": None,
                     "item": {"label": f"socket {n}"}})
        worker.join(WAIT * 3)
        assert not worker.is_alive()
        seen_ws = []
        while len(seen_ws) < 60:
            m = ws.expect(lambda m: m["type"] == "add")
            seen_ws.append((m["seq"], m["op"]))
        seen_stream = []
        while len(seen_stream) < 60:
            e = stream.next_event()
            assert e["event"] == "op" and int(e["id"]) == e["data"]["seq"]
            seen_stream.append((e["data"]["seq"], e["data"]["op"]))
        assert [s for s, _ in seen_ws] == list(range(1, 61))
        assert seen_stream == seen_ws
        stored = [(op["seq"], op["op"]) for op in server.all_ops("ci")[1]]
        assert stored == seen_ws
        assert sorted((r["seq"], r["op"]["op"]) for r in results) == [p for p in seen_ws if p[1].startswith("r")]
    finally:
        stream.close()
        ws.close()


def test_a_resumed_stream_misses_nothing_and_repeats_nothing(server):
    # A resume gets the ops it lacks when they take no more bytes than the board (else a reset, as
    # a WebSocket resume does): a board of 12 cards and toggles keep these few ops under that.
    assert server.http("POST", "/api/boards", {"id": "cr", "template": "colors"})[0] == 201
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    seq = 0

    def commit(n: int) -> None:
        nonlocal seq
        for _ in range(n):
            status, body = post_op(server, {"type": "toggle", "op": f"o{seq + 1}", "base": seq, "item": "t1",
                                            "on": seq % 2 == 0}, conn=conn, board="cr")
            assert status == 200, body
            seq = body["seq"]

    first = Stream(server, "/api/boards/cr/events")
    assert first.status == 200 and first.headers["content-type"] == "text/event-stream"
    reset = first.next_event()
    assert reset["event"] == "reset" and reset["id"] == "0" and reset["data"]["board"]["id"] == "cr"
    commit(5)
    got = [int(first.next_event()["id"]) for _ in range(3)]
    first.close()  # Mid-stream: ops 4 and 5 may have been on the wire.
    commit(2)
    resumed = Stream(server, "/api/boards/cr/events?since=0", headers={"Last-Event-ID": str(got[-1])})
    while got[-1] < 7:
        e = resumed.next_event()
        assert e["event"] == "op"
        got.append(int(e["id"]))
    assert got == list(range(1, 8)), got
    # Quiet now: only keepalive comments (every 0.2 s here), never an op again.
    comments = 0
    while comments < 2:
        e = resumed.next(timeout=5)
        assert "comment" in e, e
        comments += 1
    resumed.close()
    conn.close()


def reaches_eof(s: socket.socket, deadline: float) -> bool:
    """Reads `s` until the end of the stream (True) or the deadline (False)."""
    try:
        while (left := deadline - time.monotonic()) > 0:
            s.settimeout(min(1.0, left))
            with contextlib.suppress(TimeoutError):
                if not s.recv(65536):
                    return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    return False


def test_a_stalled_reader_is_cut_off_while_a_good_one_keeps_up(servers):
    server = servers("--port", "0", "--memory", "--max-pending-bytes", "65536", "--unsent-bytes", "16384")
    assert server.http("POST", "/api/boards", BOARD)[0] == 201
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", server.port))
    stalled.sendall(b"GET /api/boards/ci/events?since=0 HTTP/1.1\r\nHost: x\r\n\r\n")
    good = Stream(server, "/api/boards/ci/events?since=0")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    label = "\U0001F600" * 199  # 796 bytes
    seen = 0
    try:
        for n in range(200):
            status, body = post_op(server, {"type": "edit", "op": f"e{n}", "base": n, "item": "t1",
                                            "label": f"{label}{n % 10}", "detail": label}, conn=conn)
            assert status == 200, body
            while seen < n + 1:
                e = good.next_event()
                assert int(e["id"]) == seen + 1
                seen += 1
            if any("fell behind its event stream" in line for line in server.lines):
                break
        server.wait_for_log("fell behind its event stream")
        assert seen >= 1
        # Cut off means closed: what the kernel still holds for the stalled socket is all there is
        # to read before the end of the stream, within a deadline.
        assert reaches_eof(stalled, time.monotonic() + WAIT), "the stalled reader's stream did not end"
        # And the good reader gets the next op.
        status, body = post_op(server, {"type": "edit", "op": "after", "base": seen, "item": "t1",
                                        "label": "after the cut"}, conn=conn)
        assert status == 200, body
        e = good.next_event()
        assert (int(e["id"]), e["data"]["op"]) == (seen + 1, "after"), e
    finally:
        stalled.close()
        good.close()
        conn.close()


def test_deleting_the_board_ends_the_stream_with_deleted(server):
    stream = Stream(server, "/api/boards/ci/events?since=0")
    assert stream.next()["retry"] == "1000"
    status, metrics = server.get("/metrics")
    assert status == 200 and "\nshuffleboard_event_streams 1\n" in metrics, metrics
    assert server.http("DELETE", "/api/boards/ci")[0] == 200
    assert stream.next_event() == {"event": "deleted", "data": {"deleted": "ci"}}
    # The stream ends right after `deleted`: the next read is the end. One read, bounded by the
    # socket's timeout; a keepalive (every 0.2 s here) or any event instead fails the test.
    with pytest.raises(EOFError):
        after = stream.next(timeout=WAIT)
        pytest.fail(f"the stream went on after deleted: {after}")
    assert Stream(server, "/api/boards/ci/events").status == 404


def test_tokens_an_edit_token_posts_and_a_view_token_in_the_url_streams(servers, tmp_path):
    (tmp_path / "secrets").write_text("a secret long enough to sign tokens\n")
    server = servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "secrets"))

    def mint(role: str) -> str:
        result = run_cli(["token", "ci", "--role", role, "--auth-secret", str(tmp_path / "secrets")], str(tmp_path))
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    admin = run_cli(["token", "*", "--role", "admin", "--auth-secret", str(tmp_path / "secrets")], str(tmp_path))
    assert server.http("POST", "/api/boards", BOARD, token=admin.stdout.strip())[0] == 201
    op = {"type": "toggle", "op": "t", "base": 0, "item": "t1", "on": True}
    assert post_op(server, op)[0] == 401
    assert post_op(server, op, token=mint("view"))[0] == 403
    assert Stream(server, "/api/boards/ci/events").status == 401
    stream = Stream(server, f"/api/boards/ci/events?since=0&token={mint('view')}")
    assert stream.status == 200
    assert post_op(server, op, token=mint("edit"))[0] == 200
    assert stream.next_event()["data"]["op"] == "t"
    stream.close()
