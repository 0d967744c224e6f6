"""One address floods the server with connections before any upgrade: thousands that never send a
byte and over a thousand slowloris connections dribbling request headers (more than the server's
1,024 header buffers), each reopened when the server drops it. A client from another address
(127.0.0.2: on Linux all of 127/8 is loopback) still joins a board, within a generous bound of the
time the same join took before the flood (both printed), the attacker's
address is cut off at accept with one log line and a metric, and once the attack ends the
address gets in again. Every loop is bounded in count and time; every socket is closed."""
import contextlib
import re
import resource
import select
import socket
import ssl
import threading
import time

from harness import SUBPROTOCOL, WAIT, Client
from test_tls_origin import self_signed
from websockets.sync.client import connect

IDLE = 10_000  # fewer when the hard open-file limit is lower (see `idle_count`)
SLOWLORIS = 1100  # more than the default --max-header-buffers 1024
ATTACKER = "127.0.0.1"
VICTIM = "127.0.0.2"
OBSERVER = "127.0.0.3"


def idle_count() -> int:
    """IDLE, or as many as this process may open beside the slowloris connections."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(1000, min(IDLE, hard - SLOWLORIS - 512))


def raise_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def open_socket(port: int, source: str, timeout: float = 1.0) -> socket.socket | None:
    """A TCP connection from `source`, or None when the connect fails or takes over `timeout`."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((source, 0))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        return s
    except OSError:
        s.close()
        return None


def dropped(s: socket.socket) -> bool:
    """True when the server closed `s` (EOF or reset); what it sent otherwise is read and dropped."""
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


class Flood:
    """The attacker: idle and slowloris connections from ATTACKER, reopened when dropped."""

    def __init__(self, port: int, idle: int):
        self.port = port
        self.idle_wanted = idle
        self.idle: list[socket.socket] = []
        self.slow: list[socket.socket] = []
        self.stop = threading.Event()
        self.reopened = 0
        self.round_done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def open_all(self) -> None:
        for _ in range(SLOWLORIS):
            s = self._slowloris()
            if s:
                self.slow.append(s)
        for _ in range(self.idle_wanted):
            s = open_socket(self.port, ATTACKER)
            if s:
                self.idle.append(s)

    def _slowloris(self) -> socket.socket | None:
        s = open_socket(self.port, ATTACKER)
        if s:
            with contextlib.suppress(OSError):
                s.send(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
        return s

    def _refresh(self, sockets: list[socket.socket], make, budget: int) -> int:
        """Replaces dropped sockets (at most `budget` of them); returns how many it replaced."""
        poller = select.poll()
        by_fd = {s.fileno(): s for s in sockets}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        replaced = 0
        for fd, _ in poller.poll(0):
            s = by_fd[fd]
            if replaced >= budget or not dropped(s):
                continue
            sockets.remove(s)
            s.close()
            fresh = make()
            if fresh:
                sockets.append(fresh)
            replaced += 1
        return replaced

    def _run(self) -> None:
        deadline = time.monotonic() + 20
        while not self.stop.is_set() and time.monotonic() < deadline:
            for s in self.slow:
                with contextlib.suppress(OSError):
                    s.send(b"X-a: b\r\n")
            self.reopened += self._refresh(self.idle, lambda: open_socket(self.port, ATTACKER), 500)
            self.reopened += self._refresh(self.slow, self._slowloris, 500)
            self.round_done.set()
            self.stop.wait(0.25)

    def close(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(5)
        for s in self.idle + self.slow:
            s.close()
        self.idle, self.slow = [], []


def metric(server, name: str, labels: str = "") -> float:
    """One sample of /metrics, read from OBSERVER (the attacker's own address may be cut off)."""
    s = open_socket(server.port, OBSERVER, timeout=5)
    assert s is not None, "the observer could not connect"
    with contextlib.closing(s):
        s.setblocking(True)
        s.settimeout(5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        body = b""
        while chunk := s.recv(65536):
            body += chunk
    pattern = "^" + re.escape(name) + (r"\{" + re.escape(labels) + r"\}" if labels else "") + r" (\S+)$"
    m = re.search(pattern, body.decode(), re.M)
    # A missing series is a failure, never 0: a renamed metric must not pass a check for "0" or "> 0".
    assert m, f"no series {name}{{{labels}}} in /metrics"
    return float(m.group(1))


def join_from(server, source: str, board: str, timeout: float) -> float:
    """Seconds for a WebSocket from `source` to connect, say hello and get its welcome."""
    start = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=timeout, source_address=(source, 0))
    with connect(server.ws_url, sock=sock, subprotocols=[SUBPROTOCOL], open_timeout=timeout,
                 close_timeout=1) as ws:
        ws.send('{"type":"hello","board":"%s","name":"victim"}' % board)
        left = timeout - (time.monotonic() - start)
        assert left > 0, "no time left for the welcome"
        assert '"welcome"' in ws.recv(timeout=left)
    return time.monotonic() - start


def test_one_address_flooding_connections_does_not_keep_another_from_joining(servers):
    idle = idle_count()
    raise_open_files(idle + SLOWLORIS + 512)
    server = servers("--port", "0", "--memory")
    # The baseline: the same join on this machine, in this run, before the flood.
    baseline = join_from(server, VICTIM, "victim", timeout=WAIT)
    flood = Flood(server.port, idle)
    try:
        flood.open_all()
        flood.thread.start()
        assert len(flood.slow) == SLOWLORIS and len(flood.idle) > idle - 10, "the flood did not connect"
        assert flood.round_done.wait(10), "the flood's first round did not end"
        # A server that the flood starves never answers (the join times out); one that does not
        # answers within a few times what it took alone, plus slack for the flood's own CPU.
        bound = 5.0 + 20 * baseline
        took = join_from(server, VICTIM, "victim", timeout=bound)
        print(f"a join took {took * 1000:.0f} ms under the flood, {baseline * 1000:.0f} ms before it "
              f"(bound {bound:.2f} s)")
        assert took < bound
        assert flood.reopened > 0, "the server dropped none of the flood"
        server.wait_for_log(r"address 127\.0\.0\.1 cut off: \d+ connections not upgraded, "
                            r"--max-pending-per-address 32; refusing its new connections at accept")
        assert metric(server, "shuffleboard_connections_refused_total", 'reason="pending_per_address"') > 0
    finally:
        flood.close()
    # Every count came back: once the server has seen the flood's sockets close (the scrape's own
    # connection is the one left), the address gets in again.
    deadline = time.monotonic() + 10
    while metric(server, "shuffleboard_pending_connections") > 1:
        assert time.monotonic() < deadline, "pending connections never went back to 0"
        select.select([], [], [], 0.05)
    Client(server, board="victim", name="back").close()


def test_a_connection_that_sends_nothing_is_closed_after_the_first_byte_timeout(servers):
    server = servers("--port", "0", "--memory", "--first-byte-timeout", "1")
    silent = open_socket(server.port, ATTACKER)
    talking = open_socket(server.port, ATTACKER)
    assert silent and talking
    with contextlib.closing(silent), contextlib.closing(talking):
        talking.send(b"GET /healthz HTTP/1.1\r\n")  # incomplete headers, but a byte
        ready, _, _ = select.select([silent], [], [], 5)
        assert ready and dropped(silent), "the silent connection was not closed"
        ready, _, _ = select.select([talking], [], [], 0.5)
        assert not ready, "the connection that sent a byte was closed too"
    assert metric(server, "shuffleboard_connections_refused_total", 'reason="first_byte_timeout"') == 1


def test_a_trusted_proxy_is_not_cut_off_by_its_own_volume(servers):
    server = servers("--port", "0", "--memory", "--trusted-proxy", "127.0.0.4", "--max-pending-per-address", "2")
    proxy = [open_socket(server.port, "127.0.0.4") for _ in range(5)]
    other = [open_socket(server.port, "127.0.0.5") for _ in range(3)]
    try:
        assert all(proxy) and all(other)
        ready, _, _ = select.select(other, [], [], 2)
        assert [s for s in ready if dropped(s)] == [other[2]], "the third from another address is refused"
        ready, _, _ = select.select(proxy, [], [], 0.2)
        assert not ready, "the proxy's connections are all kept"
    finally:
        for s in proxy + other:
            if s:
                s.close()


def test_under_tls_idle_handshakes_are_capped_and_closed_and_another_address_gets_in(servers, tmp_path):
    cert, key = self_signed(tmp_path)
    server = servers("--port", "0", "--memory", "--tls-cert", str(cert), "--tls-key", str(key),
                     "--max-pending-per-address", "4", "--first-byte-timeout", "1", wait=False)
    port = int(server.wait_for_log(r"listening on https://127\.0\.0\.1:(\d+)/").group(1))
    idle = [open_socket(port, ATTACKER) for _ in range(40)]
    try:
        assert all(idle)
        # The 36 over the cap are closed at accept; the 4 kept send no ClientHello and are closed
        # after the first-byte timeout.
        deadline = time.monotonic() + 5
        left = list(idle)
        while left and time.monotonic() < deadline:
            ready, _, _ = select.select(left, [], [], 0.1)
            left = [s for s in left if s not in ready or not dropped(s)]
        assert not left, f"{len(left)} idle connections were never closed"
        context = ssl.create_default_context(cafile=str(cert))
        sock = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(VICTIM, 0))
        with connect(f"wss://127.0.0.1:{port}/ws", sock=sock, ssl=context, server_hostname="127.0.0.1",
                     subprotocols=[SUBPROTOCOL], open_timeout=2) as ws:
            ws.send('{"type":"hello","board":"secure","name":"victim"}')
            assert '"welcome"' in ws.recv(timeout=2)
    finally:
        for s in idle:
            if s:
                s.close()
    server.wait_for_log(r"address 127\.0\.0\.1 cut off: 4 connections not upgraded")
