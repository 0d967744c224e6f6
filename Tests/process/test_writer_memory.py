"""The writer's memory follows the boards in memory (issue 29, finding 12), as a soak: many boards
of 200 cards each made, written and left, one after another, with the server's RSS sampled. The
SQLite writer used to keep a replica of every board it ever wrote (about 70 KB for such a board)
until a restart; now it drops a board's replica when the board leaves memory, so RSS stays flat
however many boards pass through."""

import http.client
import json
import time

from harness import WAIT


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def definition(board: str, n: int) -> dict:
    labels = [{"label": f"Card {n} number {i} with a label of some length", "color": "#ffe08a"} for i in range(200)]
    return {"id": board, "title": f"Board {n}", "zones": [{"id": "todo", "items": labels[:100]},
                                                          {"id": "done", "items": labels[100:]}]}


def request(conn: http.client.HTTPConnection, method: str, path: str, body: dict) -> tuple[int, dict]:
    conn.request(method, path, body=json.dumps(body).encode(), headers={"content-type": "application/json"})
    resp = conn.getresponse()
    return resp.status, json.loads(resp.read())


def test_rss_stays_flat_while_many_boards_are_written_and_leave_memory(servers):
    server = servers("--port", "0", "--board-creations", "0", "--op-rate", "0")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    boards, every, deadline = 600, 75, time.monotonic() + 90
    samples = []
    made = 0
    try:
        for n in range(boards):
            if time.monotonic() > deadline:
                break
            board = f"soak{n}"
            status, body = request(conn, "POST", "/api/boards", definition(board, n))
            assert status == 201, body
            # A write of the board's log: the writer reads the board back for it (its replica).
            status, body = request(conn, "POST", f"/api/boards/{board}/ops",
                                   {"type": "toggle", "op": f"o{n}", "base": 0, "item": "t1", "on": True})
            assert status == 200 and body["seq"] == 1, body
            made += 1
            if made % every == 0:
                samples.append(rss_kib(server.proc.pid))
    finally:
        conn.close()
    print(f"{made} boards of 200 cards written and left; RSS (KiB) every {every}: {samples}")
    assert made >= 6 * every, f"only {made} boards in time"
    # After the first samples (the heap warms up), what is added per board must not stay: 70 KB per
    # board kept would be {made * 70 // 1024} MiB by now.
    warm = samples[1]
    growth = samples[-1] - warm
    kept_per_board = growth * 1024 // ((len(samples) - 2) * every)
    print(f"growth after warm-up: {growth} KiB, {kept_per_board} bytes per board")
    assert kept_per_board < 8 * 1024, f"RSS grows by {kept_per_board} bytes per board that left memory"
