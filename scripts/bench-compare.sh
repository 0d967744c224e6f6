#!/usr/bin/env bash
# Side by side: shuffleboard and socketify (uWebSockets under Python, Tools/socketify_board.py)
# under the same hover load from the same C load generator (Tools/loadgen.c), on this machine.
# Runs `shuffleboard-bench scenarios fan-out` at each offered load against both servers, prints
# the ratios, and writes docs/bench/*.jsonl and docs/performance.png (scripts/bench-plot.py).
#
# Usage: scripts/bench-compare.sh [RATE_PER_SENDER...]   (default: 50 250 1000 2500)
# 500 clients on one board, 4 senders; fan-out is 250/s per sender, saturation 2500/s.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_build_deps
need_pip socketify=socketify matplotlib=matplotlib

rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(50 250 1000 2500)
seconds=${BENCH_SECONDS:-4}

swift build -c release --product shuffleboard >&2
swift build -c release --product shuffleboard-bench >&2
bin=$(swift build -c release --show-bin-path)
loadgen=$(scripts/build-loadgen.sh)
out=docs/bench
mkdir -p "$out"
: >"$out/shuffleboard.jsonl"
: >"$out/socketify.jsonl"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_listening() { # port: polls every 50 ms, at most 10 s
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on $1" >&2
  return 1
}

for rate in "${rates[@]}"; do
  echo "== offered: 4 senders x $rate hovers/s to 500 clients" >&2
  "$bin/shuffleboard-bench" scenarios fan-out --loadgen "$loadgen" --rate "$rate" --seconds "$seconds" \
    | tee -a "$out/shuffleboard.jsonl"
  port=$(free_port)
  python3 Tools/socketify_board.py "$port" >/dev/null 2>&1 &
  pid=$!
  wait_listening "$port"
  "$bin/shuffleboard-bench" scenarios fan-out --loadgen "$loadgen" --rate "$rate" --seconds "$seconds" \
    --port "$port" --pid "$pid" | tee -a "$out/socketify.jsonl"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done

python3 scripts/bench-plot.py "$out/shuffleboard.jsonl" "$out/socketify.jsonl" docs/performance.png
