#!/usr/bin/env bash
# Installs everything floe needs to build and test on Debian 12, idempotently: Debian packages (only
# the missing ones, so a second run takes a second), the S3-compatible test server (versitygw, built
# from the Go module proxy and cached), and the Python virtual environment for the interop peers.
# Usage: scripts/setup.sh [--no-s3-server] [--no-python]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want_s3=1
want_python=1
for arg in "$@"; do
  case "$arg" in
    --no-s3-server) want_s3=0 ;;
    --no-python) want_python=0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

log() { printf '[setup] %s\n' "$*" >&2; }

# Build tools, the libraries of DESIGN.md, and what the tests and CI use.
packages=(
  build-essential cmake ninja-build pkg-config ccache git ca-certificates curl
  clang-format clang-tidy
  libcurl4-openssl-dev libssl-dev
  libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbrotli-dev
  thrift-compiler libthrift-dev libboost-dev
  nlohmann-json3-dev libsqlite3-dev libpg-query-dev libcli11-dev libfmt-dev libxxhash-dev
  libyaml-cpp-dev libedit-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-venv python3-pip
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  log "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  log "Debian packages: all ${#packages[@]} present"
fi

if ((want_s3)); then
  "$root/scripts/install_s3_server.sh"
fi

if ((want_python)); then
  venv="$root/.venv"
  req="$root/scripts/requirements.txt"
  stamp="$venv/.requirements.sha256"
  sum="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ ! -x "$venv/bin/python" ]]; then
    log "creating Python virtual environment in .venv"
    python3 -m venv "$venv"
  fi
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$sum" ]]; then
    log "installing Python packages from scripts/requirements.txt"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    echo "$sum" > "$stamp"
  else
    log "Python packages: up to date"
  fi
fi
