#!/usr/bin/env bash
# `floe parquet inspect|cat` on parquet-testing files: the JSON and CSV forms of CLI.md, values as
# pyarrow reads them, local paths and store URIs, and one-line errors naming the file or column.
# Usage: parquet_cli_test.sh FLOE CORPUS_DIR (parquet-testing, holding data/).
set -u
floe="$1"
data="$(cd "$2/data" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fails=0
pass=0

check() {  # check NAME EXIT-CODE
  if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi
}

# expect_output NAME EXPECTED -- CMD...: exit 0 and exactly EXPECTED on stdout.
expect_output() {
  local name="$1" want="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -eq 0 && "$(cat "$work/out")" == "$want" ]]; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc; stdout:" >&2
    cat "$work/out" >&2
    echo "--- expected:" >&2
    echo "$want" >&2
    cat "$work/err" >&2
    check "$name" 1
  fi
}

# expect_lines NAME FILE LINE...: each LINE appears verbatim in FILE.
expect_lines() {
  local name="$1" file="$2"
  shift 2
  local line ok=0
  for line in "$@"; do
    if ! grep -qxF -- "$line" "$file"; then
      echo "FAIL: $name: missing line: $line" >&2
      ok=1
    fi
  done
  check "$name" $ok
}

# expect_error NAME EXPECTED_SUBSTRING -- CMD...: non-zero exit, one stderr line naming it.
expect_error() {
  local name="$1" want="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $rc -ne 0 && $lines -eq 1 ]] && grep -qF -- "$want" "$work/err"; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc, stderr ($lines lines):" >&2
    cat "$work/err" >&2
    check "$name" 1
  fi
}

# Values as pyarrow.parquet.read_table gives them.
expect_output "cat json: numbers, booleans, ISO timestamps" \
'{"columns": ["id", "bool_col", "timestamp_col"], "types": ["int", "boolean", "timestamp_ns"],
 "rows": [
  [4, true, "2009-03-01T00:00:00.000000000"],
  [5, false, "2009-03-01T00:01:00.000000000"],
  [6, true, "2009-04-01T00:00:00.000000000"]]}' \
  -- "$floe" parquet cat "$data/alltypes_plain.parquet" --columns id,bool_col,timestamp_col \
  --limit 3 --format json

expect_output "cat csv with a header line" \
'id,date_string_col,float_col
122,01/13/09,2.2
123,01/13/09,3.3' \
  -- "$floe" parquet cat "$data/alltypes_tiny_pages.parquet" --columns id,date_string_col,float_col \
  --limit 2

expect_output "cat json: decimals are strings" \
'{"columns": ["value"], "types": ["decimal(4, 2)"],
 "rows": [
  ["1.00"],
  ["2.00"],
  ["3.00"]]}' \
  -- "$floe" parquet cat "$data/int32_decimal.parquet" --limit 3 --format json

expect_output "cat json: nested maps, lists and nulls" \
'{"columns": ["a", "b", "c"], "types": ["map<string, map<int, boolean>>", "int", "double"],
 "rows": [
  [[["a", [[1, true], [2, false]]]], 1, 1.0],
  [[["b", [[1, true]]]], 1, 1.0]]}' \
  -- "$floe" parquet cat "$data/nested_maps.snappy.parquet" --limit 2 --format json

expect_output "cat by store URI (length unknown: one suffix read)" \
'id
4
5' \
  -- "$floe" parquet cat "file://$data/alltypes_plain.parquet" --columns id --limit 2

expect_output "cat --limit 0 prints the header only" 'id' \
  -- "$floe" parquet cat "$data/alltypes_plain.parquet" --columns id --limit 0

"$floe" parquet inspect "$data/alltypes_tiny_pages.parquet" >"$work/inspect" 2>"$work/err"
check "inspect exits 0" $?
expect_lines "inspect: footer, chunks, stats and page index" "$work/inspect" \
  "created_by: parquet-mr version 1.12.0-SNAPSHOT (build 6901a2040848c6b37fa61f4b0a76246445f396db)" \
  "rows: 7300" \
  "row groups: 1" \
  "columns: 13" \
  "  id: int32" \
  "  timestamp_col: timestamp[ns]" \
  "  optional int32 id  -> int32 (column 0, def 1, rep 0)" \
  "  optional int32 tinyint_col (INTEGER(8,signed), INT_8)  -> int8 (column 2, def 1, rep 0)" \
  "row group 0: 7300 rows, 323579 bytes uncompressed" \
  "  column 0 'id': INT32 7300 values, codec UNCOMPRESSED, encodings PLAIN,RLE,BIT_PACKED" \
  "    bytes [4, +37325) compressed, 37325 uncompressed; data page at 4" \
  "    stats: min 0 max 7299 nulls 0" \
  "    page index: column index [323583, +3919) offset index [394311, +3503)" \
  "    stats: min \"01/01/09\" max \"12/31/10\" nulls 0"

"$floe" parquet inspect "$data/binary.parquet" >"$work/inspect" 2>"$work/err"
check "inspect binary.parquet exits 0" $?
expect_lines "inspect: field ids and key-value metadata" "$work/inspect" \
  "  foo: binary field_id=1" \
  "  optional binary foo field_id=1  -> binary (column 0, def 1, rep 0)"
grep -q "^  parquet.proto.class = " "$work/inspect"
check "inspect lists key-value metadata" $?

"$floe" parquet inspect "$data/data_index_bloom_encoding_stats.parquet" >"$work/inspect" 2>&1
expect_lines "inspect: Bloom filter location" "$work/inspect" "    bloom filter: at 192"

echo "a,b" >"$work/not.parquet"
expect_error "missing file names it" "not found: no such file '$work/missing.parquet'" \
  -- "$floe" parquet cat "$work/missing.parquet"
expect_error "not a Parquet file" "corrupt: parquet file 'file://$work/not.parquet'" \
  -- "$floe" parquet inspect "$work/not.parquet"
expect_error "unknown column names it" "has no column 'nope'" \
  -- "$floe" parquet cat "$data/alltypes_plain.parquet" --columns id,nope
expect_error "bad --format" "--format" \
  -- "$floe" parquet cat "$data/alltypes_plain.parquet" --format xml
expect_error "missing object in a store" "not found" \
  -- "$floe" parquet cat "file://$work/absent.parquet"

echo "parquet cli: $pass passed, $fails failed"
[[ $fails -eq 0 ]]
