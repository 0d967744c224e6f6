"""The send bound against the real binary (issue 8, defect 3): clients that never read cannot grow
the server's memory, a resume is never larger than the board, and large messages arrive whole."""

import json
import struct
import time

from harness import Client, run_cli, template
from test_transport import raw_websocket, read_until_close, send_text

STALLED = 40
HISTORY = 4000
BOUND = 131072


def memory_kb(server) -> dict[str, int]:
    """VmRSS and VmHWM (the peak) of the server process, in kB."""
    with open(f"/proc/{server.proc.pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return {key: int(fields[key].split()[0]) for key in ("VmRSS", "VmHWM")}


def long_history_archive(board: str, ops: int) -> dict:
    """A board whose history is `ops` toggles with 128-character op ids (about 190 bytes each as JSON)."""
    now = int(time.time() * 1000)
    return {"format": "shuffleboard-board", "version": 1, "board": template(board), "baseSeq": 0,
            "ops": [{"type": "toggle", "op": "x" * 122 + f"{n:06d}", "by": "u1", "seq": n + 1, "item": "t1",
                     "on": n % 2 == 0, "time": now} for n in range(ops)]}


def test_clients_that_never_read_cannot_grow_the_server(servers, tmp_path):
    data = str(tmp_path / "data")
    (tmp_path / "hist.json").write_text(json.dumps(long_history_archive("hist", HISTORY)))
    imported = run_cli(["import", "hist.json", "--data", data], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    server = servers("--port", "0", "--data", data, "--max-pending-bytes", str(BOUND), "--op-rate", "0",
                     "--message-rate", "0")

    # The baseline: the board loaded with its history, one well-behaved client on it.
    fast = Client(server, "hist", name="Fast")
    assert fast.welcome["seq"] == HISTORY
    fast.send({"type": "ping"})
    fast.expect(lambda m: m["type"] == "pong")
    baseline = memory_kb(server)

    # Forty clients resume from seq 0 (about 760 KB of ops, against a board of about 1 KB) and
    # never read. Each gets the board, not the ops.
    stalled = []
    for n in range(STALLED):
        s = raw_websocket(server.port, receive_buffer=4096)
        send_text(s, json.dumps({"type": "hello", "board": "hist", "name": f"Stalled{n}", "since": 0}))
        stalled.append(s)
    for _ in range(STALLED):
        fast.expect(lambda m: m["type"] == "join")

    current = HISTORY
    # Then the fast client's ops pile up for every one of them, until each is over its bound
    # (hovers would be coalesced for a slow reader; committed ops never are).
    fast.send({"type": "dragStart", "item": "t1"})
    fast.expect(lambda m: m["type"] == "dragStart")
    for i in range(40_000):  # Bounded: about 1,500 ops fill a 128 KiB queue.
        # One sender, so each op commits as the next seq: each names the one before it as its base.
        fast.send({"type": "toggle", "op": f"pile-{i}", "base": HISTORY + i, "item": "t2", "on": i % 2 == 0})
        if i % 20 == 19:  # The fast client reads its echoes before its own queue fills.
            current = fast.result_of(f"pile-{i}")["seq"]
            if server.wait_for_count("closing with 1008", STALLED, timeout=0) >= STALLED:
                break
    after = memory_kb(server)

    deadline = time.monotonic() + 20
    codes = [read_until_close(s, deadline) for s in stalled]
    for s in stalled:
        s.close()
    assert codes == [1008] * STALLED, codes

    # The server grew by a few megabytes at most, not by the ~60 MB that forty resumes held before.
    grown_mb = (after["VmHWM"] - baseline["VmHWM"]) / 1024
    assert grown_mb < 24, f"peak RSS grew by {grown_mb:.1f} MB ({baseline} -> {after})"

    # The well-behaved client kept working throughout.
    fast.send({"type": "drop", "item": "t1"})
    fast.expect(lambda m: m["type"] == "drop")
    fast.send({"type": "toggle", "op": "after", "base": current, "item": "t2", "on": True})
    assert fast.result_of("after")["seq"] == current + 1
    # A resume that is smaller than the board is still a resume.
    late = Client(server, "hist", name="Late", since=current)
    assert late.welcome["ops"] == [{"type": "toggle", "op": "after", "by": fast.welcome["you"],
                                    "member": fast.welcome["you"], "seq": current + 1, "item": "t2", "on": True}]


def big_board(board_id: str, items: int) -> dict:
    return {"id": board_id, "title": "Big", "columns": 20,
            "zones": [{"id": "grid", "items": [{"label": f"Item {n:04d} " + "b" * 30, "color": "#123456"}
                                               for n in range(items)]}]}


def read_frames_of_one_message(s, deadline: float) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of every frame of the next message, reading only what it needs."""
    buf, frames = b"", []

    def take(n: int) -> bytes:
        nonlocal buf
        while len(buf) < n:
            assert time.monotonic() < deadline, "no whole message in time"
            chunk = s.recv(65536)
            assert chunk, "closed mid-message"
            buf += chunk
        out, buf = buf[:n], buf[n:]
        return out

    while True:
        head = take(2)
        fin, opcode, n = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x7F
        if n == 126:
            n = struct.unpack(">H", take(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", take(8))[0]
        frames.append((opcode, take(n)))
        if fin:
            return frames


def test_a_large_message_goes_out_in_fragments_no_larger_than_one_write(servers):
    server = servers("--port", "0", "--memory")
    status, created = server.http("POST", "/api/boards", big_board("big", 1000))
    assert status == 201, created
    s = raw_websocket(server.port, receive_buffer=1 << 20)
    send_text(s, json.dumps({"type": "hello", "board": "big", "name": "Raw"}))
    frames = read_frames_of_one_message(s, time.monotonic() + 10)
    s.close()
    # A text frame, then continuations, each at most 16 KiB with its header (--max-write-bytes).
    assert [op for op, _ in frames] == [0x1] + [0x0] * (len(frames) - 1)
    assert len(frames) >= 4 and all(len(payload) + 4 <= 16384 for _, payload in frames)
    welcome = json.loads(b"".join(payload for _, payload in frames))
    assert welcome["type"] == "welcome" and welcome["board"] == created["board"]


def test_a_welcome_larger_than_one_write_arrives_whole_with_and_without_deflate(servers):
    for flags in ([], ["--deflate"], ["--max-write-bytes", "1024"]):
        server = servers("--port", "0", "--memory", *flags)
        status, created = server.http("POST", "/api/boards", big_board("big", 1000))
        assert status == 201, created
        client = Client(server, "big", name="Ada")
        assert [type(e).__name__ for e in client.ws.protocol.extensions] == (["PerMessageDeflate"] if "--deflate" in flags else [])
        assert client.welcome["board"] == created["board"]
        assert len(json.dumps(client.welcome)) > 4 * 16384
        client.send({"type": "ping"})
        assert client.recv()["type"] == "pong"
        client.close()
