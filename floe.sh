#!/usr/bin/env bash
# The two commands of the README's quick start, for a fresh Debian 12 machine (run as root, or as a
# user with sudo):
#   ./floe.sh demo   set up, build, and run the main job on the embedded default store
#   ./floe.sh test   set up, build, and pass the whole test suite (with CI=true also: formatting
#                    check and the suite again under AddressSanitizer + UndefinedBehaviorSanitizer)
# Other verbs: setup, build [PRESET], format (rewrite), format-check.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
jobs="${FLOE_JOBS:-$(nproc)}"

say() { printf '\n== %s\n' "$*" >&2; }

build() {  # build PRESET
  local preset="$1"
  say "building ($preset)"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
}

format_files() {
  git ls-files -- '*.h' '*.cc' ':!:build/**'
}

format_check() {
  say "checking clang-format"
  local bad
  bad="$(format_files | xargs clang-format --dry-run 2>&1 | grep -o '^[^:]*:[0-9]*:[0-9]*: warning' | cut -d: -f1 | sort -u || true)"
  if [[ -n "$bad" ]]; then
    echo "clang-format: these files need formatting (run ./floe.sh format):" >&2
    echo "$bad" >&2
    return 1
  fi
  echo "clang-format: $(format_files | wc -l) files clean"
}

run_tests() {  # run_tests PRESET
  local preset="$1"
  say "testing ($preset)"
  ctest --preset "$preset" -j "$jobs" --timeout 600
}

verb="${1:-}"
shift || true
case "$verb" in
  setup)
    scripts/setup.sh "$@"
    ;;
  build)
    scripts/setup.sh --no-python
    build "${1:-release}"
    ;;
  demo)
    scripts/setup.sh
    build release
    say "running the main job: floe demo"
    exec build/release/floe demo "$@"
    ;;
  test)
    scripts/setup.sh
    if [[ "${CI:-}" == "true" ]]; then
      format_check
      build asan
      run_tests asan
    fi
    build release
    run_tests release
    ;;
  format)
    format_files | xargs clang-format -i
    ;;
  format-check)
    format_check
    ;;
  *)
    echo "usage: ./floe.sh demo|test|setup|build [PRESET]|format|format-check" >&2
    exit 2
    ;;
esac
