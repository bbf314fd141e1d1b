#!/usr/bin/env bash
# Input formats as docs/cli.md gives them: `table create --like` a CSV/TSV/NDJSON file (gzip or
# zstd too) infers the schema; `table append` takes those files and folders of them, sniffed, read
# as the table's types; read_csv / read_json in SQL with DuckDB's options; bad files are one line
# naming file and line, and the table is unchanged.
set -u
floe="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
expect_error() {  # NAME EXACT-STDERR -- CMD...
  local name="$1" want="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ne 0 && "$(cat "$work/err")" == "$want" ]]; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    echo "      wanted: $want" >&2
    check "$name" 1
  fi
}
f() { "$floe" --warehouse "$wh" --quiet "$@"; }
q() { f query --format csv -e "$1"; }
columns() { f table describe "$1" --format csv | tr '\n' ';'; }

# A semicolon file with a header, quotes and a NULL, gzip-compressed: --like infers the schema.
printf 'id;name;price;day;at;ok\n1;"ann; a";1.5;2024-01-03;2024-01-03 10:00:00;true\n2;bob;;2024-01-04;2024-01-04T11:30:00.25;false\n' >"$work/people.csv"
gzip -k "$work/people.csv"
f table create shop.people --like "$work/people.csv.gz" >/dev/null
check "create --like x.csv.gz" $?
got="$(columns shop.people)"
[[ "$got" == 'column_name,column_type,null,field_id,comment;id,long,YES,1,"";name,string,YES,2,"";price,double,YES,3,"";day,date,YES,4,"";at,timestamp,YES,5,"";ok,boolean,YES,6,"";' ]]
check "--like x.csv.gz: names and types sniffed, all optional: $got" $?

# A folder of mixed inputs: CSV in another dialect and order, TSV without a header, zstd CSV,
# NDJSON (gzip'd too) with keys in any order and missing ones.
mkdir "$work/in"
printf 'ok|id|name\nfalse|3|"c|d"\n' >"$work/in/a.csv"
printf '4\teve\t2.5\t2024-01-05\t2024-01-05 00:00:00\ttrue\n' >"$work/in/b.tsv"
printf '\xEF\xBB\xBFid,name\r\n5,"say ""hi"""\r\n6,fay' | zstd -q -o "$work/in/c.csv.zst"
printf '{"name":"gus","id":7,"price":3}\n\n{"id":8,"at":"2024-01-08T08:00:00","day":"2024-01-08"}\n' >"$work/in/d.ndjson"
printf '[{"id":9,"ok":true}]' | gzip >"$work/in/e.json.gz"
printf 'not data\n' >"$work/in/readme.md"
f table append shop.people "$work/people.csv" "$work/in" | grep -q "^appended 9 rows to shop.people: 6 input files"
check "append a CSV and a folder of csv/tsv/zst/ndjson/json.gz" $?
got="$(q "select id, name, price, day, at, ok from shop.people order by id")"
[[ "$got" == 'id,name,price,day,at,ok
1,ann; a,1.5,2024-01-03,2024-01-03T10:00:00.000000,true
2,bob,,2024-01-04,2024-01-04T11:30:00.250000,false
3,c|d,,,,false
4,eve,2.5,2024-01-05,2024-01-05T00:00:00.000000,true
5,"say ""hi""",,,,
6,fay,,,,
7,gus,3.0,,,
8,,,2024-01-08,2024-01-08T08:00:00.000000,
9,,,,,true' ]]
check "the rows read back: $got" $?

# Bad files: one line naming file, line and column; nothing committed.
before="$(f table snapshots shop.people | wc -l)"
printf 'id,name\n1,x\nzz,y\n' >"$work/bad_value.csv"
expect_error "a value that does not fit" "floe: invalid input: $work/bad_value.csv: line 3: 'zz' is not a int64 value for column 'id'" -- f table append shop.people "$work/people.csv" "$work/bad_value.csv"
printf '{"id":1}\n{"id":2,}\n' >"$work/bad.ndjson"
expect_error "a malformed JSON line" "floe: invalid input: $work/bad.ndjson: line 2: malformed JSON: parse error at line 1, column 9: syntax error while parsing object key - unexpected '}'; expected string literal" -- f table append shop.people "$work/bad.ndjson"
printf '{"id":1,"color":"red"}\n' >"$work/extra.jsonl"
expect_error "a JSON key that is no column" "floe: invalid input: $work/extra.jsonl: line 1: key 'color' is not a column of the table" -- f table append shop.people "$work/extra.jsonl"
head -c 40 "$work/people.csv.gz" >"$work/cut.csv.gz"
expect_error "a truncated gzip file" "floe: invalid input: $work/cut.csv.gz: the gzip stream is truncated" -- f table append shop.people "$work/cut.csv.gz"
printf 'garbage' >"$work/junk.csv.zst"
expect_error "a .zst file that is not zstd" "floe: invalid input: $work/junk.csv.zst: the zstd stream is corrupt (Unknown frame descriptor)" -- f table append shop.people "$work/junk.csv.zst"
printf 'a,b\n' >"$work/x.xlsx"
expect_error "an unknown extension" "floe: invalid input: input file '$work/x.xlsx' is not .parquet, .csv, .tsv, .txt, .json, .ndjson or .jsonl (each but parquet also with .gz or .zst)" -- f table append shop.people "$work/x.xlsx"
[[ "$(f table snapshots shop.people | wc -l)" == "$before" && "$(q "select count(*) from shop.people" | tail -1)" == 9 ]]
check "failed appends commit nothing" $?

# --like a JSON file: nested objects and lists.
printf '{"id":1,"tags":["a","b"],"pos":{"x":1.5,"y":2},"when":"2024-01-03T10:00:00Z"}\n{"id":2,"tags":[],"pos":null}\n' | zstd -q -o "$work/ev.jsonl.zst"
f table create shop.ev --like "$work/ev.jsonl.zst" >/dev/null && f table append shop.ev "$work/ev.jsonl.zst" >/dev/null
check "create --like and append x.jsonl.zst" $?
got="$(columns shop.ev)"
[[ "$got" == 'column_name,column_type,null,field_id,comment;id,long,YES,1,"";tags,list<string>,YES,2,"";pos,"struct<x: double, y: long>",YES,4,"";when,timestamptz,YES,7,"";' ]]
check "--like NDJSON: structs and lists, keys in file order: $got" $?
got="$(f query --format json -e "select id, tags, pos, \"when\" from shop.ev order by id")"
[[ "$got" == '{"columns": ["id", "tags", "pos", "when"], "types": ["long", "list<string>", "struct<x: double, y: long>", "timestamptz"], "rows": [[1, ["a", "b"], {"x": 1.5, "y": 2}, "2024-01-03T10:00:00.000000Z"], [2, [], null, null]]}' ]]
check "nested rows read back: $got" $?

# SQL table functions with DuckDB's options, both spellings; globs; compressed files.
printf 'skip me\n1|x\n2|\n' >"$work/opts.txt"
[[ "$(q "select * from read_csv('$work/opts.txt', delim = '|', header = false, skip := 1)")" == $'column0,column1\n1,x\n2,' ]]
check "read_csv options: delim =, header =, skip :=" $?
[[ "$(q "select * from read_csv('$work/people.csv', nullstr = 'bob', all_varchar = true) order by id" | head -2)" == $'id,name,price,day,at,ok\n1,ann; a,1.5,2024-01-03,2024-01-03 10:00:00,true' ]]
check "read_csv all_varchar and nullstr" $?
[[ "$(q "select count(*), sum(id) from read_csv_auto('$work/in/*.csv')" | tail -1)" == "1,3" ]]
check "read_csv of a glob" $?
[[ "$(q "select id, name from read_json('$work/in/d.ndjson') order by id")" == $'id,name\n7,gus\n8,' ]]
check "read_json" $?
[[ "$(q "select * from read_ndjson('$work/in/e.json.gz')")" == $'id,ok\n9,true' ]]
check "read_ndjson of a gzip'd array" $?
printf 'id,name\n1,"open\n2,x\n' >"$work/open.csv"
expect_error "a quote that never closes" "floe: invalid input: at line 1, column 15: read_csv('$work/open.csv'): $work/open.csv: line 2: a quoted field never ends" -- f query -e "select * from read_csv('$work/open.csv', quote = '\"')"
expect_error "an unknown read_csv option" "floe: invalid input: at line 1, column 15: read_csv('$work/people.csv'): unknown option bogus (floe's read_csv takes delim, sep, header, quote, escape, nullstr, skip, sample_size, all_varchar, auto_detect)" -- f query -e "select * from read_csv('$work/people.csv', bogus = 1)"

# read_parquet takes DuckDB's globs too: wildcards in any part of the path, ** for any depth; each
# file must have the first one's columns.
mkdir -p "$work/pq/region=eu/day=1" "$work/pq/region=us"
f query --format parquet --output "$work/pq/region=eu/day=1/a.parquet" -e "select 1 as id, 'x' as name" >/dev/null
f query --format parquet --output "$work/pq/region=us/b.parquet" -e "select 2 as id, 'y' as name" >/dev/null
[[ "$(q "select count(*), sum(id) from read_parquet('$work/pq/region=*/*.parquet')" | tail -1)" == "1,2" ]] &&
  [[ "$(q "select count(*), sum(id) from read_parquet('$work/pq/**/*.parquet')" | tail -1)" == "2,3" ]]
check "read_parquet of globs: one folder level, and ** at any depth" $?
f query --format parquet --output "$work/pq/region=us/c.parquet" -e "select 'z' as name" >/dev/null
expect_error "read_parquet of files with other columns" "floe: invalid input: at line 1, column 15: read_parquet('$work/pq/region=us/*.parquet'): '$work/pq/region=us/c.parquet' has other columns than '$work/pq/region=us/b.parquet' (name string against id int64, name string)" -- f query -e "select * from read_parquet('$work/pq/region=us/*.parquet')"
expect_error "a glob that matches nothing" "floe: not found: at line 1, column 15: read_parquet('$work/pq/*.nope'): no file matches '$work/pq/*.nope'" -- f query -e "select * from read_parquet('$work/pq/*.nope')"

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
