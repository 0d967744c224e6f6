"""Board management over HTTP (issue 4): create, list, delete, `--create-boards false`, op paging
and 410 once old ops are compacted."""

import json
import re
import signal
import urllib.error
import urllib.request

import pytest
from harness import COMMITTED, Client, run_cli

PLAN = {
    "id": "plan",
    "title": "Release plan",
    "columns": 2,
    "zones": [
        {"id": "todo", "items": [{"label": "Write", "color": "#ffcc00"}, {"label": "Test", "color": "rgb(1, 2, 3)"}]},
        {"id": "done", "items": [{"label": "Ship", "color": "green"}]},
        {"id": "later", "items": []},
    ],
}
PLAN_SNAPSHOT = {
    "id": "plan",
    "title": "Release plan",
    "columns": 2,
    "zones": [{"id": "todo", "items": ["t1", "t2"]}, {"id": "done", "items": ["t3"]}, {"id": "later", "items": []}],
    "items": [
        {"id": "t1", "label": "Write", "color": "#ffcc00", "on": False},
        {"id": "t2", "label": "Test", "color": "rgb(1, 2, 3)", "on": False},
        {"id": "t3", "label": "Ship", "color": "green", "on": False},
    ],
}


def listed(server) -> dict[str, dict]:
    status, body = server.get("/api/boards")
    assert status == 200, body
    return {b["id"]: b for b in body["boards"]}


def test_create_list_and_delete(servers, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    status, body = server.http("POST", "/api/boards", PLAN)
    assert status == 201, body
    assert body == {"seq": 0, "board": PLAN_SNAPSHOT}
    assert server.get("/api/boards/plan") == (200, {"seq": 0, "board": PLAN_SNAPSHOT})

    status, body = server.http("POST", "/api/boards", {k: v for k, v in PLAN.items() if k != "id"})
    assert status == 201, body
    made_up = body["board"]["id"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", made_up) and made_up != "plan"
    assert server.get(f"/api/boards/{made_up}")[0] == 200

    status, body = server.http("POST", "/api/boards", PLAN)
    assert status == 409, body
    assert body["error"] and body["message"]
    # A board made by hello is stored with its first op; one nobody changed leaves nothing.
    Client(server, "untouched", name="x").close()
    assert server.http("POST", "/api/boards", {**PLAN, "id": "untouched"})[0] == 201
    assert server.http("DELETE", "/api/boards/untouched")[0] == 200
    changed = Client(server, "templated", name="x")
    changed.send({"type": "toggle", "op": "t-1", "base": 0, "item": "t1", "on": True})
    assert changed.result_of("t-1")["seq"] == 1
    changed.close()
    assert server.http("POST", "/api/boards", {**PLAN, "id": "templated"})[0] == 409

    # users: how many clients are on the board right now.
    first = Client(server, "plan", name="first")
    assert first.welcome["board"] == PLAN_SNAPSHOT
    assert listed(server)["plan"] == {"id": "plan", "title": "Release plan", "seq": 0, "users": 1}
    second = Client(server, "plan", name="second")
    assert listed(server)["plan"]["users"] == 2
    first.close()
    second.expect(lambda m: m["type"] == "leave")
    assert listed(server)["plan"]["users"] == 1
    assert listed(server)["templated"]["users"] == 0
    assert "untouched" not in listed(server)

    status, body = server.http("DELETE", "/api/boards/plan")
    assert status == 200, body
    assert second.wait_closed() == 4410
    second.close()
    assert server.get("/api/boards/plan")[0] == 404
    assert "plan" not in listed(server)
    assert server.http("DELETE", "/api/boards/plan")[0] == 404
    assert server.http("DELETE", "/api/boards/never-was")[0] == 404

    # The deletion is durable, and the other boards are still there.
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    server = servers("--port", "0", "--data", data)
    assert server.get("/api/boards/plan")[0] == 404
    assert set(listed(server)) == {made_up, "templated"}


def call(server, method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, dict]:
    """One request with exactly these headers (urllib adds a form content type to a body without one)."""
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", data=body, method=method,
                                 headers={k.replace("_", "-"): v for k, v in headers.items()})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_cross_site_writes_are_refused_and_make_nothing(servers):
    """Issue 17 (6): a page on another site can POST text/plain JSON with fetch's `no-cors` (no
    preflight) to a server without tokens: it made boards. API writes with a body must be
    application/json (415 otherwise), and with --allow-origin a write naming another Origin is 403."""
    server = servers("--port", "0", "--memory", "--allow-origin", "https://board.example")
    board = json.dumps({"id": "csrf", "template": "kanban"}).encode()
    # What such a page sends: text/plain (with or without charset, with its Origin or without).
    for headers in ({"Content_Type": "text/plain;charset=UTF-8", "Origin": "https://evil.example"},
                    {"Content_Type": "text/plain"}, {"Content_Type": "application/x-www-form-urlencoded"}, {}):
        status, answer = call(server, "POST", "/api/boards", board, **headers)
        expected = (403, "forbidden_origin") if "Origin" in headers else (415, "unsupported_media_type")
        assert (status, answer["error"]) == expected, (headers, status, answer)
        assert answer["message"]
    # Even as JSON, not from another origin.
    status, answer = call(server, "POST", "/api/boards", board, Content_Type="application/json",
                          Origin="https://evil.example")
    assert (status, answer["error"]) == (403, "forbidden_origin")
    assert server.get("/api/boards/csrf")[0] == 404, "nothing was made"
    assert "csrf" not in listed(server)
    # The allowed origin, or a client that is no browser (no Origin), with JSON: made.
    assert call(server, "POST", "/api/boards", board, Content_Type="application/json; charset=utf-8",
                Origin="https://board.example")[0] == 201
    assert call(server, "POST", "/api/boards", json.dumps({"id": "cli", "template": "paint"}).encode(),
                Content_Type="application/json")[0] == 201
    # DELETE has no body and needs no content type, but another origin may not send it.
    assert call(server, "DELETE", "/api/boards/csrf", Origin="https://evil.example")[0] == 403
    assert server.get("/api/boards/csrf")[0] == 200
    assert call(server, "DELETE", "/api/boards/csrf")[0] == 200
    # Without --allow-origin any origin may write, but only JSON.
    open_server = servers("--port", "0", "--memory")
    assert call(open_server, "POST", "/api/boards", board, Content_Type="text/plain")[0] == 415
    assert call(open_server, "POST", "/api/boards", board, Content_Type="application/json",
                Origin="https://elsewhere.example")[0] == 201


@pytest.mark.parametrize(
    "body, raw",
    [
        (None, b"{not json"),
        (None, b"[1, 2]"),
        ({"columns": 2, "zones": [{"id": "z", "items": []}]}, None),
        ({"title": "", "columns": 2, "zones": [{"id": "z", "items": []}]}, None),
        ({"title": "t", "columns": 0, "zones": [{"id": "z", "items": []}]}, None),
        ({"title": "t", "columns": "3", "zones": [{"id": "z", "items": []}]}, None),
        ({"title": "t", "columns": 2, "zones": [{"id": "z", "items": []}, {"id": "z", "items": []}]}, None),
        ({"title": "t", "columns": 2, "zones": []}, None),
        ({"title": "t", "columns": 2, "zones": "grid"}, None),
        ({"title": "t", "columns": 2, "zones": [{"id": "bad zone", "items": []}]}, None),
        ({"title": "t", "columns": 2, "zones": [{"id": "z", "items": [{"label": "a", "color": "red;}"}]}]}, None),
        ({"title": "t", "columns": 2, "zones": [{"id": "z", "items": [{"label": "a", "color": "<b>"}]}]}, None),
        ({"title": "t", "columns": 2, "zones": [{"id": "z", "items": [{"color": "red"}]}]}, None),
        ({"id": "no/slash", "title": "t", "columns": 2, "zones": [{"id": "z", "items": []}]}, None),
    ],
    ids=["not-json", "not-object", "no-title", "empty-title", "columns-0", "columns-string", "duplicate-zone",
         "no-zones", "zones-not-array", "bad-zone-id", "bad-color", "html-color", "no-label", "bad-id"],
)
def test_invalid_board_definitions_get_400_with_a_message(servers, tmp_path, body, raw):
    server = servers("--port", "0", "--data", str(tmp_path / "data"))
    status, answer = server.http("POST", "/api/boards", body, raw=raw)
    assert status == 400, answer
    assert isinstance(answer, dict) and answer.get("error") and answer.get("message"), answer
    assert listed(server) == {}


def test_create_boards_false_refuses_unknown_boards_but_serves_posted_ones(servers, tmp_path):
    server = servers("--port", "0", "--data", str(tmp_path / "data"), "--create-boards", "false")
    stranger = Client(server, "nope", name="x")
    assert stranger.welcome["type"] == "error" and stranger.welcome["code"] == "unknown_board", stranger.welcome
    assert stranger.wait_closed() == 4404
    stranger.close()
    assert server.get("/api/boards/nope")[0] == 404
    assert listed(server) == {}

    assert server.http("POST", "/api/boards", PLAN)[0] == 201
    member = Client(server, "plan", name="y")
    assert member.welcome["type"] == "welcome" and member.welcome["board"] == PLAN_SNAPSHOT
    member.send({"type": "swap", "op": "o1", "base": 0, "a": "t1", "b": "t3"})
    assert member.result_of("o1")["seq"] == 1
    member.close()


def pump_toggles(client: Client, items: list[str], count: int, seq: int, prefix: str) -> list[dict]:
    """Commits `count` toggles as fast as possible: one in flight per item, so none conflict."""
    on = {item: False for item in items}
    sent = 0
    committed: list[dict] = []
    in_flight = set()

    def send(item: str) -> None:
        nonlocal sent
        sent += 1
        client.send({"type": "toggle", "op": f"{prefix}{sent}", "base": seq, "item": item, "on": not on[item]})
        in_flight.add(item)

    for item in items[:count]:
        send(item)
    while in_flight:
        msg = client.recv(timeout=30)
        assert msg["type"] in (*COMMITTED, "join", "leave"), msg
        if msg["type"] != "toggle":
            continue
        assert msg["seq"] == seq + 1
        seq = msg["seq"]
        committed.append(msg)
        on[msg["item"]] = msg["on"]
        in_flight.discard(msg["item"])
        if sent < count:
            send(msg["item"])
    return committed


def test_ops_paging_and_410_after_compaction(servers, tmp_path):
    # The store keeps at least the newest 10,000 ops (max(10000, --history)) and moves its base
    # snapshot up only when it writes a snapshot, so with --snapshot-every 5 and 10,010 ops the
    # base is at seq 10: ops after 0..9 are gone, ops after 10 are all there.
    server = servers(
        "--port", "0", "--data", str(tmp_path / "data"), "--snapshot-every", "5", "--op-rate", "0")
    wide = {"id": "wide", "title": "wide", "columns": 8,
            "zones": [{"id": "grid", "items": [{"label": f"i{i}", "color": "blue"} for i in range(64)]}]}
    assert server.http("POST", "/api/boards", wide)[0] == 201
    client = Client(server, "wide", name="pump")
    items = [f"t{i + 1}" for i in range(64)]

    committed = pump_toggles(client, items, 25, 0, "a")
    assert server.get("/api/boards/wide/ops?since=0&limit=10") == (200, {"seq": 25, "ops": committed[:10], "more": True, "next": 10})
    assert server.get("/api/boards/wide/ops?since=10&limit=10") == (200, {"seq": 25, "ops": committed[10:20], "more": True, "next": 20})
    assert server.get("/api/boards/wide/ops?since=20&limit=10") == (200, {"seq": 25, "ops": committed[20:], "more": False})
    assert server.get("/api/boards/wide/ops?since=25") == (200, {"seq": 25, "ops": [], "more": False})
    assert server.get("/api/boards/wide/ops?since=99") == (200, {"seq": 25, "ops": [], "more": False})
    assert server.get("/api/boards/wide/ops") == (200, {"seq": 25, "ops": committed, "more": False})
    for query in ("since=-1", "since=abc", "limit=0", "limit=10001", "limit=x"):
        status, body = server.get(f"/api/boards/wide/ops?{query}")
        assert status == 400 and body["message"], (query, status, body)
    assert server.get("/api/boards/nothing/ops?since=0")[0] == 404

    committed += pump_toggles(client, items, 10_010 - 25, 25, "b")
    assert committed[-1]["seq"] == 10_010
    for since in (0, 1, 9):
        status, body = server.get(f"/api/boards/wide/ops?since={since}&limit=10")
        assert status == 410 and body["message"], (since, status, body)
    # 10,000 ops fit in the 1 MiB a page holds, just (others are cut there; test_http_answers.py).
    assert server.get("/api/boards/wide/ops?since=10&limit=10000") == (
        200, {"seq": 10_010, "ops": committed[10:], "more": False})
    assert server.all_ops("wide", since=10) == (10_010, committed[10:])
    assert server.get("/api/boards/wide/ops?since=10005&limit=3") == (
        200, {"seq": 10_010, "ops": committed[10005:10008], "more": True, "next": 10_008})
    client.close()

    # A resume from before what the server holds gets the whole board instead of ops.
    late = Client(server, "wide", name="late", since=0)
    assert late.welcome["seq"] == 10_010 and "board" in late.welcome and "ops" not in late.welcome
    late.close()


def test_created_and_deleted_boards_survive_sigkill(servers, tmp_path):
    """A 201 or a DELETE's 200 is only sent once the change is on disk."""
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    assert server.http("POST", "/api/boards", {**PLAN, "id": "doomed"})[0] == 201
    assert server.http("POST", "/api/boards", PLAN)[0] == 201
    assert server.kill9() == -9
    server = servers("--port", "0", "--data", data)
    assert server.get("/api/boards/plan") == (200, {"seq": 0, "board": PLAN_SNAPSHOT})
    assert server.http("DELETE", "/api/boards/doomed")[0] == 200
    assert server.kill9() == -9
    server = servers("--port", "0", "--data", data)
    assert server.get("/api/boards/doomed")[0] == 404
    assert set(listed(server)) == {"plan"}


def test_the_list_names_the_template_each_board_was_made_from_across_a_restart_and_an_export(servers, tmp_path):
    """Issue 35: `GET /api/boards` says which template made each board (from the store's boards
    table, not from snapshots); a board described zone by zone names none. A restart, a rename and
    an export and import into another directory keep it."""
    source, target = str(tmp_path / "source"), str(tmp_path / "target")
    server = servers("--port", "0", "--data", source)
    assert server.http("POST", "/api/boards", {"id": "sprint", "template": "kanban", "title": "Sprint"})[0] == 201
    assert server.http("POST", "/api/boards", PLAN)[0] == 201
    # Made by hello (the default template), stored with its first op.
    hello = Client(server, "hello", name="x")
    hello.send({"type": "toggle", "op": "h-1", "base": 0, "item": "t1", "on": True})
    assert hello.result_of("h-1")["seq"] == 1
    hello.close()
    expected = {"sprint": "kanban", "plan": None, "hello": "colors"}
    assert {id: b.get("template") for id, b in listed(server).items()} == expected
    assert server.get("/api/boards/sprint")[1]["board"]["template"] == "kanban"
    assert "template" not in server.get("/api/boards/plan")[1]["board"]
    status, body = server.http("POST", "/api/boards/sprint/ops", {"type": "retitle", "op": "r-1", "base": 0, "title": "Q3"})
    assert status == 200, body
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    server = servers("--port", "0", "--data", source)
    assert {id: b.get("template") for id, b in listed(server).items()} == expected
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    exported = run_cli(["export", "sprint", "--data", source], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["board"]["template"] == "kanban"
    (tmp_path / "sprint.json").write_text(exported.stdout)
    imported = run_cli(["import", "sprint.json", "--data", target], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    moved = servers("--port", "0", "--data", target)
    assert listed(moved)["sprint"]["template"] == "kanban"
    assert moved.get("/api/boards/sprint")[1]["board"]["template"] == "kanban"
    moved.signal(signal.SIGTERM)
    assert moved.wait() == 0
