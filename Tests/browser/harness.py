"""Starts the real `shuffleboard serve` for one test and talks to its HTTP API.

The server runs as a subprocess on a port it picks (`--port 0`); the port is read from its
`listening on http://127.0.0.1:PORT/` log line on stderr. Every wait has a timeout.
"""
import json
import os
import re
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
OUTPUT = Path(os.environ.get("SHUFFLEBOARD_TEST_OUTPUT", ROOT / "test-output"))
LISTENING = re.compile(r"listening on (https?://[^\s/]+:(\d+))/?")


class Server:
    """One server process. `start()` blocks until it listens (or raises after `timeout` s)."""

    def __init__(self, binary, name, data=None):
        self.binary = binary
        self.name = name
        self.data = data  # a directory: boards kept there (SQLite) across restarts; else --memory
        self.proc = None
        self.url = None
        self.port = None
        self.log_path = OUTPUT / f"{name}.server.log"
        self.runs = 0

    def start(self, port=0, timeout=20, extra_args=None):
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.runs += 1
        if extra_args is not None:
            self.extra_args = list(extra_args)  # Kept for restarts.
        store = ["--data", str(self.data)] if self.data else ["--memory"]
        args = [self.binary, "serve", "--port", str(port), *store, "--web", str(WEB),
                *getattr(self, "extra_args", [])]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        found = threading.Event()
        log = open(self.log_path, "a", encoding="utf-8")
        log.write(f"--- run {self.runs}: {' '.join(args)}\n")

        def pump(proc=self.proc):
            for line in proc.stderr:
                log.write(line)
                log.flush()
                m = LISTENING.search(line)
                if m and not found.is_set():
                    self.url, self.port = m.group(1), int(m.group(2))
                    found.set()
            log.close()

        threading.Thread(target=pump, daemon=True).start()
        if not found.wait(timeout):
            self.stop()
            raise RuntimeError(f"server did not log 'listening on' within {timeout}s; see {self.log_path}")
        return self

    def stop(self, timeout=10):
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout)

    def get_json(self, path, timeout=5):
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            raise

    def post_json(self, path, body, timeout=5):
        """POSTs JSON; returns (status, parsed body)."""
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def create(self, template, board_id=None, title=None):
        """Makes a board from a template (`POST /api/boards`); returns its snapshot."""
        body = {"template": template}
        if board_id:
            body["id"] = board_id
        if title:
            body["title"] = title
        status, answer = self.post_json("/api/boards", body)
        assert status == 201, (status, answer)
        return answer["board"]

    def board(self, board_id):
        """The server's snapshot of a board: {'seq': N, 'board': {...}} or None."""
        return self.get_json(f"/api/boards/{board_id}")

    def zone(self, board_id, zone_id):
        b = self.board(board_id)
        if b is None:
            return None
        return next((z["items"] for z in b["board"]["zones"] if z["id"] == zone_id), None)


def center(page, selector):
    """The centre of the element `selector` on `page`, in page pixels."""
    box = page.locator(selector).bounding_box()
    assert box, f"{selector} is not visible"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


class Touch:
    """One finger on `page`, through the DevTools protocol (Playwright has no touch moves)."""

    def __init__(self, context, page):
        self.cdp = context.new_cdp_session(page)

    def __call__(self, kind, x=None, y=None):
        """`touchStart`, `touchMove` (at x, y) or `touchEnd`."""
        points = [] if x is None else [{"x": x, "y": y}]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


# An init script that counts the page's WebSockets and records every message it sends and
# receives (parsed; a batch as its messages), in `window.__sockets` and `window.__frames`.
RECORD_SOCKETS = """(() => {
  window.__sockets = 0;
  window.__frames = {sent: [], received: []};
  const record = (list, data) => {
    try {
      const m = JSON.parse(data);
      list.push(...(Array.isArray(m) ? m : [m]));
    } catch {
      list.push({type: '(not JSON)'});
    }
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets += 1;
      this.addEventListener('message', (e) => record(window.__frames.received, e.data));
    }
    send(data) {
      record(window.__frames.sent, data);
      super.send(data);
    }
  };
})();"""
