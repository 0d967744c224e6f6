#!/usr/bin/env bash
# Issue 33's full-node figures, on this machine:
# 1. `shuffleboard-bench scenarios full-node` at 5,000 / 10,000 / 19,000 connections on the node
#    (10 busy boards of 10 hovering at 30/s plus idle connections on boards of 100, from one
#    source address per 5,000), --event-loop poll and libev alternately, two rounds each, into
#    docs/bench/full-node-sweep.jsonl, plotted by scripts/plot-full-node.py into
#    docs/full-node.svg;
# 2. one board of 10,000 clients, 4 senders hovering at 30/s (`fan-out --clients 10000 --rate 30`),
#    on shuffleboard (poll) and then socketify (Tools/socketify_board.py) in the same run, into
#    docs/bench/board-10k.jsonl.
# Needs a descriptor limit of 20,000 or more (`ulimit -n`) for 19,000.
#
# Usage: scripts/bench-full-node.sh [sweep] [board]   (default: both)
# SWEEP_IDLE: the idle counts (default "4900 9900 18900"); SWEEP_APPEND=1 adds to the sweep's file.
# BENCH_BIN: the directory of release binaries (default: swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(sweep board)
bin=${BENCH_BIN:-}
if [ -z "$bin" ]; then
  swift build -c release --scratch-path .build-release --product shuffleboard >&2
  swift build -c release --scratch-path .build-release --product shuffleboard-bench >&2
  bin=$(swift build -c release --scratch-path .build-release --show-bin-path)
fi
loadgen=$(scripts/build-loadgen.sh)
mkdir -p docs/bench

for part in "${parts[@]}"; do
  case $part in
  sweep)
    out=docs/bench/full-node-sweep.jsonl
    [ -n "${SWEEP_APPEND:-}" ] || : >"$out"
    for idle in ${SWEEP_IDLE:-4900 9900 18900}; do
      echo "== full-node: $idle idle + 100 busy connections (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      # A size that fails (its joins did not all land within 300 s) is said so, and the sweep goes on.
      "$bin/shuffleboard-bench" scenarios full-node --loadgen "$loadgen" --clients "$idle" | tee -a "$out" ||
        echo "== full-node at $idle idle failed (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    done
    python3 scripts/plot-full-node.py "$out" docs/full-node.svg
    ;;
  board)
    need_pip socketify=socketify
    out=docs/bench/board-10k.jsonl
    : >"$out"
    echo "== one board of 10,000, 4 senders at 30/s: shuffleboard, then socketify (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    "$bin/shuffleboard-bench" scenarios fan-out --loadgen "$loadgen" --clients 10000 --rate 30 --seconds 5 | tee -a "$out"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    python3 Tools/socketify_board.py "$port" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
    "$bin/shuffleboard-bench" scenarios fan-out --loadgen "$loadgen" --clients 10000 --rate 30 --seconds 5 \
      --port "$port" --pid "$pid" | tee -a "$out"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    ;;
  *) echo "unknown part $part (sweep, board)" >&2; exit 2 ;;
  esac
done
