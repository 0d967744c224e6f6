#!/usr/bin/env python3
"""A stand-in for `shuffleboard serve`, for developing the web client without the Swift server.

Implements the subset of wire protocol v1 the client uses (hello/welcome with since, swap/move/
toggle with the conflict rules, ack, dragStart/hover/drop, join/leave, the HTTP routes) in
memory. Not used by the browser tests unless SHUFFLEBOARD_BIN points at it; the tests run the
real server. Usage: fake_server.py serve --port 0 --memory --web DIR
"""
import argparse
import asyncio
import json
import sys
import time

from aiohttp import web, WSMsgType

PALETTE = [("Red", "#e53935"), ("Orange", "#fb8c00"), ("Yellow", "#fdd835"), ("Lime", "#c0ca33"),
           ("Green", "#43a047"), ("Teal", "#00897b"), ("Cyan", "#00acc1"), ("Blue", "#1e88e5"),
           ("Indigo", "#3949ab"), ("Purple", "#8e24aa"), ("Pink", "#d81b60"), ("Brown", "#6d4c41")]
USER_COLORS = ["#d81b60", "#1e88e5", "#43a047", "#fb8c00", "#8e24aa", "#00897b"]


def template(bid):
    items = [{"id": f"t{i + 1}", "label": l, "color": c, "on": False} for i, (l, c) in enumerate(PALETTE)]
    return {"id": bid, "title": bid, "columns": 3,
            "zones": [{"id": "grid", "items": [i["id"] for i in items]}, {"id": "tray", "items": []}],
            "items": items}


def involved(op):
    if op["type"] == "swap":
        return [op["a"], op["b"]]
    if op["type"] == "move":
        return [op["item"]] + ([op["before"]] if op.get("before") else [])
    return [op["item"]]


def locate(board, item):
    for z in board["zones"]:
        if item in z["items"]:
            return z, z["items"].index(item)
    return None


def apply(board, op):
    if op["type"] == "swap":
        (za, ia), (zb, ib) = locate(board, op["a"]), locate(board, op["b"])
        za["items"][ia], zb["items"][ib] = op["b"], op["a"]
    elif op["type"] == "move":
        z, i = locate(board, op["item"])
        z["items"].pop(i)
        t = next(z for z in board["zones"] if z["id"] == op["zone"])
        if op.get("before") and op["before"] in t["items"]:
            t["items"].insert(t["items"].index(op["before"]), op["item"])
        else:
            t["items"].append(op["item"])
    else:
        next(i for i in board["items"] if i["id"] == op["item"])["on"] = bool(op["on"])


class Room:
    def __init__(self, bid):
        self.board = template(bid)
        self.seq = 0
        self.log = []
        self.ops = {}
        self.holds = {}  # item -> user id
        self.conns = {}  # user id -> (ws, user)

    async def broadcast(self, m, skip=None):
        for uid, (ws, _) in list(self.conns.items()):
            if uid != skip:
                await ws.send_str(json.dumps(m))

    def check(self, op, by):
        items = {i["id"] for i in self.board["items"]}
        for i in involved(op):
            if i not in items:
                return "unknown_item", None
        if op["type"] == "move" and op["zone"] not in {z["id"] for z in self.board["zones"]}:
            return "unknown_zone", None
        if op["base"] > self.seq:
            return "bad_base", None
        for i in involved(op):
            if self.holds.get(i) not in (None, by):
                return "held", self.holds[i]
        for c in self.log[op["base"]:]:
            if set(involved(c)) & set(involved(op)):
                return "conflict", c["by"]
        if op["type"] == "swap" and op["a"] == op["b"]:
            return "invalid", None
        if op["type"] == "move" and op.get("before") == op["item"]:
            return "invalid", None
        if op["type"] == "move" and op.get("before"):
            z = locate(self.board, op["before"])
            if z[0]["id"] != op["zone"]:
                return "invalid", None
        return None, None

    async def commit(self, ws, op, by):
        if op["op"] in self.ops:
            await ws.send_str(json.dumps({"type": "ack", "op": op["op"], "seq": self.ops[op["op"]]}))
            return
        reason, who = self.check(op, by)
        if reason:
            m = {"type": "reject", "op": op["op"], "reason": reason, "seq": self.seq}
            if who:
                m["by"] = who
            await ws.send_str(json.dumps(m))
            return
        apply(self.board, op)
        self.seq += 1
        c = dict(op, by=by, seq=self.seq)
        c.pop("base", None)
        self.log.append(c)
        self.ops[op["op"]] = self.seq
        await self.broadcast(c)


ROOMS = {}
NEXT = [0]


async def ws_handler(request):
    ws = web.WebSocketResponse(protocols=["shuffleboard.v1"])
    await ws.prepare(request)
    room = None
    me = None
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            m = json.loads(msg.data)
            t = m.get("type")
            if room is None:
                if t != "hello":
                    await ws.send_str(json.dumps({"type": "error", "code": "not_joined", "message": "hello first"}))
                    continue
                room = ROOMS.setdefault(m["board"], Room(m["board"]))
                NEXT[0] += 1
                me = {"id": f"u{NEXT[0]}", "name": m.get("name", "?"), "color": USER_COLORS[NEXT[0] % len(USER_COLORS)]}
                w = {"type": "welcome", "you": me["id"], "seq": room.seq,
                     "drags": [{"item": i, "by": b} for i, b in room.holds.items()],
                     "users": [u for _, u in room.conns.values()] + [me]}
                since = m.get("since")
                if isinstance(since, int) and 0 <= since <= room.seq:
                    w["ops"] = room.log[since:]
                else:
                    w["board"] = room.board
                await room.broadcast({"type": "join", "user": me})
                room.conns[me["id"]] = (ws, me)
                await ws.send_str(json.dumps(w))
                continue
            if t in ("swap", "move", "toggle"):
                await room.commit(ws, m, me["id"])
            elif t == "dragStart":
                h = room.holds.get(m["item"])
                if h and h != me["id"]:
                    await ws.send_str(json.dumps({"type": "reject", "op": None, "reason": "held", "by": h, "item": m["item"], "seq": room.seq}))
                    continue
                for i, b in list(room.holds.items()):
                    if b == me["id"]:
                        del room.holds[i]
                        await room.broadcast({"type": "drop", "item": i, "by": me["id"], "at": room.seq})
                room.holds[m["item"]] = me["id"]
                await room.broadcast({"type": "dragStart", "item": m["item"], "by": me["id"], "at": room.seq})
            elif t == "hover":
                if room.holds.get(m["item"]) != me["id"]:
                    await ws.send_str(json.dumps({"type": "reject", "op": None, "reason": "not_holding", "item": m["item"], "seq": room.seq}))
                    continue
                await room.broadcast({"type": "hover", "item": m["item"], "over": m.get("over"), "zone": m.get("zone"), "by": me["id"], "at": room.seq}, skip=me["id"])
            elif t == "drop":
                if room.holds.get(m["item"]) == me["id"]:
                    del room.holds[m["item"]]
                    await room.broadcast({"type": "drop", "item": m["item"], "by": me["id"], "at": room.seq})
                a = m.get("action")
                if a:
                    if a["type"] == "swap":
                        op = {"type": "swap", "op": m["op"], "base": m["base"], "a": m["item"], "b": a["with"]}
                    else:
                        op = {"type": "move", "op": m["op"], "base": m["base"], "item": m["item"], "zone": a["zone"], "before": a.get("before")}
                    await room.commit(ws, op, me["id"])
            else:
                await ws.send_str(json.dumps({"type": "error", "code": "unknown_type", "message": t}))
    finally:
        if room and me:
            room.conns.pop(me["id"], None)
            for i, b in list(room.holds.items()):
                if b == me["id"]:
                    del room.holds[i]
                    await room.broadcast({"type": "drop", "item": i, "by": me["id"], "at": room.seq, "reason": "left"})
            await room.broadcast({"type": "leave", "user": me})
    return ws


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--web", default="web")
    a = ap.parse_args()
    app = web.Application()

    async def board(request):
        r = ROOMS.get(request.match_info["id"])
        if not r:
            raise web.HTTPNotFound()
        return web.json_response({"seq": r.seq, "board": r.board})

    async def boards(request):
        return web.json_response({"boards": [{"id": k, "title": k, "seq": r.seq, "users": len(r.conns)} for k, r in ROOMS.items()]})

    async def index(request):
        return web.FileResponse(f"{a.web}/index.html")

    app.router.add_get("/ws", ws_handler)
    app.router.add_get("/api/boards/{id}", board)
    app.router.add_get("/api/boards", boards)
    app.router.add_get("/", index)
    app.router.add_static("/", a.web)

    async def run():
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", a.port)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        print(f"{time.strftime('%H:%M:%S')} info listening on http://127.0.0.1:{port}/", file=sys.stderr, flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
