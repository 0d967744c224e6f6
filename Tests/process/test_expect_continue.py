"""`Expect: 100-continue` (issue 22): curl, which sends it, is told to go on at once instead of
waiting for a timeout; any other expectation gets 417. curl is told to wait 60 s for the 100, and
given 10 s in all, so a server that never says it fails the test rather than slowing it."""
import json
import subprocess


def curl(server, *args):
    result = subprocess.run(
        ["curl", "--silent", "--show-error", "--max-time", "10", "--expect100-timeout", "60", "-v",
         "-w", "\n%{http_code}", *args], capture_output=True, text=True, timeout=30)
    body, _, status = result.stdout.rpartition("\n")
    return result.returncode, int(status or 0), body, result.stderr


def test_curl_is_told_100_continue_and_its_body_is_taken(servers):
    server = servers("--port", "0", "--memory")
    body = json.dumps({"id": "eager", "template": "kanban"})
    code, status, answer, trace = curl(server, "-H", "Expect: 100-continue", "-H", "Content-Type: application/json",
                                       "--data-binary", body, f"http://127.0.0.1:{server.port}/api/boards")
    assert code == 0, trace
    assert "< HTTP/1.1 100 Continue" in trace
    assert status == 201 and "eager" in answer, answer


def test_another_expectation_is_417(servers):
    server = servers("--port", "0", "--memory")
    code, status, answer, trace = curl(server, "-H", "Expect: the-moon", "-H", "Content-Type: application/json",
                                       "--data-binary", "{}", f"http://127.0.0.1:{server.port}/api/boards")
    assert status == 417, trace
    assert json.loads(answer)["error"] == "expectation_failed"
