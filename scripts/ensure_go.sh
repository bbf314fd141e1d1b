#!/usr/bin/env bash
# Prints the path of a Go toolchain new enough (>= 1.25) to build the test servers, installing one
# when the machine has none: Debian 12's golang-go (1.19) bootstraps a download of the official
# toolchain module (golang.org/toolchain) from the Go module proxy, cached under FLOE_CACHE_DIR.
set -euo pipefail

cache="${FLOE_CACHE_DIR:-$HOME/.cache/floe}"
want_minor=25
pinned="1.26.8"

ok_go() {  # ok_go PATH -> true when PATH is a go >= 1.$want_minor
  local v
  v="$("$1" env GOVERSION 2>/dev/null || true)"  # e.g. go1.26.8
  [[ "$v" =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] >= want_minor))
}

for cand in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go "$cache/go/bin/go"; do
  if [[ -n "$cand" && -x "$cand" ]] && ok_go "$cand"; then
    echo "$cand"
    exit 0
  fi
done

echo "[setup] no Go >= 1.$want_minor found; fetching go$pinned from the Go module proxy" >&2
if ! command -v go >/dev/null 2>&1 && [[ ! -x /usr/lib/go/bin/go ]]; then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq golang-go >/dev/null
fi
boot="$(command -v go 2>/dev/null || echo /usr/lib/go/bin/go)"
mod="golang.org/toolchain@v0.0.1-go${pinned}.linux-amd64"
tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
dir="$(cd "$tmp" && GOFLAGS=-mod=mod GOPATH="$tmp/gopath" "$boot" mod download -json "$mod" |
  sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
if [[ -z "$dir" || ! -d "$dir" ]]; then
  echo "[setup] error: could not download $mod from the Go module proxy" >&2
  exit 1
fi
rm -rf "$cache/go"
mkdir -p "$cache"
cp -r "$dir" "$cache/go"
chmod -R u+w "$cache/go"
chmod +x "$cache/go/bin/"* "$cache/go/pkg/tool/"*/* 2>/dev/null || true
if ! ok_go "$cache/go/bin/go"; then
  echo "[setup] error: the downloaded Go toolchain in $cache/go does not run" >&2
  exit 1
fi
echo "$cache/go/bin/go"
