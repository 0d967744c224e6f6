"""Behind a reverse proxy (--trusted-proxy): the client address the proxy adds to X-Forwarded-For
is the one limits and logs see; from anyone else the header is ignored."""
import contextlib
import json

from harness import SUBPROTOCOL, WAIT
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

LIMIT = ("--max-connections-per-address", "1")


def join(server, forwarded_for: str | None, stack: contextlib.ExitStack) -> str:
    """What a connection that says hello with this X-Forwarded-For gets first (it stays open)."""
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    ws = stack.enter_context(
        connect(server.ws_url, subprotocols=[SUBPROTOCOL], additional_headers=headers, open_timeout=WAIT))
    try:
        ws.send(json.dumps({"type": "hello", "board": "proxied", "name": "p"}))
        while True:
            for message in (lambda m: m if isinstance(m, list) else [m])(json.loads(ws.recv(timeout=WAIT))):
                if message["type"] in ("welcome", "error"):
                    return message["type"] + ("" if message["type"] == "welcome" else ":" + message["code"])
    except ConnectionClosed as closed:
        # A refused connection's error and close may come together: the close is what is read.
        return f"closed:{closed.rcvd.code if closed.rcvd else 1006}"


def test_a_trusted_proxy_names_the_client_and_the_limits_count_that_address(servers):
    server = servers("--port", "0", "--memory", "--trusted-proxy", "127.0.0.1", *LIMIT)
    with contextlib.ExitStack() as stack:
        first = join(server, "203.0.113.7", stack)
        # The last entry is the one the proxy added; what the client put before it does not count.
        second = join(server, "203.0.113.7, 198.51.100.1", stack)
        third = join(server, "198.51.100.1", stack)
        assert (first, second) == ("welcome", "welcome")
        assert third in ("error:rate_limited", "closed:4429")
        server.wait_for_log(r"connection 1 opened from 203\.0\.113\.7$")
        server.wait_for_log(r"198\.51\.100\.1 \(via proxy 127\.0\.0\.1\) closed by the server: 4429")
        # A last entry that is not an address: the proxy's own address counts.
        assert join(server, "not-an-address", stack) == "welcome"
        server.wait_for_log(r"names no client address in X-Forwarded-For")


def test_without_the_flag_forwarded_for_is_ignored(servers):
    server = servers("--port", "0", "--memory", *LIMIT)
    with contextlib.ExitStack() as stack:
        assert join(server, "203.0.113.7", stack) == "welcome"
        assert join(server, "198.51.100.1", stack) in ("error:rate_limited", "closed:4429")
