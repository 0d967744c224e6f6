#!/usr/bin/env bash
# The HTTP API against its description (docs/openapi.yaml): the document is validated with
# openapi-spec-validator, then two real servers (in memory), one without access control and one
# with --auth-secret (every request with an admin token for every board), are checked with
# schemathesis: generated requests for every operation (examples, coverage, fuzzing, stateful
# links), every check (no 5xx, every status and content type documented, every body matching its
# schema, schema-violating requests refused, methods a path does not take answered 405 with
# `allow`, TRACE included: HTTP/UnknownMethods.swift). Each run has a time budget
# (API_RUN_SECONDS, 75 s: fuzzing and stateful testing repeat until it is spent).
# What is marked `x-pending` (specified ahead of another branch's work) is left out. Left out too:
# - NUL in generated strings (`--generation-allow-x00 false`): libwebsockets 4.1.6 closes the
#   connection on `%00` in a query before the server sees the request (its URI parser fails:
#   lib/roles/http/parsers.c, `URIPS_IDLE`), so there is no answer to check;
# - `positive_data_acceptance` on three operations (Tests/api/schemathesis.toml): their bodies
#   carry rules a schema cannot state (a text must show something, an item id must be on the
#   board, which members each op type needs, a token must be this server's); the 400 names the
#   rule. Every other operation must accept whatever its schema allows.
# Usage: Tests/api/run.sh [schemathesis args...]
# Environment: SHUFFLEBOARD_BIN, SHUFFLEBOARD_SCRATCH (default .build), API_MAX_EXAMPLES (default
# 100), API_RUN_SECONDS (default 75, per server).
source "$(dirname "$0")/../preamble.sh"
scratch=${SHUFFLEBOARD_SCRATCH:-.build}
need_venv "$scratch/api-venv" Tests/api/requirements.txt
server_binary
venv=$scratch/api-venv

# The fuzzing makes webhooks for random host names (issue 37), which the server would look up
# and post to: the checks below run in a network namespace of their own with only loopback
# (unshare -n, as root), so they reach nothing outside the machine. What needs the network
# (the venv, the build) is done above, before it.
if [ -z "${SHUFFLEBOARD_API_NETNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
  exec unshare -n env SHUFFLEBOARD_API_NETNS=1 bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
fi

"$venv/bin/python" -m openapi_spec_validator docs/openapi.yaml

work=$(mktemp -d)
# What this server implements: the document without what is marked `x-pending` (operations and
# parameters specified ahead of another branch's work).
"$venv/bin/python" - docs/openapi.yaml "$work/openapi.yaml" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
for path, item in list(spec["paths"].items()):
    for method, op in list(item.items()):
        if not isinstance(op, dict):
            continue
        if op.get("x-pending"):
            del item[method]
        elif "parameters" in op:
            op["parameters"] = [p for p in op["parameters"] if not p.get("x-pending")]
    if not any(m in item for m in ("get", "post", "put", "delete", "patch", "head")):
        del spec["paths"][path]
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
PY
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# check NAME [serve options...]: a server started with the options, checked by schemathesis.
# Streams end after a keepalive or two here: a generated request for an existing board's events
# must not hold its worker until the request timeout (--max-stream-seconds).
status=0
check() {
  local name=$1
  shift
  : >"$work/server.log"
  "$SHUFFLEBOARD_BIN" serve --port 0 --memory --stream-keepalive 0.2 --max-stream-seconds 1 \
    --board-creations 100000 --connect-rate 100000 "$@" >/dev/null 2>"$work/server.log" &
  server=$!
  local port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/server.log" | head -1)
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.05
  done
  [ -n "$port" ] || { echo "the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
  local auth=()
  [ -n "$token" ] && [ "$name" = "with --auth-secret" ] && auth=(--header "Authorization: Bearer $token")
  echo "--- schemathesis against a server $name" >&2
  local result=0
  # --max-time: fuzzing and stateful testing go on until it is spent (at least
  # --max-examples each), then the run reports; `timeout` only stops a run that hangs.
  timeout $((${API_RUN_SECONDS:-75} + 60)) "$venv/bin/schemathesis" --config-file Tests/api/schemathesis.toml \
    run "$work/openapi.yaml" --url "http://127.0.0.1:$port" "${auth[@]}" --max-time "${API_RUN_SECONDS:-75}" \
    --generation-allow-x00 false --max-examples "${API_MAX_EXAMPLES:-100}" --request-timeout 5 \
    --workers 1 --seed 20 --no-color "${extra[@]}" || result=$?
  if [ "$result" -ne 0 ]; then
    echo "--- $name: schemathesis failed ($result); server log (last 40 lines)" >&2
    tail -40 "$work/server.log" >&2
    status=$result
  fi
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=""
}

extra=("$@")
token=""
check "without access control"
# With access control every request carries an admin token for every board; requests without
# one (schemathesis's ignored_auth check) must get 401.
printf 'a secret for the API test, long enough\n' >"$work/secrets"
token=$("$SHUFFLEBOARD_BIN" token '*' --role admin --ttl 1h --auth-secret "$work/secrets")
check "with --auth-secret" --auth-secret "$work/secrets"
exit "$status"
