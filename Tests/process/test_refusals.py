"""Readable refusals (issue 22): a WebSocket upgrade the server refuses is answered with a whole
HTTP/1.1 response that a strict client reads, never a bare hang-up or an HTTP/1.0 line."""
import json

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect


@pytest.mark.parametrize("path", ["/nope", "/api/boards", "/ws/", "/index.html"])
def test_an_upgrade_on_another_path_is_a_readable_404(servers, path):
    server = servers("--port", "0", "--memory")
    with pytest.raises(InvalidStatus) as refused:
        connect(f"ws://127.0.0.1:{server.port}{path}", subprotocols=["shuffleboard.v1"], open_timeout=10)
    response = refused.value.response
    assert response.status_code == 404
    assert response.headers["Connection"] == "close"
    assert int(response.headers["Content-Length"]) == len(response.body)
    assert json.loads(response.body)["error"] == "not_found"
    server.wait_for_log(r"refused: not on /ws")
    # /ws itself still upgrades.
    with connect(server.ws_url, subprotocols=["shuffleboard.v1"], open_timeout=10) as ws:
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"
