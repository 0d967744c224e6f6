"""Resume across a restart (issue 4): a client that comes back with `since` gets exactly the ops it
missed, and an op id committed before the restart is acknowledged, not applied again."""

import signal

from harness import Client

BOARD = "resume"


def commit(client: Client, op: dict) -> dict:
    client.send(op)
    result = client.result_of(op["op"])
    assert result["type"] == op["type"] and result["op"] == op["op"], result
    return result


def test_resume_with_since_after_restart_gets_exactly_the_missed_ops(servers, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    first = Client(server, BOARD, name="first")
    seq = first.welcome["seq"]
    assert seq == 0 and "board" in first.welcome
    first_ops = [
        {"type": "toggle", "op": "f-1", "base": 0, "item": "t1", "on": True},
        {"type": "swap", "op": "f-2", "base": 1, "a": "t2", "b": "t9"},
        {"type": "move", "op": "f-3", "base": 2, "item": "t4", "zone": "tray", "before": None},
    ]
    for op in first_ops:
        seq = commit(first, op)["seq"]
    assert seq == 3

    server.signal(signal.SIGTERM)
    assert first.wait_closed() == 1001
    assert server.wait() == 0
    first.close()

    server = servers("--port", "0", "--data", data)
    second = Client(server, BOARD, name="second")
    assert second.welcome["seq"] == 3
    missed = [
        commit(second, {"type": "move", "op": "s-1", "base": 3, "item": "t5", "zone": "tray", "before": "t4"}),
        commit(second, {"type": "toggle", "op": "s-2", "base": 4, "item": "t1", "on": False}),
        commit(second, {"type": "swap", "op": "s-3", "base": 5, "a": "t4", "b": "t12"}),
        commit(second, {"type": "move", "op": "s-4", "base": 6, "item": "t3", "zone": "grid", "before": None}),
    ]
    assert [m["seq"] for m in missed] == [4, 5, 6, 7]

    back = Client(server, BOARD, name="first", since=3)
    welcome = back.welcome
    assert welcome["type"] == "welcome" and welcome["seq"] == 7, welcome
    assert "board" not in welcome, "a resume the server can serve gets ops, not a snapshot"
    assert welcome["ops"] == missed

    # The first op again, same id, after the restart: acknowledged with its original seq.
    back.send({**first_ops[0], "base": 7})
    ack = back.result_of("f-1")
    assert ack == {"type": "ack", "op": "f-1", "seq": 1}
    # Nothing new was committed: a fresh op still gets seq 8, and the log holds f-1 once.
    assert commit(back, {"type": "toggle", "op": "b-1", "base": 7, "item": "t7", "on": True})["seq"] == 8
    current, ops = server.all_ops(BOARD)
    assert current == 8 and [op["op"] for op in ops].count("f-1") == 1
    # The other client saw only the new op, never a second f-1.
    seen = second.expect(lambda m: m["type"] in ("toggle", "swap", "move"))
    assert seen["op"] == "b-1" and seen["seq"] == 8
    back.close()
    second.close()
