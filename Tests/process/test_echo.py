"""The echo endpoint of the real binary (`serve --echo-path PATH`), which the Autobahn|Testsuite
run (Tests/conformance/run.sh) uses: text and binary echoed, absent without the flag."""
import pytest
from websockets.exceptions import InvalidStatus, InvalidHandshake
from websockets.sync.client import connect


def echo_url(server, path: str = "/echo") -> str:
    return server.ws_url.replace("/ws", path)


def test_echo_path_echoes_text_and_binary_and_never_joins_a_board(servers):
    server = servers("--memory", "--echo-path", "/echo")
    with connect(echo_url(server), open_timeout=10, close_timeout=5, max_size=None) as ws:
        ws.send('{"type":"hello","board":"demo","name":"Echo"}')
        assert ws.recv(timeout=10) == '{"type":"hello","board":"demo","name":"Echo"}'
        ws.send(bytes(range(256)) * 4096)  # 1 MiB, over the board endpoint's 64 KiB
        assert ws.recv(timeout=10) == bytes(range(256)) * 4096
        status, body = server.get("/healthz")
        assert status == 200 and body["connections"] == 0


def test_without_the_flag_there_is_no_echo_endpoint(servers):
    server = servers("--memory")
    with pytest.raises((InvalidStatus, InvalidHandshake, ConnectionError, EOFError)):
        with connect(echo_url(server), open_timeout=10):
            pass
