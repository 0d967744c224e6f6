"""Issue 34 against the real binary over real sockets: comments on cards as numbered ops, the
author-only edit, paged reads of their texts (`GET …/items/{item}/comments`), snapshots that carry
only counts, and all of it surviving a restart and an export/import."""

import signal

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


def all_comments(server, board, item, limit):
    """Every comment of a card, page by page, newest first; each page must move on."""
    comments, before = [], None
    for _ in range(100):
        path = f"/api/boards/{board}/items/{item}/comments?limit={limit}" + (f"&before={before}" if before else "")
        status, page = server.get(path)
        assert status == 200, page
        assert len(page["comments"]) <= limit
        comments += page["comments"]
        if not page["more"]:
            assert page["next"] is None
            return comments
        assert page["next"] == page["comments"][-1]["id"]
        before = page["next"]
    raise AssertionError("the pages did not end")


def test_comments_are_ops_paged_newest_first_and_survive_a_restart_and_an_export(servers, tmp_path):
    data, target = str(tmp_path / "data"), str(tmp_path / "target")
    server = servers("--port", "0", "--data", data, "--snapshot-every", "5")
    ada = member_client(server, "cmt", "Ada", "ada")
    bo = member_client(server, "cmt", "Bo", "bo")

    ada.send({"type": "comment", "op": "a1", "base": 0, "item": "t1",
              "text": "Ready? @Bo <img src=x onerror=alert(1)>", "mentions": [{"member": "bo", "name": "Bo"}]})
    first = committed(bo, "a1")
    assert first["item"] == "t1" and first["member"] == "ada"
    c = first["comment"]
    assert c["id"] == "n1" and c["member"] == "ada" and c["name"] == "Ada" and isinstance(c["at"], int)
    assert c["mentions"] == [{"member": "bo", "name": "Bo"}] and "edited" not in c
    # Bo may not edit Ada's comment; Ada may.
    bo.send({"type": "editComment", "op": "b1", "base": 1, "item": "t1", "comment": "n1", "text": "Mine now"})
    assert bo.result_of("b1")["reason"] == "forbidden"
    ada.send({"type": "editComment", "op": "a2", "base": 1, "item": "t1", "comment": "n1", "text": "Ready!"})
    edit = committed(bo, "a2")
    assert edit["text"] == "Ready!" and edit["mentions"] == [] and isinstance(edit["edited"], int)
    for n in range(3, 28):
        ada.send({"type": "comment", "op": f"a{n}", "base": n - 1, "item": "t1", "text": f"Comment {n}"})
        committed(ada, f"a{n}")
    ada.send({"type": "removeComment", "op": "a28", "base": 27, "item": "t1", "comment": "n5"})
    committed(bo, "a28")
    # Removed after Bo's base: a conflict; an unknown one: unknown_comment; text bounds in bytes.
    bo.send({"type": "removeComment", "op": "b2", "base": 27, "item": "t1", "comment": "n5"})
    assert bo.result_of("b2")["reason"] == "conflict"
    bo.send({"type": "editComment", "op": "b3", "base": 28, "item": "t1", "comment": "n99", "text": "x"})
    assert bo.result_of("b3")["reason"] == "unknown_comment"
    bo.send({"type": "comment", "op": "b4", "base": 28, "item": "t1", "text": "😀" * 4001})
    error = bo.expect(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message" and '"text"' in error["message"]
    # A REST comment, as the API member.
    status, answer = server.http("POST", "/api/boards/cmt/ops",
                                 {"type": "comment", "op": "r1", "base": 28, "item": "t2", "text": "From a script"})
    assert status == 200 and answer["op"]["comment"]["member"] == "api", answer
    bo.expect(lambda m: m.get("op") == "r1")
    ada.close()
    bo.close()

    expected = ["n1"] + [f"n{n}" for n in range(3, 28) if n != 5]
    comments = all_comments(server, "cmt", "t1", 7)
    assert [c["id"] for c in comments] == list(reversed(expected))
    assert comments[-1]["text"] == "Ready!" and "edited" in comments[-1]
    assert [c["text"] for c in all_comments(server, "cmt", "t2", 20)] == ["From a script"]
    status, bad = server.get("/api/boards/cmt/items/t1/comments?limit=101")
    assert status == 400 and bad["error"] == "bad_request"
    status, snapshot = server.get("/api/boards/cmt")
    assert status == 200 and snapshot["seq"] == 29
    card = next(i for i in snapshot["board"]["items"] if i["id"] == "t1")
    assert card["comments"] == 25 and "commentRefs" not in snapshot["board"]
    _, ops = server.all_ops("cmt")
    assert replay(template("cmt"), ops) == snapshot["board"]
    status, history = server.get("/api/boards/cmt/history?limit=1")
    assert status == 200 and history["history"][0]["op"]["type"] == "comment"

    # A restart keeps every comment and the rules' memory of who wrote which.
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    server = servers("--port", "0", "--data", data)
    assert server.get("/api/boards/cmt") == (200, snapshot)
    assert all_comments(server, "cmt", "t1", 100) == comments
    bo = member_client(server, "cmt", "Bo", "bo")
    bo.send({"type": "editComment", "op": "b5", "base": 29, "item": "t1", "comment": "n3", "text": "Mine"})
    assert bo.result_of("b5")["reason"] == "forbidden"
    bo.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    # Export and import into a fresh directory: the same board, ops and comments.
    exported = run_cli(["export", "cmt", "--data", data], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "cmt.json").write_text(exported.stdout)
    imported = run_cli(["import", "cmt.json", "--data", target], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    moved = servers("--port", "0", "--data", target)
    assert moved.get("/api/boards/cmt") == (200, snapshot)
    assert all_comments(moved, "cmt", "t1", 100) == comments
