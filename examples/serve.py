#!/usr/bin/env python3
"""The example page's own site: serves examples/ and the SDK (web/sdk/) from another origin than
the shuffleboard server, and, given the server's secret, a token endpoint for the page's getToken().

    python3 examples/serve.py --port 8000
    python3 examples/serve.py --port 8000 --auth-secret secrets.txt --ttl 10m

then open http://127.0.0.1:8000/examples/embed.html?server=http://127.0.0.1:8080&board=demo
(with `&tokenUrl=/token` when there is a token endpoint). The endpoint hands an `edit` token for
the asked board to ANYONE who can reach it: it shows the shape of a site's token endpoint (which
would first check who is asking), so it listens on 127.0.0.1 unless told otherwise; with --host
beyond loopback and --auth-secret it prints a loud WARNING that the endpoint checks nobody. Tokens are minted with
`shuffleboard token` (--shuffleboard: the binary, default `shuffleboard` on PATH).
"""
import argparse
import http.server
import ipaddress
import posixpath
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVED = ("/examples/", "/web/sdk/")
BOARD_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def handler(args):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(ROOT), **kw)

        def do_GET(self):  # noqa: N802 (the http.server name)
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/token":
                return self.token(urllib.parse.parse_qs(url.query).get("board", [""])[0])
            if url.path == "/":
                self.send_response(302)
                self.send_header("location", "/examples/embed.html")
                self.send_header("content-length", "0")
                self.end_headers()
                return None
            # Only the two folders, whatever the path's escapes and dots say (`%2e%2e/` included).
            path = posixpath.normpath(urllib.parse.unquote(url.path))
            if not (path + "/").startswith(SERVED) or path != url.path.rstrip("/"):
                return self.send_error(404)
            return super().do_GET()

        def token(self, board):
            if not args.auth_secret:
                return self.send_error(404, "no token endpoint: start with --auth-secret")
            if not BOARD_ID.match(board):
                return self.send_error(400, "board must be an id")
            cmd = [args.shuffleboard, "token", board, "--role", args.role, "--ttl", args.ttl,
                   "--auth-secret", args.auth_secret]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                return self.send_error(500, "could not mint a token")
            body = done.stdout.strip().encode()
            self.send_response(200)
            self.send_header("content-type", "text/plain; charset=utf-8")
            self.send_header("cache-control", "no-store")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None

        def log_message(self, fmt, *a):
            sys.stderr.write("examples: " + (fmt % a) + "\n")

    return Handler


def open_endpoint_warning(host, port, role):
    """What serve.py says when its token endpoint can be reached from other machines."""
    line = "!" * 78
    return (f"{line}\n"
            f"WARNING: http://{host}:{port}/token hands an `{role}` token for ANY board to ANYONE who can\n"
            f"reach this address: it checks nobody. It is a demonstration of a token endpoint's shape,\n"
            f"not access control. Listen on 127.0.0.1 (the default), or put a real login in front.\n"
            f"{line}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    p.add_argument("--auth-secret", help="the shuffleboard server's --auth-secret FILE: serve /token")
    p.add_argument("--ttl", default="10m", help="each token's life (shuffleboard token --ttl)")
    p.add_argument("--role", default="edit", choices=["view", "edit", "admin"])
    p.add_argument("--shuffleboard", default="shuffleboard", help="the shuffleboard binary")
    args = p.parse_args()
    httpd = http.server.ThreadingHTTPServer((args.host, args.port), handler(args))
    host, port = httpd.server_address[:2]
    if args.auth_secret and not ipaddress.ip_address(host).is_loopback:
        print(open_endpoint_warning(host, port, args.role), file=sys.stderr, flush=True)
    print(f"examples on http://{host}:{port}/examples/embed.html", file=sys.stderr, flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
