"""Issue 36 against the real binary over real sockets: moveMany, archive and unarchive as one
op each (WebSocket and REST), a group drag seen by another client and dropped as one moveMany,
the snapshot's `archived`, all of it surviving a restart and equal to a replay of the op log."""

import signal

from harness import Client, replay, template


def committed(client, op_id):
    m = client.result_of(op_id)
    assert m["type"] not in ("reject", "ack", "error"), m
    return m


def test_bulk_ops_and_a_group_drag_between_two_clients_survive_a_restart(servers, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data, "--snapshot-every", "3")
    ada = Client(server, "blk", name="Ada")
    bo = Client(server, "blk", name="Bo")

    ada.send({"type": "moveMany", "op": "a1", "base": 0, "items": ["t3", "t1", "t2"], "zone": "tray", "before": None})
    moved = committed(bo, "a1")
    assert moved["seq"] == 1 and moved["items"] == ["t3", "t1", "t2"] and moved["zone"] == "tray"
    committed(ada, "a1")
    # Bo's moveMany from the same base names t1, which Ada moved: refused whole, nothing moves.
    bo.send({"type": "moveMany", "op": "b1", "base": 0, "items": ["t4", "t1"], "zone": "grid", "before": None})
    assert bo.result_of("b1")["reason"] == "conflict"

    # A group drag: Bo sees the stack, cannot take any card of it, and the drop is one moveMany.
    ada.send({"type": "dragStart", "items": ["t5", "t6", "t7"]})
    lifted = bo.expect(lambda m: m["type"] == "dragStart")
    assert lifted["item"] == "t5" and lifted["items"] == ["t5", "t6", "t7"]
    bo.send({"type": "dragStart", "item": "t7"})
    refused = bo.expect(lambda m: m["type"] == "reject")
    assert refused["reason"] == "held" and refused["item"] == "t7"
    ada.send({"type": "hover", "item": "t5", "over": "t1", "zone": "tray", "mode": "move"})
    assert bo.expect(lambda m: m["type"] == "hover")["item"] == "t5"
    ada.send({"type": "drop", "item": "t5", "op": "a2", "base": 1,
              "action": {"type": "move", "zone": "tray", "before": "t1"}})
    assert bo.expect(lambda m: m["type"] == "drop")["item"] == "t5"
    group = committed(bo, "a2")
    assert group["type"] == "moveMany" and group["items"] == ["t5", "t6", "t7"] and group["before"] == "t1"

    # Archive over REST, then an edit of an archived card commits and a move of it is refused.
    status, answer = server.http("POST", "/api/boards/blk/ops", {"type": "archive", "op": "r1", "base": 2,
                                                                "items": ["t1", "t9"]})
    assert status == 200 and answer["seq"] == 3, answer
    committed(bo, "r1")
    bo.send({"type": "edit", "op": "b2", "base": 3, "item": "t9", "label": "Old"})
    committed(bo, "b2")
    bo.send({"type": "move", "op": "b3", "base": 4, "item": "t9", "zone": "grid", "before": None})
    assert bo.result_of("b3")["reason"] == "archived"
    status, snapshot = server.get("/api/boards/blk")
    assert status == 200 and snapshot["board"]["archived"] == ["t1", "t9"]
    assert len(snapshot["board"]["items"]) == 12
    ada.send({"type": "unarchive", "op": "a3", "base": 4, "items": ["t9"], "zone": "grid", "before": "t4"})
    committed(ada, "a3")
    status, snapshot = server.get("/api/boards/blk")
    assert snapshot["board"]["archived"] == ["t1"] and snapshot["board"]["zones"][0]["items"][0:2] == ["t9", "t4"]

    ada.close()
    bo.close()
    _, stored = server.all_ops("blk")
    assert [op["type"] for op in stored] == ["moveMany", "moveMany", "archive", "edit", "unarchive"]
    assert replay(template("blk"), stored) == snapshot["board"]
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    again = servers("--port", "0", "--data", data)
    status, reloaded = again.get("/api/boards/blk")
    assert status == 200 and reloaded["board"] == snapshot["board"] and reloaded["seq"] == 5
