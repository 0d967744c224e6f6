"""Issue 32 against the real binary over real sockets: cards that hold a team's work
(descriptions, due dates, tags, assignees, checklists), `member` on users and ops, `/members`,
REST ops of the new kinds, bounds in bytes, `--max-board-bytes`; all of it surviving a restart
and an export/import, equal to a replay of the op log."""

import os
import signal
import subprocess
import uuid

import pytest

from harness import Client, replay, run_cli, template


def committed(client, op_id):
    m = client.result_of(op_id)
    assert m["type"] not in ("reject", "ack", "error"), m
    return m


def member_client(server, board, name, member):
    client = Client(server, None, name=name)
    client.send({"type": "hello", "board": board, "name": name, "member": member})
    client.welcome = client.expect(lambda m: m["type"] in ("welcome", "error"))
    assert client.welcome["type"] == "welcome", client.welcome
    return client


def test_two_clients_fill_a_card_and_it_survives_a_restart_and_an_export(servers, tmp_path):
    data, target = str(tmp_path / "data"), str(tmp_path / "target")
    server = servers("--port", "0", "--data", data, "--snapshot-every", "5")
    ada = member_client(server, "crd", "Ada", "ada")
    bo = member_client(server, "crd", "Bo", "bo")
    assert [u["member"] for u in bo.welcome["users"]] == ["ada", "bo"]
    assert ada.expect(lambda m: m["type"] == "join")["user"]["member"] == "bo"

    ada.send({"type": "addTag", "op": "a1", "base": 0, "tag": {"name": "Bug", "color": "#d32f2f"}})
    tag = committed(ada, "a1")
    assert tag["tag"] == {"id": "g1", "name": "Bug", "color": "#d32f2f"} and tag["member"] == "ada"
    assert committed(bo, "a1") == tag
    ada.send({"type": "tag", "op": "a2", "base": 1, "item": "t1", "add": ["g1"]})
    assert committed(bo, "a2")["add"] == ["g1"]
    # Bo assigns Ada while she writes the description and the due date: both commit.
    bo.send({"type": "assign", "op": "b1", "base": 1, "item": "t1", "add": [{"member": "ada", "name": "Ada"}]})
    ada.send({"type": "edit", "op": "a3", "base": 1, "item": "t1",
              "description": "# Fix\n\n<img src=x onerror=alert(1)> [x](javascript:alert(1))", "due": "2026-02-28"})
    committed(bo, "b1")
    committed(ada, "a3")
    # Two descriptions from the same base: the later is told, naming the first's author.
    bo.send({"type": "edit", "op": "b2", "base": 3, "item": "t1", "description": "Bo's"})
    conflict = bo.result_of("b2")
    assert conflict["type"] == "reject" and conflict["reason"] == "conflict"
    ada.send({"type": "addCheck", "op": "a4", "base": 4, "item": "t1", "before": None, "text": "Write it"})
    check = committed(ada, "a4")
    assert check["check"] == {"id": "k5", "text": "Write it", "done": False}
    ada.send({"type": "addCheck", "op": "a5", "base": 5, "item": "t1", "before": "k5", "text": "Read it"})
    committed(ada, "a5")
    bo.send({"type": "editCheck", "op": "b3", "base": 6, "item": "t1", "check": "k5", "done": True})
    committed(bo, "b3")
    bo.send({"type": "removeCheck", "op": "b4", "base": 7, "item": "t1", "check": "k6"})
    committed(bo, "b4")
    # An entry removed after the sender's base is a conflict; once seen removed, unknown.
    ada.send({"type": "editCheck", "op": "a6", "base": 7, "item": "t1", "check": "k6", "text": "x"})
    assert ada.result_of("a6")["reason"] == "conflict"
    bo.send({"type": "editCheck", "op": "b5", "base": 8, "item": "t1", "check": "k6", "text": "x"})
    assert bo.result_of("b5")["reason"] == "unknown_check"
    bo.send({"type": "tag", "op": "b6", "base": 8, "item": "t2", "add": ["nope"]})
    assert bo.result_of("b6")["reason"] == "unknown_tag"
    # Bounds in bytes and real dates: bad_message naming the member, nothing committed.
    bo.send({"type": "addTag", "op": "b7", "base": 8, "tag": {"name": "€" * 51, "color": "red"}})
    error = bo.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"tag.name"' in error["message"]
    bo.send({"type": "edit", "op": "b8", "base": 8, "item": "t2", "due": "2026-02-29"})
    error = bo.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"due"' in error["message"]

    # A REST op of a new kind.
    status, answer = server.http("POST", "/api/boards/crd/ops",
                                 {"type": "editTag", "op": "r1", "base": 8, "tag": "g1", "name": "Defect"})
    assert status == 200 and answer["seq"] == 9, answer
    assert bo.expect(lambda m: m.get("op") == "r1")["name"] == "Defect"
    # A second REST op without a token is the same member, `api`: the API is one person, not one per request.
    status, second = server.http("POST", "/api/boards/crd/ops",
                                 {"type": "editTag", "op": "r2", "base": 9, "tag": "g1", "color": "#1e88e5"})
    assert status == 200 and second["seq"] == 10, second
    assert answer["op"]["member"] == second["op"]["member"] == "api"
    bo.expect(lambda m: m.get("op") == "r2")
    status, members = server.get("/api/boards/crd/members")
    assert status == 200
    # Everyone who committed (REST ops without a token as `api`), newest first.
    listed = members["members"]
    assert {m["member"] for m in listed} == {"ada", "bo", "api"}
    assert listed[0]["member"] == "api" and listed[0]["name"] == "api"
    assert [m["last"] for m in listed] == sorted((m["last"] for m in listed), reverse=True)
    assert {m["member"]: m["name"] for m in listed}["ada"] == "Ada"
    ada.close()
    bo.close()

    status, snapshot = server.get("/api/boards/crd")
    assert status == 200 and snapshot["seq"] == 10
    card = next(i for i in snapshot["board"]["items"] if i["id"] == "t1")
    assert card["tags"] == ["g1"] and card["assignees"] == [{"member": "ada", "name": "Ada"}]
    assert card["due"] == "2026-02-28" and card["checklist"] == [{"id": "k5", "text": "Write it", "done": True}]
    assert snapshot["board"]["tags"] == [{"id": "g1", "name": "Defect", "color": "#1e88e5"}]
    assert "tags" not in next(i for i in snapshot["board"]["items"] if i["id"] == "t2")
    _, ops = server.all_ops("crd")
    assert replay(template("crd"), ops) == snapshot["board"]
    assert [op.get("member") for op in ops[:8]] == ["ada", "ada", "bo", "ada", "ada", "ada", "bo", "bo"]

    # A restart loads the same board; the ops keep their members.
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    server = servers("--port", "0", "--data", data)
    assert server.get("/api/boards/crd") == (200, snapshot)
    assert server.all_ops("crd")[1] == ops
    status, history = server.get("/api/boards/crd/history")
    assert status == 200 and history["history"][-1]["by"]["member"] == "ada"
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    # Export and import into a fresh directory: the same board and ops.
    exported = run_cli(["export", "crd", "--data", data], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "crd.json").write_text(exported.stdout)
    imported = run_cli(["import", "crd.json", "--data", target], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    moved = servers("--port", "0", "--data", target)
    assert moved.get("/api/boards/crd") == (200, snapshot)
    assert moved.all_ops("crd")[1] == ops


def test_a_board_is_bounded_in_bytes(servers):
    server = servers("--port", "0", "--memory", "--max-board-bytes", "65536", "--max-message-bytes", "262144")
    ada = member_client(server, "big", "Ada", "ada")
    page = "😀" * 10_000  # 10,000 scalars, 40,000 bytes: the most one description may be.
    ada.send({"type": "edit", "op": "a1", "base": 0, "item": "t1", "description": page})
    committed(ada, "a1")
    ada.send({"type": "edit", "op": "a2", "base": 1, "item": "t2", "description": page})
    full = ada.result_of("a2")
    assert full["type"] == "reject" and full["reason"] == "board_full"
    # Drags still work on a full board.
    ada.send({"type": "move", "op": "a3", "base": 1, "item": "t2", "zone": "tray", "before": None})
    committed(ada, "a3")
    ada.send({"type": "edit", "op": "a4", "base": 2, "item": "t1", "description": "# " + "x" * 10_000})
    error = ada.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"description"' in error["message"]
    ada.close()


def test_max_board_bytes_takes_at_least_64_kib(tmp_path):
    result = run_cli(["serve", "--memory", "--port", "0", "--max-board-bytes", "65535"], str(tmp_path))
    assert result.returncode != 0 and "--max-board-bytes" in result.stderr


POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")


@pytest.mark.skipif(not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")
def test_card_content_and_members_survive_a_restart_on_postgresql(servers):
    name = "c_" + uuid.uuid4().hex
    admin = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    try:
        database = POSTGRES.rsplit("/", 1)[0] + "/" + name
        server = servers("--port", "0", "--store", database, "--node", "n1")
        ada = member_client(server, "pgc", "Ada", "ada")
        ops = [
            {"type": "addTag", "tag": {"name": "Bug", "color": "red"}},
            {"type": "tag", "item": "t1", "add": ["g1"]},
            {"type": "assign", "item": "t1", "add": [{"member": "bo", "name": "Bo"}]},
            {"type": "edit", "item": "t1", "description": "line\n\tindented", "due": "2026-12-31T23:59Z"},
            {"type": "addCheck", "item": "t1", "before": None, "text": "Step"},
            {"type": "editCheck", "item": "t1", "check": "k5", "done": True},
        ]
        for n, op in enumerate(ops):
            ada.send({**op, "op": f"o{n}", "base": n})
            committed(ada, f"o{n}")
        ada.close()
        status, snapshot = server.get("/api/boards/pgc")
        _, stored = server.all_ops("pgc")
        assert status == 200 and [op["member"] for op in stored] == ["ada"] * len(ops)
        server.signal(signal.SIGTERM)
        assert server.wait() == 0
        again = servers("--port", "0", "--store", database, "--node", "n1")
        status, reloaded = again.get("/api/boards/pgc")
        # (`owner` says which node holds the board now: none, until someone opens it.)
        assert status == 200 and reloaded["board"] == snapshot["board"] and reloaded["seq"] == snapshot["seq"]
        assert again.all_ops("pgc")[1] == stored
        assert replay(template("pgc"), stored) == snapshot["board"]
        again.signal(signal.SIGTERM)
        assert again.wait() == 0
    finally:
        subprocess.run([*admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
