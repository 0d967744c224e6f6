#!/usr/bin/env python3
"""A board-broadcast server on socketify (uWebSockets under Python), the reference the benchmarks
compare shuffleboard with (scripts/bench-compare.sh). It does what the benchmarks' hover path
asks of shuffleboard, no more: `hello` subscribes to the board's topic and answers `welcome`;
`dragStart` goes to the whole board, the sender included; `hover` is published to the board but
the sender, with `by` and the sender's numeric `t` unchanged. Every message is parsed and written
again as JSON, as shuffleboard does.

Usage: Tools/socketify_board.py PORT
"""

import itertools
import json
import sys

from functools import partial

from socketify import App, CompressOptions, OpCode
from socketify.socketify import ffi

PORT = int(sys.argv[1])
# Compact, as shuffleboard writes it (the load generator matches `"type":"hover"`).
dumps = partial(json.dumps, separators=(",", ":"))


# socketify makes a new WebSocket wrapper for every callback: what a connection joined is kept
# here, by its native uWS pointer, from hello until it closes.
sessions = {}
user_ids = itertools.count(1)


def key(ws):
    return int(ffi.cast("uintptr_t", ws.ws))


def on_close(ws, code, message):
    sessions.pop(key(ws), None)


def on_message(ws, message, opcode):
    try:
        m = json.loads(message)
    except ValueError:
        return
    kind = m.get("type")
    k = key(ws)
    if kind == "hello":
        board = str(m.get("board", ""))
        session = sessions[k] = ("board:" + board, "u%d" % next(user_ids))
        ws.subscribe(session[0])
        ws.send(dumps({"type": "welcome", "board": board, "you": session[1]}), OpCode.TEXT)
        return
    session = sessions.get(k)
    if session is None:
        return
    topic, user = session
    if kind == "dragStart":
        out = dumps({"type": "dragStart", "item": m.get("item"), "by": user, "at": 0})
        ws.send(out, OpCode.TEXT)
        ws.publish(topic, out, OpCode.TEXT)
    elif kind == "hover":
        out = {"type": "hover", "item": m.get("item"), "over": m.get("over"), "by": user, "at": 0}
        t = m.get("t")
        if isinstance(t, (int, float)):
            out["t"] = t
        ws.publish(topic, dumps(out), OpCode.TEXT)  # ws.publish: everyone but the sender
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
        "close": on_close,
        "message": on_message,
    },
)
app.listen(PORT, lambda config: print("listening on", PORT, flush=True))
app.run()
