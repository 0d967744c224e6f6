"""Trello import and board export over HTTP (issue 37): `POST /api/boards/import/trello?id=`
with a Trello "Export as JSON" (trello_export.py builds them as Trello writes them), the board
and the report it answers, what it refuses (400 not Trello, 409 the id exists, 413 over a
limit or over 32 MiB, 401/403 without an admin token for every board), that it is durable
(a restart, SQLite and PostgreSQL), and `GET /api/boards/{id}/export` (the archive the CLI's
`export` writes; `import` takes it back) and `…/export.csv` read back by Python's csv module."""

import csv
import io
import json
import os
import signal
import subprocess
import urllib.request
import uuid
from datetime import datetime, timezone

import pytest
import trello_export
from harness import Client, run_cli

POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")
SECRET = "a secret long enough to sign the tokens of this test"


def post_import(server, board, body, token=None, raw=None):
    return server.http("POST", f"/api/boards/import/trello?id={board}", body=body, raw=raw, token=token,
                       timeout=60)


def get_raw(server, path, token=None):
    req = urllib.request.Request(f"http://{server.host}:{server.port}{path}")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def ms(text):
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp() * 1000)


def check_imported(board, report, seq):
    """The fixture's board, mapped as issue 37 says."""
    assert seq == 3
    assert board["title"] == "Launch"
    zones = board["zones"]
    assert [z["title"] for z in zones] == ["To do", "Doing", "Done"]  # open lists by pos
    assert all(z["layout"] == "list" for z in zones)
    items = {i["id"]: i for i in board["items"]}
    labels = [[items[i]["label"] for i in z["items"]] for z in zones]
    assert labels == [["First in To do", "Second in To do"], ["=SUM(A1:A9)"], ["Shipped"]]
    # The closed card and the card of the closed list are archived (the closed list first: lists by pos).
    assert [items[i]["label"] for i in board["archived"]] == ["In a closed list", "Closed card"]
    tags = {t["id"]: (t["name"], t["color"]) for t in board["tags"]}
    assert sorted(tags.values()) == sorted([("Bug", "#eb5a46"), ("green dark", "#61bd4f"), ("Later", "#b3bac5"),
                                            ("no color", "#b3bac5")])
    first = next(i for i in board["items"] if i["label"] == "First in To do")
    assert first["description"] == "Line one\nLine two, with \"quotes\""
    assert [tags[t][0] for t in first["tags"]] == ["Bug", "Later"]
    assert first["assignees"] == [{"member": "trello-annlee", "name": "Ann Lee"},
                                  {"member": "trello-bo_k", "name": "Bo K"}]
    # Two checklists: each entry prefixed with its checklist's name, checklists by pos.
    assert [(c["text"], c["done"]) for c in first["checklist"]] == [
        ("Steps: Write it", True), ("Steps: Test it", False), ("Later: Tell people", False)]
    assert first["comments"] == 2
    formula = next(i for i in board["items"] if i["label"] == "=SUM(A1:A9)")
    assert [(c["text"], c["done"]) for c in formula["checklist"]] == [("@mention", True)]  # one checklist: no prefix
    second = next(i for i in board["items"] if i["label"] == "Second in To do")
    assert second["due"] == "2026-12-24T17:30Z"
    assert report["imported"] == {"zones": 3, "items": 6, "tags": 4, "checks": 4, "comments": 3, "archived": 2}
    dropped = report["dropped"]
    assert {k: dropped[k] for k in ("attachments", "customFields", "stickers", "votes", "plugins")} == {
        "attachments": 3, "customFields": 4, "stickers": 1, "votes": 2, "plugins": 1}
    assert dropped["closedLists"] == 1 and dropped["otherActions"] == 2 and dropped["startDates"] == 1
    assert dropped["boardDescription"] == 1


def check_comments(server, board, token=None):
    first = next(i for i in board["items"] if i["label"] == "First in To do")
    status, page = server.http("GET", f"/api/boards/{board['id']}/items/{first['id']}/comments", token=token)
    assert status == 200, page
    got = [(c["member"], c["name"], c["text"], c["at"]) for c in page["comments"]]
    assert got == [  # newest first
        ("trello-bo_k", "Bo K", "Done, see the PR", ms("2026-11-21T08:00:00.000Z")),
        ("trello-annlee", "Ann Lee", "Can you look?\nThanks", ms("2026-11-20T10:00:00.123Z")),
    ]


def test_a_trello_export_becomes_a_board_that_survives_a_restart(servers, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    status, answer = post_import(server, "launch", trello_export.board())
    assert status == 201, answer
    check_imported(answer["board"], answer["report"], answer["seq"])
    check_comments(server, answer["board"])
    # 409 for an id that exists, whether in memory or only stored.
    status, again = post_import(server, "launch", trello_export.board())
    assert status == 409 and again["error"] == "exists", again
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    server = servers("--port", "0", "--data", data)
    status, snapshot = server.get("/api/boards/launch")
    assert status == 200 and snapshot["seq"] == 3
    check_imported(snapshot["board"], answer["report"], snapshot["seq"])
    check_comments(server, snapshot["board"])
    assert post_import(server, "launch", trello_export.board())[0] == 409
    # The board goes on: a client joins it and edits a card; a new comment gets a fresh id.
    client = Client(server, "launch", name="x")
    client.send({"type": "edit", "item": "tc1", "label": "Renamed", "op": "e1", "base": 3})
    assert client.result_of("e1")["seq"] == 4
    client.close()


@pytest.mark.skipif(not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server")
def test_a_trello_import_on_postgresql_is_stored_with_its_comments(servers, tmp_path):
    name = "p_" + uuid.uuid4().hex
    admin = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    url = POSTGRES.rsplit("/", 1)[0] + "/" + name
    try:
        server = servers("--port", "0", "--store", url, "--node", "n1")
        status, answer = post_import(server, "launch", trello_export.board())
        assert status == 201, answer
        check_imported(answer["board"], answer["report"], answer["seq"])
        server.signal(signal.SIGTERM)
        assert server.wait() == 0
        server = servers("--port", "0", "--store", url, "--node", "n2")
        status, snapshot = server.get("/api/boards/launch")
        assert status == 200, snapshot
        check_imported(snapshot["board"], answer["report"], snapshot["seq"])
        check_comments(server, snapshot["board"])
        server.signal(signal.SIGTERM)
        assert server.wait() == 0
    finally:
        subprocess.run([*admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def test_what_is_not_a_trello_export_gets_400_naming_what_is_wrong(servers):
    server = servers("--port", "0", "--memory")
    cases = [
        (b"not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"name": "x", "cards": []}).encode(), '"lists" must be an array'),
        (json.dumps({"format": "shuffleboard-board", "version": 1}).encode(), "shuffleboard archive"),
    ]
    broken = trello_export.board()
    broken["cards"][0]["idList"] = "nothere"
    cases.append((json.dumps(broken).encode(), "cards[0].idList"))
    for raw, words in cases:
        status, answer = post_import(server, "nope", None, raw=raw)
        assert status == 400, (raw[:40], answer)
        assert words in answer["message"], answer
    status, answer = post_import(server, "no/good", trello_export.board())
    assert status in (400, 404), answer
    status, answer = server.http("POST", "/api/boards/import/trello", body=trello_export.board())
    assert status == 400 and "?id=" in answer["message"], answer
    assert server.http("GET", "/api/boards/import/trello?id=x")[0] == 405
    assert server.get("/api/boards/nope")[0] == 404  # nothing was made


def test_a_board_over_our_limits_is_refused_with_413_naming_the_limit_not_cut(servers):
    server = servers("--port", "0", "--memory")
    many_lists = trello_export.board()
    many_lists["lists"] = [trello_export.lst(100 + n, f"L{n}", n) for n in range(65)]
    many_lists["cards"] = []
    status, answer = post_import(server, "big", many_lists)
    assert status == 413 and "64 zones" in answer["message"], answer
    many_cards = trello_export.board()
    many_cards["cards"] = [trello_export.card(1000 + n, f"c{n}", 1, n) for n in range(10_001)]
    status, answer = post_import(server, "big", many_cards)
    assert status == 413 and "10000 items" in answer["message"], answer
    long_comment = trello_export.board()
    long_comment["actions"][0]["data"]["text"] = "x" * 4001
    status, answer = post_import(server, "big", long_comment)
    assert status == 413 and "4000" in answer["message"], answer
    assert server.get("/api/boards/big")[0] == 404
    # Over 32 MiB: refused from its Content-Length, before the body is read.
    req = urllib.request.Request(f"http://{server.host}:{server.port}/api/boards/import/trello?id=big",
                                 data=b" " * (32 * 1024 * 1024 + 1), method="POST")
    req.add_header("content-type", "application/json")
    try:
        urllib.request.urlopen(req, timeout=30)
        raise AssertionError("a 32 MiB + 1 body was taken")
    except urllib.error.HTTPError as e:
        assert e.code == 413 and str(32 * 1024 * 1024) in e.read().decode()
    except (ConnectionError, urllib.error.URLError):
        pass  # The server answered and closed while the body was still on its way.
    # Up to 32 MiB is read on this route (whitespace around a real export), not on others.
    padded = json.dumps(trello_export.board()).encode() + b" " * (20 * 1024 * 1024)
    status, answer = post_import(server, "padded", None, raw=padded)
    assert status == 201, answer
    status, answer = server.http("POST", "/api/boards", raw=b" " * (1024 * 1024))
    assert status == 413, answer


def test_the_import_needs_an_admin_token_for_every_board_and_exports_a_view_token(servers, tmp_path):
    (tmp_path / "secrets").write_text(SECRET + "\n")
    server = servers("--port", "0", "--memory", "--auth-secret", str(tmp_path / "secrets"))

    def mint(board, role):
        result = run_cli(["token", board, "--auth-secret", str(tmp_path / "secrets"), "--role", role], str(tmp_path))
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    assert post_import(server, "launch", trello_export.board())[0] == 401
    for token in (mint("launch", "admin"), mint("*", "edit")):
        assert post_import(server, "launch", trello_export.board(), token=token)[0] == 403
    admin = mint("*", "admin")
    status, answer = post_import(server, "launch", trello_export.board(), token=admin)
    assert status == 201, answer
    view = mint("launch", "view")
    assert get_raw(server, "/api/boards/launch/export")[0] == 401
    assert get_raw(server, "/api/boards/launch/export.csv", token=mint("other", "view"))[0] == 403
    status, headers, body = get_raw(server, "/api/boards/launch/export.csv", token=view)
    assert status == 200 and headers["content-type"].startswith("text/csv")
    status, headers, body = get_raw(server, "/api/boards/launch/export", token=view)
    assert status == 200 and json.loads(body)["board"]["id"] == "launch"


def test_export_csv_reads_back_with_pythons_csv_module(servers):
    server = servers("--port", "0", "--memory")
    assert post_import(server, "launch", trello_export.board())[0] == 201
    status, headers, body = get_raw(server, "/api/boards/launch/export.csv")
    assert status == 200 and headers["content-type"] == "text/csv; charset=utf-8"
    assert "attachment" in headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))
    assert rows[0] == ["zone", "label", "description", "tags", "assignees", "due", "checks", "comments",
                       "archived"]
    by_label = {r[1]: r for r in rows[1:]}
    assert len(rows) == 7
    assert by_label["First in To do"] == [
        "To do", "First in To do", "Line one\nLine two, with \"quotes\"", "Bug, Later", "Ann Lee, Bo K", "",
        "1/3", "2", "no"]
    # Cells a spreadsheet would run as formulas start with '.
    assert "'=SUM(A1:A9)" in by_label
    assert by_label["'=SUM(A1:A9)"][:3] == ["Doing", "'=SUM(A1:A9)", "'-starts with a minus"]
    assert by_label["'=SUM(A1:A9)"][6] == "1/1"
    assert by_label["Second in To do"][5] == "2026-12-24T17:30Z"
    assert by_label["Closed card"][8] == "yes" and by_label["In a closed list"][8] == "yes"
    assert server.get("/api/boards/missing/export.csv")[0] == 404
    assert server.http("POST", "/api/boards/launch/export", body={})[0] == 405


def test_export_json_is_the_cli_archive_and_imports_back_equal(servers, tmp_path):
    data = str(tmp_path / "data")
    server = servers("--port", "0", "--data", data)
    assert post_import(server, "launch", trello_export.board())[0] == 201
    client = Client(server, "launch", name="x")
    client.send({"type": "toggle", "item": "tc1", "on": True, "op": "t1", "base": 3})
    assert client.result_of("t1")["seq"] == 4
    client.close()
    status, headers, body = get_raw(server, "/api/boards/launch/export")
    assert status == 200 and headers["content-type"] == "application/json"
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    cli = run_cli(["export", "launch", "--data", data], str(tmp_path))
    assert cli.returncode == 0, cli.stderr
    assert json.loads(body) == json.loads(cli.stdout)
    (tmp_path / "launch.json").write_text(body.decode())
    target = str(tmp_path / "target")
    imported = run_cli(["import", "launch.json", "--data", target], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    moved = servers("--port", "0", "--data", target)
    status, headers, again = get_raw(moved, "/api/boards/launch/export")
    assert status == 200 and json.loads(again) == json.loads(body)
    check_comments(moved, json.loads(again)["board"])


def test_the_cli_import_trello_prints_the_report(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps(trello_export.board()))
    result = run_cli(["import-trello", "t.json", "--board", "launch", "--data", "d"], str(tmp_path))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["board"] == "launch" and out["seq"] == 3
    assert out["report"]["imported"]["comments"] == 3 and out["report"]["dropped"]["attachments"] == 3
    again = run_cli(["import-trello", "t.json", "--board", "launch", "--data", "d"], str(tmp_path))
    assert again.returncode == 1 and "already exists" in again.stderr, again.stderr
    (tmp_path / "bad.json").write_text("{}")
    bad = run_cli(["import-trello", "bad.json", "--board", "x", "--data", "d"], str(tmp_path))
    assert bad.returncode == 1 and "not a Trello board export" in bad.stderr, bad.stderr
    assert run_cli(["import-trello", "t.json", "--data", "d"], str(tmp_path)).returncode == 2
    exported = run_cli(["export", "launch", "--data", "d"], str(tmp_path))
    archive = json.loads(exported.stdout)
    check_imported(archive["board"], out["report"], archive["baseSeq"])


def head_only(server, board, length):
    """Sends only the head of an import of `length` bytes and waits up to 2 s for an answer:
    (status, JSON) when one comes before the body (a refusal), (None, None) when the server waits
    for the body (its room was free)."""
    import socket

    with socket.create_connection((server.host, server.port), timeout=10) as s:
        s.sendall((f"POST /api/boards/import/trello?id={board} HTTP/1.1\r\nHost: x\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode())
        s.settimeout(2)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except TimeoutError:
            if not data:
                return None, None
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_at_most_two_large_bodies_are_received_at_once(servers):
    """Two imports whose bodies are still arriving hold their room; a third large body gets 503 at
    once, before a byte of it is read, and a small request is served meanwhile. Once one of the two
    ends, a large body is taken again."""
    import socket

    server = servers("--port", "0", "--memory")
    length = 30 * 1024 * 1024

    def start(board):
        s = socket.create_connection((server.host, server.port), timeout=10)
        s.sendall((f"POST /api/boards/import/trello?id={board} HTTP/1.1\r\nHost: x\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode() + b" " * 65536)
        return s

    slow = [start("a"), start("b")]
    try:
        # The server has read the two requests' heads once it answers one sent after them.
        assert server.get("/healthz")[0] == 200
        # Over --max-body-bytes (256 KiB): a large body too. Its head alone is sent, as the answer
        # comes before a byte of the body is read (a client still sending when the server closes
        # may get a broken pipe or a reset instead of reading it).
        padded = json.dumps(trello_export.board()).encode() + b" " * (512 * 1024)
        status, answer = head_only(server, "c", len(padded))
        assert status == 503 and "large imports" in answer["message"], answer
        # A small import is no large body: it is taken.
        assert post_import(server, "small", trello_export.board())[0] == 201
        assert server.get("/api/boards/c")[0] == 404
        slow.pop().close()
        for _ in range(100):  # the server notices the closed connection within a service pass or two
            status, answer = head_only(server, "c", len(padded))
            if status != 503:
                break
        assert status is None, answer  # no answer before the body: the body is being taken
        status, answer = post_import(server, "c", None, raw=padded)
        assert status == 201, answer
    finally:
        for s in slow:
            s.close()
