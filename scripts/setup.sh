#!/usr/bin/env bash
# Installs everything floe needs to build and test on Debian 12, idempotently: Debian packages (only
# the missing ones, so a second run takes a second), the S3-compatible test server (versitygw, built
# from the Go module proxy and cached), the Python virtual environment for the interop peers, and
# the Spark peer: Java 17 and Maven from Debian when missing, pyspark in the virtual environment,
# Iceberg's Spark runtime and the SQLite JDBC driver fetched by their Maven coordinates into
# ~/.cache/floe/jars (with iceberg-aws-bundle, for S3FileIO), and Iceberg's REST catalog fixture (scripts/rest_catalog.sh install).
# Usage: scripts/setup.sh [--build-only] [--peers] [--no-s3-server] [--no-python] [--no-spark]
#   --build-only   only the Debian packages that building floe needs (what `./floe.sh demo` uses:
#                  the demo runs in-process on a local directory); no test server, no Python
#                  environment, no Spark peer, no lint tools
#   --peers        what `floe bench --engines spark,duckdb,pyiceberg` needs beside the build: the
#                  engines (Python environments, Java, the Iceberg jars) and the S3 server; no lint
#                  tools and no REST catalog fixture
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want_s3=1
want_python=1
want_spark=1
want_lint=1
want_rest=1
for arg in "$@"; do
  case "$arg" in
    --build-only) want_s3=0; want_python=0; want_spark=0; want_lint=0; want_rest=0 ;;
    --peers) want_s3=1; want_python=1; want_spark=1; want_lint=0; want_rest=0 ;;
    --no-s3-server) want_s3=0 ;;
    --no-python) want_python=0; want_spark=0 ;;
    --no-spark) want_spark=0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

log() { printf '[setup] %s\n' "$*" >&2; }

# Build tools and the libraries of DESIGN.md (GoogleTest too: configuring the tree needs it), and
# what the tests and CI use. clang-tidy 16 is the first that parses libstdc++ 12's std::expected.
packages=(
  build-essential cmake ninja-build pkg-config ccache git ca-certificates curl
  libcurl4-openssl-dev libssl-dev
  libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbrotli-dev libdeflate-dev
  thrift-compiler libthrift-dev libboost-dev
  nlohmann-json3-dev libsqlite3-dev libpg-query-dev libcli11-dev libfmt-dev libxxhash-dev
  libroaring-dev libre2-dev
  libyaml-cpp-dev libedit-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3
)
# The shell's test drives it in a terminal (send-keys, capture-pane); the report's test renders
# its HTML and SVG charts in headless Chromium.
((want_lint)) && packages+=(clang-format clang-tidy-16 tmux chromium)
((want_python)) && packages+=(python3-venv python3-pip python3-dev)

# The Spark peer runs on Java 17 (Debian's), and its jars come through Maven.
if ((want_spark)); then
  java_major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1 || true)"
  if [[ -z "$java_major" || "$java_major" -lt 17 ]]; then
    packages+=(openjdk-17-jre-headless)
  fi
  command -v mvn >/dev/null 2>&1 || packages+=(maven)
fi

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
  tpch="$root/.venv-tpch"
  req="$root/scripts/requirements-tpch.txt"
  stamp="$tpch/.requirements.sha256"
  sum="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$sum" ]]; then
    log "installing DuckDB's TPC-H generator from scripts/requirements-tpch.txt into .venv-tpch"
    [[ -x "$tpch/bin/python" ]] || python3 -m venv "$tpch"
    "$tpch/bin/pip" install -q --disable-pip-version-check -r "$req"
    echo "$sum" > "$stamp"
  fi
fi

if ((want_spark)); then
  venv="$root/.venv"
  req="$root/scripts/requirements-spark.txt"
  stamp="$venv/.requirements-spark.sha256"
  sum="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$sum" ]]; then
    log "installing the Spark peer from scripts/requirements-spark.txt"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    echo "$sum" > "$stamp"
  else
    log "Spark peer: up to date"
  fi
  jars="${HOME}/.cache/floe/jars"
  mkdir -p "$jars"
  for coordinate in org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.11.0 \
                    org.apache.iceberg:iceberg-aws-bundle:1.11.0 \
                    org.xerial:sqlite-jdbc:3.51.1.0; do
    IFS=: read -r _ artifact version <<<"$coordinate"
    if [[ ! -s "$jars/$artifact-$version.jar" ]]; then
      log "fetching $coordinate into $jars"
      mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$coordinate" -DoutputDirectory="$jars" >&2
    fi
  done
  # Iceberg's reference REST catalog, which the REST tests start on loopback.
  if ((want_rest)); then
    "$root/scripts/rest_catalog.sh" install
  fi
fi
