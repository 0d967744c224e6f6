"""The web client over https:// and wss:// (issue 17, finding 2): with --tls-cert the server
offered h2 in ALPN and answered in HTTP/1.1 bytes, so Chromium got net::ERR_HTTP2_PROTOCOL_ERROR
for the page itself. A self-signed certificate made here with openssl; the browser is told to
accept it."""
import re
import subprocess

import pytest
from playwright.sync_api import expect

from conftest import Client
from harness import Server


@pytest.fixture
def tls_server(server_binary, tmp_path, request):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    s = Server(server_binary, name).start(extra_args=["--tls-cert", str(cert), "--tls-key", str(key)])
    assert s.url.startswith("https://")
    yield s
    s.stop()


def test_the_web_client_loads_over_https_and_plays_over_wss(tls_server, contexts):
    # (The server before `contexts`: its pages close before it stops, so none tries to reconnect to
    # a stopped server and logs ERR_CONNECTION_REFUSED at teardown, as seen under load.)
    # `contexts` fails the test on any page error of either person, but one: Chromium registers no
    # service worker (web/sw.js: the page's files kept for working offline) from an origin whose
    # certificate it only accepts because it was told to, and says so on the console.
    contexts.allow("An SSL certificate error occurred when fetching the script")
    ann, bo = (Client(contexts, tls_server, "secure", name, ignore_https_errors=True) for name in ("Ann", "Bo"))
    # The page came over https and its socket is wss (the client picks it from the page's scheme).
    assert ann.page.evaluate("location.protocol") == "https:"
    protocol = ann.page.evaluate("() => performance.getEntriesByType('navigation')[0].nextHopProtocol")
    assert protocol == "http/1.1", protocol
    grid = ann.order()
    ann.drag(grid[0], f'[data-item="{grid[4]}"]')
    swapped = [grid[4], *grid[1:4], grid[0], *grid[5:]]
    bo.page.wait_for_function(
        "want => [...document.querySelectorAll('[data-zone=grid] [data-item]')].map(e => e.dataset.item).join() === want",
        arg=",".join(swapped), timeout=5000)
    expect(bo.page.locator("#app")).to_have_attribute("data-seq", "1")
