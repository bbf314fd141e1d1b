#!/usr/bin/env bash
# Issue 16's failures, kept fixed through the CLI: every bad flag, property, CALL argument, SQL
# value and input file is one line on stderr naming what and where, with a non-zero exit (never a
# signal), and leaves the table's snapshots as they were. Usage: hardening_cli_test.sh FLOE PYTHON
set -u
floe="$(realpath "$1")"
python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
# NAME EXPECTED-STDERR-LINE -- CMD...: rc in 1..127, stderr exactly that one line.
expect_error() {
  local name="$1" want="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ge 1 && $rc -lt 128 && "$(cat "$work/err")" == "$want" ]]; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    echo "      wanted: $want" >&2
    check "$name" 1
  fi
}
f() { "$floe" --warehouse "$wh" --quiet "$@"; }
q() { f query -e "$1"; }

f table create db.t --schema '[{"name":"id","type":"long"},{"name":"ts","type":"timestamptz"}]' >/dev/null
printf 'id,ts\n1,2024-01-03T00:00:00Z\n2,9999-12-31T00:00:00Z\n' >"$work/a.csv"
f table append db.t "$work/a.csv" >/dev/null
check "append timestamps past 2262" $?
snapshots="$(f table snapshots db.t)"

# 1. Timestamps are microseconds over int64's range.
[[ "$(f query --format csv -e "select count(*) from db.t where ts < '9999-12-31'" | tail -1)" == 1 ]]
check "a literal past 2262 compares as its instant" $?
[[ "$(f query --format csv -e "select max(ts) from db.t" | tail -1)" == 9999-12-31* ]]
check "9999-12-31 is stored as itself, not 1816-03-29" $?
printf 'id,ts\n3,2024-01-03T00:00:00+99:00\n' >"$work/off.csv"
expect_error "a UTC offset of +99:00" "floe: invalid input: $work/off.csv: line 2: '2024-01-03T00:00:00+99:00' is not a timestamp (2024-01-03 10:00:00[.ffffff][+hh:mm]) for column 'ts'" -- f table append db.t "$work/off.csv"

# 4, 5. LIMIT, CAST, CSV.
[[ "$(f query --format csv -e "select id from db.t order by id limit 9223372036854775807 offset 1" | tail -1)" == 2 ]]
check "LIMIT 2^63-1 OFFSET 1" $?
expect_error "cast to int checks its range" "floe: invalid input: at line 1, column 8: value 2147483648 is out of range for INTEGER" -- q "select cast(2147483648 as int)"
expect_error "cast to decimal checks its precision" "floe: invalid input: at line 1, column 8: value 123.456 is out of range for DECIMAL(3,1)" -- q "select cast(123.456 as decimal(3,1))"
printf 'id,id\n1,2\n' >"$work/dup.csv"
expect_error "a duplicate CSV header column" "floe: invalid input: $work/dup.csv: header column 'id' appears twice (columns 1 and 2)" -- f table append db.t "$work/dup.csv"

# 12, 13. Numbers in CALL arguments, flags and properties.
call="call system.expire_snapshots(table => 'db.t'"
expect_error "retain_last => 'x'" "floe: invalid input: retain_last 'x' is not a whole number" -- q "$call, retain_last => 'x')"
expect_error "retain_last => 4294967297" "floe: invalid input: retain_last 4294967297 is out of range (1 to 2147483647)" -- q "$call, retain_last => 4294967297)"
expect_error "retain_last => -5" "floe: invalid input: retain_last -5 is out of range (1 to 2147483647)" -- q "$call, retain_last => -5)"
expect_error "retain_last => 2.5" "floe: invalid input: retain_last '2.5' is not a whole number" -- q "$call, retain_last => 2.5)"
expect_error "a huge older_than" "floe: invalid input: older_than '99999999999999999999': Unix milliseconds past the year 292 million" -- q "$call, older_than => '99999999999999999999')"
q "$call, older_than => '3d')" >/dev/null
check "older_than takes an age, as --older-than does" $?
expect_error "--older-than 99999999999999999999d" "floe: invalid input: --older-than '99999999999999999999d': an age past int64 milliseconds" -- f table expire db.t --older-than 99999999999999999999d
expect_error "--older-than ''" "floe: invalid input: --older-than '': expected an age (30s, 15m, 12h, 3d), an ISO date or timestamp, or Unix ms" -- f table expire db.t --older-than ''
expect_error "--retain-last 0" "floe: invalid input: --retain-last 0: expected a whole number from 1 to 2147483647" -- f table expire db.t --retain-last 0
expect_error "--partial-progress -1" "floe: invalid input: --partial-progress -1: expected a number of commits from 1 to 2147483647" -- f table rewrite db.t --partial-progress -1
expect_error "a bloom fpp of abc" "floe: invalid input: table property write.parquet.bloom-filter-fpp.column.id = 'abc': expected a number between 0 and 1, e.g. 0.01" -- f table create db.b --schema '[{"name":"id","type":"long"}]' --property write.parquet.bloom-filter-fpp.column.id=abc
expect_error "previous-versions-max=-1" "floe: invalid input: table property write.metadata.previous-versions-max = '-1': expected an integer from 0 to 2147483647" -- f table create db.b --schema '[{"name":"id","type":"long"}]' --property write.metadata.previous-versions-max=-1
expect_error "min-wait-ms=-100" "floe: invalid input: table property commit.retry.min-wait-ms = '-100': expected an integer from 0 to 3600000" -- f table create db.b --schema '[{"name":"id","type":"long"}]' --property commit.retry.min-wait-ms=-100
"$floe" gen events --rows 99999999999999999999 --out "$work/gen" >"$work/out" 2>"$work/err"
rc=$?
[[ $rc == 2 && $(wc -l <"$work/err") == 1 ]] && grep -q "are generated in memory and would need about" "$work/err"
check "gen --rows 99999999999999999999 is refused before it allocates (rc $rc)" $?

# 15. Schemas and inputs.
expect_error "an empty schema" "floe: invalid input: a table needs at least one column" -- f table create db.e --schema '[]'
expect_error "duplicate column names" "floe: invalid input: the schema has two columns named 'v'" -- f table create db.e --schema '[{"name":"v","type":"long"},{"name":"v","type":"long"}]'
long="$(printf 'c%.0s' {1..70})"
f table create "db.$long" --schema "[{\"name\":\"$long\",\"type\":\"long\"}]" >/dev/null
printf '%s\n7\n' "$long" >"$work/long.csv"
f table append "db.$long" "$work/long.csv" >/dev/null
[[ "$(f query --format csv -e "select $long from db.$long" | tail -1)" == 7 ]]
check "identifiers over 63 bytes can be queried" $?
printf 'id,ts\n' >"$work/header.csv"
f table append db.t "$work/header.csv" | grep -q "nothing committed"
check "a header-only CSV commits nothing" $?
"$python" - "$work" <<'PY'
import sys, pyarrow as pa, pyarrow.parquet as pq
w = sys.argv[1]
pq.write_table(pa.table({"zzz": pa.array([], pa.string())}), f"{w}/empty_other.parquet")
pq.write_table(pa.table({"d": pa.array([1], pa.decimal256(40, 2))}), f"{w}/d256.parquet")
PY
expect_error "a 0-row Parquet file of another schema" "floe: invalid input: $work/empty_other.parquet: input column 'zzz' is not in the table schema" -- f table append db.t "$work/empty_other.parquet"
expect_error "a decimal256 column names its type" "floe: unsupported: $work/d256.parquet: column 'd' cannot become an Iceberg column: decimal(40, 2) column 'd': floe reads precision 1..38 (decimal128)" -- f table create db.d --like "$work/d256.parquet"

# 16. One line, the right line, the right kind.
printf 'select 1;\n\nselect\n  nosuch from db.t;\n' >"$work/q.sql"
expect_error "-f names the script's line" "floe: not found: at line 4, column 3: column 'nosuch' not found in db.t (columns: id, ts)" -- f query -f "$work/q.sql"
expect_error "an embedded newline stays on one line" "floe: invalid input: at line 2, column 4: malformed numeric literal 'a\\nb'" -- q "select 'a
b' + 1"
f table create db.m --schema '[{"name":"id","type":"long"}]' >/dev/null
rm "$wh"/db.db/m/metadata/*.metadata.json
f query -e "select * from db.m" 2>"$work/err" >/dev/null
[[ $? -ne 0 ]] && grep -q "^floe: corrupt: at line 1, column 15: table db.m: cannot read table metadata" "$work/err"
status=$?; check "a missing metadata file is not 'table not found': $(cat "$work/err")" "$status"

# 19. Results stream: csv and json print every row as it comes; the table keeps its first and
# last 20 rows and says how many it left out.
f table create db.r --schema '[{"name":"id","type":"long"}]' >/dev/null
{ echo id; seq 1 100; } >"$work/r.csv"
f table append db.r "$work/r.csv" >/dev/null
[[ "$(f query --format csv -e "select id from db.r" | wc -l)" == 101 ]]
check "csv prints every row" $?
f query -e "select id from db.r" >"$work/table.txt"
# 40 rows, 3 of dots, 5 of borders, names and types, and the footer.
[[ "$(wc -l <"$work/table.txt")" == 49 ]] && [[ "$(grep -c '^│ *· *│$' "$work/table.txt")" == 3 ]] &&
  grep -q '^100 rows (40 shown)$' "$work/table.txt" && grep -q '^│ *20 │$' "$work/table.txt" &&
  ! grep -q '^│ *21 │$' "$work/table.txt" && grep -q '^│ *81 │$' "$work/table.txt"
check "the table format shows 40 of 100 rows: the first 20 and the last 20" $?
f query --max-rows 0 -e "select id from db.r" | grep -c '^│ *[0-9]* │$' | grep -qx 100 &&
  f query --max-rows 4 -e "select id from db.r" | grep -q '^100 rows (4 shown)$'
check "--max-rows 0 shows every row, --max-rows 4 four" $?

[[ "$(f table snapshots db.t)" == "$snapshots" ]]
check "no failure above changed db.t" $?

echo "hardening CLI: $pass passed, $fails failed"
[[ $fails -eq 0 ]]
