"""REST ops on a board nobody is on (issue 29, finding 5), through the real binary on SQLite and on
PostgreSQL (when SHUFFLEBOARD_TEST_POSTGRES is set): a board that is stored but not in memory is
loaded for the op and stays in memory until the op is answered, so that neither a `restore` (whose
answer waits for a store read) nor an op queued behind a refused one is told the board does not
exist."""

import http.client
import json
import os
import subprocess
import threading
import uuid

import pytest
from harness import WAIT, Client

POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")


@pytest.fixture(params=["sqlite", "postgres"])
def store_args(request):
    """The flags of a server on SQLite (its own data directory) or on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield []
        return
    if not POSTGRES:
        pytest.skip("SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")
    name = "r_" + uuid.uuid4().hex
    admin = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    yield ["--store", POSTGRES.rsplit("/", 1)[0] + "/" + name, "--node", "n1"]
    subprocess.run([*admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def post_op(port: int, board: str, op: dict) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request("POST", f"/api/boards/{board}/ops", body=json.dumps(op).encode(),
                     headers={"content-type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def boards_in_memory(server) -> int:
    status, text = server.http("GET", "/metrics")
    assert status == 200
    for line in (text if isinstance(text, str) else text.decode()).splitlines():
        if line.startswith("shuffleboard_boards_loaded "):
            return int(float(line.split()[1]))
    raise AssertionError("no shuffleboard_boards_loaded gauge on /metrics")


def stored_board(server, board: str, ops: int) -> None:
    """Makes `board` with `ops` toggles over a WebSocket, then leaves it (so it leaves memory)."""
    ann = Client(server, board, name="Ann")
    for n in range(ops):
        ann.send({"type": "toggle", "op": f"{board}-{n}", "base": n, "item": "t1", "on": n % 2 == 0})
        assert ann.result_of(f"{board}-{n}")["seq"] == n + 1
    ann.close()


def test_a_restore_over_rest_on_a_stored_board_not_in_memory_is_committed(servers, store_args):
    server = servers("--port", "0", *store_args)
    answers = []
    for n in range(6):
        board = f"rest{n}"
        stored_board(server, board, 3)
        # Its only client left a moment ago: the board leaves memory once its writes are durable.
        status, body = post_op(server.port, board, {"type": "restore", "op": f"r{n}", "base": 3, "to": 1})
        answers.append((board, status, body))
    print("restore answers:", [(b, s, d.get("error") or d.get("seq")) for b, s, d in answers])
    for board, status, body in answers:
        assert status == 200, (board, body)
        assert body["seq"] == 4 and body["op"]["type"] == "restore" and body["op"]["to"] == 1, body
    server.stop()
    # After a restart nothing is in memory: every restore loads its board and is committed.
    server = servers("--port", "0", *store_args)
    assert boards_in_memory(server) == 0
    for n in range(6):
        status, body = post_op(server.port, f"rest{n}", {"type": "restore", "op": f"again{n}", "base": 4, "to": 2})
        assert status == 200 and body["seq"] == 5, (n, body)
    current, ops = server.all_ops("rest0")
    assert current == 5 and [op["type"] for op in ops] == ["toggle"] * 3 + ["restore"] * 2


def test_ops_sent_together_where_one_is_refused_all_get_their_own_answer(servers, store_args):
    server = servers("--port", "0", *store_args)
    stored_board(server, "burst", 1)
    rounds, per_round = 12, 8
    statuses: dict[int, int] = {}
    seq = 1
    for r in range(rounds):
        # Each round begins with nothing in memory: a refused op (an unknown item) first, then
        # valid ops and a restore, all while the board is being loaded.
        ops = [{"type": "toggle", "op": f"bad{r}", "base": seq, "item": "nope", "on": True}]
        ops += [{"type": "toggle", "op": f"ok{r}-{k}", "base": seq, "item": f"t{k + 2}", "on": r % 2 == 0}
                for k in range(per_round - 2)]
        ops.append({"type": "restore", "op": f"res{r}", "base": seq, "to": 1})
        results: list[tuple[int, dict] | None] = [None] * len(ops)

        def send(i: int) -> None:
            results[i] = post_op(server.port, "burst", ops[i])

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(ops))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
        for i, result in enumerate(results):
            assert result is not None, f"op {ops[i]['op']} got no answer"
            statuses[result[0]] = statuses.get(result[0], 0) + 1
            assert result[0] != 404, (ops[i]["op"], result)
        refused = results[0]
        assert refused[0] == 409 and refused[1]["reason"] == "unknown_item", refused
        for i in range(1, len(ops)):
            status, body = results[i]
            # Valid ops are committed or refused by the board's rules (a conflict, a restore that
            # conflicts with a toggle of the same round), never "no such board".
            assert status in (200, 409), (ops[i]["op"], body)
        seq = max([seq] + [b["seq"] for s, b in results if s == 200])
    print(f"{rounds} rounds of {per_round} ops: answers by status {statuses}")
    assert statuses.get(200, 0) >= rounds, "every round committed something"
