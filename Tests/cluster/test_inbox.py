"""Issue 34's inbox in a three-node cluster: a mention committed on the node that owns one board
reaches the mentioned member's clients on every node: on another node, on a board that node owns
(it reads the notices other nodes stored, each second), and through a node that forwards to the
owner. `GET /api/inbox` answers the same on every node (the notices are in the shared database).
Waits have deadlines; nothing sleeps to synchronise."""
from harness import Client


def member(node, board: str, name: str, member_id: str) -> Client:
    client = Client(node.server)
    client.send({"type": "hello", "board": board, "name": name, "member": member_id})
    client.expect(lambda m: m["type"] == "welcome")
    return client


def test_a_mention_reaches_the_member_on_every_node(clusters):
    cluster = clusters(count=3)
    n1, n2, n3 = cluster.nodes
    ann = member(n1, "talk", "Ann", "ann")
    bo_far = member(n3, "desk", "Bo", "bo")  # n3 owns "desk"
    bo_near = member(n2, "talk", "Bo", "bo")  # n2 forwards to n1, the owner of "talk"
    try:
        bo_far.send({"type": "toggle", "op": "b1", "base": 0, "item": "t1", "on": True})
        assert bo_far.result_of("b1")["type"] == "toggle"
        ann.send({"type": "comment", "op": "a1", "base": 0, "item": "t1", "text": "@Bo please",
                  "mentions": [{"member": "bo", "name": "Bo"}]})
        assert ann.result_of("a1")["type"] == "comment"
        assert cluster.owner("talk") == "n1" and cluster.owner("desk") == "n3"
        seen = [c.expect(lambda m: m["type"] == "notice", timeout=15) for c in (bo_far, bo_near)]
        assert seen[0] == seen[1]
        assert seen[0]["board"] == "talk" and seen[0]["by"] == {"member": "ann", "name": "Ann"}
        for node in (n1, n2, n3):
            status, inbox = node.server.get("/api/inbox?member=bo")
            assert status == 200 and inbox["unread"] == 1, (node, inbox)
            assert inbox["notices"][0]["id"] == seen[0]["id"]
        # Marked read on one node, read on another.
        status, read = n3.server.http("POST", "/api/inbox/read?member=bo", body={"upTo": seen[0]["id"]})
        assert (status, read) == (200, {"unread": 0})
        assert n2.server.get("/api/inbox?member=bo")[1]["notices"][0]["read"] is True
    finally:
        for c in (ann, bo_far, bo_near):
            c.close()
