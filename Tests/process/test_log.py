"""What a client writes cannot forge log lines or reach the operator's terminal raw; the JSON log."""
import json

from harness import Client, run_cli


def test_a_name_with_a_newline_or_esc_cannot_forge_a_log_line(servers):
    server = servers("--port", "0", "--memory", "--log-level", "debug")
    forger = Client(server)
    forger.send({"type": "hello", "board": "logged", "name": "x\n2026-01-01T00:00:00.000Z error FORGED"})
    assert forger.expect(lambda m: m["type"] == "error")["code"] == "bad_message"
    painter = Client(server)
    painter.send({"type": "hello", "board": "logged", "name": "\x1b[2J\x1b]0;owned\x07"})
    assert painter.expect(lambda m: m["type"] == "error")["code"] == "bad_message"
    # Bidi overrides are stripped: the log and everyone else see the name as it reads.
    Client(server, "logged", name="\u202eAda")
    server.wait_for_log(r'u\d+ "Ada" joined board logged')
    log = server.log()
    assert not any(line.startswith("2026-01-01T00:00:00.000Z") for line in log.splitlines())
    assert "\x1b" not in log and "\u202e" not in log


def test_json_logs_are_one_valid_object_per_line_with_every_event(servers, tmp_path):
    """--log-format json: connect (with the address), hello, reject, close (code and reason), a
    refused token and a limit hit, each one object per line with the client's text intact."""
    (tmp_path / "secrets").write_text("a secret for the json log test\n")
    server = servers("--port", "0", "--memory", "--log-format", "json", "--log-level", "debug",
                     "--auth-secret", str(tmp_path / "secrets"), "--message-rate", "1")
    token = run_cli(["token", "logged", "--auth-secret", str(tmp_path / "secrets")], str(tmp_path)).stdout.strip()
    intruder = Client(server)
    intruder.send({"type": "hello", "board": "logged", "name": "x"})
    assert intruder.wait_closed() == 4401
    ada = Client(server)
    ada.send({"type": "hello", "board": "logged", "name": "Ada \"the\" \\ first", "token": token})
    ada.expect(lambda m: m["type"] == "welcome")
    for _ in range(3):
        ada.send({"type": "hover", "item": "t1", "over": "t2"})  # not holding: rejected, then rate limited
    ada.expect(lambda m: m["type"] == "error" and m["code"] == "rate_limited")
    ada.ws.close(code=4000, reason='bye "now"\nreally')
    server.wait_for_log(r"closed by the client: 4000")
    lines = server.log().splitlines()
    events = [json.loads(line) for line in lines]  # every line is JSON
    assert all(set(e) == {"time", "level", "msg"} for e in events)

    def find(level: str, fragment: str) -> dict:
        found = [e for e in events if e["level"] == level and fragment in e["msg"]]
        assert found, f"no {level} line with {fragment!r} in:\n" + "\n".join(lines)
        return found[0]

    find("info", "opened from 127.0.0.1")
    find("warning", "hello for board logged refused: no token")
    assert find("info", "joined board logged")["msg"].startswith('u1 "Ada "the" \\ first" joined')
    find("debug", "reject not_holding item t1")
    find("warning", "faster than its limit")
    assert find("info", "closed by the client: 4000")["msg"].endswith('4000 bye "now"\nreally')
    find("info", "closed by the server: 4401 unauthorized")
