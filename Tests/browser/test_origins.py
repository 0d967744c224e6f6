"""The web client under --allow-origin (issue 17, findings 6 and 7): its own POST from the start
page says application/json and carries the page's Origin, its WebSocket too, so both pass the
cross-site rules; a page served from another origin may neither create a board nor connect."""
import http.server
import re
import threading
import urllib.request

import pytest
from playwright.sync_api import expect

from harness import Server
from ports import free_port




@pytest.fixture
def guarded(server_binary, request):
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    port = free_port()
    s = Server(server_binary, name).start(port=port, extra_args=["--allow-origin", f"http://127.0.0.1:{port}"])
    yield s
    s.stop()


def test_the_start_page_creates_and_joins_a_board_under_allow_origin(guarded, contexts):
    ctx = contexts(viewport={"width": 760, "height": 900})
    page = ctx.new_page()
    page.goto(guarded.url + "/")
    expect(page.locator("#templates [data-template]")).to_have_count(5)
    page.fill("#name", "Cy")
    page.fill("#new-title", "Guarded")
    page.check('[data-template="kanban"]')
    with page.expect_response(lambda r: r.url.endswith("/api/boards") and r.request.method == "POST") as posted:
        page.click("#new-form button[type=submit]")
    assert posted.value.status == 201
    assert posted.value.request.headers["content-type"] == "application/json"
    expect(page).to_have_url(f"{guarded.url}/?board=guarded")
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    assert guarded.board("guarded")["board"]["title"] == "Guarded"


def test_a_page_on_another_origin_can_neither_create_a_board_nor_connect(guarded, contexts):
    # A page of another site: a plain page from another loopback address (no CSP of ours).
    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<!doctype html><title>evil</title>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    # The hostile page's refused POST is logged by the browser itself.
    contexts.allow("status of 403 (Forbidden)")
    contexts.allow_socket_errors()  # and so is its WebSocket, refused with 403 (its Origin)
    ctx = contexts()
    try:
        page = ctx.new_page()
        page.goto(f"http://127.0.0.2:{evil.server_address[1]}/")
        sent = page.evaluate("""async (target) => {
            // What a hostile page can send without a preflight: no-cors, text/plain.
            const body = JSON.stringify({id: 'evil', template: 'colors'});
            try {
              await fetch(target + '/api/boards', {method: 'POST', mode: 'no-cors',
                headers: {'content-type': 'text/plain'}, body});
              return 'sent';
            } catch (e) {
              return 'blocked: ' + e;
            }
        }""", guarded.url)
        assert sent == "sent", sent
        connected = page.evaluate("""(target) => new Promise((done) => {
            const ws = new WebSocket(target.replace('http', 'ws') + '/ws');
            ws.onopen = () => done('open');
            ws.onerror = () => done('refused');
        })""", guarded.url)
        assert connected == "refused"
        # The POST reached the server and was refused there (403: its Origin), making nothing.
        with urllib.request.urlopen(guarded.url + "/metrics", timeout=5) as r:
            metrics = r.read().decode()
        assert 'shuffleboard_http_responses_total{code="403"} 1' in metrics, metrics
        assert guarded.board("evil") is None, "the cross-site POST made a board"
    finally:
        evil.shutdown()
        evil.server_close()
