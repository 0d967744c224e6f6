"""Methods lws 4.1.6 handles itself (issue 29, finding 9). It does not parse TRACE, PROPFIND or
any method it does not know, and answered those with its own `HTTP/1.0 403` HTML page; it turned
CONNECT into a raw socket and the server closed it with no answer. docs/openapi.yaml says a method
a path does not take gets 405 JSON with `allow`: now every one of these does (404 for no route),
as HTTP/1.1, and the connection is closed."""
import json
import socket

import pytest


def exchange(port, request: bytes) -> tuple[str, dict, bytes]:
    """Sends `request` on a new connection; reads until the server closes it (bounded: 10 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
            assert len(answer) < 1 << 20
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:])}
    return lines[0], headers, body


@pytest.mark.parametrize("method, path, allow", [
    ("TRACE", "/api/boards", "GET, POST"),
    ("TRACE", "/api/boards/demo", "GET, DELETE"),
    ("PROPFIND", "/api/boards/demo/ops?since=0", "GET, POST"),
    ("TRACE", "/api/boards/demo/events", "GET"),
    ("TRACE", "/api/boards/demo/history", "GET"),
    ("TRACE", "/api/revocations", "GET, POST"),
    ("TRACE", "/healthz", "GET"),
    ("MKCOL", "/", "GET"),
    ("CONNECT", "127.0.0.1:80", "GET"),
])
def test_a_method_lws_does_not_parse_gets_405_json_with_allow(servers, method, path, allow):
    server = servers("--port", "0", "--memory")
    status, headers, body = exchange(server.port, f"{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == "HTTP/1.1 405 Method Not Allowed", (status, body)
    assert headers["allow"] == allow
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "method_not_allowed", "message": f"allowed: {allow}"}
    assert int(headers["content-length"]) == len(body)
    # The server is still there for everyone else.
    assert exchange(server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")[0].endswith("200 OK")


def test_an_unknown_method_on_no_route_gets_404_json(servers):
    server = servers("--port", "0", "--memory")
    status, headers, body = exchange(server.port, b"TRACE /api/nothing/here HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == "HTTP/1.1 404 Not Found"
    assert json.loads(body)["error"] == "not_found"
