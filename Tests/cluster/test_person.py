"""The cluster test's client catches what it is there to catch: against a fake node that skips a
seq, resumes from the wrong place or goes back behind what was seen, it records a violation; against
one that behaves, it records none and resends an unanswered op with the same op id."""

import asyncio
import json

from websockets.asyncio.server import serve

from person import Person

BOARD = {"id": "f", "title": "f", "columns": 3, "zones": [{"id": "grid", "items": ["t1", "t2"]}],
         "items": [{"id": "t1", "label": "A", "color": "#000000", "on": False},
                   {"id": "t2", "label": "B", "color": "#000000", "on": False}]}


def toggle(seq: int, op: str, on: bool = True) -> dict:
    return {"type": "toggle", "op": op, "by": "u9", "seq": seq, "item": "t1", "on": on}


def run_against(script) -> tuple[Person, list[list[dict]]]:
    """Runs one Person against a fake node. `script(hello, n)` gives what the fake sends on its
    n-th connection after the hello (a welcome first), or None to end the test there. The fake
    then waits for the client's op (every welcomed client sends one: new, or unanswered and sent
    again) and closes with 1012 without answering it."""
    received: list[list[dict]] = []

    async def main():
        done = asyncio.Event()

        async def handler(ws):
            mine: list[dict] = []
            received.append(mine)
            mine.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
            messages = script(mine[0], len(received))
            if messages is None:
                done.set()
                return
            for m in messages:
                await ws.send(json.dumps(m))
            while mine[-1]["type"] not in ("swap", "move", "toggle"):
                mine.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
            await ws.close(1012, "moving")

        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            person = Person(0, "f", [port], seed=1, max_ops=1)
            person.start()
            try:
                await asyncio.wait_for(done.wait(), 10)
            finally:
                await person.finish()
            return person

    return asyncio.run(main()), received


def welcome(seq: int, **rest) -> dict:
    return {"type": "welcome", "you": "u1", "seq": seq, "drags": [], "users": [], **rest}


def test_a_skipped_seq_is_a_violation():
    def script(hello, n):
        return [welcome(0, board=BOARD), toggle(1, "x1"), toggle(3, "x3")] if n == 1 else None
    person, _ = run_against(script)
    assert any("broadcast of seq 3" in v for v in person.violations), person.violations


def test_a_resume_that_does_not_continue_is_a_violation():
    def script(hello, n):
        if n == 1:
            return [welcome(0, board=BOARD), toggle(1, "x1")]
        if n == 2:
            assert hello["since"] == 1
            return [welcome(3, ops=[toggle(3, "x3")])]
        return None
    person, _ = run_against(script)
    assert any("resume of seq 3" in v for v in person.violations), person.violations


def test_a_welcome_behind_what_was_seen_is_a_violation():
    def script(hello, n):
        if n == 1:
            return [welcome(0, board=BOARD), toggle(1, "x1"), toggle(2, "x2", on=False)]
        if n == 2:
            return [welcome(1, board=BOARD)]
        return None
    person, _ = run_against(script)
    assert any("behind the 2" in v for v in person.violations), person.violations


def test_a_well_behaved_node_gives_no_violation_and_an_unanswered_op_goes_again_with_its_id():
    def script(hello, n):
        if n == 1:
            return [welcome(0, board=BOARD), toggle(1, "x1")]
        if n == 2:
            return [welcome(1, ops=[])]  # the client's op was lost with the node: not answered
        return None
    person, received = run_against(script)
    assert person.violations == []
    sent_first = [m["op"] for m in received[0] if m["type"] in ("swap", "move", "toggle")]
    sent_again = [m["op"] for m in received[1] if m["type"] in ("swap", "move", "toggle")]
    assert sent_first == ["c0-0"] and sent_again == ["c0-0"], received
    assert received[1][0]["since"] == 1
