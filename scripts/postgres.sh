#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for tests, benchmarks and scripts/cluster.sh.
#
#   scripts/postgres.sh start DIR   makes a cluster in DIR (initdb), starts it on a free port,
#                                   and prints its URL: postgresql://shuffleboard@127.0.0.1:PORT/shuffleboard
#   scripts/postgres.sh stop DIR    stops it (fast shutdown) and leaves DIR for the caller to remove
#   scripts/postgres.sh url DIR     prints the URL of the server started in DIR
#   scripts/postgres.sh crash DIR   stops it at once (immediate shutdown: connections drop, no
#                                   checkpoint), as a database that goes away does
#   scripts/postgres.sh restart DIR starts the server of DIR again, on the port of its URL
#
# initdb refuses to run as root, so as root the server runs as `nobody`, which then owns DIR.
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

# run_server: starts the server of $dir on $port and waits until it accepts connections.
run_server() {
  # The socket directory is DIR itself, so nothing in /var/run is needed.
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200 -c fsync=on" \
    start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|url|crash|restart DIR" >&2; exit 2; }

case "$cmd" in
  start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [ "$(id -u)" = 0 ] && chown nobody:nogroup "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U shuffleboard -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(free_port)
    run_server
    # The database the URL names.
    psql -q -h 127.0.0.1 -p "$port" -U shuffleboard -d postgres -c "CREATE DATABASE shuffleboard" >/dev/null
    echo "postgresql://shuffleboard@127.0.0.1:$port/shuffleboard" >"$dir/url"
    cat "$dir/url"
    ;;
  stop)
    [ -d "$dir/data" ] || exit 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    ;;
  url)
    cat "$dir/url"
    ;;
  crash)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null
    ;;
  restart)
    dir=$(cd "$dir" && pwd)
    port=$(sed -E 's|.*:([0-9]+)/.*|\1|' "$dir/url")
    run_server
    ;;
  *)
    echo "usage: $0 start|stop|url|crash|restart DIR" >&2
    exit 2
    ;;
esac
