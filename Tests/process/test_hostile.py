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
from test_transport import raw_websocket


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


def quietly(action):
    """Runs one attack; the server closing on the attacker is the expected outcome."""
    try:
        action()
    except (OSError, TimeoutError, AssertionError):
        pass
    except Exception as e:  # websockets' ConnectionClosed and friends
        if "Closed" not in type(e).__name__:
            raise


def junk_flood(server, rng: random.Random) -> None:
    s = raw_websocket(server.port, receive_buffer=1 << 16)
    s.sendall(frame(1, b'{"type":"hello","board":"arena","name":"junk"}'))
    texts = [b"{", b"[]", b"null", b'{"type":7}', b'{"type":"swap"}', b'"' + b"\\" * 99 + b'"',
             b'{"type":"hover","item":"t1","over":"t99"}', b'{"type":"drop","item":"t5"}', b"[" * 500]
    s.settimeout(0.2)
    for i in range(3000):
        s.sendall(frame(1, rng.choice(texts)))
        if i % 100 == 0:
            try:
                if not s.recv(1 << 16):
                    break
            except socket.timeout:
                pass
    s.close()


def oversize(server, rng: random.Random) -> None:
    s = raw_websocket(server.port, receive_buffer=1 << 16)
    s.sendall(frame(1, b'{"type":"hello","board":"arena","name":"big"}'))
    # Over 64 KiB in fragments, then a valid op in the same burst: closed with 1009, op never applied.
    blob = b'{"type":"hello","pad":"' + b"x" * 70_000 + b'"}'
    s.sendall(frame(1, blob[:30_000], fin=False) + frame(0, blob[30_000:60_000], fin=False)
              + frame(0, blob[60_000:]) + frame(1, b'{"type":"toggle","op":"big-1","base":0,"item":"t12","on":true}'))
    s.settimeout(5)
    while s.recv(1 << 16):
        pass


def truncated(server, rng: random.Random) -> None:
    for _ in range(20):
        s = raw_websocket(server.port, receive_buffer=1 << 16)
        # A header that promises a megabyte, a few bytes of it, then the socket just goes away.
        s.sendall(bytes([0x81, 0x80 | 127]) + struct.pack(">Q", 1 << 20) + os.urandom(4) + os.urandom(rng.randrange(1, 500)))
        s.close()


def out_of_order(server, rng: random.Random) -> None:
    c = Client(server, "arena", name="chaos")
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
            c.ws.send(bytes(rng.randrange(256) for _ in range(16)))  # binary
        else:
            c.send({"type": "toggle", "op": "\u0000\u202e" + "e" + "\u0301" * 300, "base": 0, "item": "t1", "on": True})
    c.close()


def never_hello(server, rng: random.Random) -> None:
    socks = [raw_websocket(server.port, receive_buffer=1 << 12) for _ in range(10)]
    for s in socks:
        s.settimeout(15)
    for s in socks:  # Each is closed within the hello timeout, having sent nothing.
        while s.recv(4096):
            pass


def board_flood(server, rng: random.Random) -> None:
    for i in range(60):
        c = Client(server, f"flood-{i}-{rng.randrange(1 << 30)}", name="flood")
        c.close()


ATTACKS = [junk_flood, junk_flood, oversize, truncated, out_of_order, out_of_order, never_hello, board_flood]


def test_hostile_load_leaves_a_good_client_served_and_memory_bounded(servers):
    seed = int(os.environ.get("SHUFFLEBOARD_HOSTILE_SEED") or random.randrange(2**32))
    server = servers("--port", "0", "--memory", "--hello-timeout", "3")
    good = Client(server, "arena", name="good")
    assert good.welcome["type"] == "welcome", good.welcome
    baseline = rss_kib(server.proc.pid)

    attackers = [threading.Thread(target=quietly, args=(lambda a=a, n=n: a(server, random.Random(seed + n)),), daemon=True)
                 for n, a in enumerate(ATTACKS)]
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
