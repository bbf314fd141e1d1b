#!/usr/bin/env bash
# `floe query` as docs/cli.md gives it: -e and -f, the three formats, the exact JSON form with stats,
# global flags before and after the subcommand, statements from stdin, and bad input (unknown
# table or column, type mismatch, division by zero, malformed literal, syntax, unsupported) as one
# line on stderr with a non-zero exit.
set -u
floe="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
expect_error() {  # NAME SUBSTRING SQL
  "$floe" --warehouse "$wh" query -e "$3" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ne 0 && $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$2" "$work/err"; then
    check "$1" 0
  else
    echo "FAIL: $1: rc=$rc stderr: $(cat "$work/err")" >&2
    check "$1" 1
  fi
}
f() { "$floe" --warehouse "$wh" --quiet "$@"; }

printf 'id,day,name,score\n1,2024-01-03,ann,1.5\n2,2024-01-03,bob,\n3,2024-01-04,"c, d",7\n' >"$work/a.csv"
f table create db.t --schema '[{"name":"id","type":"long","required":true},{"name":"day","type":"date"},{"name":"name","type":"string"},{"name":"score","type":"double"}]' --partition-by 'day' >/dev/null
f table append db.t "$work/a.csv" >/dev/null

[[ "$(f query --format csv -e "select id, name, score from db.t order by id")" == $'id,name,score\n1,ann,1.5\n2,bob,\n3,"c, d",7.0' ]]
check "csv" $?
[[ "$(f query --format json -e "select day, sum(score) as s from db.t group by day order by day")" == '{"columns": ["day", "s"], "types": ["date", "double"], "rows": [["2024-01-03", 1.5], ["2024-01-04", 7.0]]}' ]]
check "json without stats" $?
out="$(f query --format json --stats -e "select count(*) as n from db.t where day = '2024-01-04'")"
echo "$out" | grep -qE '^\{"columns": \["n"\], "types": \["long"\], "rows": \[\[1\]\], "stats": \{"data_files_opened": 1, "data_files_skipped": \{"partition": 1, "bounds": 0\}, "row_groups_read": 1, "row_groups_skipped": 0, "pages_skipped": 0, "requests": \{"GET": [0-9]+, "HEAD": 0, "PUT": 0, "LIST": 0, "DELETE": 0\}, "bytes_fetched": [0-9]+, "wall_ms": [0-9.]+\}\}$'
check "json with stats: the exact form of docs/cli.md ($out)" $?
# The table format shows a value as it is: quotes inside it are not CSV-doubled; a newline shows
# as its escape, so each row stays one line.
nl_sql="select 'say \"hi\"' as q, name, 'a"$'\n'"b' as nl from db.t where id = 3"
want_box=$'┌──────────┬────────┬────────┐\n│    q     │  name  │   nl   │\n│  string  │ string │ string │\n├──────────┼────────┼────────┤\n│ say "hi" │ c, d   │ a\\nb   │\n└──────────┴────────┴────────┘\n1 row'
[[ "$(f query -e "$nl_sql")" == "$want_box" ]]
check "table cells are not CSV-quoted, and stay on one line" $?
"$floe" query --format csv -e "select count(*) from db.t" --warehouse "$wh" | grep -qx 3
check "global flags after the subcommand" $?
printf 'select 1 as a;\nselect 2 as b;\n' >"$work/q.sql"
[[ "$(f query --format csv -f "$work/q.sql")" == $'a\n1\nb\n2' ]]
check "-f runs every statement" $?
[[ "$(echo 'select 40 + 2 as x;' | f query --format csv)" == $'x\n42' ]]
check "statements from stdin" $?
# An empty pipe or a file of comments runs nothing and succeeds, as DuckDB's and sqlite3's shells
# do; -e with nothing in it is still an error.
printf -- '-- nothing here\n' >"$work/empty.sql"
f query </dev/null >"$work/out" 2>"$work/err" && [[ ! -s "$work/out" && ! -s "$work/err" ]] &&
  f query -f "$work/empty.sql" >"$work/out" 2>"$work/err" && [[ ! -s "$work/out" && ! -s "$work/err" ]]
check "an empty pipe and a file of comments: exit 0, nothing printed" $?
f query -e " " >/dev/null 2>"$work/err"
[[ $? == 2 && "$(cat "$work/err")" == "floe: invalid input: no SQL statement given" ]]
status=$?; check "-e with no statement is an error ($(cat "$work/err"))" "$status"
# A pipe's statements run as each one ends: the first answer arrives while the pipe is still open
# (a program can drive one process); a last statement without ';' runs at the end of the input.
mkfifo "$work/pipe_in" "$work/pipe_out"
f query --format csv <"$work/pipe_in" >"$work/pipe_out" &
qpid=$!
exec {qin}>"$work/pipe_in" {qout}<"$work/pipe_out"
echo 'select 7 as a;' >&"$qin"
read -t 60 -r h <&"$qout" && read -t 60 -r v <&"$qout"
[[ "$h,$v" == "a,7" ]]
check "a piped statement answers before the pipe closes" $?
echo 'select 8 as b' >&"$qin"
exec {qin}>&-
read -t 60 -r h <&"$qout" && read -t 60 -r v <&"$qout"
[[ "$h,$v" == "b,8" ]]
check "the last piped statement runs at the end of the input" $?
wait "$qpid"
check "the piped run exits 0" $?
exec {qout}<&-
printf 'select 1 as a;\nselect nope from db.t;\nselect 3 as c;\n' | f query --format csv >"$work/out" 2>"$work/err"
rc=$?
[[ $rc -ne 0 && "$(cat "$work/out")" == $'a\n1' && $(wc -l <"$work/err") -eq 1 ]]
check "a piped statement's error stops the run, non-zero (rc=$rc)" $?
f query --stats -e "select name from db.t where id = 2" | grep -q '"data_files_opened"'
check "table format prints the stats line" $?

expect_error "unknown table" "table db.nope not found" "select * from db.nope"
expect_error "unknown column" "column 'nope' not found in db.t" "select nope from db.t"
expect_error "type mismatch" "type mismatch: cannot compare string with integer" "select * from db.t where name > 3"
expect_error "division by zero" "division by zero" "select id / 0 from db.t"
expect_error "malformed literal" "malformed date literal '2024-02-31'" "select * from db.t where day = '2024-02-31'"
expect_error "syntax error with position" "at line 1, column 25: syntax error at or near \"id\"" "select * from db.t wher id = 1"
expect_error "unsupported construct" "at line 1, column 12: floe does not support median as a window function" "select id, median(id) over (order by id) from db.t"
expect_error "bad time travel" "FOR VERSION AS OF expects a snapshot id" "select * from db.t for version as of 'x'"

# Maintenance as Iceberg's Spark procedures: CALL system.* with named or positional arguments.
f table append db.t "$work/a.csv" >/dev/null
f table append db.t "$work/a.csv" >/dev/null
[[ "$(f query --format csv -e "select count(*) as n from db.t.files")" == $'n\n6' ]]
check "three appends over two days make six files" $?
[[ "$(f query --format csv -e "CALL system.rewrite_data_files(table => 'db.t', strategy => 'sort', sort_order => 'id DESC', options => map('min-input-files', '2'))" | head -2)" == \
   $'rewritten_data_files_count,added_data_files_count,rewritten_bytes_count,failed_data_files_count,removed_delete_files_count\n6,2'* ]]
check "CALL system.rewrite_data_files sorts six files into one per day" $?
[[ "$(f query --format csv -e "select id from db.t where day = '2024-01-03'" | tr '\n' ' ')" == "id 2 2 2 1 1 1 " ]]
check "the rewritten day reads in the sort order" $?
[[ "$(f query --format csv -e "CALL system.expire_snapshots('db.t', '2100-01-01 00:00:00', 1)" | tail -1)" == 6,0,0,* ]]
check "CALL system.expire_snapshots deletes the six replaced files" $?
[[ "$(f query --format csv -e "select count(*) as n from db.t" | tail -1)" == 9 ]]
check "no row lost by rewrite and expiry" $?
expect_error "unknown procedure" "CALL system.nope: unknown procedure" "CALL system.nope(table => 'db.t')"
expect_error "unknown procedure argument" "no argument named 'tabel'" "CALL system.rewrite_data_files(tabel => 'db.t')"

# A CREATE that does not parse, with no warehouse yet: its own error, and nothing made.
"$floe" --warehouse "$work/none" query -e "CREATE TABLE db.t (a int,)" 2>"$work/err"
[[ $? == 2 && "$(cat "$work/err")" == "floe: invalid input: at line 1, column 26: CREATE TABLE: expected a column name at ')'" && ! -e "$work/none" ]]
status=$?; check "a malformed CREATE on a missing warehouse names the statement's error ($(cat "$work/err"))" "$status"

# --trace FILE: every request of each statement as a JSON line, with what it was for; the count
# and bytes are the stats' own. SET trace = '' stops it; floe trace summarize groups the lines.
printf "SELECT count(*) FROM db.t WHERE day = '2024-01-04';\nSELECT sum(score) FROM db.t;\nSET trace = '';\nSELECT 1;\n" >"$work/traced.sql"
f query --trace "$work/t.jsonl" -f "$work/traced.sql" --format json --stats >"$work/traced.out"
check "query --trace runs the statements" $?
python3 - "$work/t.jsonl" "$work/traced.out" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
stats = [json.loads(l)["stats"] for l in open(sys.argv[2]) if l.startswith("{")]
heads = [l for l in lines if l["type"] == "statement"]
assert [h["statement"] for h in heads] == [1, 2, 3], heads          # SELECT 1 ran untraced
assert heads[0]["sql"] == "SELECT count(*) FROM db.t WHERE day = '2024-01-04'", heads[0]
req = lambda n: [l for l in lines if l["type"] == "request" and l["statement"] == n]
one = req(1)
# A cold point query on a day-partitioned table of two small files: the table's metadata, its
# manifest list and manifest, then the one file left after pruning, whole.
assert [r["purpose"] for r in one] == ["table metadata", "manifest list", "manifest", "whole file"], one
assert re.search(r"/metadata/\d{5}-[0-9a-f-]+\.metadata\.json$", one[0]["object"]), one[0]
assert re.search(r"/metadata/snap-\d+-1-[0-9a-f-]+\.avro$", one[1]["object"]), one[1]
assert re.search(r"/data/day=2024-01-04/[0-9a-f-]+\.parquet$", one[3]["object"]), one[3]
assert all(r["kind"] == "GET" and "offset" not in r and r["end_ms"] >= r["start_ms"] for r in one), one
assert len(one) == stats[0]["requests"]["GET"] and sum(r["bytes"] for r in one) == stats[0]["bytes_fetched"]
assert heads[0]["requests"] == 4 and heads[0]["bytes_fetched"] == stats[0]["bytes_fetched"], heads[0]
two = req(2)
# The same session's second statement: metadata and footers cached; the pruned-before file whole,
# the other's one column chunk by its range.
assert sorted(r["purpose"] for r in two) == ["data", "whole file"], two
data = [r for r in two if r["purpose"] == "data"][0]
assert data["detail"] == "row group 0: score" and data["length"] == data["bytes"] > 0, data
assert len(two) == stats[1]["requests"]["GET"] and sum(r["bytes"] for r in two) == stats[1]["bytes_fetched"]
assert req(3) == [] and len(lines) == 9, lines
PY
check "the trace: one line per request, purposes, ranges and totals as the stats" $?
"$floe" trace summarize "$work/t.jsonl" --by purpose --format csv >"$work/summary.csv"
python3 - "$work/summary.csv" <<'PY'
import csv, sys
rows = [(r["statement"], r["purpose"], r["requests"]) for r in csv.DictReader(open(sys.argv[1]))]
assert rows == [("1", "table metadata", "1"), ("1", "manifest list", "1"), ("1", "manifest", "1"),
                ("1", "whole file", "1"), ("2", "whole file", "1"), ("2", "data", "1")], rows
PY
check "trace summarize --by purpose" $?
"$floe" trace summarize "$work/t.jsonl" | grep -qE '^│ +2 │ data/day=2024-01-04/[0-9a-f-]+\.parquet +│ data +│ +1 │'
check "trace summarize by file: objects after their shared directory" $?
"$floe" --warehouse "$wh" query --trace /nonexistent/dir/t.jsonl -e "CREATE TABLE db.traced (a int)" 2>"$work/err"
[[ $? == 1 && "$(cat "$work/err")" == "floe: io error: trace file '/nonexistent/dir/t.jsonl' cannot be written: No such file or directory" ]] &&
  ! f query --format csv -e "SHOW TABLES" | grep -q traced
status=$?; check "an unwritable trace file: one line, exit 1, and the statement not run ($(cat "$work/err"))" "$status"
"$floe" trace summarize "$work/a.csv" 2>"$work/err"
[[ $? == 2 && "$(cat "$work/err")" == "floe: invalid input: trace file '$work/a.csv', line 1: not a line of a floe trace" ]]
status=$?; check "trace summarize of another file: one line, exit 2 ($(cat "$work/err"))" "$status"

f table create db.fmt --schema '[{"name":"id","type":"long"},{"name":"day","type":"date"},{"name":"name","type":"string"},{"name":"score","type":"double"}]' >/dev/null &&
  f table append db.fmt "$work/a.csv" >/dev/null
# The other formats: an object per row, a Markdown table (pipes escaped), all with the same values.
[[ "$(f query --format jsonl -e "select id, name, score from db.fmt order by id")" == \
   $'{"id": 1, "name": "ann", "score": 1.5}\n{"id": 2, "name": "bob", "score": null}\n{"id": 3, "name": "c, d", "score": 7.0}' ]]
check "jsonl: an object per row" $?
[[ "$(f query --format markdown -e "select id, 'a|b' as s from db.fmt where id = 1")" == $'| id | s |\n| ---: | --- |\n| 1 | a\\|b |' ]]
check "markdown: numbers right-aligned, pipes escaped" $?
f query --format jsonl --stats -e "select id from db.fmt where id = 1" | tail -1 | grep -q '^{"stats": {"data_files_opened": '
check "jsonl --stats: a last line of stats" $?
# The box fits the width it is given: the wide column cut with "…", then the middle columns left out.
out="$(f query --max-width 40 -e "select id, repeat('x', 60) as wide, name from db.fmt where id = 1")"
[[ "$(echo "$out" | head -1 | wc -m)" == 41 ]] && echo "$out" | grep -q 'x… │ ann *│$'
check "--max-width 40: every line 40 wide, the wide column cut ($out)" $?
out="$(COLUMNS=30 f query -e "select id, day, name, score, id as id2, name as n2 from db.fmt where id = 1")"
echo "$out" | grep -q '^1 row, 6 columns ([0-9] shown)$' && echo "$out" | grep -q ' … '
check "COLUMNS=30: the middle columns left out, the footer says so ($out)" $?
# --output: the rows go to a file; with --format parquet, a Parquet file any reader opens.
f query --output "$work/rows.parquet" --format parquet -e "select id, name from db.fmt order by id" >"$work/out" &&
  grep -qx "exported 3 rows to $work/rows.parquet (parquet, [0-9]* bytes)" "$work/out" &&
  [[ "$("$floe" parquet cat "$work/rows.parquet" --format csv)" == $'id,name\n1,ann\n2,bob\n3,"c, d"' ]]
status=$?; check "--output FILE --format parquet exports the rows ($(cat "$work/out"))" "$status"
f query --output "$work/rows.parquet" --format parquet -e "select nope from db.fmt" 2>/dev/null
[[ $? == 1 ]] && [[ "$("$floe" parquet cat "$work/rows.parquet" --format csv | wc -l)" == 4 ]] &&
  [[ -z "$(ls "$work" | grep floe-tmp)" ]]
check "a failed export leaves the earlier file as it was, and no temporary file" $?
f query --format parquet -e "select 1" 2>"$work/err"
[[ $? == 2 && "$(cat "$work/err")" == "floe: invalid input: --format parquet writes a file: give --output FILE" ]]
status=$?; check "--format parquet without --output: exit 2 ($(cat "$work/err"))" "$status"
f query --output "$work/rows.csv" --format csv -e "select 1 as a; select 2 as b" >"$work/out" &&
  [[ ! -s "$work/out" && "$(cat "$work/rows.csv")" == $'a\n1\nb\n2' ]]
check "--output FILE with a text format: the printed rows go there" $?
# A failing statement leaves an earlier --output file as it was; a failed write is an error.
echo keep >"$work/keep.csv"
f query --format csv --output "$work/keep.csv" -e "SELEC 1" 2>/dev/null
[[ $? == 2 && "$(cat "$work/keep.csv")" == keep && -z "$(ls "$work" | grep floe-tmp)" ]]
check "--output: a statement that fails leaves FILE as it was" $?
f query --format csv --output /dev/full -e "select 1 as a" 2>"$work/err"
[[ $? == 1 && "$(cat "$work/err")" == "floe: io error: writing the rows to '/dev/full' failed: No space left on device" && -c /dev/full ]]
status=$?; check "--output /dev/full: the failed write is an error, and the device stays a device ($(cat "$work/err"))" "$status"
f query --format csv -e "select 1 as a" >/dev/full 2>"$work/err"
[[ $? == 1 ]] && grep -q "writing the rows to standard output failed" "$work/err"
check "a full standard output is an error" $?
f query --format parquet --output "$work/one.parquet" -e "select id from db.fmt order by id; select 2 as b" >"$work/out" 2>"$work/err"
[[ $? == 2 ]] && grep -q "holds one query's rows" "$work/err" &&
  [[ "$("$floe" parquet cat "$work/one.parquet" --format csv | tr '\n' ' ')" == "id 1 2 3 " ]]
check "--format parquet: a second query is refused, the first's rows kept" $?
COLUMNS=20 f query --output "$work/wide.txt" -e "select id, day, name, score from db.fmt where id = 1" &&
  [[ "$(tail -1 "$work/wide.txt")" == "1 row" ]]
check "a table written to --output is not fitted to the terminal" $?
[[ "$(printf -- '-- a note\n.mode csv\nselect 1 as one;\n' | f query)" == $'one\n1' ]]
check "piped: a comment before a dot command" $?
f query --max-width -3 -e "select 1" 2>"$work/err"
[[ $? == 2 ]] && grep -q -- "--max-width: '-3' is not a count" "$work/err"
check "--max-width -3 is refused" $?

# The listings take --format too, in the same printer and types.
f table describe db.t --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["table"] == "db.t" and d["format_version"] == 2, d
assert [f["name"] for f in d["schema"]["fields"]] == ["id", "day", "name", "score"], d
assert d["partition_spec"]["fields"][0]["transform"] == "identity", d
assert d["current_snapshot"]["committed_at"].endswith("Z"), d' &&
  [[ "$(f table describe db.t --format csv | cut -d, -f1,2 | tr '\n' ' ')" == "column_name,column_type id,long day,date name,string score,double " ]]
check "table describe --format json (one object) and csv (DESCRIBE's rows)" $?
n_snapshots="$(f query --format csv -e "select count(*) from db.t.snapshots" | tail -1)"
[[ "$(f table snapshots db.t --format jsonl | wc -l)" == "$n_snapshots" ]] &&
  f table snapshots db.t --format json | grep -q '"types": \["timestamptz", "long", "long", "string"' &&
  [[ "$(f table files db.t --format csv | tail -n +2 | wc -l)" == "$(f query --format csv -e "select count(*) from db.t.files" | tail -1)" ]]
check "table snapshots and files --format: the metadata tables' rows" $?
f table snapshots db.t | sed -n 2p | grep -qE ' [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z '
check "table snapshots: timestamps in the one form (ISO 8601, Z)" $?

# Dot commands work in piped statements too; a wrong one stops the run, as a failed statement does.
[[ "$(printf '.mode csv\nselect 40 + 2 as x;\n.quit\nselect 1;\n' | f query)" == $'x\n42' ]]
check "piped: .mode csv, then .quit ends the input" $?
printf '.mode csv\n.nope\nselect 1 as y;\n' | f query >"$work/out" 2>"$work/err"
[[ $? == 2 && ! -s "$work/out" && "$(cat "$work/err")" == "floe: unknown command '.nope'; .help lists them" ]]
status=$?; check "piped: an unknown dot command, exit 2, nothing after it runs ($(cat "$work/err"))" "$status"

echo "query CLI: $pass passed, $fails failed"
[[ $fails -eq 0 ]]
