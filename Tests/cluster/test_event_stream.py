"""The event stream and REST ops through deploy/haproxy.cfg across a kill -9 of the board's owner
(issue 20): a reader resumes with Last-Event-ID on whichever node HAProxy sends it to next, and
sees every op once, in order; a writer resends each REST op with its op id until it is answered.

`?board=ID` makes HAProxy hash the requests to the node the board's WebSocket clients reach, its
owner. Waits have deadlines; nothing sleeps to synchronise but the pauses between retries."""

import http.client
import json
import time

from test_haproxy import Through, node_of
from harness import Client

BOARD = "stream-1"
DEADLINE = 60.0


def post_until_answered(port: int, op: dict) -> dict:
    """POSTs the op through HAProxy until a 200 (503 `elsewhere` or a dropped connection while the
    board changes hands are retried with the same op id: a resend is acknowledged, never applied
    twice). Event streams on a node that does not own the board open and end at once instead."""
    deadline = time.monotonic() + DEADLINE
    while True:
        assert time.monotonic() < deadline, f"op {op['op']} never answered"
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("POST", f"/api/boards/{BOARD}/ops?board={BOARD}", body=json.dumps(op),
                         headers={"content-type": "application/json"})
            resp = conn.getresponse()
            body = json.loads(resp.read() or b"{}")
            conn.close()
        except (OSError, http.client.HTTPException, ValueError):
            time.sleep(0.2)
            continue
        if resp.status == 200:
            return body
        assert resp.status in (502, 503, 504), (resp.status, body)
        time.sleep(0.2)


class Reader:
    """An SSE reader through HAProxy that reconnects with Last-Event-ID when its stream breaks."""

    def __init__(self, port: int):
        self.port = port
        self.last: int | None = None
        self.seen: list[tuple[int, str]] = []
        self.resets = 0
        self.nodes: list[str] = []
        self.resp = None
        self.sock = None

    def connect(self) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {} if self.last is None else {"Last-Event-ID": str(self.last)}
        try:
            conn.request("GET", f"/api/boards/{BOARD}/events?board={BOARD}&since=0", headers=headers)
            self.sock = conn.sock
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException):
            return False
        if resp.status != 200:
            resp.read()
            conn.close()
            return False
        self.resp = resp
        self.nodes.append(resp.getheader("x-shuffleboard-node"))
        return True

    def read_until(self, seq: int) -> None:
        """Reads (reconnecting as needed) until the op with `seq` has been seen."""
        deadline = time.monotonic() + DEADLINE
        while self.last is None or self.last < seq:
            assert time.monotonic() < deadline, f"stream stuck at {self.last}, waiting for {seq}"
            if self.resp is None and not self.connect():
                time.sleep(0.2)
                continue
            try:
                self.sock.settimeout(5)
                event = self.next_event()
            except (OSError, EOFError, http.client.HTTPException):
                # The stream ended (its node died, or another node owns the board and ended it at
                # once): reconnect after a moment, as an EventSource does after `retry`.
                self.resp = None
                time.sleep(0.2)
                continue
            if event.get("event") == "op":
                self.seen.append((int(event["id"]), event["data"]["op"]))
                self.last = int(event["id"])
            elif event.get("event") == "reset":
                self.resets += 1
                self.last = int(event["id"])

    def next_event(self) -> dict:
        fields: dict = {}
        while True:
            line = self.resp.fp.readline()
            if not line:
                raise EOFError
            line = line.decode().rstrip("\n")
            if line == "":
                if "event" in fields:
                    return fields
                fields = {}
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            fields[name] = json.loads(value) if name == "data" else value


def test_a_stream_through_haproxy_resumes_across_a_kill_of_the_owner(clusters, haproxy):
    cluster = clusters(count=3)
    proxy = haproxy(cluster.nodes)
    proxy.wait_servers_up()
    # A WebSocket client makes the board on the node its id hashes to, which then owns it.
    ada = Client(Through(proxy.port), BOARD, name="Ada", query=f"?board={BOARD}")
    owner = node_of(ada)
    reader = Reader(proxy.port)
    try:
        assert reader.connect() and reader.nodes == [owner]
        answered = []
        for n in range(1, 6):
            answered.append(post_until_answered(proxy.port, {
                "type": "add", "op": f"before-{n}", "base": 0, "zone": "tray", "before": None,
                "item": {"label": f"before {n}"}}))
        reader.read_until(5)
        cluster.node(owner).kill9()
        for n in range(1, 6):
            answered.append(post_until_answered(proxy.port, {
                "type": "add", "op": f"after-{n}", "base": 0, "zone": "tray", "before": None,
                "item": {"label": f"after {n}"}}))
        final = max(a["seq"] for a in answered)
        reader.read_until(final)
    finally:
        ada.close()
    stored = cluster.all_ops(BOARD)[1]
    assert [(op["seq"], op["op"]) for op in stored] == reader.seen, "every op once, in order"
    assert [op["op"] for op in stored] == [f"before-{n}" for n in range(1, 6)] + [f"after-{n}" for n in range(1, 6)]
    assert reader.resets == 0, "the stream resumed from its Last-Event-ID"
    assert len(reader.nodes) >= 2 and reader.nodes[-1] != owner, reader.nodes
