#!/usr/bin/env bash
# Installs what shuffleboard needs, only what is missing. Sourced by serve.sh and test.sh.
#   need_apt PKG...   Debian packages (apt-get update runs once, only if something is missing)
#   need_pip MOD=PKG...  Python modules, installed from PyPI for the current python3
#   need_build_deps, need_typescript   what building the server, and checking the SDK's types, need
set -euo pipefail

_apt_updated=""
need_apt() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing Debian packages: ${missing[*]}" >&2
  if [ -z "$_apt_updated" ]; then $sudo apt-get update -qq >&2; _apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

need_pip() {
  local missing=()
  for spec in "$@"; do
    local module=${spec%%=*} package=${spec#*=}
    python3 -c "import $module" 2>/dev/null || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing Python packages: ${missing[*]}" >&2
  python3 -m pip install --quiet "${missing[@]}" >&2
}

# need_venv DIR REQUIREMENTS: a Python virtualenv at DIR (made with the current python3) holding
# the packages of the REQUIREMENTS file, installed when the file changed since the last install.
# For tools whose dependencies must not meet the test runners' (schemathesis pins its own).
need_venv() {
  local dir=$1 requirements=$2
  if [ -x "$dir/bin/python" ] && cmp -s "$requirements" "$dir/requirements.installed"; then return 0; fi
  echo "installing Python packages into $dir: $(tr '\n' ' ' < "$requirements")" >&2
  python3 -m venv "$dir" >&2
  "$dir/bin/python" -m pip install --quiet -r "$requirements" >&2
  cp "$requirements" "$dir/requirements.installed"
}

# What building the server needs.
need_build_deps() {
  need_apt pkg-config libwebsockets-dev libwebsockets-evlib-ev libsqlite3-dev libssl-dev libpq-dev libcurl4-openssl-dev
}

# What checking the JavaScript SDK's types needs: `tsc` (Debian's TypeScript 4.8).
need_typescript() {
  need_apt node-typescript
}

# What the cluster tests need besides PostgreSQL (scripts/postgres.sh) and the browser: HAProxy in
# front of the nodes, iproute2 and iptables for the partition tests (network namespaces, cuts).
need_cluster_test_deps() {
  need_apt haproxy iproute2 iptables
}

# need_py2_venv DIR REQUIREMENTS: a Python 2.7 virtualenv at DIR holding the pinned packages of
# REQUIREMENTS (Autobahn|Testsuite is Python 2 code). It is made from pyenv's Python 2.7 with
# virtualenv < 20.22 (the last line that makes 2.7 environments), from PyPI, and made again
# only when REQUIREMENTS changes. Without a pyenv 2.7 it says so and fails.
need_py2_venv() {
  local dir=$1 requirements=$2
  if [ -x "$dir/bin/python" ] && cmp -s "$requirements" "$dir/requirements.installed"; then return 0; fi
  local root=${PYENV_ROOT:-$HOME/.pyenv} py2="" candidate
  for candidate in "$root"/versions/2.7*/bin/python; do
    [ -x "$candidate" ] && py2=$candidate
  done
  if [ -z "$py2" ]; then
    echo "Autobahn|Testsuite needs Python 2.7, and pyenv has none: nothing matches $root/versions/2.7*/bin/python." >&2
    echo "Install one with 'pyenv install 2.7.18' (or set PYENV_ROOT), then run this again." >&2
    return 1
  fi
  need_apt gcc  # zope.interface has no 2.7 wheel and builds from source
  echo "making a Python 2.7 virtualenv for Autobahn|Testsuite in $dir (from $py2)" >&2
  "$py2" -m virtualenv --version >/dev/null 2>&1 || "$py2" -m pip install --quiet 'virtualenv<20.22' >&2
  rm -rf "$dir"
  "$py2" -m virtualenv --quiet "$dir" >&2
  "$dir/bin/python" -m pip install --quiet --no-warn-script-location -r "$requirements" >&2
  cp "$requirements" "$dir/requirements.installed"
}
