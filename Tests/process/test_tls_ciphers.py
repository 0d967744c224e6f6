"""The TLS posture of --tls-cert/--tls-key (issue 29, finding 14; docs/operations.md, "TLS"): TLS
1.2 and 1.3 only, and on TLS 1.2 only AEAD suites with ECDHE. A client that offers nothing but a
CBC suite (LUCKY13's kind) or static RSA key exchange is refused in the handshake; one offering an
AEAD suite gets it. Probed with Python's ssl (OpenSSL) with a set cipher list and version."""
import socket
import ssl
import subprocess

import pytest

# TLS 1.0 and 1.1 are asked for on purpose, to see the server refuse them.
pytestmark = pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1:DeprecationWarning")


def self_signed(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert


@pytest.fixture
def tls_port(servers, tmp_path):
    cert = self_signed(tmp_path)
    server = servers("--port", "0", "--memory", "--tls-cert", str(cert), "--tls-key", str(tmp_path / "key.pem"),
                     wait=False)
    return int(server.wait_for_log(r"listening on https://127\.0\.0\.1:(\d+)/").group(1))


def handshake(port, ciphers=None, version=ssl.TLSVersion.TLSv1_2):
    """The (protocol, suite) a client offering only `ciphers` at `version` gets, or the SSLError."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = context.maximum_version = version
    if ciphers:
        context.set_ciphers(ciphers)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        try:
            with context.wrap_socket(raw) as s:
                return s.version(), s.cipher()[0]
        except ssl.SSLError as error:
            return error


@pytest.mark.parametrize("suite", ["ECDHE-RSA-AES128-SHA256", "ECDHE-RSA-AES256-SHA384", "ECDHE-RSA-AES128-SHA",
                                   "AES128-GCM-SHA256", "AES256-SHA256"])
def test_tls_1_2_refuses_cbc_and_static_rsa_suites(tls_port, suite):
    answer = handshake(tls_port, suite)
    assert isinstance(answer, ssl.SSLError), f"{suite} was accepted: {answer}"
    assert "HANDSHAKE_FAILURE" in str(answer).upper() or "NO_SHARED_CIPHER" in str(answer).upper(), answer


@pytest.mark.parametrize("suite", ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384",
                                   "ECDHE-RSA-CHACHA20-POLY1305"])
def test_tls_1_2_offers_aead_suites_with_ecdhe(tls_port, suite):
    assert handshake(tls_port, suite) == ("TLSv1.2", suite)


def test_tls_1_3_works_and_a_client_of_both_gets_it(tls_port):
    assert handshake(tls_port, version=ssl.TLSVersion.TLSv1_3)[0] == "TLSv1.3"
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", tls_port), timeout=10) as raw:
        with context.wrap_socket(raw) as s:
            assert s.version() == "TLSv1.3"


@pytest.mark.parametrize("version", [ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1])
def test_tls_1_0_and_1_1_are_refused(tls_port, version):
    # The client is told to allow them (SECLEVEL 0), so that the refusal is the server's.
    answer = handshake(tls_port, "DEFAULT:@SECLEVEL=0", version)
    assert isinstance(answer, ssl.SSLError), answer
    assert "PROTOCOL_VERSION" in str(answer).upper() or "UNSUPPORTED_PROTOCOL" in str(answer).upper(), answer


def test_no_session_tickets_come_between_the_handshake_and_the_answer(tls_port):
    """The server issues no session tickets (docs/operations.md, "TLS"): OpenSSL's TLS 1.3 tickets
    came just after the handshake, while a client wrote its request, and stalled the write of a
    client that reads on another thread (the cluster TLS test's first WebSocket, 5 s, then EOF).
    The whole answer is read, so any ticket (sent before it) has been taken by then."""
    for version in (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_2):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.minimum_version = context.maximum_version = version
        with socket.create_connection(("127.0.0.1", tls_port), timeout=10) as raw, context.wrap_socket(raw) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
            assert s.session is None or not s.session.has_ticket, f"a session ticket on {s.version()}"
