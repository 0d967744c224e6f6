#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for tests, benchmarks and scripts/cluster.sh.
#
#   scripts/postgres.sh start DIR   makes a cluster in DIR (initdb), starts it on a free port,
#                                   and prints its URL: postgresql://shuffleboard@127.0.0.1:PORT/shuffleboard
#   scripts/postgres.sh start DIR --ha
#                                   the same server as a primary, plus a synchronous standby
#                                   (streaming replication, synchronous_standby_names) on another
#                                   port, made from it with pg_basebackup; prints the multi-host URL
#                                   postgresql://shuffleboard@127.0.0.1:P1,127.0.0.1:P2/shuffleboard?target_session_attrs=read-write
#                                   once the standby is in sync: every commit is then on both.
#   scripts/postgres.sh stop DIR    stops it (fast shutdown; with --ha both servers) and leaves DIR
#   scripts/postgres.sh url DIR     prints the URL of the server(s) started in DIR
#   scripts/postgres.sh crash DIR   stops it (the primary) at once (immediate shutdown: connections
#                                   drop, no checkpoint), as a database that goes away does
#   scripts/postgres.sh restart DIR starts the server (the primary) of DIR again, on its port
#   scripts/postgres.sh kill-primary DIR   (--ha) kill -9 of the primary's postmaster and every
#                                   process of it, as a machine that dies
#   scripts/postgres.sh kill-standby DIR   (--ha) kill -9 of the standby and every process of it:
#                                   the primary's commits then wait until it is back (synchronous)
#   scripts/postgres.sh restart-standby DIR (--ha) starts the standby again, on its port; it
#                                   catches up with the primary and the waiting commits return
#   scripts/postgres.sh promote DIR (--ha) promotes the standby (pg_ctl promote) and waits until it
#                                   takes writes; the URL then reaches it (target_session_attrs)
#   scripts/postgres.sh status DIR  (--ha) each server's role: primary, standby or down
#
# Environment: SHUFFLEBOARD_PG_LISTEN, an address to listen on besides 127.0.0.1, and
# SHUFFLEBOARD_PG_TRUST, a CIDR whose connections are trusted too (the partition tests run it in
# a network namespace of their own and reach it on another address).
#
# initdb refuses to run as root, so as root the servers run as `nobody`, which then owns DIR.
# Trust authentication on 127.0.0.1 only: this is for a test machine, never for production.
# The binaries are the image's (/usr/local/bin) or Debian's postgresql-15 (installed when neither is there).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

find_bin() {
  local dir
  for dir in /usr/local/bin /usr/lib/postgresql/15/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

bin=$(find_bin) || { need_apt postgresql-15 >&2; bin=$(find_bin); }
command -v psql >/dev/null || need_apt postgresql-client >&2

as_owner() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# run_server [DATA PORT LOG]: starts the server of DATA (default $dir/data) on PORT (default
# $port) and waits until it accepts connections.
run_server() {
  local data=${1:-$dir/data} at=${2:-$port} log=${3:-$dir/postgres.log}
  # The socket directory is DIR itself, so nothing in /var/run is needed.
  as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1${SHUFFLEBOARD_PG_LISTEN:+,$SHUFFLEBOARD_PG_LISTEN} -c port=$at -c unix_socket_directories=$dir -c max_connections=200 -c fsync=on" \
    start >/dev/null || { cat "$log" >&2; exit 1; }
}

sql() {  # sql PORT SQL: one statement on the database postgres, tuples only
  psql -qtAX -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U shuffleboard -d postgres -c "$2"
}

# wait_for PORT SQL WANT SECONDS: until SQL answers WANT, or fail.
wait_for() {
  local i
  for i in $(seq $(($4 * 10))); do
    [ "$(sql "$1" "$2" 2>/dev/null)" = "$3" ] && return 0
    sleep 0.1
  done
  echo "postgres.sh: port $1 did not answer $3 to \"$2\" within $4 s" >&2
  return 1
}

# The postmaster of DATA and its children (the backends, the WAL writer, …), by pid.
server_pids() {
  local pid
  pid=$(head -1 "$1/postmaster.pid" 2>/dev/null) || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  echo "$pid" $(ps -o pid= --ppid "$pid")
}

cmd=${1:-}
dir=${2:-}
ha=${3:-}
usage="usage: $0 start DIR [--ha] | stop|url|crash|restart|kill-primary|kill-standby|restart-standby|promote|status DIR"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "$usage" >&2; exit 2; }

case "$cmd" in
  start)
    [ -z "$ha" ] || [ "$ha" = --ha ] || { echo "$usage" >&2; exit 2; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [ "$(id -u)" = 0 ] && chown nobody:nogroup "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U shuffleboard -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    if [ -n "${SHUFFLEBOARD_PG_TRUST:-}" ]; then
      echo "host all all $SHUFFLEBOARD_PG_TRUST trust" | as_owner tee -a "$dir/data/pg_hba.conf" >/dev/null
    fi
    port=$(free_port)
    echo "$port" >"$dir/port"
    run_server
    # The database the URL names.
    psql -q -h 127.0.0.1 -p "$port" -U shuffleboard -d postgres -c "CREATE DATABASE shuffleboard" >/dev/null
    if [ -z "$ha" ]; then
      echo "postgresql://shuffleboard@127.0.0.1:$port/shuffleboard" >"$dir/url"
    else
      # The standby: a base backup of the primary that streams its WAL (initdb's pg_hba.conf
      # trusts replication connections from 127.0.0.1), named standby1 to the primary.
      standby_port=$(free_port)
      echo "$standby_port" >"$dir/standby-port"
      basebackup=$bin/pg_basebackup
      [ -x "$basebackup" ] || basebackup=$(command -v pg_basebackup)  # postgresql-client's
      as_owner "$basebackup" -h 127.0.0.1 -p "$port" -U shuffleboard -D "$dir/standby" -R -X stream \
        -c fast >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
      # It retries streaming every second (the default is 5 s): a primary started again after a
      # crash has its synchronous standby back, and commits again, that much sooner.
      printf '%s\n' "primary_conninfo = 'host=127.0.0.1 port=$port user=shuffleboard application_name=standby1'" \
        "wal_retrieve_retry_interval = '1s'" | as_owner tee -a "$dir/standby/postgresql.auto.conf" >/dev/null
      run_server "$dir/standby" "$standby_port" "$dir/standby.log"
      # Synchronous from now on: a commit returns once the standby has flushed it. Set after the
      # base backup, so the standby (promoted, alone) does not wait for a standby of its own.
      sql "$port" "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" >/dev/null
      sql "$port" "SELECT pg_reload_conf()" >/dev/null
      wait_for "$port" "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'" sync 30
      echo "postgresql://shuffleboard@127.0.0.1:$port,127.0.0.1:$standby_port/shuffleboard?target_session_attrs=read-write" \
        >"$dir/url"
    fi
    cat "$dir/url"
    ;;
  stop)
    for data in "$dir/data" "$dir/standby"; do
      [ -d "$data" ] || continue
      as_owner "$bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    done
    ;;
  url)
    cat "$dir/url"
    ;;
  crash)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null
    ;;
  restart)
    dir=$(cd "$dir" && pwd)
    port=$(cat "$dir/port")
    run_server
    ;;
  kill-primary|kill-standby)
    [ -d "$dir/standby" ] || { echo "postgres.sh: $dir was not started with --ha" >&2; exit 2; }
    which=primary data=$dir/data
    [ "$cmd" = kill-standby ] && which=standby data=$dir/standby
    pids=$(server_pids "$data")
    [ -n "$pids" ] || { echo "postgres.sh: the $which of $dir is not running" >&2; exit 1; }
    # shellcheck disable=SC2086
    kill -KILL $pids
    for _ in $(seq 100); do
      alive=0
      for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
      [ "$alive" = 0 ] && break
      sleep 0.1
    done
    ;;
  restart-standby)
    [ -d "$dir/standby" ] || { echo "postgres.sh: $dir was not started with --ha" >&2; exit 2; }
    dir=$(cd "$dir" && pwd)
    run_server "$dir/standby" "$(cat "$dir/standby-port")" "$dir/standby.log"
    ;;
  promote)
    [ -d "$dir/standby" ] || { echo "postgres.sh: $dir was not started with --ha" >&2; exit 2; }
    as_owner "$bin/pg_ctl" -D "$dir/standby" -w -t 30 promote >/dev/null
    wait_for "$(cat "$dir/standby-port")" "SELECT pg_is_in_recovery()" f 30
    ;;
  status)
    for which in primary:data:port standby:standby:standby-port; do
      IFS=: read -r name data portfile <<<"$which"
      [ -f "$dir/$portfile" ] || continue
      role=down
      case "$(sql "$(cat "$dir/$portfile")" "SELECT pg_is_in_recovery()" 2>/dev/null)" in
        t) role=standby ;;
        f) role=primary ;;
      esac
      echo "$name (port $(cat "$dir/$portfile"), $dir/$data): $role"
    done
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
