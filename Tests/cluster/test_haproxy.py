"""deploy/haproxy.cfg as shipped, in front of three nodes: a board's clients land on one node (the
hash of `?board=`), that node works, and the plain HTTP API goes through the same frontend."""

import json

from harness import Client

GRID_BOARDS = [f"route-{i}" for i in range(12)]


class Through:
    """What harness.Client needs of a server: the WebSocket URL, here HAProxy's."""

    def __init__(self, port: int):
        self.ws_url = f"ws://127.0.0.1:{port}/ws"


def node_of(client: Client) -> str:
    return client.ws.response.headers["x-shuffleboard-node"]


def test_haproxy_sends_a_boards_clients_to_one_node_and_passes_the_api_through(clusters, haproxy):
    cluster = clusters(count=3)
    proxy = haproxy(cluster.nodes)
    proxy.wait_servers_up()

    # Hashing on `board`: an id lands on the same node every time, and ids spread over the nodes.
    landed = {}
    for board in GRID_BOARDS:
        nodes = {proxy.request(f"/healthz?board={board}")[2] for _ in range(3)}
        assert len(nodes) == 1 and None not in nodes, (board, nodes)
        landed[board] = nodes.pop()
    assert len(set(landed.values())) >= 2, landed

    # Two clients of one board, through HAProxy with ?board= as the web client connects: the same
    # node, which owns the board (the first hello claimed it), and they see each other's ops.
    board = GRID_BOARDS[0]
    ada = Client(Through(proxy.port), board, name="Ada", query=f"?board={board}")
    bo = Client(Through(proxy.port), board, name="Bo", query=f"?board={board}")
    try:
        assert ada.welcome["type"] == "welcome" and bo.welcome["type"] == "welcome"
        assert node_of(ada) == node_of(bo) == landed[board]
        ada.send({"type": "toggle", "op": "hp-1", "base": 0, "item": "t1", "on": True})
        assert ada.result_of("hp-1")["seq"] == 1
        assert bo.result_of("hp-1")["seq"] == 1
        # The HTTP API through the same frontend (round robin without `board`, so any node
        # answers): the board and its owner (while its users are on it; then it is released).
        for _ in range(3):
            status, text, _ = proxy.request(f"/api/boards/{board}")
            body = json.loads(text)
            assert status == 200 and body["seq"] == 1 and body["owner"] == landed[board], body
    finally:
        ada.close()
        bo.close()

    status, text, _ = proxy.request("/api/cluster")
    assert status == 200 and sorted(n["name"] for n in json.loads(text)["nodes"]) == ["n1", "n2", "n3"], text
    status, _, _ = proxy.request("/")
    assert status == 200


def test_a_client_of_a_node_that_just_died_gets_in_through_another_at_once(clusters, haproxy):
    cluster = clusters(count=3)
    proxy = haproxy(cluster.nodes)
    proxy.wait_servers_up()
    board = next(b for b in GRID_BOARDS if proxy.request(f"/healthz?board={b}")[2] == "n1")
    cluster.node("n1").kill9()
    # The health checks need two failures a second apart to see n1 down; until then HAProxy still
    # picks it for this board, finds it refusing, and tries another node (retries, redispatch).
    client = Client(Through(proxy.port), board, name="Ada", query=f"?board={board}")
    try:
        assert client.welcome["type"] == "welcome" and node_of(client) in ("n2", "n3")
        assert proxy.stats_of("n1")["status"] != "DOWN", "the test came too late: HAProxy saw n1 down"
    finally:
        client.close()
