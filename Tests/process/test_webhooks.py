"""Webhooks (issue 37) through the real binary and a receiver on 127.0.0.1: every op, in seq
order, signed (checked here with Python's hmac), exactly as broadcast; retried while the receiver
answers 500 and nothing lost or reordered when it recovers; resumed from the durable cursor after a
kill -9 in the middle of a delivery; private targets refused without --webhook-allow-private, also
when a name resolves to one (at connect time); and a receiver that never answers gets one request
at a time, the same batch again after the 10 s timeout, while the server's memory stays bounded."""
import hashlib
import hmac
import http.server
import json
import os
import select
import signal
import socket
import threading
import time

import pytest
from harness import WAIT, Client

POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")


class Receiver:
    """An HTTP server on 127.0.0.1 that records every webhook POST. `mode`: "ok" (204), "fail"
    (500), or "hang" (reads the request, never answers until released)."""

    def __init__(self):
        self.lock = threading.Condition()
        self.posts: list[dict] = []
        self.mode = "ok"
        self.open = 0
        self.most_open = 0
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["content-length"]))
                with receiver.lock:
                    receiver.open += 1
                    receiver.most_open = max(receiver.most_open, receiver.open)
                    mode = receiver.mode
                    receiver.posts.append({"headers": dict(self.headers), "body": body, "answered": mode})
                    receiver.lock.notify_all()
                try:
                    if mode == "hang":
                        # Never answers; notices when the server gives up and closes (so `open`
                        # counts the server's connections), for at most a minute.
                        deadline = time.monotonic() + 60
                        while not receiver.release.is_set() and time.monotonic() < deadline:
                            readable, _, _ = select.select([self.connection], [], [], 0.1)
                            if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                                break
                        self.close_connection = True
                        return
                    status = 204 if mode == "ok" else 500
                    self.send_response(status)
                    self.send_header("content-length", "0")
                    self.end_headers()
                finally:
                    with receiver.lock:
                        receiver.open -= 1

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def wait_for(self, pred, timeout: float = 30.0, what: str = "posts"):
        deadline = time.monotonic() + timeout
        with self.lock:
            while not pred(self.posts):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"receiver: no {what} in {timeout}s; got {len(self.posts)} posts")
                self.lock.wait(left)

    def delivered_seqs(self) -> list[int]:
        """The seqs of the ops in the answered-2xx posts, in the order they came."""
        with self.lock:
            return [op["seq"] for p in self.posts if p["answered"] == "ok" for op in json.loads(p["body"]).get("ops", [])]

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def store_args(request, tmp_path):
    if request.param == "postgres":
        if not POSTGRES:
            pytest.skip("SHUFFLEBOARD_TEST_POSTGRES is not set")
        import uuid
        return ["--store", POSTGRES, "--node", f"n{uuid.uuid4().hex[:6]}"]
    return ["--data", str(tmp_path / "data")]


def stored_board(server, board: str) -> Client:
    """A client on `board`, with one op committed (so the board is stored)."""
    c = Client(server, board)
    c.seq = c.welcome["seq"]
    c.send({"type": "toggle", "op": "first", "base": c.seq, "item": "t1", "on": True})
    assert c.result_of("first")["type"] in ("toggle", "ack")
    c.seq += 1
    return c


def make_hook(server, board: str, url: str, **extra) -> dict:
    status, made = server.http("POST", f"/api/boards/{board}/webhooks", body={"url": url, "events": ["*"], **extra})
    assert status == 201, made
    return made


def toggles(client: Client, n: int, prefix: str) -> None:
    """`n` toggles of t1, sent at once, each based on the one before; returns once the last is
    committed (`client.seq` follows the board's seq)."""
    for k in range(n):
        client.send({"type": "toggle", "op": f"{prefix}{k}", "base": client.seq + k, "item": "t1", "on": k % 2 == 0})
    last = client.expect(lambda m: m.get("op") == f"{prefix}{n - 1}" and m["type"] in ("toggle", "ack", "reject"),
                         timeout=60)
    assert last["type"] != "reject", last
    client.seq += n


def hook_status(server, board: str, hook_id: str) -> dict:
    status, listed = server.http("GET", f"/api/boards/{board}/webhooks")
    assert status == 200, listed
    return next(h for h in listed["webhooks"] if h["id"] == hook_id)


def wait_status(server, board: str, hook_id: str, pred, timeout: float = 20.0) -> dict:
    """The webhook's listed status once `pred` holds (the cursor is stored after the receiver's
    answer is read, so a moment after the receiver has seen the batch)."""
    deadline = time.monotonic() + timeout
    while True:
        listed = hook_status(server, board, hook_id)
        if pred(listed):
            return listed
        assert time.monotonic() < deadline, listed
        time.sleep(0.05)


def test_ops_arrive_in_order_signed_and_exactly_as_broadcast(servers, receiver, store_args):
    board = "hooked" + os.urandom(4).hex()  # PostgreSQL's database is shared by the runs
    server = servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", *store_args)
    writer = stored_board(server, board)
    made = make_hook(server, board, receiver.url)
    assert len(made["secret"]) >= 43 and made["events"] == ["*"]
    assert made["secret"] not in server.log(), "the secret is never logged"
    watcher = Client(server, board, name="watcher")
    start = watcher.welcome["seq"]
    toggles(writer, 300, "w")
    current, ops = server.all_ops(board, since=start)
    receiver.wait_for(lambda posts: sum(len(json.loads(p["body"])["ops"]) for p in posts) >= len(ops))
    seqs = receiver.delivered_seqs()
    assert seqs == list(range(start + 1, current + 1)), "every op once, in seq order"
    # Exactly as broadcast: what the watcher's WebSocket got, op for op.
    broadcasts = {}
    seen = []
    while len(broadcasts) < 300:
        try:
            m = watcher.recv()
        except TimeoutError:
            raise AssertionError(f"watcher got {len(broadcasts)} toggles; last {seen[-3:]}") from None
        seen.append(m)
        if "seq" in m and m["type"] == "toggle":
            broadcasts[m["seq"]] = m
    for post in receiver.posts:
        body = json.loads(post["body"])
        assert body["board"] == board and body["webhook"] == made["id"]
        assert 1 <= len(body["ops"]) <= 100
        for op in body["ops"]:
            assert op == broadcasts[op["seq"]]
        # The signature, as a receiver checks it.
        headers = {k.lower(): v for k, v in post["headers"].items()}
        assert headers["content-type"] == "application/json"
        ts = headers["x-shuffleboard-timestamp"]
        assert abs(int(ts) - time.time()) < 120
        expected = hmac.new(made["secret"].encode(), ts.encode() + b"." + post["body"], hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-shuffleboard-signature"], "sha256=" + expected)
        assert headers["x-shuffleboard-delivery"]
    listed = wait_status(server, board, made["id"], lambda h: h["delivered"] == current)
    assert listed["failing"] is False and "secret" not in listed
    assert listed["lastStatus"] == 204 and listed["disabled"] is False
    # A filter: only retitles are posted; the toggles move the cursor silently.
    filtered = make_hook(server, board, receiver.url + "?only=retitle", events=["retitle"])
    toggles(writer, 5, "f")
    writer.send({"type": "retitle", "op": "r1", "base": writer.seq, "title": "Hooked"})
    assert writer.result_of("r1")["type"] != "reject"
    receiver.wait_for(lambda posts: any("only=" in p["headers"].get("Host", "") or
                                        json.loads(p["body"])["webhook"] == filtered["id"] for p in posts))
    mine = [json.loads(p["body"]) for p in receiver.posts if json.loads(p["body"])["webhook"] == filtered["id"]]
    assert [op["type"] for body in mine for op in body["ops"]] == ["retitle"]
    # Deleting the board deletes its webhooks.
    assert server.http("DELETE", f"/api/boards/{board}/webhooks/{filtered['id']}")[0] == 200
    assert server.http("DELETE", f"/api/boards/{board}/webhooks/{filtered['id']}")[0] == 404
    writer.close()
    watcher.close()


def test_retries_while_the_receiver_fails_then_nothing_lost_or_reordered(servers, receiver, tmp_path):
    server = servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", "--data", str(tmp_path / "data"))
    writer = stored_board(server, "flaky")
    made = make_hook(server, "flaky", receiver.url)
    start = writer.seq
    receiver.mode = "fail"
    toggles(writer, 50, "a")
    # At least three attempts of the first batch (1 s, then 2 s later): each is the same batch.
    receiver.wait_for(lambda posts: len(posts) >= 3, what="three attempts")
    with receiver.lock:
        first = [p for p in receiver.posts]
    bodies = {p["body"] for p in first}
    assert len(bodies) == 1, "a failed batch goes again unchanged; later ops wait"
    assert len({p["headers"]["X-Shuffleboard-Delivery"] for p in first}) == 1
    listed = hook_status(server, "flaky", made["id"])
    assert listed["failing"] is True and listed["lastStatus"] == 500 and listed["delivered"] == start
    toggles(writer, 50, "b")
    receiver.mode = "ok"
    current, _ = server.all_ops("flaky", since=start)
    receiver.wait_for(lambda posts: receiver.delivered_seqs()[-1:] == [current], timeout=60, what="recovery")
    assert receiver.delivered_seqs() == list(range(start + 1, current + 1))
    listed = wait_status(server, "flaky", made["id"], lambda h: h["delivered"] == current)
    assert listed["failing"] is False and listed["lastError"] is None and listed["lastStatus"] == 204
    writer.close()


def test_kill9_mid_delivery_resumes_from_the_cursor(servers, receiver, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", "--data", data)
    writer = stored_board(server, "crashy")
    made = make_hook(server, "crashy", receiver.url)
    start = writer.seq
    toggles(writer, 150, "a")
    receiver.wait_for(lambda posts: len(receiver.delivered_seqs()) >= 150, what="first deliveries")
    receiver.mode = "hang"
    toggles(writer, 120, "b")
    receiver.wait_for(lambda posts: posts[-1]["answered"] == "hang", what="a hanging delivery")
    wait_status(server, "crashy", made["id"], lambda h: h["delivered"] == start + 150)
    writer.close()
    assert server.kill9() == -9
    receiver.release.set()
    receiver.mode = "ok"
    server = servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", "--data", data)
    current, _ = server.all_ops("crashy")
    assert current == start + 270
    receiver.wait_for(lambda posts: receiver.delivered_seqs()[-1:] == [current], what="resumed deliveries")
    seqs = receiver.delivered_seqs()
    # Before the kill: start+1 … cursor; after: cursor+1 … current, in order, nothing missing.
    assert seqs == list(range(start + 1, current + 1))
    wait_status(server, "crashy", made["id"], lambda h: h["delivered"] == current)


def test_private_targets_are_refused_without_the_flag(servers, receiver, tmp_path):
    server = servers("--port", "0", "--op-rate", "0", "--data", str(tmp_path / "data"))
    writer = stored_board(server, "guarded")
    for url in (receiver.url, "http://localhost:1/", "http://[::1]:1/", "http://10.0.0.1/", "http://169.254.169.254/",
                "ftp://example.com/", "http://127.1/"):
        status, problem = server.http("POST", "/api/boards/guarded/webhooks", body={"url": url, "events": ["*"]})
        assert status == 400 and problem["error"] == "bad_request", (url, problem)
    for body in ({"url": "http://example.com/", "events": []}, {"url": "http://example.com/", "events": ["nope"]},
                 {"url": "http://example.com/", "events": ["*"], "secret": "short"},
                 {"url": "http://example.com/", "events": ["*"], "extra": 1}):
        status, problem = server.http("POST", "/api/boards/guarded/webhooks", body=body)
        assert status == 400, (body, problem)
    # A name is checked where the connection is made, on the address it resolved to: "vm" is
    # 127.0.0.1 in /etc/hosts here.
    made = make_hook(server, "guarded", f"http://vm:{receiver.port}/hook")
    toggles(writer, 1, "x")
    deadline = time.monotonic() + 20
    while "refused" not in (hook_status(server, "guarded", made["id"])["lastError"] or ""):
        assert time.monotonic() < deadline, hook_status(server, "guarded", made["id"])
        time.sleep(0.1)
    assert receiver.posts == []
    writer.close()


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_receiver_that_never_answers_gets_one_request_at_a_time_and_bounded_memory(servers, receiver, tmp_path):
    server = servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", "--data", str(tmp_path / "data"))
    writer = stored_board(server, "stuck")
    made = make_hook(server, "stuck", receiver.url)
    receiver.mode = "hang"
    toggles(writer, 10, "a")
    receiver.wait_for(lambda posts: len(posts) >= 1, what="the first request")
    before = rss_kib(server.proc.pid)
    for round in range(10):
        toggles(writer, 200, f"r{round}-")
    after = rss_kib(server.proc.pid)
    # After the 10 s timeout the same batch goes again; never two at once.
    receiver.wait_for(lambda posts: len(posts) >= 2, timeout=40, what="the retry after the timeout")
    assert receiver.most_open == 1
    assert receiver.posts[0]["body"] == receiver.posts[1]["body"]
    listed = hook_status(server, "stuck", made["id"])
    assert listed["failing"] is True and "timeout" in listed["lastError"].lower(), listed
    # 2000 ops waiting cost no queue: the log is the queue (the board's own history grows a little).
    assert after - before < 32 * 1024, (before, after)
    writer.close()
    # A POST in flight does not hold shutdown up.
    server.signal(signal.SIGTERM)
    assert server.wait() == 0


@pytest.mark.skipif(not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")
def test_a_failover_resumes_delivery_from_the_cursor_on_the_new_owner(servers, receiver):
    """Three nodes on one PostgreSQL database: the owner delivers, its receiver fails, the owner
    is killed with -9; another node takes the board over (a client opens it there) and delivers
    from the stored cursor, in order, nothing lost; the third never delivers."""
    import subprocess
    import uuid
    name = "w_" + uuid.uuid4().hex
    admin_db = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin_db, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    try:
        database = POSTGRES.rsplit("/", 1)[0] + "/" + name
        nodes = [servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", "--store", database,
                         "--node", f"n{k}", "--lease", "1") for k in (1, 2, 3)]
        one, two, three = nodes
        writer = stored_board(one, "moving")
        made = make_hook(one, "moving", receiver.url)
        start = writer.seq
        toggles(writer, 120, "a")
        receiver.wait_for(lambda posts: receiver.delivered_seqs()[-1:] == [start + 120], what="the owner's deliveries")
        wait_status(two, "moving", made["id"], lambda h: h["delivered"] == start + 120)
        receiver.mode = "fail"
        toggles(writer, 80, "b")
        receiver.wait_for(lambda posts: posts[-1]["answered"] == "fail", what="a failing delivery")
        writer.close()
        assert one.kill9() == -9
        receiver.mode = "ok"
        with receiver.lock:
            before = len(receiver.posts)
        # Opening the board on node 2 makes it the owner once node 1's lease has run out.
        deadline = time.monotonic() + 30
        while True:
            try:
                client = Client(two, "moving", name="after")
                if client.welcome and client.welcome["type"] == "welcome":
                    break
                client.close()
            except Exception:
                pass
            assert time.monotonic() < deadline, "node 2 never took the board"
            time.sleep(0.2)
        current = start + 200
        receiver.wait_for(lambda posts: receiver.delivered_seqs()[-1:] == [current], what="the new owner's deliveries")
        assert receiver.delivered_seqs() == list(range(start + 1, current + 1)), "in order, nothing lost"
        with receiver.lock:
            after = [json.loads(p["body"]) for p in receiver.posts[before:] if p["answered"] == "ok"]
        assert after[0]["ops"][0]["seq"] == start + 121, "resumed from the stored cursor"
        wait_status(three, "moving", made["id"], lambda h: h["delivered"] == current)
        client.close()
    finally:
        for server in servers.servers:
            server.stop()
        subprocess.run([*admin_db, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def test_a_log_compacted_past_the_cursor_sends_a_reset_then_the_ops_after_it(servers, receiver, tmp_path):
    server = servers("--port", "0", "--op-rate", "0", "--webhook-allow-private", "--data", str(tmp_path / "data"),
                     "--snapshot-every", "100", "--keep-ops", "1000", "--history", "1000")
    writer = stored_board(server, "compacted")
    made = make_hook(server, "compacted", receiver.url)
    start = writer.seq
    receiver.mode = "fail"
    toggles(writer, 10, "a")
    receiver.wait_for(lambda posts: len(posts) >= 1, what="the first attempt")
    for round in range(7):
        toggles(writer, 200, f"r{round}-")
    current = writer.seq
    receiver.mode = "ok"
    receiver.wait_for(lambda posts: any("reset" in json.loads(p["body"]) for p in posts if p["answered"] == "ok"),
                      timeout=40, what="a reset")
    toggles(writer, 5, "after")
    receiver.wait_for(lambda posts: receiver.delivered_seqs()[-1:] == [writer.seq], what="the ops after the reset")
    with receiver.lock:
        ok = [json.loads(p["body"]) for p in receiver.posts if p["answered"] == "ok"]
    at = next(k for k, body in enumerate(ok) if "reset" in body)
    reset = ok[at]["reset"]
    assert reset["seq"] >= current and reset["board"]["id"] == "compacted", reset["seq"]
    before = [op["seq"] for body in ok[:at] for op in body["ops"]]
    assert before == list(range(start + 1, start + 1 + len(before))), "the batch held before the log was compacted"
    after = [op["seq"] for body in ok[at + 1:] for op in body["ops"]]
    assert after == list(range(reset["seq"] + 1, writer.seq + 1)), "then every op after the reset's seq"
    wait_status(server, "compacted", made["id"], lambda h: h["delivered"] == writer.seq)
    writer.close()
