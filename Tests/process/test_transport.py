"""Transport limits and options that need a real peer: permessage-deflate and the send-queue bound."""
import base64
import json
import os
import select
import socket
import struct
import time

import pytest
from websockets.exceptions import InvalidStatus

from harness import Client, cpu_seconds


def test_deflate_clients_get_every_message_intact(servers):
    server = servers("--memory", "--deflate", "--op-rate", "0")
    a = Client(server, "z", name="Ada")
    b = Client(server, "z", name="Bo")
    # The Python client offers permessage-deflate; with --deflate the server accepts it.
    assert [type(e).__name__ for e in a.ws.protocol.extensions] == ["PerMessageDeflate"]
    a.expect(lambda m: m["type"] == "join")
    seq = 0
    for i in range(300):
        a.send({"type": "toggle", "op": f"d{i}", "base": seq, "item": "t1", "on": i % 2 == 0})
        seq = a.result_of(f"d{i}")["seq"]
    seen = [b.expect(lambda m: m["type"] == "toggle")["seq"] for _ in range(300)]
    assert seen == list(range(1, 301))


def test_without_the_flag_deflate_is_not_negotiated(servers):
    server = servers("--memory")
    a = Client(server, "z", name="Ada")
    assert a.ws.protocol.extensions == []


def test_the_websocket_path_may_carry_a_query_and_other_paths_are_refused(servers):
    # The web client connects to /ws?board=ID so that a load balancer can hash on the board
    # (docs/cluster.md); the server matches the path without its query.
    server = servers("--memory")
    a = Client(server, "q", name="Ada", query="?board=q")
    assert a.welcome is not None and a.welcome["type"] == "welcome"
    a.send({"type": "toggle", "op": "q1", "base": 0, "item": "t1", "on": True})
    assert a.result_of("q1")["seq"] == 1
    for path in ("x?board=q", "/?board=q", "/x?board=q"):
        with pytest.raises(InvalidStatus) as refused:  # no 101: a whole HTTP/1.1 404 a strict client reads
            Client(server, query=path)
        assert refused.value.response.status_code == 404, path


def raw_websocket(port: int, receive_buffer: int) -> socket.socket:
    """A WebSocket that completes the handshake and then reads only when told to."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Protocol: shuffleboard.v1\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def send_text(s: socket.socket, text: str) -> None:
    payload = text.encode()
    mask = os.urandom(4)
    assert len(payload) < 126
    s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def server_frames(buf: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
    """The whole unmasked frames at the start of `buf` as (opcode, payload), and the bytes after them."""
    frames = []
    while len(buf) >= 2:
        opcode, n, offset = buf[0] & 0x0F, buf[1] & 0x7F, 2
        if n == 126:
            if len(buf) < 4:
                break
            n, offset = struct.unpack(">H", buf[2:4])[0], 4
        elif n == 127:
            if len(buf) < 10:
                break
            n, offset = struct.unpack(">Q", buf[2:10])[0], 10
        if len(buf) < offset + n:
            break
        frames.append((opcode, buf[offset:offset + n]))
        buf = buf[offset + n:]
    return frames, buf


def read_until_close(s: socket.socket, deadline: float) -> int | None:
    """Reads frames until the server's close frame; its status code (None if the TCP just ended)."""
    buf = b""
    while time.monotonic() < deadline:
        chunk = s.recv(65536)
        if not chunk:
            return None
        frames, buf = server_frames(buf + chunk)
        for opcode, body in frames:
            if opcode == 0x8:
                return struct.unpack(">H", body[:2])[0] if len(body) >= 2 else None
    raise AssertionError("no close frame in time")


def test_a_client_that_does_not_read_is_closed_with_1008_and_others_carry_on(servers):
    server = servers("--memory", "--max-pending-bytes", "4096", "--op-rate", "0")
    slow = raw_websocket(server.port, receive_buffer=4096)
    send_text(slow, '{"type":"hello","board":"q","name":"Slow"}')
    fast = Client(server, "q", name="Fast")
    fast.send({"type": "dragStart", "item": "t1"})
    fast.expect(lambda m: m["type"] == "dragStart")
    # Committed ops go to everyone and are never dropped: the slow client's queue grows. Bounded.
    for i in range(50_000):
        # One sender, so op i commits as seq i + 1: each names the one before it as its base.
        fast.send({"type": "toggle", "op": f"f{i}", "base": i, "item": "t2", "on": i % 2 == 0})
        if i % 20 == 19:  # The fast client reads its echoes before its own queue fills.
            fast.result_of(f"f{i}")
            if "over its send limit" in server.log():
                break
    server.wait_for_log(r"over its send limit of 4096 bytes; closing with 1008")
    assert read_until_close(slow, time.monotonic() + 10) == 1008
    slow.close()
    # The fast client is unharmed.
    fast.send({"type": "ping"})
    fast.expect(lambda m: m["type"] == "pong")
    fast.send({"type": "drop", "item": "t1"})
    fast.expect(lambda m: m["type"] == "drop")


def test_a_reader_that_keeps_up_loses_nothing_when_another_goes_over_the_send_bound(servers):
    """The slow reader crosses the bound on a broadcast the fast reader (caught up, as it waits for
    each op) has not written yet: the fast one gets that broadcast and every later one."""
    server = servers("--memory", "--max-pending-bytes", "4096", "--op-rate", "0")
    slow = raw_websocket(server.port, receive_buffer=4096)
    send_text(slow, '{"type":"hello","board":"k","name":"Slow"}')
    fast = Client(server, "k", name="Fast")
    seq = fast.welcome["seq"]
    for i in range(5_000):
        fast.send({"type": "toggle", "op": f"k{i}", "base": seq, "item": "t2", "on": i % 2 == 0})
        result = fast.result_of(f"k{i}")
        assert result["type"] == "toggle" and result["seq"] == seq + 1, result
        seq = result["seq"]
        if i >= 100 and "over its send limit" in server.log():
            break
    server.wait_for_log(r"over its send limit of 4096 bytes; closing with 1008")
    assert read_until_close(slow, time.monotonic() + 10) == 1008
    slow.close()
    # Ten more, each broadcast to the fast reader alone now.
    for i in range(10):
        fast.send({"type": "toggle", "op": f"after{i}", "base": seq, "item": "t2", "on": True})
        seq = fast.result_of(f"after{i}")["seq"]


def test_a_slow_reader_gets_the_newest_hover_instead_of_every_one(servers):
    server = servers("--memory", "--max-pending-bytes", "65536", "--message-rate", "0")
    slow = raw_websocket(server.port, receive_buffer=4096)
    send_text(slow, '{"type":"hello","board":"h","name":"Slow"}')
    fast = Client(server, "h", name="Fast")
    fast.send({"type": "dragStart", "item": "t1"})
    fast.expect(lambda m: m["type"] == "dragStart")
    # Far more hovers than the bound holds: they are coalesced for the slow reader, not queued.
    for i in range(5000):
        fast.send({"type": "hover", "item": "t1", "over": f"t{2 + i % 11}", "t": i})
    fast.send({"type": "ping"})
    fast.expect(lambda m: m["type"] == "pong")
    fast.send({"type": "drop", "item": "t1"})
    fast.expect(lambda m: m["type"] == "drop")
    assert server.wait_for_count("over its send limit", 1, timeout=0) == 0, "counted over every log line"
    # The slow reader reads now: fewer hovers than were sent, in order, the last one last, then the drop.
    slow.settimeout(10)
    texts = read_texts(slow, lambda texts: any('"type":"drop"' in t for t in texts), time.monotonic() + 30)
    stamps = [json.loads(t)["t"] for t in texts if '"type":"hover"' in t]
    assert 0 < len(stamps) < 5000 and stamps == sorted(stamps) and stamps[-1] == 4999, stamps[-5:]
    slow.close()


def test_at_its_open_file_limit_the_server_neither_spins_nor_stops_serving(servers):
    # 256 descriptors: lws takes at most 192 connections, and the sockets past that wait in the
    # listen backlog (or are refused) instead of failing accept with EMFILE over and over.
    server = servers("--memory", "--max-connections-per-address", "0", "--connect-rate", "0", open_files=256)
    flood = []
    for _ in range(260):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        flood.append(s)
    time.sleep(0.5)  # Not a synchronisation: the window in which CPU time is measured.
    before = cpu_seconds(server.proc.pid)
    time.sleep(2)
    spent = cpu_seconds(server.proc.pid) - before
    assert spent < 1.0, f"the server used {spent:.2f} s of CPU in 2 s holding idle sockets at its limit"
    for s in flood:
        s.close()
    # Once they are gone it serves again: a client joins and gets its welcome.
    deadline = time.monotonic() + 20
    while True:
        try:
            client = Client(server, "back", name="Back")
            break
        except Exception:
            assert time.monotonic() < deadline, "no client could join after the flood"
            time.sleep(0.2)
    assert client.welcome["type"] == "welcome"
    client.close()


def test_after_a_burst_of_connections_the_heap_is_trimmed_once_it_is_quiet(servers):
    server = servers("--memory", "--log-level", "debug", "--max-connections-per-address", "0", "--connect-rate", "0")
    burst = [raw_websocket(server.port, receive_buffer=65536) for _ in range(150)]
    for s in burst:
        s.close()
    # 150 opened and 150 closed: 300 at least 256, then a quiet tick (250 ms).
    server.wait_for_log(r"heap trimmed after \d+ connections opened or closed")
    # Once: a single client later does not trim again.
    lines = len(server.lines)
    Client(server, "quiet", name="Quiet").close()
    time.sleep(1)  # Not a synchronisation: the ticks in which a wrong trim would show.
    assert not any("heap trimmed" in line for line in server.lines[lines:])


def read_texts(s: socket.socket, want, deadline: float) -> list[str]:
    """Text messages from a raw socket (unmasked server frames) until `want(texts)` is true."""
    buf, texts = b"", []
    while not want(texts):
        assert time.monotonic() < deadline, f"gave up after {len(texts)} messages"
        chunk = s.recv(65536)
        assert chunk, "closed"
        frames, buf = server_frames(buf + chunk)
        texts += [body.decode() for _, body in frames]
    return texts


def test_readers_behind_the_ring_joining_midway_or_leaving_each_get_their_stream_in_order(servers):
    # A small ring and kernel buffer, so that a client that stops reading falls behind the ring.
    server = servers("--memory", "--ring-bytes", "4096", "--unsent-bytes", "4096", "--op-rate", "0",
                     "--message-rate", "0", "--log-level", "debug")
    slow = raw_websocket(server.port, receive_buffer=4096)
    send_text(slow, '{"type":"hello","board":"ring","name":"Slow"}')
    fast = Client(server, "ring", name="Fast")
    leaving = Client(server, "ring", name="Leaving")
    ops = 400

    def commit(i: int) -> None:
        fast.send({"type": "toggle", "op": f"r{i}", "base": i, "item": "t2", "on": i % 2 == 0})
        assert fast.result_of(f"r{i}")["seq"] == i + 1

    for i in range(ops // 2):
        commit(i)
    # One joins halfway, one leaves halfway; the others read on.
    middle = Client(server, "ring", name="Middle")
    assert middle.welcome["seq"] == ops // 2
    leaving.close()
    for i in range(ops // 2, ops):
        commit(i)
    server.wait_for_log(r"fell \d+ bytes behind its board's broadcasts")

    def seqs(texts: list[str]) -> list[int]:
        return [m["seq"] for m in map(json.loads, texts) if m["type"] == "toggle"]

    # The slow reader gets every op, in order, gapless, then the leave, after its welcome and join.
    texts = read_texts(slow, lambda t: len(seqs(t)) >= ops, time.monotonic() + 20)
    assert json.loads(texts[0])["type"] == "welcome"
    assert seqs(texts) == list(range(1, ops + 1))
    types = [json.loads(t)["type"] for t in texts]
    assert types.index("leave") > types.index("join") and types.count("join") == 3
    # Caught up, it is back on the ring: the next op comes as it happens.
    commit(ops)
    assert seqs(read_texts(slow, lambda t: len(seqs(t)) >= 1, time.monotonic() + 10)) == [ops + 1]
    # The one that joined halfway got exactly what came after its welcome.
    got = [middle.result_of(f"r{i}")["seq"] for i in range(ops // 2, ops + 1)]
    assert got == list(range(ops // 2 + 1, ops + 2))
    slow.close()


def send_frame(s: socket.socket, opcode: int, payload: bytes = b"") -> None:
    mask = os.urandom(4)
    assert len(payload) < 126
    s.sendall(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def next_frame(s: socket.socket, buf: bytes, deadline: float) -> tuple[tuple[int, bytes] | None, bytes]:
    """The next frame from the server as (opcode, payload), None when the TCP connection ended
    instead, and the bytes after it."""
    while True:
        frames, rest = server_frames(buf)
        if frames:
            opcode, payload = frames[0]
            # server_frames took every whole frame: give back all but the first.
            header = 2 if len(payload) < 126 else 4 if len(payload) < 65536 else 10
            return (opcode, payload), buf[header + len(payload):]
        assert time.monotonic() < deadline, "no frame in time"
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            return None, b""
        if not chunk:
            return None, b""
        buf += chunk


def test_the_server_pings_and_hangs_up_on_a_client_that_does_not_answer(servers):
    """Issue 33: the server pings and hangs up itself (WebSocket/Keepalive.swift), not with lws's
    per-connection validity timers, whose sorted list cost every join a walk over all connections.
    --ping-after 1 --hang-up-after 2: a client that answers each ping with a pong stays, one that
    answers none is hung up on without a close frame, and a client on the Python library (which
    answers pings itself) keeps working."""
    server = servers("--memory", "--ping-after", "1", "--hang-up-after", "2")
    library = Client(server, "k", name="Lib")
    answering = raw_websocket(server.port, receive_buffer=65536)
    silent = raw_websocket(server.port, receive_buffer=65536)
    opened = time.monotonic()
    deadline = opened + 20

    # Both are read side by side: the answering one answers each ping with its pong, the silent
    # one gets its ping, answers none, and is hung up on without a close frame.
    bufs = {answering: b"", silent: b""}
    pings = {answering: 0, silent: 0}
    hung_up_after = None
    while hung_up_after is None or pings[answering] < 3:
        ready, _, _ = select.select([c for c in bufs if c is not silent or hung_up_after is None], [], [], 0.5)
        assert time.monotonic() < deadline, f"pings {pings}, silent hung up after {hung_up_after}"
        for c in ready:
            frame, bufs[c] = next_frame(c, bufs[c], deadline)
            if c is silent and frame is None:
                hung_up_after = time.monotonic() - opened
                continue
            assert frame is not None, "the answering client was hung up on"
            assert frame[0] == 0x9, f"a frame other than a ping: {frame}"
            pings[c] += 1
            if c is answering:
                send_frame(answering, 0xA, frame[1])
    assert pings[silent] == 1, pings  # pinged once, not again before its pong
    assert hung_up_after >= 1.9, hung_up_after  # not before --hang-up-after

    # The answering client outlived the silent one and was pinged again after each pong; it works.
    send_text(answering, '{"type":"hello","board":"k","name":"Raw"}')
    buf = bufs[answering]
    while True:
        frame, buf = next_frame(answering, buf, deadline)
        assert frame is not None, "the answering client was hung up on"
        if frame[0] == 0x1 and json.loads(frame[1]).get("type") == "welcome":
            break
        if frame[0] == 0x9:
            send_frame(answering, 0xA, frame[1])

    # The library's client answered its pings too, and works.
    library.send({"type": "toggle", "op": "k1", "base": 0, "item": "t1", "on": True})
    assert library.result_of("k1")["seq"] == 1
    _, closes = server.get("/metrics")
    assert 'shuffleboard_closes_total{code="1006",initiator="server"} 1' in closes, closes
