#!/usr/bin/env bash
# Fuzzes floe's Parquet decoding with libFuzzer for SECONDS (default 600): installs clang 16 and its
# runtime from Debian when missing, builds build/fuzz (ASan + UBSan + libFuzzer), seeds the corpus
# from ../shared/testdata and tests/parquet/fuzz_seeds and runs. Crashes land in
# build/fuzz/crashes/; copy each into tests/parquet/fuzz_regressions/ (ctest replays them) and
# fix the decoder.
#   usage: scripts/fuzz.sh [SECONDS] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
jobs=${2:-1}
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
if ! command -v clang++-16 >/dev/null || ! dpkg -s libclang-rt-16-dev >/dev/null 2>&1; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    clang-16 libclang-rt-16-dev >/dev/null
fi
scripts/setup.sh >/dev/null
# clang 16 is the first clang that compiles libstdc++ 12's std::expected (see CMakeLists.txt).
CC=clang-16 CXX=clang++-16 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFLOE_FUZZ=ON -DFLOE_SANITIZE=ON -DFLOE_BUILD_TESTS=OFF -DFLOE_BUILD_BENCH=OFF >/dev/null
ninja -C build/fuzz floe_fuzz_parquet
corpus=build/fuzz/corpus
mkdir -p "$corpus" build/fuzz/crashes
cp -n ../shared/testdata/parquet-testing/data/*.parquet ../shared/testdata/parquet-testing/bad_data/* \
  tests/parquet/fuzz_regressions/* tests/parquet/fuzz_seeds/*.parquet "$corpus"/ 2>/dev/null || true
command -v llvm-symbolizer >/dev/null && export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
args=(-max_total_time="$seconds" -max_len=1048576 -timeout=10 -rss_limit_mb=4096
  -artifact_prefix=build/fuzz/crashes/ -print_final_stats=1)
[[ $jobs -gt 1 ]] && args+=(-jobs="$jobs" -workers="$jobs")
exec build/fuzz/fuzz/floe_fuzz_parquet "${args[@]}" "$corpus"
