#!/usr/bin/env bash
# A local shuffleboard cluster on loopback, to try failover by hand (docs/cluster.md): a throwaway
# PostgreSQL (scripts/postgres.sh), three nodes n1 n2 n3 on it, and HAProxy in front
# (deploy/haproxy.cfg). It prints the URL to open, each node's port, pid and log, and takes
# commands on its terminal: `kill N` (kill -9 node N), `stop N` / `cont N` (SIGSTOP / SIGCONT),
# `start N` (start a killed node again), `status`, `quit`. Ctrl-C (or SIGTERM, or `quit`) stops
# everything it started and removes its temporary directory.
#
#   scripts/cluster.sh [--ha] [serve flags for every node...]
#
# --ha: PostgreSQL as a primary and a synchronous standby (scripts/postgres.sh start --ha); the
# nodes get the multi-host URL (target_session_attrs=read-write), and more commands:
# `pg-kill` (kill -9 of the primary), `pg-promote` (pg_ctl promote of the standby), `pg-restart`
# (start the killed primary again), `pg-kill-standby` and `pg-restart-standby`, `pg-status`.
# Kill the primary, promote the standby, and the nodes go on on it; or start the primary again
# instead; or kill the standby and see every commit wait for it (docs/cluster.md).
#
# Environment: SHUFFLEBOARD_PORT (HAProxy's port, default 8080), SHUFFLEBOARD_LEASE (--lease,
# default 5), SHUFFLEBOARD_BIN (use this binary instead of a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_build_deps
need_apt haproxy
if [ -z "${SHUFFLEBOARD_BIN:-}" ]; then
  swift build -c release --product shuffleboard >&2
  SHUFFLEBOARD_BIN="$(swift build -c release --show-bin-path)/shuffleboard"
fi

ha=()
if [ "${1:-}" = --ha ]; then
  ha=(--ha)
  shift
fi
port=${SHUFFLEBOARD_PORT:-8080}
lease=${SHUFFLEBOARD_LEASE:-5}
extra=("$@")
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
python3 -c "import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $port))" 2>/dev/null \
  || { echo "port $port is in use: set SHUFFLEBOARD_PORT" >&2; exit 1; }

tmp=$(mktemp -d /tmp/shuffleboard-cluster.XXXXXX)
chmod 711 "$tmp"  # PostgreSQL runs as nobody (as root) and must reach $tmp/pg
declare -A pids=() ports=()
haproxy_pid="" sleeper=""

cleanup() {
  trap - EXIT INT TERM
  # Stop everything even when whoever read our output has gone (a write would raise SIGPIPE).
  trap '' PIPE
  set +e
  echo "stopping the cluster" >&2
  [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null || true
  local pid
  for pid in "${pids[@]}" $haproxy_pid; do
    kill -CONT "$pid" 2>/dev/null || true  # a stopped node acts on SIGTERM only once continued
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}" $haproxy_pid; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  scripts/postgres.sh stop "$tmp/pg" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_http URL SECONDS: until URL answers 200, or fail.
wait_http() {
  python3 - "$1" "$2" <<'EOF'
import sys, time, urllib.request
url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=1) as r:
            if r.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
EOF
}

# running N: node N's process exists and is not a zombie (killed, not reaped yet).
running() {
  local state
  [ -n "${pids[$1]:-}" ] && state=$(ps -o stat= -p "${pids[$1]}") && [[ $state != Z* ]]
}

# node N: the node's process (run in the background; exec, so its pid is the server's).
node() {
  local n=$1 p=${ports[$1]}
  # Behind HAProxy every client comes from 127.0.0.1: the per-address limits are off.
  exec "$SHUFFLEBOARD_BIN" serve --store "$url" --node "n$n" --advertise "127.0.0.1:$p" --port "$p" \
    --lease "$lease" --max-connections-per-address 0 --max-pending-per-address 0 --connect-rate 0 --board-creations 0 \
    --max-holds-per-address 0 \
    ${extra[@]+"${extra[@]}"} >>"$tmp/n$n.log" 2>&1
}

start_node() {
  local n=$1 p=${ports[$1]}
  if running "$n"; then echo "n$n runs already (pid ${pids[$n]})"; return 0; fi
  [ -n "${pids[$n]:-}" ] && { wait "${pids[$n]}" 2>/dev/null || true; }
  node "$n" &
  pids[$n]=$!
  if ! wait_http "http://127.0.0.1:$p/healthz" 20; then
    echo "n$n did not start; its log ($tmp/n$n.log):" >&2
    tail -20 "$tmp/n$n.log" >&2
    return 1
  fi
}

url=$(scripts/postgres.sh start "$tmp/pg" ${ha[@]+"${ha[@]}"})
for n in 1 2 3; do ports[$n]=$(free_port); done
for n in 1 2 3; do start_node "$n"; done

SHUFFLEBOARD_BIND="127.0.0.1:$port" SHUFFLEBOARD_NODE1="127.0.0.1:${ports[1]}" \
  SHUFFLEBOARD_NODE2="127.0.0.1:${ports[2]}" SHUFFLEBOARD_NODE3="127.0.0.1:${ports[3]}" \
  haproxy -db -f deploy/haproxy.cfg >"$tmp/haproxy.log" 2>&1 &
haproxy_pid=$!
wait_http "http://127.0.0.1:$port/healthz" 20 \
  || { echo "HAProxy did not start; its log:" >&2; cat "$tmp/haproxy.log" >&2; exit 1; }

status() {
  for n in 1 2 3; do
    local state=down
    if running "$n"; then
      state="pid ${pids[$n]}"
      [[ $(ps -o stat= -p "${pids[$n]}") == T* ]] && state="$state, stopped"
    fi
    printf '  n%s  http://127.0.0.1:%s/  %-19s  log %s\n' "$n" "${ports[$n]}" "$state" "$tmp/n$n.log"
  done
  printf '  HAProxy     pid %s, log %s\n  PostgreSQL  %s\n' "$haproxy_pid" "$tmp/haproxy.log" "$url"
  [ ${#ha[@]} = 0 ] || scripts/postgres.sh status "$tmp/pg" | sed 's/^/    /'
}

cat <<EOF

A shuffleboard cluster of three nodes is up. Open

  http://127.0.0.1:$port/?board=demo

in two browsers (HAProxy sends both to the node that board's id hashes to).

$(status)
  temporary directory: $tmp

GET http://127.0.0.1:$port/api/cluster lists the nodes and how many boards each owns;
GET http://127.0.0.1:$port/api/boards/demo says which node owns "demo" ("owner"), once a tile
has moved on it (a board nobody changed is not stored).
Commands: kill N (kill -9 node N), stop N / cont N (SIGSTOP / SIGCONT), start N (start it again),
status, quit. Ctrl-C stops everything. The lease is $lease s: a dead owner's boards move after it.
EOF
[ ${#ha[@]} = 0 ] || cat <<EOF
PostgreSQL runs as a primary and a synchronous standby: pg-kill (kill -9 of the primary),
pg-promote (promote the standby), pg-restart (start the killed primary again), pg-kill-standby,
pg-restart-standby, pg-status. Without a primary, or without the synchronous standby, commits wait
(nothing is broadcast); once there is a primary with its standby again, the nodes go on by themselves.
EOF

node_pid() {
  case "${1:-}" in 1 | 2 | 3) ;; *) echo "which node? 1, 2 or 3"; return 1 ;; esac
  running "$1" || { echo "n$1 is not running"; return 1; }
}

while read -r -p "> " cmd n; do
  case "$cmd" in
    kill) node_pid "$n" && kill -KILL "${pids[$n]}" && { wait "${pids[$n]}" 2>/dev/null || true; } && echo "killed n$n (kill -9)" ;;
    stop) node_pid "$n" && kill -STOP "${pids[$n]}" && echo "stopped n$n (SIGSTOP): cont $n to go on" ;;
    cont) node_pid "$n" && kill -CONT "${pids[$n]}" && echo "n$n goes on (SIGCONT)" ;;
    start)
      case "$n" in 1 | 2 | 3) start_node "$n" && echo "n$n started (pid ${pids[$n]})" ;; *) echo "which node? 1, 2 or 3" ;; esac ;;
    status)
      status
      python3 - "http://127.0.0.1:$port/api/cluster" <<'EOF' ;;
import json, sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=3) as r:
        for node in json.load(r)["nodes"]:
            print(f"  {node['name']}: {'alive' if node['alive'] else 'dead'}, owns {node['boards']} board(s)")
except Exception as e:
    print(f"GET {sys.argv[1]}: {e}")
EOF
    pg-kill | pg-promote | pg-restart | pg-kill-standby | pg-restart-standby | pg-status)
      if [ ${#ha[@]} = 0 ]; then
        echo "PostgreSQL is a single server: start with --ha for a primary and a standby"
      else
        case "$cmd" in
          pg-kill) scripts/postgres.sh kill-primary "$tmp/pg" && echo "killed the PostgreSQL primary (kill -9)" ;;
          pg-promote) scripts/postgres.sh promote "$tmp/pg" && echo "promoted the standby: it is the primary now" ;;
          pg-restart) scripts/postgres.sh restart "$tmp/pg" && echo "started the PostgreSQL primary again" ;;
          pg-kill-standby) scripts/postgres.sh kill-standby "$tmp/pg" && echo "killed the standby (kill -9): commits wait for it" ;;
          pg-restart-standby) scripts/postgres.sh restart-standby "$tmp/pg" && echo "started the standby again" ;;
          pg-status) scripts/postgres.sh status "$tmp/pg" ;;
        esac
      fi
      ;;
    quit | exit) exit 0 ;;
    "") ;;
    *) echo "kill N, stop N, cont N, start N, status or quit${ha[@]+ (or pg-kill, pg-promote, pg-restart, pg-kill-standby, pg-restart-standby, pg-status)}" ;;
  esac
done
# No terminal (or it was closed): run until a signal.
while :; do
  sleep 3600 &
  sleeper=$!
  wait "$sleeper" || true
done
