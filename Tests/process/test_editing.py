"""Issue 19 against the real binary over real sockets (Python `websockets`): add, edit and remove
cards and zones and rename the board, two clients at once; the conflict rules; text bounds counted
in bytes; and the edited board surviving a restart and an export/import, equal to a replay of its
op log."""

import json
import signal

from harness import Client, replay, run_cli, template


def committed(client, op_id):
    m = client.result_of(op_id)
    assert m["type"] not in ("reject", "ack"), m
    return m


def test_two_clients_edit_a_board_and_it_survives_a_restart_and_an_export(servers, tmp_path):
    data, target = str(tmp_path / "data"), str(tmp_path / "target")
    server = servers("--port", "0", "--data", data, "--snapshot-every", "4")
    ada, bo = Client(server, "ed", name="Ada"), Client(server, "ed", name="Bo")

    ada.send({"type": "add", "op": "a1", "base": 0, "zone": "tray", "before": None,
              "item": {"label": "Ünïcødé <i>card</i> ✓", "color": "rgb(1, 2, 3)", "detail": "note"}})
    add = committed(ada, "a1")
    assert add["item"] == {"id": "c1", "label": "Ünïcødé <i>card</i> ✓", "color": "rgb(1, 2, 3)",
                           "detail": "note", "on": False}
    assert committed(bo, "a1") == add
    # Bo holds the card; Ada's edit of it commits, her remove is refused with Bo's id.
    bo.send({"type": "dragStart", "item": "c1"})
    bo_id = bo.expect(lambda m: m["type"] == "dragStart")["by"]
    ada.send({"type": "edit", "op": "a2", "base": 1, "item": "c1", "label": "Edited", "detail": None})
    edit = committed(ada, "a2")
    assert edit == {"type": "edit", "op": "a2", "by": edit["by"], "member": edit["by"], "seq": 2, "item": "c1", "label": "Edited",
                    "detail": None}
    ada.send({"type": "remove", "op": "a3", "base": 2, "item": "c1"})
    held = ada.result_of("a3")
    assert held["type"] == "reject" and held["reason"] == "held" and held["by"] == bo_id
    bo.send({"type": "drop", "item": "c1"})
    # Two edits of the same field from the same base: the second is a conflict naming the first's author.
    ada.send({"type": "edit", "op": "a4", "base": 2, "item": "t1", "label": "Rouge"})
    committed(ada, "a4")
    bo.send({"type": "edit", "op": "b1", "base": 2, "item": "t1", "label": "Scarlet"})
    conflict = bo.result_of("b1")
    assert conflict["type"] == "reject" and conflict["reason"] == "conflict" and conflict["by"] != bo_id
    # ...but another field of it commits.
    bo.send({"type": "edit", "op": "b2", "base": 2, "item": "t1", "color": "#000"})
    committed(bo, "b2")
    # Zones and the title.
    bo.send({"type": "addZone", "op": "b3", "base": 4, "before": "tray",
             "zone": {"title": "Blocked", "layout": "grid", "columns": 2}})
    assert committed(bo, "b3")["zone"] == {"id": "z5", "title": "Blocked", "layout": "grid", "columns": 2}
    bo.send({"type": "editZone", "op": "b4", "base": 5, "zone": "z5", "layout": "list"})
    committed(bo, "b4")
    bo.send({"type": "removeZone", "op": "b5", "base": 6, "zone": "grid"})
    assert bo.result_of("b5")["reason"] == "not_empty"
    bo.send({"type": "removeZone", "op": "b6", "base": 6, "zone": "z5"})
    committed(bo, "b6")
    ada.send({"type": "remove", "op": "a5", "base": 7, "item": "c1"})
    committed(ada, "a5")
    ada.send({"type": "retitle", "op": "a6", "base": 8, "title": "Retro ✓"})
    committed(ada, "a6")
    # A resend is acknowledged, not applied again.
    ada.send({"type": "remove", "op": "a5", "base": 7, "item": "c1"})
    assert ada.result_of("a5") == {"type": "ack", "op": "a5", "seq": 8}

    # Bounds count bytes: 150 euro signs are 150 characters but 450 bytes, over a zone title's 400.
    bo.send({"type": "addZone", "op": "b7", "base": 9, "before": None, "zone": {"title": "€" * 150}})
    error = bo.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"zone.title"' in error["message"] and error["op"] == "b7"
    bo.send({"type": "edit", "op": "b8", "base": 9, "item": "t2", "label": "bell\u0007"})
    error = bo.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"label"' in error["message"]
    ada.close()
    bo.close()

    status, snapshot = server.get("/api/boards/ed")
    assert status == 200 and snapshot["seq"] == 9
    current, ops = server.all_ops("ed")
    assert [op["type"] for op in ops] == ["add", "edit", "edit", "edit", "addZone", "editZone", "removeZone",
                                          "remove", "retitle"]
    assert replay(template("ed"), ops) == snapshot["board"]
    assert snapshot["board"]["title"] == "Retro ✓"

    # A restart loads the same board (from a snapshot and the ops after it).
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    server = servers("--port", "0", "--data", data)
    assert server.get("/api/boards/ed") == (200, snapshot)
    resumed = Client(server, "ed", name="Cy", since=6)
    assert [op["type"] for op in resumed.welcome["ops"]] == ["removeZone", "remove", "retitle"]
    resumed.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    # Export and import into a fresh directory: the same board and ops.
    exported = run_cli(["export", "ed", "--data", data], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    archive = json.loads(exported.stdout)
    base = archive["baseSeq"]
    assert [{k: v for k, v in op.items() if k not in ("time", "name")} for op in archive["ops"]] == ops[base:]
    (tmp_path / "ed.json").write_text(exported.stdout)
    imported = run_cli(["import", "ed.json", "--data", target], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    moved = servers("--port", "0", "--data", target)
    assert moved.get("/api/boards/ed") == (200, snapshot)
    client = Client(moved, "ed", name="Dee")
    client.send({"type": "add", "op": "d1", "base": 9, "zone": "tray", "before": None, "item": {"label": "after"}})
    # A fresh id: never one used before on the board (c1 was removed).
    assert committed(client, "d1")["item"]["id"] == "c10"
    client.close()


def test_an_add_may_bring_a_card_back_on_and_it_stays_on_after_a_restart(servers, tmp_path):
    """The web client's undo of a remove: an `add` carrying `on: true` (issue 19's "back with its
    state"); left out it is false, as before; anything but a boolean is a bad message."""
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    ada, bo = Client(server, "lit", name="Ada"), Client(server, "lit", name="Bo")
    ada.send({"type": "toggle", "op": "a1", "base": 0, "item": "t2", "on": True})
    committed(ada, "a1")
    ada.send({"type": "remove", "op": "a2", "base": 1, "item": "t2"})
    committed(ada, "a2")
    ada.send({"type": "add", "op": "a3", "base": 2, "zone": "grid", "before": "t3",
              "item": {"label": "Orange", "color": "#fb8c00", "on": True}})
    back = committed(ada, "a3")
    assert back["item"] == {"id": "c3", "label": "Orange", "color": "#fb8c00", "on": True}
    assert committed(bo, "a3") == back
    ada.send({"type": "add", "op": "a4", "base": 3, "zone": "tray", "before": None, "item": {"label": "Plain"}})
    assert committed(ada, "a4")["item"]["on"] is False
    ada.send({"type": "add", "op": "a5", "base": 4, "zone": "tray", "before": None,
              "item": {"label": "Bad", "on": 1}})
    error = ada.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"item.on"' in error["message"] and error["op"] == "a5"
    ada.close()
    bo.close()
    status, snapshot = server.get("/api/boards/lit")
    assert status == 200 and snapshot["seq"] == 4
    assert next(i for i in snapshot["board"]["items"] if i["id"] == "c3")["on"] is True
    _, ops = server.all_ops("lit")
    assert replay(template("lit"), ops) == snapshot["board"]
    # Stored with its state: a restart replays it on.
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    again = servers("--port", "0", "--data", data)
    assert again.get("/api/boards/lit") == (200, snapshot)
