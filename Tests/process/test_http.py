"""HTTP abuse against the real binary: pipelined requests and clients that send while their
answer is still going out must neither hang nor spin the service thread.

"Spin" is measured as the server process's CPU time over a short idle window (from
/proc/PID/stat): a server with nothing to do uses next to none, one stuck in a busy loop uses a
whole core. Nothing here asserts how fast anything is.
"""
import re
import signal
import socket
import time

from harness import cpu_seconds

WINDOW = 1.5


def cpu_share_while_idle(pid: int) -> float:
    """The share of one core the process uses over WINDOW seconds in which nobody talks to it."""
    before, start = cpu_seconds(pid), time.monotonic()
    time.sleep(WINDOW)  # the measuring window, not a synchronisation
    share = (cpu_seconds(pid) - before) / (time.monotonic() - start)
    print(f"CPU share over {WINDOW} s: {share:.2f}")
    return share


def read_response_or_close(s: socket.socket, timeout: float = 5.0) -> bytes:
    """What arrives until the peer closes or `timeout` passes (then the socket timeout raises)."""
    s.settimeout(timeout)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk
        if data.count(b"HTTP/1.1 ") >= 2:
            return data


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def read_one_response(s: socket.socket) -> bytes:
    """One response with a content-length body; the head and the body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, "closed before a response"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head).group(1))
    while len(body) < length:
        chunk = s.recv(65536)
        assert chunk, "closed inside a response"
        body += chunk
    assert len(body) == length, "more than one response"
    return head + b"\r\n\r\n" + body


def test_requests_on_a_kept_alive_connection_do_not_grow_the_server(servers):
    server = servers("--memory")
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    body = b"x" * (250 * 1024)
    before = rss_mib(server.proc.pid)
    for _ in range(200):
        s.sendall(b"PUT /api/boards/b/ops HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert read_one_response(s).startswith(b"HTTP/1.1 405")
    # 200 bodies of 250 KiB are 49 MiB; each used to stay in memory with its exchange.
    assert rss_mib(server.proc.pid) - before < 20
    s.close()


def test_a_pipelined_request_with_a_body_neither_hangs_nor_spins(servers):
    server = servers("--memory")
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
              b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nA")
    data = read_response_or_close(s)
    assert data.startswith(b"HTTP/1.1 200"), data
    s.close()
    assert cpu_share_while_idle(server.proc.pid) < 0.5
    assert server.get("/healthz")[0] == 200
    server.signal(signal.SIGTERM)
    assert server.wait(5) == 0


def test_a_client_that_sends_while_its_answer_is_going_out_is_dropped_without_spinning(servers, tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<!doctype html><title>t</title>")
    (web / "big.txt").write_bytes(b"a" * (16 << 20))
    server = servers("--memory", "--web", str(web))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(5)
    s.connect(("127.0.0.1", server.port))
    s.sendall(b"GET /big.txt HTTP/1.1\r\nHost: x\r\n\r\n")
    assert s.recv(1, socket.MSG_PEEK)  # the answer has started; this client reads no more of it
    s.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n")
    assert cpu_share_while_idle(server.proc.pid) < 0.5
    server.wait_for_log(r"sent more while its answer was still being sent; dropping the connection")
    s.close()
    assert server.get("/healthz")[0] == 200
    server.signal(signal.SIGTERM)
    assert server.wait(5) == 0


def test_the_sdk_may_be_imported_by_pages_on_other_origins_and_nothing_else_is_shared(servers):
    """A browser imports a module from another origin only with Access-Control-Allow-Origin: the
    files under /sdk/ carry it (public code, no credentials); the web client's own do not."""
    import pathlib
    import urllib.request
    server = servers("--web", str(pathlib.Path(__file__).resolve().parents[2] / "web"))
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/sdk/shuffleboard.js", timeout=5) as resp:
        assert resp.status == 200 and resp.headers["Access-Control-Allow-Origin"] == "*"
        assert "javascript" in resp.headers["Content-Type"] and b"export function connect" in resp.read()
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/app.js", timeout=5) as resp:
        assert resp.status == 200 and resp.headers["Access-Control-Allow-Origin"] is None
