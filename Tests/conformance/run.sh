#!/usr/bin/env bash
# WebSocket conformance: Autobahn|Testsuite's fuzzingclient against the real binary's echo
# endpoint (`serve --echo-path /echo --port 0 --memory`, no permessage-deflate). Prints case
# counts by result for each section and every case that was not OK (Tests/conformance/summary.py),
# and exits non-zero when a case of sections 1-7 or 10 FAILED (libwebsockets' own 2.10 excepted,
# see docs/conformance.md).
#
# Usage: Tests/conformance/run.sh [CASE...]   cases or patterns, default sections 1-7 and 10
#                                              ("1.*" "2.*" ... "10.*")
# Environment: SHUFFLEBOARD_BIN (use this binary instead of building), SHUFFLEBOARD_SCRATCH
# (SwiftPM scratch path, default .build), AUTOBAHN_VENV (the Python 2.7 virtualenv, default
# ~/.cache/shuffleboard/autobahn-py27), CONFORMANCE_OUT (reports, default test-output/conformance),
# AUTOBAHN_TIMEOUT (seconds the whole fuzzingclient run may take, default 900).
source "$(dirname "$0")/../preamble.sh"

# 1. Autobahn|Testsuite (Python 2 code) in a virtualenv of its own, installed only when missing.
VENV=${AUTOBAHN_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/shuffleboard/autobahn-py27}
need_py2_venv "$VENV" Tests/conformance/requirements.txt
command -v python3 >/dev/null || need_apt python3

# 2. The server binary.
server_binary

OUT=${CONFORMANCE_OUT:-test-output/conformance}
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# 3. The server, on a free port; the port comes from its "listening on" log line.
"$SHUFFLEBOARD_BIN" serve --echo-path /echo --port 0 --memory --log-level info 2>"$OUT/server.log" &
server=$!
stop_server() {
  if kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server"
    # SIGTERM closes every connection and exits within the shutdown grace (2 s); give it 10.
    timeout 10 tail --pid="$server" -f /dev/null || kill -KILL "$server"
  fi
}
trap stop_server EXIT
port=""
for _ in $(seq 100); do  # at most 10 s
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$OUT/server.log")
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "run.sh: the server did not start:" >&2
  cat "$OUT/server.log" >&2
  exit 1
fi

# 4. The fuzzing client, with a spec made here.
if [ $# -gt 0 ]; then cases=("$@"); else cases=("1.*" "2.*" "3.*" "4.*" "5.*" "6.*" "7.*" "10.*"); fi
python3 - "$OUT" "$port" "${cases[@]}" >"$OUT/fuzzingclient.json" <<'EOF'
import json, sys
out, port, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
print(json.dumps({
    "outdir": out + "/reports",
    "servers": [{"agent": "shuffleboard", "url": "ws://127.0.0.1:%s/echo" % port}],
    "cases": cases,
    "exclude-cases": [],
    "exclude-agent-cases": {},
}, indent=2))
EOF
echo "run.sh: Autobahn|Testsuite fuzzingclient against ws://127.0.0.1:$port/echo, cases ${cases[*]}" >&2
# Each case bounds its own waits; the whole run is bounded too (sections 1-7 and 10 take ~20 s).
if ! (cd "$OUT" && timeout "${AUTOBAHN_TIMEOUT:-900}" "$VENV/bin/wstest" -m fuzzingclient -s fuzzingclient.json >wstest.log 2>&1); then
  echo "run.sh: wstest failed (see $OUT/wstest.log):" >&2
  tail -20 "$OUT/wstest.log" >&2
  exit 1
fi
if ! kill -0 "$server" 2>/dev/null; then
  echo "run.sh: the server died during the run (see $OUT/server.log)" >&2
  exit 1
fi

# 5. The server must still shut down cleanly.
kill -TERM "$server"
if ! timeout 10 tail --pid="$server" -f /dev/null; then
  echo "run.sh: the server did not stop within 10 s of SIGTERM" >&2
  exit 1
fi
status=0
wait "$server" || status=$?
trap - EXIT
if [ "$status" -ne 0 ]; then
  echo "run.sh: the server exited with $status (see $OUT/server.log)" >&2
  exit 1
fi

# 6. The summary; its exit status is the verdict.
echo "run.sh: reports in $OUT/reports (index.html)" >&2
python3 Tests/conformance/summary.py "$OUT/reports" shuffleboard "${cases[@]}"
