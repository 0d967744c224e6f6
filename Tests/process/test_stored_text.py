"""Client text is stored as committed (issue 8, defect 2): an op id holding NUL used to be stored
cut at the NUL, so after a restart every hello got 1011 and the API 503, and once compaction read
the row back the writer retried its transaction forever (no board committed, SIGTERM hung)."""

import signal

from harness import Client
from test_board_api import pump_toggles

ODD = "\u202ee\u0301\u200b😀\u2028"
WIDE = {"id": "wide", "title": "wide 😀", "columns": 8,
        "zones": [{"id": "grid", "items": [{"label": f"i{i} 👩‍👩‍👧", "color": "blue"} for i in range(64)]}]}


def test_an_op_id_with_nul_survives_a_restart_and_compaction(servers, tmp_path):
    data = str(tmp_path / "data")
    args = ("--port", "0", "--data", data, "--snapshot-every", "5", "--op-rate", "0")
    server = servers(*args)
    assert server.http("POST", "/api/boards", WIDE)[0] == 201
    client = Client(server, "wide", name="nul")
    # Control characters are refused at the door; everything else is stored byte for byte.
    client.send({"type": "toggle", "op": "\x00", "base": 0, "item": "t1", "on": True})
    assert client.expect(lambda m: m["type"] == "error")["code"] == "bad_message"
    client.send({"type": "toggle", "op": ODD, "base": 0, "item": "t1", "on": True})
    assert client.result_of(ODD)["seq"] == 1
    client.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    server = servers(*args)
    client = Client(server, "wide", name="back")
    assert client.welcome["type"] == "welcome" and client.welcome["seq"] == 1, client.welcome
    assert server.get("/api/boards/wide")[0] == 200
    status, page = server.get("/api/boards/wide/ops?since=0")
    assert status == 200 and [op["op"] for op in page["ops"]] == [ODD], (status, page)
    # The id came back whole: a resend is acknowledged, not applied again.
    client.send({"type": "toggle", "op": ODD, "base": 1, "item": "t1", "on": True})
    assert client.result_of(ODD) == {"type": "ack", "op": ODD, "seq": 1}

    # The store keeps the newest 10,000 ops: 10,010 more make a snapshot compact seq 1 away,
    # which reads that row back inside the write.
    committed = pump_toggles(client, [f"t{i + 1}" for i in range(64)], 10_010, 1, "p")
    assert committed[-1]["seq"] == 10_011
    assert server.get("/api/boards/wide/ops?since=0")[0] == 410
    other = Client(server, "other", name="other")
    other.send({"type": "toggle", "op": "o1", "base": 0, "item": "t1", "on": True})
    assert other.result_of("o1")["seq"] == 1
    client.close()
    other.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
