#!/usr/bin/env python3
"""Memory per idle connection: starts a shuffleboard binary, opens many WebSocket connections that
join boards and then sit idle, and prints the server's RSS growth per connection.

Usage: scripts/bench-idle-memory.py BIN [--clients 2000] [--boards 100]

It prints numbers and asserts nothing. Each client is a raw socket (no thread per client): it does
the handshake, sends `hello`, reads up to its `welcome`, and then neither sends nor reads. Clients
are spread over `--boards` boards, each of which already has one joined client before the
baseline is read, so the growth is the connections' alone, not the boards'. The whole run is
bounded by the server's 20 s ping interval (an idle client never answers a ping).
"""

import argparse
import base64
import os
import re
import socket
import struct
import subprocess
import threading
import time


def memory_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Protocol: shuffleboard.v1\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise RuntimeError("handshake failed")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(head.decode(errors="replace"))
    return s


def send_text(s: socket.socket, text: str) -> None:
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81, 0x80 | len(payload)]) if len(payload) < 126 else \
        bytes([0x81, 0x80 | 126]) + struct.pack(">H", len(payload))
    s.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def read_until(s: socket.socket, marker: bytes) -> None:
    """Reads until `marker` has been seen (the welcome's type), however the frames fall."""
    seen = b""
    while marker not in seen:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError("closed before the welcome")
        seen = seen[-len(marker):] + chunk


def join(port: int, board: str, name: str) -> socket.socket:
    s = connect(port)
    send_text(s, f'{{"type":"hello","board":"{board}","name":"{name}"}}')
    read_until(s, b'"type":"welcome"')
    return s


def settle(pid: int) -> int:
    """RSS once it stops changing (the server has written what it queued), at most 2 s later."""
    last, deadline = memory_kb(pid), time.monotonic() + 2
    while time.monotonic() < deadline:
        time.sleep(0.1)  # Sampling, not synchronisation: nothing waits on this but the reading.
        now = memory_kb(pid)
        if now == last:
            return now
        last = now
    return last


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--boards", type=int, default=100)
    args = parser.parse_args()

    server = subprocess.Popen([args.binary, "serve", "--port", "0", "--memory"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    lines: list[str] = []
    ready = threading.Event()

    def read_log() -> None:
        for line in server.stderr:  # Read to the end, so that the server never blocks on its log.
            if not ready.is_set():
                lines.append(line)
            if "listening on" in line:
                ready.set()
    threading.Thread(target=read_log, daemon=True).start()
    try:
        if not ready.wait(20):
            raise RuntimeError("the server did not start: " + "".join(lines))
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", next(l for l in lines if "listening on" in l)).group(1))
        anchors = [join(port, f"b{n}", "anchor") for n in range(args.boards)]
        started = time.monotonic()
        baseline = settle(server.pid)

        idle = [join(port, f"b{n % args.boards}", f"idle{n}") for n in range(args.clients)]
        joined = settle(server.pid)

        unjoined = [connect(port) for _ in range(args.clients // 4)]
        opened = settle(server.pid)
        elapsed = time.monotonic() - started

        per_joined = (joined - baseline) * 1024 / len(idle)
        per_open = (opened - joined) * 1024 / len(unjoined)
        print(f"server RSS with {args.boards} boards, one client each: {baseline / 1024:.1f} MB")
        print(f"+ {len(idle)} joined idle clients: {joined / 1024:.1f} MB, {per_joined / 1024:.1f} KiB per connection")
        print(f"+ {len(unjoined)} open connections without hello: {opened / 1024:.1f} MB, "
              f"{per_open / 1024:.1f} KiB per connection")
        if elapsed > 18:
            print(f"(the run took {elapsed:.0f} s: pings may have started)")
        for s in anchors + idle + unjoined:
            s.close()
    finally:
        server.kill()
        server.wait(10)


if __name__ == "__main__":
    main()
