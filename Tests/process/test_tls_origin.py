"""Origins and TLS (issue 9): upgrades from other origins get 403; with a certificate the same
port serves https:// and wss:// (a self-signed certificate made here with openssl)."""
import json
import socket
import ssl
import subprocess

import pytest
from harness import run_cli
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect


def upgrade(port: int, origin: str | None) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        head = (f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Protocol: shuffleboard.v1\r\n")
        if origin:
            head += f"Origin: {origin}\r\n"
        s.sendall((head + "\r\n").encode())
        return s.recv(4096)


def test_upgrades_from_other_origins_are_refused_with_403(servers):
    server = servers("--port", "0", "--memory", "--allow-origin", "https://board.example",
                     "--allow-origin", "http://localhost:8080")
    assert upgrade(server.port, "https://board.example").startswith(b"HTTP/1.1 101")
    assert upgrade(server.port, "http://localhost:8080").startswith(b"HTTP/1.1 101")
    for origin in ("https://evil.example", "https://board.example.evil", None):
        answer = upgrade(server.port, origin)
        assert answer.split(b"\r\n")[0].endswith(b"403 Forbidden"), (origin, answer[:80])
    server.wait_for_log(r"origin https://evil\.example is not allowed")  # Read by a thread: wait for it.
    # Without the flag any origin may connect, as before.
    open_server = servers("--port", "0", "--memory")
    assert upgrade(open_server.port, "https://evil.example").startswith(b"HTTP/1.1 101")


def refusal(port: int, headers: bytes) -> tuple[bytes, dict]:
    """An upgrade on a raw socket with these extra header lines; (status line, JSON body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + headers + b"\r\n")
        answer = b""
        while chunk := s.recv(4096):  # The server closes after its answer.
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert b"connection: close" in [line.lower() for line in lines], answer[:300]
    length = [int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length:")]
    assert length == [len(body)], answer[:300]
    return lines[0], json.loads(body)


def test_origin_edge_cases_are_refused_with_answers_strict_clients_read(servers):
    """Issue 17 (7): a control byte in a header (`Origin: https://allowed.example\\0evil` read as
    the allowed origin, lws copying it as a C string) is refused with 400; with --allow-origin an
    upgrade without Origin is refused unless --allow-no-origin; every refusal is a whole HTTP/1.1
    answer (lws's own is HTTP/1.0, which Python's websockets cannot read)."""
    allowed = "https://allowed.example"
    server = servers("--port", "0", "--memory", "--allow-origin", allowed)
    for header in (b"Origin: https://allowed.example\x00evil\r\n", b"Origin: https://allowed.example\x01\r\n",
                   b"Origin: https://allowed.example\r\nUser-Agent: a\x1fb\r\n", b"Origin: \x7fhttps://allowed.example\r\n"):
        status, body = refusal(server.port, header)
        assert status == b"HTTP/1.1 400 Bad Request" and body["error"] == "bad_request", (header, status, body)
    server.wait_for_log(r"WebSocket upgrade from 127\.0\.0\.1 refused: its origin header holds a control byte")
    for header in (b"", b"Origin: https://evil.example\r\n", b"Sec-WebSocket-Origin: https://evil.example\r\n",
                   b"Origin: https://allowed.example\r\nSec-WebSocket-Origin: https://evil.example\r\n"):
        status, body = refusal(server.port, header)
        assert status == b"HTTP/1.1 403 Forbidden" and body["error"] == "forbidden_origin", (header, status, body)
    server.wait_for_log(r"refused: no origin \(--allow-no-origin is not given\)")
    # A strict client reads the status of each refusal.
    for origin in (None, "https://evil.example"):
        with pytest.raises(InvalidStatus) as refused:
            connect(server.ws_url, origin=origin, subprotocols=["shuffleboard.v1"], open_timeout=10)
        assert refused.value.response.status_code == 403, origin
    with connect(server.ws_url, origin=allowed, subprotocols=["shuffleboard.v1"], open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "board": "b", "name": "Ada"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    # --allow-no-origin lets clients that are not browsers in (and still no foreign origin).
    lenient = servers("--port", "0", "--memory", "--allow-origin", allowed, "--allow-no-origin")
    with connect(lenient.ws_url, subprotocols=["shuffleboard.v1"], open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "board": "b", "name": "Bot"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    with pytest.raises(InvalidStatus):
        connect(lenient.ws_url, origin="https://evil.example", subprotocols=["shuffleboard.v1"], open_timeout=10)
    assert refusal(lenient.port, b"Origin: https://allowed.example\x00x\r\n")[0] == b"HTTP/1.1 400 Bad Request"
    _, metrics = lenient.get("/metrics")
    assert 'shuffleboard_upgrades_refused_total{reason="origin"} 1' in metrics
    assert 'shuffleboard_upgrades_refused_total{reason="control_byte"} 1' in metrics
    # Without --allow-origin a control byte is refused all the same.
    open_server = servers("--port", "0", "--memory")
    assert refusal(open_server.port, b"Origin: https://x.example\x00x\r\n")[0] == b"HTTP/1.1 400 Bad Request"


def test_allow_no_origin_needs_allow_origin(tmp_path):
    alone = run_cli(["serve", "--port", "0", "--memory", "--allow-no-origin"], str(tmp_path))
    assert alone.returncode == 2 and "--allow-no-origin needs --allow-origin" in alone.stderr, alone.stderr


def test_http_requests_with_a_control_byte_in_a_header_get_400(servers):
    server = servers("--port", "0", "--memory")
    json_type = b"Content-Type: application/json\r\n"
    for headers in (json_type + b"Origin: https://a.example\x00evil\r\n", b"Content-Type: application/json\x00;x\r\n",
                    json_type + b"Authorization: Bearer x\x01y\r\n", json_type + b"X-Forwarded-For: 1.2.3.4\x0b\r\n"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            body = json.dumps({"id": "ctl", "template": "kanban"}).encode()
            s.sendall(b"POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
                      + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400"), (headers, answer[:200])
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"] == "bad_request"
    assert server.get("/api/boards/ctl")[0] == 404



def test_a_percent_encoded_cr_or_lf_in_the_path_gets_404_on_every_route(servers):
    """lws 4.1.6 ends the request line at a CR or LF even when it decoded it from %0D or %0A, and
    hands over the path up to there: `POST /api/boards/B/webhooks/a%0Ab/enable` arrived as
    `/api/boards/B/webhooks/a` and got that route's 405 (found by schemathesis); in the query it
    cut the parameters short. No route's path holds one: each such request gets 404, whatever the
    shorter path or query would have answered."""
    server = servers("--port", "0", "--memory")
    status, _ = server.http("POST", "/api/boards", {"id": "ctl", "template": "kanban"})
    assert status == 201
    for method, path in (("POST", "/api/boards/ctl/webhooks/%C2%8E%0A%13%C2%B5%29/enable"),
                         ("POST", "/api/boards/ctl/webhooks/a%0Db/enable"), ("DELETE", "/api/boards/ctl/links/a%0Ab"),
                         ("GET", "/api/boards/ctl%0A/ops"), ("GET", "/api/boards/ctl/ops%0A"), ("GET", "/healthz%0A"),
                         ("GET", "/api/search?q=a%0Ab&limit=x"), ("GET", "/api/boards/ctl/ops?since=0%0D")):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n".encode())
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
        assert answer.split(b"\r\n", 1)[0].endswith(b" 404 Not Found"), (path, answer[:200])
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"] == "not_found", (path, answer)
    server.wait_for_log(r"HTTP request from 127\.0\.0\.1 refused: its request line ends before its HTTP version")
    # A WebSocket upgrade on `/ws%0Ax` (which lws would hand over as `/ws`) is refused the same way.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"GET /ws%0Ax HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                  b"Sec-WebSocket-Protocol: shuffleboard.v1\r\n\r\n")
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    assert b" 404 " in answer.split(b"\r\n", 1)[0] and b"101" not in answer.split(b"\r\n", 1)[0], answer[:200]
    assert server.get("/api/boards/ctl/ops")[0] == 200

def self_signed(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def test_tls_serves_https_and_wss_on_one_port(servers, tmp_path):
    cert, key = self_signed(tmp_path)
    server = servers("--port", "0", "--memory", "--tls-cert", str(cert), "--tls-key", str(key), wait=False)
    m = server.wait_for_log(r"listening on https://127\.0\.0\.1:(\d+)/ \(WebSocket wss://")
    port = int(m.group(1))
    context = ssl.create_default_context(cafile=str(cert))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["status"] == "ok"
    with connect(f"wss://127.0.0.1:{port}/ws", ssl=context, subprotocols=["shuffleboard.v1"], open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "board": "secure", "name": "Ada"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    # Plain HTTP to the TLS port gets nothing useful.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(5)
        try:
            assert not s.recv(4096).startswith(b"HTTP/1.1 200")
        except (ConnectionResetError, socket.timeout):
            pass


def curl(*args: str) -> tuple[str, int, str]:
    """Runs curl; returns (HTTP version it spoke, status, body). curl exits 52 on an empty reply."""
    result = subprocess.run(["curl", "--silent", "--show-error", "--max-time", "10", "-w", "\n%{http_version} %{http_code}",
                             *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, (args, result.returncode, result.stderr)
    body, _, last = result.stdout.rpartition("\n")
    version, code = last.split()
    return version, int(code), body


def test_a_client_offering_h2_gets_http_1_1_answers(servers, tmp_path):
    """Issue 17 (2): lws accepted h2 in ALPN and answered with HTTP/1.1 bytes, so every HTTP/2
    request (browsers offer h2 first) got an empty reply. Only http/1.1 is offered now."""
    cert, key = self_signed(tmp_path)
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.html").write_text("<!doctype html><title>board</title>\n")
    server = servers("--port", "0", "--memory", "--web", str(tmp_path / "web"), "--tls-cert", str(cert), "--tls-key",
                     str(key), wait=False)
    port = int(server.wait_for_log(r"listening on https://127\.0\.0\.1:(\d+)/").group(1))
    base = f"https://127.0.0.1:{port}"
    h2 = ["--http2", "--cacert", str(cert)]
    # What ALPN chose, in curl's words.
    verbose = subprocess.run(["curl", "-v", "--silent", "--max-time", "10", *h2, f"{base}/healthz", "-o", "/dev/null"],
                             capture_output=True, text=True, timeout=30)
    assert "ALPN: offers h2" in verbose.stderr, verbose.stderr
    assert "server accepted http/1.1" in verbose.stderr, verbose.stderr
    assert curl(*h2, f"{base}/") == ("1.1", 200, "<!doctype html><title>board</title>\n")
    version, status, body = curl(*h2, f"{base}/healthz")
    assert (version, status, json.loads(body)["status"]) == ("1.1", 200, "ok")
    version, status, body = curl(*h2, "-X", "POST", "-H", "Content-Type: application/json",
                                 "--data", json.dumps({"id": "h2", "template": "kanban"}), f"{base}/api/boards")
    assert (version, status, json.loads(body)["board"]["id"]) == ("1.1", 201, "h2")
    version, status, body = curl(*h2, "-X", "DELETE", f"{base}/api/boards/h2")
    assert (version, status, json.loads(body)) == ("1.1", 200, {"deleted": "h2"})
    assert curl(*h2, f"{base}/api/boards/h2")[:2] == ("1.1", 404)


def test_bad_certificate_or_key_paths_exit_1_with_a_message(tmp_path):
    cert, key = self_signed(tmp_path)
    missing = run_cli(["serve", "--port", "0", "--memory", "--tls-cert", str(tmp_path / "none.pem"), "--tls-key", str(key)],
                      str(tmp_path))
    assert missing.returncode == 1 and "--tls-cert" in missing.stderr and "none.pem" in missing.stderr
    (tmp_path / "junk.pem").write_text("not a key\n")
    junk = run_cli(["serve", "--port", "0", "--memory", "--tls-cert", str(cert), "--tls-key", str(tmp_path / "junk.pem")],
                   str(tmp_path), timeout=30)
    assert junk.returncode == 1 and "TLS certificate" in junk.stderr, junk.stderr
    alone = run_cli(["serve", "--tls-cert", str(cert)], str(tmp_path))
    assert alone.returncode == 2 and "--tls-key" in alone.stderr
    # --cluster-ca (TLS between a cluster's nodes) needs the node to serve TLS, and a readable file.
    no_tls = run_cli(["serve", "--memory", "--cluster-ca", str(cert)], str(tmp_path))
    assert no_tls.returncode == 2 and "--cluster-ca needs --tls-cert" in no_tls.stderr, no_tls.stderr
    no_ca = run_cli(["serve", "--port", "0", "--memory", "--tls-cert", str(cert), "--tls-key", str(key),
                     "--cluster-ca", str(tmp_path / "none-ca.pem")], str(tmp_path))
    assert no_ca.returncode == 1 and "--cluster-ca" in no_ca.stderr and "none-ca.pem" in no_ca.stderr, no_ca.stderr
    (tmp_path / "junk-ca.pem").write_text("not a certificate\n")
    junk_ca = run_cli(["serve", "--port", "0", "--memory", "--tls-cert", str(cert), "--tls-key", str(key),
                       "--cluster-ca", str(tmp_path / "junk-ca.pem")], str(tmp_path))
    assert junk_ca.returncode == 1 and "no PEM certificate" in junk_ca.stderr, junk_ca.stderr
