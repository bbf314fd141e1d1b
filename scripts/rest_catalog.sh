#!/usr/bin/env bash
# Installs, starts and stops Iceberg's reference REST catalog (iceberg-core 1.11.0's
# RESTCatalogAdapter over a JdbcCatalog on SQLite, served by Jetty) on 127.0.0.1 for the tests.
#   install              fetch its classpath (scripts/rest_catalog/pom.xml) with Maven into
#                        ${FLOE_CACHE_DIR:-~/.cache/floe}/rest-catalog and compile the loopback
#                        launcher; idempotent
#   start STATE_DIR      leaves STATE_DIR/env (FLOE_REST_URI, FLOE_REST_WAREHOUSE: a directory the
#                        catalog writes table files under) and STATE_DIR/pid; reuses a healthy server
#   start STATE_DIR --s3 S3_ENV s3://BUCKET/PATH
#                        the same with the warehouse on the S3 server scripts/s3_server.sh
#                        described in S3_ENV (the bucket must exist), and the catalog vending its
#                        keys with every table it loads (Iceberg's include-credentials): the
#                        fixture for clients that hold no S3 credentials of their own
#   stop STATE_DIR       kills it and removes its data
set -euo pipefail

usage() { echo "usage: $0 install | start STATE_DIR [--s3 S3_ENV s3://B/P] | stop|status STATE_DIR" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
CMD="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${FLOE_CACHE_DIR:-$HOME/.cache/floe}/rest-catalog"

install() {
  local stamp="$CACHE/.pom.sha256" sum
  sum="$(cat "$HERE/rest_catalog/pom.xml" "$HERE/rest_catalog/RestCatalogOnLoopback.java" | sha256sum | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then return 0; fi
  command -v mvn >/dev/null && command -v javac >/dev/null || {
    echo "rest_catalog.sh: needs Maven and a JDK (scripts/setup.sh installs them)" >&2; return 1; }
  echo "fetching the Iceberg REST catalog fixture's classpath into $CACHE" >&2
  rm -rf "$CACHE/jars" "$CACHE/classes"
  mkdir -p "$CACHE/jars" "$CACHE/classes"
  mvn -q -B -Dstyle.color=never -f "$HERE/rest_catalog/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$CACHE/jars" >&2
  javac -nowarn -cp "$CACHE/jars/*" -d "$CACHE/classes" "$HERE/rest_catalog/RestCatalogOnLoopback.java"
  echo "$sum" > "$stamp"
}

[[ "$CMD" == install ]] && { install; exit 0; }
S3_ENV="" S3_WAREHOUSE=""
if [[ "$CMD" == start && $# -eq 5 && "$3" == --s3 ]]; then
  S3_ENV="$4" S3_WAREHOUSE="$5"
  [[ -f "$S3_ENV" && "$S3_WAREHOUSE" == s3://* ]] || usage
elif [[ $# -ne 2 ]]; then
  usage
fi
STATE="$2"

our_pid() {
  [[ -f "$STATE/pid" ]] || return 1
  local pid
  pid="$(cat "$STATE/pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q "RestCatalogOnLoopback" || return 1
  echo "$pid"
}

answers() { curl -sf -o /dev/null -m 2 "$1/v1/config" 2>/dev/null; }

kill_server() {
  local pid
  if pid="$(our_pid)"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/pid" "$STATE/env"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  mkdir -p "$STATE"
  if pid="$(our_pid)" && [[ -f "$STATE/env" ]] &&
     [[ "$(sed -n 's/^FLOE_REST_WAREHOUSE=//p' "$STATE/env")" == "${S3_WAREHOUSE:-$STATE/warehouse}" ]]; then
    if answers "$(sed -n 's/^FLOE_REST_URI=//p' "$STATE/env")"; then
      echo "REST catalog already running (pid $pid)"; return 0
    fi
  fi
  kill_server
  install
  rm -rf "$STATE/warehouse" "$STATE/catalog.db"
  mkdir -p "$STATE/warehouse"
  local warehouse="file:$STATE/warehouse"
  if [[ -n "$S3_ENV" ]]; then
    warehouse="$S3_WAREHOUSE"
    export FLOE_REST_S3_ENDPOINT FLOE_REST_S3_ACCESS_KEY FLOE_REST_S3_SECRET_KEY
    FLOE_REST_S3_ENDPOINT="$(sed -n 's/^FLOE_S3_ENDPOINT=//p' "$S3_ENV")"
    FLOE_REST_S3_ACCESS_KEY="$(sed -n 's/^FLOE_S3_ACCESS_KEY=//p' "$S3_ENV")"
    FLOE_REST_S3_SECRET_KEY="$(sed -n 's/^FLOE_S3_SECRET_KEY=//p' "$S3_ENV")"
  fi
  for attempt in 1 2 3; do
    port="$(free_port)"
    uri="http://127.0.0.1:$port"
    setsid java -Xmx512m -cp "$CACHE/jars/*:$CACHE/classes" org.apache.iceberg.rest.RestCatalogOnLoopback \
      "$port" "$warehouse" "jdbc:sqlite:$STATE/catalog.db" > "$STATE/server.log" 2>&1 < /dev/null 9>&- &
    pid=$!
    echo "$pid" > "$STATE/pid"
    for _ in $(seq 300); do
      if answers "$uri"; then
        printf 'FLOE_REST_URI=%s\nFLOE_REST_WAREHOUSE=%s\n' "$uri" \
          "${S3_WAREHOUSE:-$STATE/warehouse}" > "$STATE/env.tmp"
        mv "$STATE/env.tmp" "$STATE/env"
        echo "REST catalog started (pid $pid) at $uri; env in $STATE/env"
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    echo "REST catalog did not come up on port $port (attempt $attempt):" >&2
    tail -n 5 "$STATE/server.log" >&2 || true
    kill_server
  done
  echo "rest_catalog.sh: could not start the REST catalog" >&2
  return 1
}

lock() { mkdir -p "$STATE"; exec 9> "$STATE/.lock"; command -v flock > /dev/null && flock 9 || true; }

case "$CMD" in
  start) lock; start ;;
  stop)
    [[ -d "$STATE" ]] || { echo "REST catalog not running"; exit 0; }
    lock; kill_server; rm -rf "$STATE/warehouse" "$STATE/catalog.db"; echo "REST catalog stopped" ;;
  status) if pid="$(our_pid)"; then echo "running (pid $pid)"; cat "$STATE/env"; else echo "not running"; exit 1; fi ;;
  *) usage ;;
esac
