#!/usr/bin/env bash
# `floe table add-files` and `CALL system.add_files` as docs/cli.md gives them: Parquet files
# (floe's own exports, no field ids) registered where they are, Hive directories as partitions,
# --partition, duplicates, reads pruned by the new bounds, and bad input as one line, no change.
set -u
floe="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
expect_error() {  # NAME RC SUBSTRING -- CMD...
  local name="$1" want_rc="$2" want="$3"
  shift 4
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -eq $want_rc && $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$want" "$work/err"; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    check "$name" 1
  fi
}
f() { "$floe" --warehouse "$wh" --quiet "$@"; }

f table create db.t --schema '[{"name":"id","type":"long","required":true},{"name":"name","type":"string"},{"name":"region","type":"string"}]' --partition-by region >/dev/null
check "create" $?
# Source files: two partitions in Hive directories, written by floe's Parquet export.
mkdir -p "$work/src/region=eu" "$work/src/region=us"
f query -e "SELECT CAST(x AS BIGINT) AS id, 'n' || CAST(x AS VARCHAR) AS name, 'eu' AS region FROM (VALUES (1), (2), (3)) v(x)" \
  --output "$work/src/region=eu/a.parquet" --format parquet >/dev/null &&
  f query -e "SELECT CAST(x AS BIGINT) AS id, 'n' || CAST(x AS VARCHAR) AS name, 'us' AS region FROM (VALUES (10), (11)) v(x)" \
    --output "$work/src/region=us/b.parquet" --format parquet >/dev/null
check "source files written" $?
out="$(f table add-files db.t "$work/src")"
[[ "$out" =~ ^"added 2 files to db.t: 5 rows, "[0-9.]+" MB, 2 partitions, name mapping set (the files carry no field ids), snapshot "[0-9]+$ ]]
check "add-files a folder: $out" $?
[[ -f "$work/src/region=eu/a.parquet" && -z "$(find "$wh/db.db/t" -name '*.parquet')" ]]
check "the files stay where they are, none copied" $?
[[ "$(f table files db.t --format csv | grep -c "file://$work/src/region=")" == 2 ]]
check "table files lists them at their locations" $?
[[ "$(f query --format csv -e "SELECT id, name FROM db.t WHERE region = 'us' ORDER BY id")" == $'id,name\n10,n10\n11,n11' ]]
check "filtered read" $?
f query --format json --stats -e "SELECT name FROM db.t WHERE id = 2" >"$work/q.json"
grep -q '"rows": \[\["n2"\]\]' "$work/q.json" && grep -q '"data_files_opened": 1' "$work/q.json"
status=$?; check "a filter on id opens one file, pruned by the new bounds: $(cat "$work/q.json")" "$status"
f table describe db.t | grep -q 'schema.name-mapping.default'
check "name mapping property" $?

# Duplicates, then --allow-duplicates.
expect_error "a file the table holds" 2 "$work/src/region=eu/a.parquet is already a data file of table db.t" -- f table add-files db.t "$work/src/region=eu/a.parquet"
[[ "$(f table snapshots db.t | grep -c append)" == 1 ]]
check "a refused add commits nothing" $?
f table add-files db.t "$work/src/region=eu/a.parquet" --allow-duplicates | grep -q "^added 1 file to db.t: 3 rows"
check "--allow-duplicates" $?
[[ "$(f query --format csv -e "SELECT count(*) FROM db.t" | tail -1)" == 8 ]]
check "count after the duplicate" $?

# --partition keeps one partition.
f table create db.p --schema '[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"region","type":"string"}]' --partition-by region >/dev/null
f table add-files db.p --partition region=us "$work/src" | grep -q "^added 1 file to db.p: 2 rows"
check "--partition region=us" $?
[[ "$(f query --format csv -e "SELECT DISTINCT region FROM db.p")" == $'region\nus' ]]
check "only us rows" $?

# CALL system.add_files, named and positional.
f table create db.u --schema '[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"region","type":"string"}]' >/dev/null
[[ "$(f query --format csv -e "CALL system.add_files(table => 'db.u', source_table => '\`parquet\`.\`$work/src/region=eu\`')")" == $'added_files_count,changed_partition_count\n1,1' ]]
check "CALL system.add_files named" $?
[[ "$(f query --format csv -e "CALL system.add_files('db.u', '\`parquet\`.\`$work/src\`', map(), false)")" == $'added_files_count,changed_partition_count\n2,1' ]]
check "CALL system.add_files positional, check_duplicate_files false" $?
[[ "$(f query --format csv -e "SELECT count(*) FROM db.u" | tail -1)" == 8 ]]
check "count after CALL" $?
expect_error "CALL with a catalog table as source" 3 "floe adds files named as" -- f query -e "CALL system.add_files(table => 'db.u', source_table => 'db.t')"

# Bad input: one line, the right exit code, nothing changed.
expect_error "missing path" 1 "names no file and no folder of files" -- f table add-files db.u "$work/nope"
mkdir -p "$work/empty"
expect_error "an empty folder" 2 "folder '$work/empty' holds no .parquet files" -- f table add-files db.u "$work/empty"
expect_error "bad --partition" 2 "--partition 'region': expected COLUMN=VALUE" -- f table add-files db.p "$work/src" --partition region
mkdir -p "$work/bad"
f query -e "SELECT 'x' AS id" --output "$work/bad/s.parquet" --format parquet >/dev/null
expect_error "a column of another type" 2 "$work/bad/s.parquet: column 'id' is string in the file but long in table db.u" -- f table add-files db.u "$work/bad"
[[ "$(f query --format csv -e "SELECT count(*) FROM db.u" | tail -1)" == 8 ]]
check "a refused add leaves the rows" $?
f table add-files --help | grep -q -- "--allow-duplicates"
check "--help" $?

echo "add_files_cli_test: $pass passed, $fails failed"
[[ $fails -eq 0 ]]
