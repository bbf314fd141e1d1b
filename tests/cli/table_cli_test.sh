#!/usr/bin/env bash
# `floe table` as CLI.md gives it: create (schema JSON and --like), append CSV and Parquet, describe,
# snapshots, files, scan, drop; and bad input as one line on stderr with a non-zero exit and no change.
set -u
floe="$(realpath "$1")"
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
f table scan db.t --format json --stats | grep -q '"data_files_opened": 2'
check "scan --stats" $?

# table list: every table, or one namespace's, in each output format.
f table create other.v --schema '[{"name":"a","type":"int"}]' >/dev/null
[[ "$(f table list --format csv)" == $'namespace,name\ndb,t\nother,v' ]]
check "table list: every namespace's tables" $?
[[ "$(f table list other --format json)" == '{"columns": ["namespace", "name"], "types": ["string", "string"], "rows": [["other", "v"]]}' ]]
check "table list NS --format json" $?
expect_error "table list of a missing namespace" "namespace 'nope' does not exist" -- f table list nope
expect_error "table list of an empty level" "an empty namespace level" -- f table list 'a..b'
f table drop other.v >/dev/null

# Spark SQL's type names in --schema, at any depth; Iceberg's own names keep their meaning.
f table create db.spark_types --schema '[{"name":"a","type":"BIGINT"},{"name":"b","type":"varchar(20)"},{"name":"c","type":"numeric(12, 3)"},{"name":"d","type":"timestamp_ntz"},{"name":"e","type":"timestamp_ltz"},{"name":"f","type":{"type":"list","element-id":9,"element":"smallint","element-required":false}},{"name":"g","type":"timestamp"}]' >/dev/null
[[ "$(f table describe db.spark_types | grep -E '^ +[0-9]+  [a-g] ' | awk '{print $2, $3, $4}' | tr '\n' ';')" == "a long ;b string ;c decimal(12, 3);d timestamp ;e timestamptz ;f list<int> ;g timestamp ;" ]]
status=$?; check "--schema takes Spark's type names: $(f table describe db.spark_types | grep -E '^ +[0-9]+  [a-g] ' | tr -s ' ' | tr '\n' ';')" "$status"
f table drop db.spark_types >/dev/null

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
expect_error "bad --where" "floe does not support operator @>" -- f table scan db.t --where 'id @> 3'
expect_error "--where is one condition of one SELECT" "one statement at a time" -- f table scan db.t --where 'id = 3; drop table db.t'
[[ "$(f table scan db.t --format csv --columns 'name,id' --where "day = '2024-01-03' and (score > 2 or score is null)")" == $'name,id\nbob,2' ]]
check "scan --columns with a SQL condition" $?
[[ -d "$wh/db.db/u" ]] && f table drop db.u --purge >/dev/null && [[ ! -d "$wh/db.db/u" ]]
check "drop --purge" $?

# Read-only commands create nothing (issue 16, point 17); table create creates the warehouse.
expect_error "query on a missing warehouse" "not found: warehouse '$work/typo/wh' does not exist" -- "$floe" --warehouse "$work/typo/wh" query -e "select 1"
expect_error "describe on a missing warehouse" "warehouse '$work/typo/wh' does not exist" -- "$floe" --warehouse "$work/typo/wh" table describe db.t
[[ ! -e "$work/typo" ]]
check "a read of a missing warehouse creates no directory" $?
expect_error "query with a missing catalog" "not found: catalog 'sqlite:$work/missing/cat.db' does not exist" -- "$floe" --warehouse "$wh" --catalog "sqlite:$work/missing/cat.db" query -e "select count(*) from db.t"
[[ ! -e "$work/missing" ]]
check "a read with a missing catalog creates none" $?
mkdir -p "$work/bare"
expect_error "a directory without a catalog" "warehouse '$work/bare' has no catalog: '$work/bare/catalog.db' does not exist" -- "$floe" --warehouse "$work/bare" table snapshots db.t
[[ -z "$(ls -A "$work/bare")" ]]
check "the bare directory stays empty" $?
"$floe" --warehouse "$work/fresh/wh" --quiet table create db.t --schema '[{"name":"a","type":"int"}]' >/dev/null && [[ -f "$work/fresh/wh/catalog.db" && -d "$work/fresh/wh/db.db/t/metadata" ]]
check "table create creates the warehouse" $?
expect_error "bad create args create no warehouse" "needs exactly one of --like" -- "$floe" --warehouse "$work/never" table create db.t
[[ ! -e "$work/never" ]]
check "a refused create creates nothing" $?

# An s3:// warehouse's catalog is named, never ./catalog.db (point 7).
(cd "$work/bare" && "$floe" --warehouse s3://bucket/wh table create db.t --schema '[{"name":"a","type":"int"}]' >"$work/out" 2>"$work/err")
[[ $? -ne 0 && "$(cat "$work/err")" == "floe: invalid input: warehouse 's3://bucket/wh' needs --catalog sqlite:PATH (or FLOE_CATALOG): an s3:// warehouse keeps its tables' registry in a SQLite file of your choosing, and floe does not guess one" && -z "$(ls -A "$work/bare")" ]]
check "an s3 warehouse without --catalog is refused and no catalog.db appears" $?

# p.a and p.a.b: locations never nest, so maintenance of one never touches the other (point 6).
printf 'a\n1\n2\n' >"$work/pa.csv"
printf 'a\n3\n4\n5\n' >"$work/pab.csv"
for t in p.a p.a.b; do f table create "$t" --schema '[{"name":"a","type":"int"}]' >/dev/null || check "create $t" 1; done
f table append p.a "$work/pa.csv" >/dev/null && f table append p.a.b "$work/pab.csv" >/dev/null
check "append to p.a and p.a.b" $?
[[ -d "$wh/p.db/a" && -d "$wh/p.a.db/b" ]]
check "p.a and p.a.b live at <ns>.db/<table>" $?
f table remove-orphans p.a --older-than 0s --unsafe-allow-recent >/dev/null 2>&1 && f table drop p.a --purge >/dev/null
check "remove-orphans and purge p.a" $?
[[ "$(f query --format csv -e "select count(*), sum(a) from p.a.b" | tail -1)" == "3,12" ]]
check "p.a.b reads whole after p.a's maintenance and purge" $?

# a/b.c and a.b.c: two namespaces, two directories; catalog.t does not collide with catalog.db.
for t in a/b.c a.b.c catalog.t; do f table create "$t" --schema '[{"name":"a","type":"int"}]' >/dev/null && f table append "$t" "$work/pa.csv" >/dev/null || check "create and append $t" 1; done
[[ -d "$wh/a%2Fb.db/c" && -d "$wh/a.b.db/c" && -d "$wh/%63atalog.db/t" && -f "$wh/catalog.db" ]]
check "a/b.c, a.b.c and catalog.t have their own directories" $?
f table drop a/b.c --purge >/dev/null && [[ "$(f query --format csv -e "select count(*) from a.b.c" | tail -1)" == "2" && "$(f query --format csv -e "select count(*) from catalog.t" | tail -1)" == "2" ]]
check "purging a/b.c leaves a.b.c and catalog.t" $?

# Temp files of killed writes (point 18): old ones go with remove-orphans, the rest with purge.
mkdir -p "$wh/p.a.db/b/data"
touch -d '4 days ago' "$wh/p.a.db/b/data/.floe-tmp-1-dead-0"
touch "$wh/p.a.db/b/metadata/.floe-tmp-2-dead-1"
f table remove-orphans p.a.b | grep -q "^deleted file://$wh/p.a.db/b/data/.floe-tmp-1-dead-0$" &&
  [[ ! -e "$wh/p.a.db/b/data/.floe-tmp-1-dead-0" && -e "$wh/p.a.db/b/metadata/.floe-tmp-2-dead-1" ]]
check "remove-orphans deletes an old temp file and keeps a fresh one" $?
f table drop p.a.b --purge >/dev/null && [[ ! -e "$wh/p.a.db" ]]
check "drop --purge removes the temp files too" $?

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
