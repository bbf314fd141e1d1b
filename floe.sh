#!/usr/bin/env bash
# The two commands of the README's quick start, for a fresh Debian 12 machine (run as root, or as a
# user with sudo):
#   ./floe.sh demo   set up what building needs, build the floe binary, and run the main job on the
#                    embedded default store (no test server, Python or Spark: the demo needs none)
#   ./floe.sh test   set up, build everything, and pass the whole test suite. With CI=true (.ci/run)
#                    instead: the formatting check, the layer table, the whole suite under
#                    AddressSanitizer + UndefinedBehaviorSanitizer (one build, not two: CI's hour),
#                    and clang-tidy with .clang-tidy's checks over the files changed since the
#                    commit in .ci/tidy-clean -- the last at which `./floe.sh tidy --all` was clean
#                    -- and the files that include a changed header (a file that takes over 180 s
#                    fails the run rather than stalling it).
# Other verbs: setup, build [PRESET], format (rewrite), format-check, layers (the include rules),
# tidy [--all | FILE...] (clang-tidy on what changed since main, or on everything).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
jobs="${FLOE_JOBS:-$(nproc)}"

say() { printf '\n== %s\n' "$*" >&2; }

build() {  # build PRESET [TARGET]: everything, or one target and what it links
  local preset="$1" target=("${@:2}")
  say "building ($preset${target:+: ${target[*]}})"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs" ${target:+--target "${target[@]}"}
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

layers_check() {
  say "checking the layer table (scripts/layers.txt)"
  python3 scripts/check_layers.py
}

tidy_check() {  # tidy_check [-p BUILD] ARGS...: scripts/clang_tidy.py over a build's compile database
  local build=build/release
  if [[ "${1:-}" == "-p" ]]; then
    build="$2"
    shift 2
  fi
  say "running clang-tidy (${*:-files changed since main})"
  python3 scripts/clang_tidy.py -p "$build" -j "$jobs" "$@"
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
    scripts/setup.sh --build-only
    build release floe
    say "running the main job: floe demo"
    exec build/release/floe demo "$@"
    ;;
  test)
    scripts/setup.sh
    if [[ "${CI:-}" == "true" ]]; then
      format_check
      layers_check
      build asan
      tidy_check -p build/asan --base "$(cat .ci/tidy-clean)"
      run_tests asan
    else
      build release
      run_tests release
    fi
    ;;
  format)
    format_files | xargs clang-format -i
    ;;
  format-check)
    format_check
    ;;
  layers)
    layers_check
    ;;
  tidy)
    tidy_check "$@"
    ;;
  *)
    echo "usage: ./floe.sh demo|test|setup|build [PRESET]|format|format-check|layers|tidy [--all|FILE...]" >&2
    exit 2
    ;;
esac
