#!/usr/bin/env bash
# Installs what shuffleboard needs, only what is missing. Sourced by serve.sh and test.sh.
#   need_apt PKG...   Debian packages (apt-get update runs once, only if something is missing)
#   need_pip MOD=PKG...  Python modules, installed from PyPI for the current python3
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

# What building the server needs.
need_build_deps() {
  need_apt pkg-config libwebsockets-dev libsqlite3-dev libssl-dev
}
