"""History reads do not starve joins (issue 29, finding 3), through the real binary on SQLite: many
clients from several loopback addresses loop on `GET /api/boards/{id}?at=SEQ` of a large stored
board, and joins to other stored boards (not in memory) still get their welcome about as fast as
with no loops. Past `--max-history-reads` (overall) and `--max-history-reads-per-address` the
loops are answered 503 and 429, with Retry-After."""

import http.client
import json
import statistics
import threading
import time

from harness import WAIT, Client, run_cli

LOOPS, ADDRESSES, JOINS = 64, 8, 15


def big_board(board_id: str, cards: int = 300) -> dict:
    text = "<" * 200
    return {"id": board_id, "title": "History", "zones": [
        {"id": "todo", "items": [{"label": text, "color": "#ffe08a", "detail": text} for _ in range(cards)]}]}


def join_times(server, boards: list[str]) -> list[float]:
    times = []
    for board in boards:
        client = Client(server)
        start = time.monotonic()
        welcome = client.hello(board, name="joiner")
        times.append((time.monotonic() - start) * 1000)
        assert welcome["type"] == "welcome", welcome
        client.close()
    return times


def test_joins_are_not_starved_by_history_reads_from_many_addresses(servers, tmp_path):
    data = str(tmp_path / "data")
    # The boards, made through the server: a large one with one op, and small ones to join.
    server = servers("--port", "0", "--data", data)
    assert server.http("POST", "/api/boards", big_board("hist"))[0] == 201
    ann = Client(server, "hist", name="Ann")
    ann.send({"type": "toggle", "op": "first", "base": 0, "item": "t1", "on": True})
    assert ann.result_of("first")["seq"] == 1
    ann.close()
    cold = [f"cold{n}" for n in range(JOINS)]
    for board in cold:
        c = Client(server, board, name="Bo")
        c.send({"type": "toggle", "op": f"{board}-1", "base": 0, "item": "t1", "on": True})
        assert c.result_of(f"{board}-1")["seq"] == 1
        c.close()
    server.stop()
    # Then 3,000 more ops of the large board, imported as an archive (quicker than sending them).
    exported = run_cli(["export", "hist", "--data", data], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    archive = json.loads(exported.stdout)
    first = archive["ops"][-1]
    for seq in range(2, 3001):
        archive["ops"].append({**first, "op": f"op{seq}", "seq": seq, "item": f"t{seq % 300 + 1}",
                               "on": seq % 2 == 0})
    (tmp_path / "hist.json").write_text(json.dumps(archive))
    imported = run_cli(["import", "hist.json", "--data", data, "--replace"], str(tmp_path))
    assert imported.returncode == 0, imported.stderr

    server = servers("--port", "0", "--data", data)
    baseline = join_times(server, cold)

    answers: dict[int | str, int] = {}
    retry_after: set[str | None] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def loop(n: int) -> None:
        # Asks again at once, ignoring retry-after (the attack); a refusal closes the connection,
        # so the loop connects again (at most 100,000 times, and only while the joins are measured).
        source = (f"127.0.0.{2 + n % ADDRESSES}", 0)
        for _ in range(100_000):
            if stop.is_set():
                return
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT, source_address=source)
            try:
                while not stop.is_set():
                    conn.request("GET", f"/api/boards/hist?at={(n * 37 + len(answers) * 101) % 3000}")
                    resp = conn.getresponse()
                    resp.read()
                    with lock:
                        answers[resp.status] = answers.get(resp.status, 0) + 1
                        if resp.status in (429, 503):
                            retry_after.add(resp.getheader("retry-after"))
                    if resp.will_close:
                        break
            except (OSError, http.client.HTTPException):
                with lock:
                    answers["closed"] = answers.get("closed", 0) + 1
            finally:
                conn.close()

    threads = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(LOOPS)]
    for t in threads:
        t.start()
    # Every loop has had answers before the joins are measured.
    deadline = time.monotonic() + WAIT
    while sum(v for k, v in answers.items() if k != "closed") < LOOPS and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        loaded = join_times(server, cold)
    finally:
        stop.set()
        for t in threads:
            t.join(WAIT)
    base_p50, loaded_p50 = statistics.median(baseline), statistics.median(loaded)
    print(f"joins, ms: alone p50 {base_p50:.0f} max {max(baseline):.0f}; under {LOOPS} ?at= loops from "
          f"{ADDRESSES} addresses p50 {loaded_p50:.0f} max {max(loaded):.0f}; ?at= answers by status {answers}")
    assert answers.get(200, 0) > 0, answers
    # The limits answered the rest, said when to come back and closed the connection (some
    # connections were closed at accept, by --connect-rate, before any answer).
    assert set(answers) <= {200, 429, 503, "closed"}, answers
    assert answers.get(429, 0) + answers.get(503, 0) > 0 and retry_after <= {"1"}, (answers, retry_after)
    # Generous bounds over the same joins alone, for a debug build on a loaded machine (here a
    # join waits at most for the one ?at= read in progress, and for CPU): before the fix each
    # join queued behind every ?at= read waiting for the reader thread, and got no welcome in 10 s.
    assert loaded_p50 <= 10 * base_p50 + 1500, (baseline, loaded)
    assert max(loaded) <= 10 * max(baseline) + 4000, (baseline, loaded)
