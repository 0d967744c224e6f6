"""Operations (issue 9): `/metrics` parsed by prometheus_client's own text parser while a scripted
session runs over real sockets, `--metrics-token`, and `/readyz` while the store cannot write."""
from __future__ import annotations

import json
import sqlite3
import time
import urllib.error
import urllib.request

from harness import WAIT, Client
from prometheus_client.parser import text_string_to_metric_families
from test_transport import raw_websocket, send_text

Samples = dict[tuple[str, frozenset], float]


def get(server, path: str, token: str | None = None) -> tuple[int, dict, str]:
    """(status, headers, body text) of a GET, with a bearer token when given."""
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}")
    if token is not None:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def parse(text: str) -> tuple[Samples, dict[str, str]]:
    """Every sample by (name, labels), and every family's type, as the real parser reads them."""
    samples: Samples = {}
    types: dict[str, str] = {}
    for family in text_string_to_metric_families(text):
        assert family.documentation, f"{family.name} has no HELP"
        types[family.name] = family.type
        for sample in family.samples:
            key = (sample.name, frozenset(sample.labels.items()))
            assert key not in samples, f"{key} twice"
            samples[key] = sample.value
    return samples, types


def scrape(server, token: str | None = None) -> Samples:
    status, headers, text = get(server, "/metrics", token)
    assert status == 200, (status, text)
    assert headers["content-type"].startswith("text/plain; version=0.0.4"), headers
    # The format's conventions, on the raw text: a HELP and a TYPE per family, counters named _total.
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name.startswith("shuffleboard_"), name
            assert (kind == "counter") == name.endswith("_total"), line
            assert f"# HELP {name} " in text, name
    samples, types = parse(text)
    assert types["shuffleboard_op_broadcast_delay_seconds"] == "histogram"
    assert types["shuffleboard_rejects"] == "counter"  # the parser names counter families without _total
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


class Delta:
    """What moved between two scrapes."""

    def __init__(self, before: Samples, after: Samples):
        self.before, self.after = before, after

    def __call__(self, name: str, **labels: str) -> float:
        return value(self.after, name, **labels) - value(self.before, name, **labels)


def sent(client: Client, msg: dict) -> int:
    """Sends `msg`; its size in bytes, as the server counts it."""
    text = json.dumps(msg)
    client.ws.send(text)
    return len(text.encode())


def test_metrics_move_as_a_scripted_session_runs(servers):
    server = servers("--port", "0", "--data", "data")
    before = scrape(server)
    assert value(before, "shuffleboard_ready") == 1

    ada, bo = Client(server), Client(server)
    hello_bytes = sent(ada, {"type": "hello", "board": "demo", "name": "Ada"})
    ada.expect(lambda m: m["type"] == "welcome")
    hello_bytes += sent(bo, {"type": "hello", "board": "demo", "name": "Bo"})
    bo.expect(lambda m: m["type"] == "welcome")
    ada.expect(lambda m: m["type"] == "join")

    ada.send({"type": "dragStart", "item": "t1"})
    bo.expect(lambda m: m["type"] == "dragStart")
    bo.send({"type": "dragStart", "item": "t1"})
    assert bo.expect(lambda m: m["type"] == "reject")["reason"] == "held"
    ada.send({"type": "hover", "item": "t1", "over": "t2"})
    bo.expect(lambda m: m["type"] == "hover")
    ada.send({"type": "drop", "item": "t1", "op": "a1", "base": 0, "action": {"type": "swap", "with": "t2"}})
    assert ada.result_of("a1")["type"] == "swap"
    bo.send({"type": "toggle", "op": "b1", "base": 1, "item": "t9", "on": True})
    assert bo.result_of("b1")["type"] == "toggle"
    bo.send({"type": "hover", "item": "t3", "over": "t4"})
    assert bo.expect(lambda m: m["type"] == "reject")["reason"] == "not_holding"
    bo.ws.send("not json")
    assert bo.expect(lambda m: m["type"] == "error")["code"] == "bad_json"

    mid = scrape(server)
    assert value(mid, "shuffleboard_connections_open", endpoint="ws") == 2
    assert value(mid, "shuffleboard_users") == 2
    assert value(mid, "shuffleboard_board_users", board="demo") == 2
    assert value(mid, "shuffleboard_boards_loaded") == 1

    ada.ws.close(code=1000)
    bo.expect(lambda m: m["type"] == "leave")
    after = scrape(server)
    d = Delta(before, after)

    assert d("shuffleboard_connections_accepted_total", endpoint="ws") == 2
    assert value(after, "shuffleboard_connections_open", endpoint="ws") == 1
    assert d("shuffleboard_joins_total") == 2
    assert d("shuffleboard_messages_received_total", type="hello") == 2
    assert d("shuffleboard_received_bytes_total", type="hello") == hello_bytes
    assert d("shuffleboard_messages_received_total", type="dragStart") == 2
    assert d("shuffleboard_messages_received_total", type="hover") == 2
    assert d("shuffleboard_messages_received_total", type="drop") == 1
    assert d("shuffleboard_messages_received_total", type="toggle") == 1
    assert d("shuffleboard_messages_received_total", type="invalid") == 1
    assert d("shuffleboard_messages_sent_total", type="welcome") == 2
    assert d("shuffleboard_messages_sent_total", type="swap") == 2  # one per recipient
    assert d("shuffleboard_messages_sent_total", type="reject") == 2
    assert d("shuffleboard_sent_bytes_total", type="welcome") > 0
    assert d("shuffleboard_ops_committed_total", type="swap") == 1
    assert d("shuffleboard_ops_committed_total", type="toggle") == 1
    assert d("shuffleboard_op_broadcast_delay_seconds_count") == 2
    assert d("shuffleboard_op_broadcast_delay_seconds_bucket", le="+Inf") == 2
    assert d("shuffleboard_rejects_total", reason="held") == 1
    assert d("shuffleboard_rejects_total", reason="not_holding") == 1
    assert d("shuffleboard_errors_total", code="bad_json") == 1
    assert d("shuffleboard_drag_hold_seconds_count", end="dropped") == 1
    assert d("shuffleboard_closes_total", code="1000", initiator="client") == 1
    # The board was made by the first op (a creation and an op), then the toggle: three writes.
    assert d("shuffleboard_store_batch_writes_sum") == 3
    assert d("shuffleboard_store_write_seconds_count") >= 1
    assert d("shuffleboard_store_write_seconds_sum") > 0
    assert d("shuffleboard_http_responses_total", code="200") >= 2  # the scrapes before
    bo.close()


def test_the_send_queue_gauge_holds_what_a_reader_that_stopped_reading_has_not_taken(servers):
    server = servers("--port", "0", "--memory", "--op-rate", "0")
    # Nothing is queued on an idle server; the gauge is there and says so.
    assert ("shuffleboard_send_queue_bytes", frozenset()) in scrape(server)
    assert value(scrape(server), "shuffleboard_send_queue_bytes") == 0
    slow = raw_websocket(server.port, receive_buffer=4096)  # joins, then never reads
    send_text(slow, '{"type":"hello","board":"queue","name":"Slow"}')
    fast = Client(server, "queue", name="Fast")
    seq, queued = fast.welcome["seq"], 0.0
    # Every op's broadcast goes to the slow reader too: once the kernel's buffers are full, the
    # server holds them. Bounded: 20,000 ops (the 4 MiB send bound is never reached).
    for i in range(20_000):
        fast.send({"type": "toggle", "op": f"q{i}", "base": seq, "item": "t1", "on": i % 2 == 0})
        seq = fast.result_of(f"q{i}")["seq"]
        if i % 200 == 199:
            queued = value(scrape(server), "shuffleboard_send_queue_bytes")
            if queued > 0:
                break
    assert queued > 0, "the server held nothing for a reader that stopped reading"
    # Once the slow reader is gone, so is what was held for it.
    slow.close()
    fast.send({"type": "ping"})
    fast.expect(lambda m: m["type"] == "pong")
    deadline = time.monotonic() + WAIT
    while value(scrape(server), "shuffleboard_send_queue_bytes") != 0:
        assert time.monotonic() < deadline, "the send queue gauge did not return to 0 after the reader left"
        fast.send({"type": "ping"})  # a round trip between scrapes: not a sleep
        fast.expect(lambda m: m["type"] == "pong")
    fast.close()


def test_limits_and_rate_limited_messages_are_counted(servers):
    server = servers("--port", "0", "--memory", "--op-rate", "1")
    before = scrape(server)
    fast = Client(server, "limits", name="Fast")
    for i in range(6):
        fast.send({"type": "toggle", "op": f"f{i}", "base": 0, "item": f"t{i + 1}", "on": True})
    refused = 0
    answered = 0
    while answered < 6:
        m = fast.expect(lambda m: m.get("op", "").startswith("f"))
        answered += 1
        refused += m["type"] == "error" and m["code"] == "rate_limited"
    assert refused > 0
    big = Client(server)
    big.ws.send("x" * (70 * 1024))
    assert big.wait_closed() == 1009
    after = scrape(server)
    d = Delta(before, after)
    assert d("shuffleboard_rate_limited_messages_total", kind="op") == refused
    assert d("shuffleboard_errors_total", code="rate_limited") == refused
    assert d("shuffleboard_limit_hits_total", limit="message_size") == 1
    assert d("shuffleboard_closes_total", code="1009", initiator="server") == 1
    fast.close()


def test_metrics_token_is_required_when_set(servers, tmp_path):
    (tmp_path / "metrics-token").write_text("scrape-me-0123456789abcdef\n")
    server = servers("--port", "0", "--memory", "--metrics-token", str(tmp_path / "metrics-token"))
    status, headers, body = get(server, "/metrics")
    assert status == 401 and headers["www-authenticate"] == "Bearer", (status, headers)
    assert json.loads(body)["error"] == "unauthorized"
    assert get(server, "/metrics", "scrape-me-0123456789abcdeF")[0] == 401
    assert get(server, "/metrics", "scrape-me")[0] == 401
    server.wait_for_log(r"warning GET /metrics from 127\.0\.0\.1: wrong bearer token")
    samples = scrape(server, "scrape-me-0123456789abcdef")
    assert value(samples, "shuffleboard_auth_failures_total", via="metrics", reason="missing") == 1
    assert value(samples, "shuffleboard_auth_failures_total", via="metrics", reason="forged") == 2
    assert get(server, "/readyz")[0] == 200, "readiness stays open"


def test_a_metrics_token_file_that_is_too_short_exits_1(servers, tmp_path):
    (tmp_path / "metrics-token").write_text("short\n")
    server = servers("--port", "0", "--memory", "--metrics-token", str(tmp_path / "metrics-token"), wait=False)
    assert server.wait() == 1
    assert "--metrics-token" in server.stderr_text() and "16 bytes" in server.stderr_text()


def test_readyz_is_503_while_the_store_cannot_write(servers, tmp_path):
    server = servers("--port", "0", "--data", "data")
    status, _, body = get(server, "/readyz")
    assert (status, json.loads(body)) == (200, {"status": "ready", "reasons": []})
    ada = Client(server, "ready", name="Ada")
    ada.send({"type": "toggle", "op": "r1", "base": 0, "item": "t1", "on": True})
    assert ada.result_of("r1")["type"] == "toggle"

    # Another process holds SQLite's write lock: the writer's next write fails (after SQLite's
    # busy wait) and is retried until the lock is gone.
    locker = sqlite3.connect(str(tmp_path / "data" / "shuffleboard.sqlite3"), isolation_level=None, timeout=WAIT)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        mark = len(server.lines)
        ada.send({"type": "toggle", "op": "r2", "base": 1, "item": "t2", "on": True})
        server.wait_for_log(r"store write failed, retrying", timeout=30, start=mark)
        status, _, body = get(server, "/readyz")
        assert (status, json.loads(body)) == (503, {"status": "not_ready", "reasons": ["store_failing"]})
        samples = scrape(server)
        assert value(samples, "shuffleboard_ready") == 0
        assert value(samples, "shuffleboard_store_failing") == 1
        assert value(samples, "shuffleboard_store_write_failures_total", kind="transient") >= 1
        assert get(server, "/healthz")[0] == 200, "alive all the same"
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert ada.result_of("r2", timeout=30)["type"] == "toggle"
    status, _, body = get(server, "/readyz")
    assert (status, json.loads(body)["status"]) == (200, "ready")
    ada.close()
