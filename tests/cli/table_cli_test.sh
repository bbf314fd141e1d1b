#!/usr/bin/env bash
# `floe table` as CLI.md gives it: create (schema JSON and --like), append CSV and Parquet, describe,
# snapshots, files, scan, drop; and bad input as one line on stderr with a non-zero exit and no change.
set -u
floe="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
expect_error() {  # NAME SUBSTRING -- CMD...
  local name="$1" want="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ne 0 && $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$want" "$work/err"; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    check "$name" 1
  fi
}
f() { "$floe" --warehouse "$wh" --quiet "$@"; }

printf 'id,day,name,score\n1,2024-01-03,ann,1.5\n2,2024-01-03,bob,\n3,2024-01-04,"c, d",7\n' >"$work/a.csv"
f table create db.t --schema '[{"name":"id","type":"long","required":true},{"name":"day","type":"date"},{"name":"name","type":"string"},{"name":"score","type":"double"}]' --partition-by 'day' --sort-by 'id DESC' >/dev/null
check "create" $?
[[ -f "$wh/catalog.db" && -d "$wh/db.db/t/metadata" ]]
check "warehouse layout: catalog.db and <ns>.db/<table>/metadata" $?
f table append db.t "$work/a.csv" | grep -q "appended 3 rows to db.t"
check "append CSV" $?
f table describe db.t | grep -q "partition spec (id 0):"
check "describe" $?
[[ "$(f table snapshots db.t | grep -c append)" == 1 ]]
check "snapshots" $?
f table files db.t | grep -q "^2 data files$"
check "files: one per day partition" $?
[[ "$(f table scan db.t --format csv --where "day = '2024-01-04'")" == $'id,day,name,score\n3,2024-01-04,"c, d",7.0' ]]
check "scan with a partition filter, CSV quoting" $?
f table scan db.t --format json --stats | grep -q '"data_files_opened":2'
check "scan --stats" $?

# --like takes the schema of a Parquet file floe wrote.
data_file="$(find "$wh/db.db/t/data" -name '*.parquet' | head -1)"
f table create db.u --like "$data_file" >/dev/null && f table append db.u "$wh/db.db/t/data" | grep -q "appended 3 rows"
check "create --like and append a folder of Parquet files" $?

before="$(f table snapshots db.t)"
printf 'id\nabc\n' >"$work/bad.csv"
expect_error "bad CSV value names file, line and column" "bad.csv: line 2: 'abc' is not a int64 value for column 'id'" -- f table append db.t "$work/bad.csv"
[[ "$(f table snapshots db.t)" == "$before" ]]
check "a failed append changes nothing" $?
expect_error "unknown table" "table 'db.nope' does not exist" -- f table describe db.nope
expect_error "bad table name" "bad table name 'nodot'" -- f table describe nodot
expect_error "bad partition column" "partition column 'zzz' is not in the table schema" -- f table create db.v --schema '[{"name":"a","type":"int"}]' --partition-by 'day(zzz)'
expect_error "duplicate table" "already exists" -- f table create db.t --schema '[{"name":"a","type":"int"}]'
expect_error "bad --where" "expected a comparison" -- f table scan db.t --where 'id ~ 3'
f table drop db.u --purge >/dev/null && [[ ! -d "$wh/db/u" ]]
check "drop --purge" $?

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
