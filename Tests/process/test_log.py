"""What a client writes cannot forge log lines or reach the operator's terminal raw."""
from harness import Client


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
