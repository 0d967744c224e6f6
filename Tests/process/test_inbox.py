"""Issue 34's inbox against the real binary: a mention and an assignment reach the member's
client on another board at once as `notice`, never the author; `GET /api/inbox` lists them newest
first with the unread count, `POST /api/inbox/read` marks them, and a restart keeps all of it;
with tokens the inbox is the token's member's (`--user`)."""

import signal

from harness import Client
from test_auth import OLD, mint


def member_client(server, board, name, member, token=None):
    client = Client(server, None, name=name)
    hello = {"type": "hello", "board": board, "name": name, "member": member}
    if token:
        hello["token"] = token
    client.send(hello)
    client.welcome = client.expect(lambda m: m["type"] in ("welcome", "error"))
    assert client.welcome["type"] == "welcome", client.welcome
    return client


def test_notices_reach_the_member_on_any_board_and_the_inbox_survives_a_restart(servers, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    ada = member_client(server, "work", "Ada", "ada")
    bo = member_client(server, "elsewhere", "Bo", "bo")
    ada.send({"type": "comment", "op": "a1", "base": 0, "item": "t1", "text": "@Bo @Ada have a look",
              "mentions": [{"member": "bo", "name": "Bo"}, {"member": "ada", "name": "Ada"}]})
    assert ada.result_of("a1")["type"] == "comment"
    notice = bo.expect(lambda m: m["type"] == "notice")
    assert notice["kind"] == "mention" and notice["board"] == "work" and notice["item"] == "t1"
    assert notice["by"] == {"member": "ada", "name": "Ada"} and notice["seq"] == 1 and notice["read"] is False
    assert isinstance(notice["id"], int) and isinstance(notice["at"], int) and notice["label"]
    ada.send({"type": "assign", "op": "a2", "base": 1, "item": "t2", "add": [{"member": "bo", "name": "Bo"}]})
    assigned = bo.expect(lambda m: m["type"] == "notice")
    assert assigned["kind"] == "assign" and assigned["id"] > notice["id"] and assigned["seq"] == 2
    # Ada (the author) heard of neither: her inbox is empty.
    status, mine = server.get("/api/inbox?member=ada")
    assert status == 200 and mine == {"notices": [], "unread": 0}
    status, inbox = server.get("/api/inbox?member=bo")
    assert status == 200 and inbox["unread"] == 2
    assert [n["id"] for n in inbox["notices"]] == [assigned["id"], notice["id"]]
    assert inbox["notices"][1] == {k: v for k, v in notice.items() if k != "type"}
    status, read = server.http("POST", "/api/inbox/read?member=bo", body={"upTo": notice["id"]})
    assert status == 200 and read == {"unread": 1}
    # Clear errors for bad requests.
    assert server.get("/api/inbox")[0] == 403
    assert server.get("/api/inbox?member=bo&limit=501")[0] == 400
    assert server.http("POST", "/api/inbox/read?member=bo", body={"upTo": "all"})[0] == 400
    assert server.http("DELETE", "/api/inbox?member=bo")[0] == 405
    ada.close()
    bo.close()

    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    server = servers("--port", "0", "--data", data)
    status, again = server.get("/api/inbox?member=bo")
    assert status == 200 and again["unread"] == 1
    assert [(n["id"], n["read"]) for n in again["notices"]] == [(assigned["id"], False), (notice["id"], True)]
    # New notices after the restart come after the old ones.
    bo = member_client(server, "elsewhere", "Bo", "bo")
    cy = member_client(server, "work", "Cy", "cy")
    cy.send({"type": "comment", "op": "c1", "base": 2, "item": "t1", "text": "@Bo",
             "mentions": [{"member": "bo", "name": "Bo"}]})
    later = bo.expect(lambda m: m["type"] == "notice")
    assert later["id"] > assigned["id"] and later["by"]["member"] == "cy"


def test_with_tokens_the_inbox_is_the_tokens_member(servers, tmp_path):
    (tmp_path / "secrets").write_text(f"{OLD}\n")
    server = servers("--port", "0", "--data", str(tmp_path / "data"), "--auth-secret", str(tmp_path / "secrets"))
    ann = mint(tmp_path, "demo", "--role", "edit", "--user", "ann", "--name", "Ann")
    bo = mint(tmp_path, "other", "--role", "edit", "--user", "bo", "--name", "Bo")
    nobody = mint(tmp_path, "demo", "--role", "admin")
    writer = member_client(server, "demo", "Ann", "ignored", token=ann)
    reader = member_client(server, "other", "Bo", "ignored", token=bo)
    writer.send({"type": "comment", "op": "a1", "base": 0, "item": "t1", "text": "@Bo",
                 "mentions": [{"member": "bo", "name": "Bo"}]})
    notice = reader.expect(lambda m: m["type"] == "notice")
    assert notice["by"] == {"member": "ann", "name": "Ann"}
    assert server.http("GET", "/api/inbox?member=bo")[0] == 401
    assert server.http("GET", "/api/inbox", token=nobody)[0] == 403
    # A token for another board reads its member's inbox; ?member= names nobody else's.
    status, inbox = server.http("GET", "/api/inbox?member=ann", token=bo)
    assert status == 200 and [n["id"] for n in inbox["notices"]] == [notice["id"]]
    assert server.http("GET", "/api/inbox", token=ann)[1] == {"notices": [], "unread": 0}
    writer.close()
    reader.close()
