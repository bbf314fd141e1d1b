#!/usr/bin/env bash
# Starts and stops a local S3-compatible server (versitygw, posix backend) on 127.0.0.1 for the
# integration tests. `start STATE_DIR` leaves STATE_DIR/env (FLOE_S3_ENDPOINT, FLOE_S3_ACCESS_KEY,
# FLOE_S3_SECRET_KEY, FLOE_S3_REGION) and STATE_DIR/pid; `stop STATE_DIR` kills it and removes its
# data. Both are idempotent: a second start reuses a healthy server, a stale pid file is cleared.
set -euo pipefail

usage() { echo "usage: $0 start|stop|status STATE_DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
CMD="$1"
STATE="$2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${FLOE_CACHE_DIR:-$HOME/.cache/floe}/bin/versitygw"
REGION=us-east-1

# The pid in STATE/pid if that process is alive and is our versitygw (pids get reused).
our_pid() {
  [[ -f "$STATE/pid" ]] || return 1
  local pid
  pid="$(cat "$STATE/pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q "versitygw" || return 1
  echo "$pid"
}

# Any HTTP status (an unsigned request gets 403) means the server is up.
answers() {
  local code
  code="$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$1/" 2>/dev/null || true)"
  [[ -n "$code" && "$code" != "000" ]]
}

kill_server() {
  local pid
  if pid="$(our_pid)"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/pid" "$STATE/env"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  mkdir -p "$STATE"
  if pid="$(our_pid)" && [[ -f "$STATE/env" ]]; then
    endpoint="$(sed -n 's/^FLOE_S3_ENDPOINT=//p' "$STATE/env")"
    if answers "$endpoint"; then
      echo "versitygw already running (pid $pid) at $endpoint"
      return 0
    fi
  fi
  kill_server  # stale or unhealthy

  if [[ ! -x "$BIN" ]]; then "$HERE/install_s3_server.sh"; fi

  rm -rf "$STATE/data" "$STATE/meta"
  mkdir -p "$STATE/data"
  local extra=()
  # The posix backend keeps ETags and content types in user xattrs; where the filesystem has none
  # (some tmpfs, overlay setups) keep them in a sidecar directory instead.
  if ! python3 -c 'import os, sys; p = sys.argv[1] + "/.xattr-probe"; open(p, "w").close(); os.setxattr(p, "user.floe", b"1"); os.remove(p)' "$STATE/data" 2>/dev/null; then
    rm -f "$STATE/data/.xattr-probe"
    mkdir -p "$STATE/meta"
    extra+=(--sidecar "$STATE/meta")
  fi

  local access secret
  access="floe$(python3 -c 'import secrets; print(secrets.token_hex(8))')"
  # AWS-style secret, with '/' and '+' so signing is exercised on them.
  secret="$(python3 -c 'import secrets, string; a = string.ascii_letters + string.digits + "/+"; print("".join(secrets.choice(a) for _ in range(40)))')"

  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    endpoint="http://127.0.0.1:$port"
    # --keep-alive: S3 clients reuse connections, and versitygw closes them by default.
    # --virtual-domain localhost: bucket.localhost:port addresses a bucket virtual-host style.
    ROOT_ACCESS_KEY_ID="$access" ROOT_SECRET_ACCESS_KEY="$secret" setsid "$BIN" \
      --port "127.0.0.1:$port" --region "$REGION" --keep-alive --quiet \
      --virtual-domain localhost --access-log "$STATE/access.log" \
      posix "${extra[@]}" "$STATE/data" > "$STATE/server.log" 2>&1 < /dev/null 9>&- &
    pid=$!
    echo "$pid" > "$STATE/pid"
    for _ in $(seq 100); do
      if answers "$endpoint"; then
        {
          echo "FLOE_S3_ENDPOINT=$endpoint"
          echo "FLOE_S3_ACCESS_KEY=$access"
          echo "FLOE_S3_SECRET_KEY=$secret"
          echo "FLOE_S3_REGION=$REGION"
        } > "$STATE/env.tmp"
        mv "$STATE/env.tmp" "$STATE/env"
        echo "versitygw started (pid $pid) at $endpoint; env in $STATE/env"
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    echo "versitygw did not come up on port $port (attempt $attempt):" >&2
    tail -n 5 "$STATE/server.log" >&2 || true
    kill_server
  done
  echo "s3_server.sh: could not start versitygw" >&2
  return 1
}

# One start or stop at a time per state directory.
lock() {
  mkdir -p "$STATE"
  exec 9> "$STATE/.lock"
  if command -v flock > /dev/null; then flock 9; fi
}

case "$CMD" in
  start)
    lock
    start
    ;;
  stop)
    if [[ ! -d "$STATE" ]]; then echo "versitygw not running (no $STATE)"; exit 0; fi
    lock
    kill_server
    rm -rf "$STATE/data" "$STATE/meta"
    echo "versitygw stopped"
    ;;
  status)
    if pid="$(our_pid)"; then echo "running (pid $pid)"; cat "$STATE/env"; else echo "not running"; exit 1; fi
    ;;
  *) usage ;;
esac
