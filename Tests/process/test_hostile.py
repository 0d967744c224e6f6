"""Hostile load against the real binary: while many connections send malformed, truncated,
oversized and out-of-order messages, a well-behaved client on the same board keeps a gapless
stream and every one of its ops is answered; afterwards the server's memory is back near where it
started. Every loop is bounded in count, every wait has a timeout."""
import json
import os
import random
import socket
import struct
import threading
import time

from harness import COMMITTED, Client
from test_transport import raw_websocket, server_frames


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def frame(opcode: int, payload: bytes, fin: bool = True, masked: bool = True) -> bytes:
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", n)
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", n)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Peer:
    """What the server sent to a raw attack socket, read only when asked, parsed into frames."""

    def __init__(self, s: socket.socket):
        self.s = s
        self.buf = b""
        self.code: int | None = None
        self.ended = False  # the server's close frame, or the end of the TCP stream
        self.errors: list[str] = []  # the codes of the `error` messages it got

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            self.ended = True
            return
        frames, self.buf = server_frames(self.buf + chunk)
        for opcode, body in frames:
            if opcode == 0x1:
                parsed = json.loads(body)
                for m in parsed if isinstance(parsed, list) else [parsed]:
                    if m.get("type") == "error":
                        self.errors.append(m.get("code"))
            if opcode == 0x8:
                self.code = struct.unpack(">H", body[:2])[0] if len(body) >= 2 else None
                self.ended = True

    def drain(self) -> None:
        """What has arrived so far, without waiting."""
        timeout = self.s.gettimeout()
        self.s.settimeout(0)  # (MSG_DONTWAIT alone would still wait out a socket's timeout)
        try:
            while not self.ended:
                self._take(self.s.recv(1 << 16))
        except BlockingIOError:
            pass
        except ConnectionResetError:
            self.ended = True
        finally:
            self.s.settimeout(timeout)

    def close_code(self, timeout: float) -> int | None:
        """Reads until the server's close frame: its code (None when the TCP stream ended without
        one). TimeoutError (an attack the server never answered) after `timeout`."""
        deadline = time.monotonic() + timeout
        while not self.ended:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no close frame within {timeout} s")
            self.s.settimeout(left)
            try:
                self._take(self.s.recv(1 << 16))
            except socket.timeout:
                continue
            except ConnectionResetError:
                self.ended = True
        return self.code


def junk_flood(server, rng: random.Random) -> str:
    """3000 malformed messages as fast as they go: answered with errors, then refused with
    `rate_limited`, then closed with 1008."""
    s = raw_websocket(server.port, receive_buffer=1 << 16)
    peer = Peer(s)
    s.sendall(frame(1, b'{"type":"hello","board":"arena","name":"junk"}'))
    texts = [b"{", b"[]", b"null", b'{"type":7}', b'{"type":"swap"}', b'"' + b"\\" * 99 + b'"',
             b'{"type":"hover","item":"t1","over":"t99"}', b'{"type":"drop","item":"t5"}', b"[" * 500]
    try:
        for i in range(3000):
            s.sendall(frame(1, rng.choice(texts)))
            if i % 100 == 99:  # Reads the errors, so that it is the rate limit that closes it.
                peer.drain()
                if peer.ended:
                    break
    except (BrokenPipeError, ConnectionResetError):
        pass  # Closed while still sending: the close frame may still be in the receive buffer.
    try:
        code = peer.close_code(15)
        return f"{sorted(set(peer.errors))}, closed {code}"
    finally:
        s.close()


def binary(server, rng: random.Random) -> str:
    """A joined connection sends a binary frame: closed with 1003 (the protocol is text)."""
    c = Client(server, "arena", name="binary")
    assert c.welcome["type"] == "welcome", c.welcome
    c.ws.send(bytes(rng.randrange(256) for _ in range(16)))
    return f"closed {c.wait_closed(15)}"


def oversize(server, rng: random.Random) -> str:
    """Over 64 KiB in fragments, then a valid op in the same burst: closed with 1009, op never applied
    (the test checks the board's log for it)."""
    s = raw_websocket(server.port, receive_buffer=1 << 16)
    s.sendall(frame(1, b'{"type":"hello","board":"arena","name":"big"}'))
    blob = b'{"type":"hello","pad":"' + b"x" * 70_000 + b'"}'
    try:
        s.sendall(frame(1, blob[:30_000], fin=False) + frame(0, blob[30_000:60_000], fin=False)
                  + frame(0, blob[60_000:]) + frame(1, b'{"type":"toggle","op":"big-1","base":0,"item":"t12","on":true}'))
    except (BrokenPipeError, ConnectionResetError):
        pass
    try:
        return f"closed {Peer(s).close_code(15)}"
    finally:
        s.close()


def truncated(server, rng: random.Random) -> str:
    """20 upgrades (each must get its 101) that promise a megabyte, send a few bytes and go away."""
    for _ in range(20):
        s = raw_websocket(server.port, receive_buffer=1 << 16)  # asserts the 101
        s.sendall(bytes([0x81, 0x80 | 127]) + struct.pack(">Q", 1 << 20) + os.urandom(4) + os.urandom(rng.randrange(1, 500)))
        s.close()
    return "20 upgraded and dropped"


def out_of_order(server, rng: random.Random) -> str:
    """400 wrong, unknown and out-of-order messages on a joined connection; then a ping still gets its
    pong (the connection was answered, not dropped)."""
    c = Client(server, "arena", name="chaos")
    assert c.welcome["type"] == "welcome", c.welcome
    items = [f"t{i}" for i in range(1, 7)]  # The good client works on t7…t12.
    for i in range(400):
        kind = rng.randrange(8)
        if kind == 0:
            c.send({"type": "swap", "op": f"chaos-{i % 7}", "base": rng.randrange(-3, 500), "a": rng.choice(items), "b": rng.choice(items)})
        elif kind == 1:
            c.send({"type": "drop", "item": rng.choice(items), "op": f"x{i}", "base": 0, "action": {"type": "swap", "with": "t1"}})
        elif kind == 2:
            c.send({"type": "hover", "item": rng.choice(items), "over": "nope"})
        elif kind == 3:
            c.send({"type": "hello", "board": "arena", "name": "again"})
        elif kind == 4:
            c.send({"type": "move", "op": f"m{i}", "base": 0, "item": "t1", "zone": "nowhere", "before": None})
        elif kind == 5:
            c.send({"type": "dragStart", "item": rng.choice(items)})
        elif kind == 6:
            c.send({"type": "hover", "item": rng.choice(items), "over": rng.choice(items)})  # no drag
        else:
            c.send({"type": "toggle", "op": "\u0000\u202e" + "e" + "\u0301" * 300, "base": 0, "item": "t1", "on": True})
    c.send({"type": "ping"})
    c.expect(lambda m: m["type"] == "pong", timeout=15)
    c.close()
    return "answered with a pong"


def never_hello(server, rng: random.Random) -> str:
    """10 connections that never say hello: each closed with 4408 after the hello timeout (3 s)."""
    socks = [raw_websocket(server.port, receive_buffer=1 << 12) for _ in range(10)]
    try:
        codes = [Peer(s).close_code(15) for s in socks]
    finally:
        for s in socks:
            s.close()
    return f"closed {sorted(set(codes))} x{len(codes)}"


def board_flood(server, rng: random.Random) -> str:
    """60 connections, each making a board of its own: every one welcomed."""
    welcomed = 0
    for i in range(60):
        c = Client(server, f"flood-{i}-{rng.randrange(1 << 30)}", name="flood")
        welcomed += c.welcome["type"] == "welcome"
        c.close()
    return f"{welcomed} welcomed"


# Each attack and the outcome it must have: an attack that fails to happen (a refused connection,
# a handshake without 101, a close with another code, a wait that times out) fails the test.
ATTACKS = [
    (junk_flood, "['bad_json', 'bad_message', 'rate_limited'], closed 1008"),
    (junk_flood, "['bad_json', 'bad_message', 'rate_limited'], closed 1008"),
    (binary, "closed 1003"),
    (oversize, "closed 1009"),
    (truncated, "20 upgraded and dropped"),
    (out_of_order, "answered with a pong"),
    (out_of_order, "answered with a pong"),
    (never_hello, "closed [4408] x10"),
    (board_flood, "60 welcomed"),
]
# The per-address limits (every attacker connects from 127.0.0.1) raised so that each of the ~100
# attack connections gets through to the attack itself; the per-connection limits stay as shipped.
LIMITS = ("--connect-rate", "1000", "--max-connections-per-address", "1000", "--board-creations", "1000")


def test_hostile_load_leaves_a_good_client_served_and_memory_bounded(servers):
    seed = int(os.environ.get("SHUFFLEBOARD_HOSTILE_SEED") or random.randrange(2**32))
    server = servers("--port", "0", "--memory", "--hello-timeout", "3", *LIMITS)
    good = Client(server, "arena", name="good")
    assert good.welcome["type"] == "welcome", good.welcome
    baseline = rss_kib(server.proc.pid)

    outcomes: list[str | None] = [None] * len(ATTACKS)

    def attack(n: int) -> None:
        try:
            outcomes[n] = ATTACKS[n][0](server, random.Random(seed + n))
        except BaseException as e:  # Recorded, and compared below: an attack that went wrong fails the test.
            outcomes[n] = f"raised {type(e).__name__}: {e}"

    attackers = [threading.Thread(target=attack, args=(n,), daemon=True) for n in range(len(ATTACKS))]
    for t in attackers:
        t.start()

    # The good client: ops answered in time (a liveness bound, not a speed claim), its view of the
    # board's committed ops gapless.
    seqs: list[int] = []
    base = good.welcome["seq"]
    i = 0
    deadline = time.monotonic() + 60
    # At a well-behaved pace (under the op rate limit), for as long as the attack lasts.
    while (i < 150 or any(t.is_alive() for t in attackers)) and time.monotonic() < deadline:
        i += 1
        time.sleep(0.02)  # Pacing, not synchronisation.
        op = f"good-{i}"
        good.send({"type": "toggle", "op": op, "base": base, "item": f"t{7 + i % 6}", "on": i % 2 == 0})
        while True:
            m = good.recv(timeout=10)
            if m["type"] in COMMITTED:
                seqs.append(m["seq"])
                base = m["seq"]
            if m.get("op") == op and m["type"] in (*COMMITTED, "ack", "reject"):
                break
        assert m["type"] in COMMITTED, f"seed {seed}: {m}"
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"seed {seed}: gaps in {seqs}"

    for t in attackers:
        t.join(timeout=60)
        assert not t.is_alive(), f"seed {seed}: an attacker did not finish"
    expected = [(a.__name__, outcome) for a, outcome in ATTACKS]
    got = list(zip([a.__name__ for a, _ in ATTACKS], outcomes))
    assert got == expected, f"seed {seed}: the attacks' outcomes\n  got      {got}\n  expected {expected}"
    _, ops = server.all_ops("arena")
    assert not [op for op in ops if op.get("op") == "big-1"], f"seed {seed}: the op after the oversize message was applied"
    # The server is still whole: health, the board, and a fresh client.
    assert server.get("/healthz")[0] == 200
    status, body = server.get("/api/boards/arena")
    assert status == 200 and body["seq"] >= seqs[-1]
    late = Client(server, "arena", name="late")
    assert late.welcome["type"] == "welcome" and late.welcome["seq"] == body["seq"]
    late.close()
    after = rss_kib(server.proc.pid)
    assert after - baseline < 64 * 1024, f"seed {seed}: RSS grew from {baseline} KiB to {after} KiB"
    good.close()
