#!/usr/bin/env python3
"""A board-broadcast server on socketify (uWebSockets under Python), the reference the benchmarks
compare shuffleboard with (scripts/bench-compare.sh). It does what the benchmarks' hover path
asks of shuffleboard, no more: `hello` subscribes to the board's topic and answers `welcome`;
`dragStart` goes to the whole board, the sender included; `hover` is published to the board but
the sender, with `by` and the sender's numeric `t` unchanged. Every message is parsed and written
again as JSON, as shuffleboard does.

Usage: Tools/socketify_board.py PORT
"""

import json
import sys

from socketify import App, CompressOptions, OpCode

PORT = int(sys.argv[1])


def on_open(ws):
    ws.board = None
    ws.user = None


def on_message(ws, message, opcode):
    try:
        m = json.loads(message)
    except ValueError:
        return
    kind = m.get("type")
    if kind == "hello":
        board = str(m.get("board", ""))
        ws.board = "board:" + board
        ws.user = "u%d" % id(ws)
        ws.subscribe(ws.board)
        ws.send(json.dumps({"type": "welcome", "board": board, "you": ws.user}), OpCode.TEXT)
    elif ws.board is None:
        return
    elif kind == "dragStart":
        out = json.dumps({"type": "dragStart", "item": m.get("item"), "by": ws.user, "at": 0})
        ws.send(out, OpCode.TEXT)
        ws.publish(ws.board, out, OpCode.TEXT)
    elif kind == "hover":
        out = {"type": "hover", "item": m.get("item"), "over": m.get("over"), "by": ws.user, "at": 0}
        t = m.get("t")
        if isinstance(t, (int, float)):
            out["t"] = t
        ws.publish(ws.board, json.dumps(out), OpCode.TEXT)  # ws.publish: everyone but the sender
    elif kind == "ping":
        ws.send('{"type":"pong"}', OpCode.TEXT)


app = App()
app.ws(
    "/*",
    {
        "compression": CompressOptions.DISABLED,
        "max_payload_length": 64 * 1024,
        "idle_timeout": 60,
        "max_backpressure": 4 * 1024 * 1024,
        "open": on_open,
        "message": on_message,
    },
)
app.listen(PORT, lambda config: print("listening on", PORT, flush=True))
app.run()
