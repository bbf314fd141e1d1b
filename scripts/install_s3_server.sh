#!/usr/bin/env bash
# Installs versitygw v1.8.0 (Apache-2.0), the S3-compatible server floe's integration tests run
# against, into ${FLOE_CACHE_DIR:-$HOME/.cache/floe}/bin. Idempotent: does nothing when the binary
# there already is v1.8.0. Builds with the Go that scripts/ensure_go.sh finds or installs.
set -euo pipefail

VERSION=v1.8.0
MODULE=github.com/versity/versitygw
CACHE_BIN="${FLOE_CACHE_DIR:-$HOME/.cache/floe}/bin"
BIN="$CACHE_BIN/versitygw"

# A release build reports its version; a plain `go install` build says "git" but carries the
# module version in its embedded build info, which grep can read without Go.
is_wanted_version() {
  [[ -x "$1" ]] || return 1
  if "$1" --version 2>/dev/null | grep -q "$VERSION"; then return 0; fi
  grep -aq "$(printf 'mod\t%s\t%s\t' "$MODULE" "$VERSION")" "$1"
}

if is_wanted_version "$BIN"; then
  echo "versitygw $VERSION already installed at $BIN"
  exit 0
fi

# A Go new enough to build it (ensure_go.sh fetches the official toolchain module when the
# machine has none).
GO="$("$(dirname "${BASH_SOURCE[0]}")/ensure_go.sh")"

mkdir -p "$CACHE_BIN"
echo "building versitygw $VERSION into $CACHE_BIN (takes a few minutes the first time)"
GOBIN="$CACHE_BIN" GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" "$GO" install \
  -ldflags "-X=main.Version=$VERSION" "$MODULE/cmd/versitygw@$VERSION"

if ! is_wanted_version "$BIN"; then
  echo "install_s3_server.sh: built $BIN but it does not report $VERSION" >&2
  exit 1
fi
echo "installed versitygw $VERSION at $BIN"
