#!/usr/bin/env bash
# `floe gen`, `floe advise` and `floe bench` as CLI.md gives them: deterministic generated files,
# an advised worksheet that bench accepts, a tiny worksheet measured end to end with exact counts
# (once the SQL engine is built), and bad input as one line on stderr with a non-zero exit.
set -u
floe="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
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

# gen: K files, same seed -> same bytes, other seed -> other bytes.
"$floe" --quiet gen events --rows 20000 --out "$work/g1" --files 4 --seed 5 | grep -q "generated 20000 events rows (seed 5) -> 4 files"
check "gen events: 4 files" $?
[[ "$(ls "$work/g1" | wc -l)" == 4 ]]
check "gen writes 4 .parquet files" $?
"$floe" --quiet gen events --rows 20000 --out "$work/g2" --files 4 --seed 5 >/dev/null
"$floe" --quiet gen events --rows 20000 --out "$work/g3" --files 4 --seed 6 >/dev/null
[[ "$(cd "$work/g1" && cat ./*.parquet | md5sum)" == "$(cd "$work/g2" && cat ./*.parquet | md5sum)" ]]
check "gen: same seed, same bytes" $?
[[ "$(cd "$work/g1" && cat ./*.parquet | md5sum)" != "$(cd "$work/g3" && cat ./*.parquet | md5sum)" ]]
check "gen: other seed, other bytes" $?
"$floe" --quiet gen customers --rows 8000 --out "$work/c" >/dev/null && [[ "$(ls "$work/c" | wc -l)" == 8 ]]
check "gen customers: 8 writes by default" $?
"$floe" parquet inspect "$work/c/customers-00000.parquet" | grep -q "campaign_date_2"
check "gen customers: 60 columns readable by floe parquet inspect" $?
# The output folder must be empty; --overwrite replaces an earlier floe gen's files, never others.
expect_error "gen: a non-empty --out" "--out $work/c is not empty (8 files" -- "$floe" gen orders --rows 10 --out "$work/c"
"$floe" --quiet gen orders --rows 10 --out "$work/c" --overwrite >/dev/null && [[ "$(ls "$work/c")" == "orders-00000.parquet" ]]
check "gen --overwrite replaces the earlier run's files" $?
touch "$work/c/notes.txt"
expect_error "gen --overwrite next to another file" "'notes.txt' under $work/c is not a file floe gen writes; nothing was deleted" -- "$floe" gen orders --rows 10 --out "$work/c" --overwrite
[[ -e "$work/c/notes.txt" && -e "$work/c/orders-00000.parquet" ]]
check "a refused --overwrite deletes nothing" $?
expect_error "gen: unknown workload" "unknown workload 'lineitem'" -- "$floe" gen lineitem --rows 10 --out "$work/x"

# advise: a worksheet on stdout that bench parses.
cat >"$work/log.sql" <<'SQL'
SELECT sum(amount) FROM b.ev WHERE event_ts >= '2024-01-05' AND event_ts < '2024-01-06';
SELECT * FROM b.ev WHERE customer_id = 7;
SELECT * FROM b.ev WHERE customer_id = 9;
SQL
"$floe" advise --queries "$work/log.sql" --table b.ev >"$work/advised.yaml"
check "advise runs" $?
grep -q "partition_by: day(event_ts)" "$work/advised.yaml" && grep -q "sort_by: customer_id" "$work/advised.yaml"
check "advise: partition by the time filter, sort by the customer filter" $?
expect_error "advise: missing log" "cannot be read" -- "$floe" advise --queries "$work/nope.sql" --table b.ev

# bench: a tiny worksheet, two designs, exact layout figures.
cat >"$work/tiny.yaml" <<'YAML'
name: tiny
table: b.ev
source: {generator: events, rows: 20000, seed: 1, writes: 4}
designs:
  - name: A
  - name: B
    partition_by: day(event_ts)
    sort_by: customer_id
questions:
  - name: customer
    sql: SELECT count(*) FROM {table} WHERE customer_id = 7
    daily: 10
YAML
"$floe" --warehouse "$work/wh" --quiet bench "$work/tiny.yaml" --rounds 2 --warmup 1 \
  --json "$work/tiny.json" --out "$work/report" >"$work/bench.out" 2>"$work/bench.err"
rc=$?
python3 - "$work/tiny.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
files = [x["data_files"] for x in d["designs"]]
assert files == [4, 12], files          # A: one file per write; B: 4 writes x 3 days each
assert all(x["rows"] == 20000 for x in d["designs"])
PY
check "bench: A has 4 files, B 12 (4 writes spanning 3 days each)" $?
[[ -f "$work/report/tiny.md" && -f "$work/report/tiny-q1.svg" && -f "$work/report/tiny.html" ]]
check "bench --out writes Markdown, an SVG per question and the HTML page" $?
grep -qx "report page: $work/report/tiny.html" "$work/bench.out" && ! grep -q http "$work/report/tiny.html"
check "bench --out prints the HTML page's path; the page names no URL" $?
if grep -q '"error"' "$work/tiny.json"; then
  # Until the SQL engine is built every question is reported unsupported (exit 3).
  [[ $rc == 3 ]] && grep -q "SQL engine" "$work/tiny.json"
  check "bench without the SQL engine: questions unsupported, exit 3" $?
else
  [[ $rc == 0 ]]
  check "bench exits 0" $?
  python3 - "$work/tiny.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["questions"][0]["results"]
assert r[0]["data_files_opened"] == 4, r[0]   # unsorted: customer 7 is in every file
assert r[1]["data_files_opened"] <= 12, r[1]
assert r[0]["rows"] == 1 and r[0]["first_value"] == r[1]["first_value"], r
PY
  check "bench: files opened per design" $?
  # Each floe result carries the stats object `floe query --stats` prints, the same keys and
  # the same figures as the result's own.
  "$floe" --warehouse "$work/report/warehouse" --quiet query --format json --stats \
    -e "SELECT count(*) FROM b.ev_a WHERE customer_id = 7" >"$work/query_stats.json"
  python3 - "$work/tiny.json" "$work/query_stats.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
q = json.load(open(sys.argv[2]))["stats"]
for r in d["questions"][0]["results"]:
    s = r["stats"]
    assert s.keys() == q.keys(), (s.keys(), q.keys())
    assert s["data_files_opened"] == r["data_files_opened"], r
    assert s["bytes_fetched"] == r["bytes_fetched"], r
    assert s["requests"] == {k: v for k, v in r["requests"].items() if k != "POST"}, r
assert d["questions"][0]["results"][0]["stats"]["data_files_skipped"] == {"partition": 0, "bounds": 0}
PY
  check "bench --json: each result's stats object is floe query's" $?
fi
# bench builds in a warehouse of its own and never drops a table it did not make: a user's table
# named like a design, in --warehouse, is untouched.
"$floe" --warehouse "$work/wh" --quiet table create b.ev_a --schema '[{"name":"id","type":"long"}]' >/dev/null &&
  printf 'id\n1\n2\n' >"$work/user.csv" &&
  "$floe" --warehouse "$work/wh" --quiet table append b.ev_a "$work/user.csv" >/dev/null
check "a user's table b.ev_a in --warehouse" $?
mkdir -p "$work/tmp"
TMPDIR="$work/tmp" "$floe" --warehouse "$work/wh" --quiet bench "$work/tiny.yaml" --rounds 1 --warmup 0 \
  --json "$work/tiny2.json" >/dev/null 2>"$work/bench2.err"
rc=$?
[[ $rc == 0 || $rc == 3 ]] && [[ "$("$floe" --warehouse "$work/wh" query --format csv -e 'select count(*) from b.ev_a' | tail -1)" == 2 ]]
status=$?; check "bench without --out leaves --warehouse's b.ev_a alone: rc=$rc $(cat "$work/bench2.err")" "$status"
[[ -z "$(ls -A "$work/tmp")" && ! -e "$work/wh/b.db/ev_b" ]]
check "bench without --out builds in a temporary warehouse and removes it" $?
# The same --out again: bench replaces the tables it made there.
"$floe" --quiet bench "$work/tiny.yaml" --rounds 1 --warmup 0 --json "$work/tiny3.json" \
  --out "$work/report" >/dev/null 2>"$work/bench3.err"
rc=$?
python3 - "$work/tiny3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["data_files"] for x in d["designs"]] == [4, 12], d["designs"]
PY
[[ $? == 0 && ( $rc == 0 || $rc == 3 ) ]]
status=$?; check "bench rebuilds its own tables in OUT/warehouse: rc=$rc $(cat "$work/bench3.err")" "$status"
# A table bench did not make, in OUT/warehouse: an error naming it, and the table kept.
"$floe" --warehouse "$work/other/warehouse" --quiet table create b.ev_b --schema '[{"name":"id","type":"long"}]' >/dev/null
expect_error "bench: refuses to replace a table it did not make" \
  "design 'B': table 'b.ev_b' already exists in the warehouse file://$work/other/warehouse and floe bench did not create it; bench replaces only the tables it made" \
  -- "$floe" --quiet bench "$work/tiny.yaml" --rounds 1 --warmup 0 --out "$work/other"
"$floe" --warehouse "$work/other/warehouse" --quiet table describe b.ev_b >/dev/null
check "the refused bench kept b.ev_b" $?
expect_error "bench: bad worksheet names the key" "designs[0].colour" -- bash -c \
  "printf 'source: {generator: events}\ndesigns: [{name: A, colour: red}]\nquestions: [{name: q, sql: x}]\n' >'$work/bad.yaml'; '$floe' --quiet bench '$work/bad.yaml'"
expect_error "bench: missing worksheet" "cannot be read" -- "$floe" bench "$work/none.yaml"

# A worksheet's source can be a table of the user's --warehouse, read at a pinned snapshot (its
# current one by default, named in the JSON and the report); bench still builds in its own.
"$floe" --warehouse "$work/user" --quiet table create u.src --like "$work/g1/events-00000.parquet" >/dev/null &&
  "$floe" --warehouse "$work/user" --quiet table append u.src "$work/g1" >/dev/null &&
  first_snap="$("$floe" --warehouse "$work/user" query --format csv -e 'SELECT snapshot_id FROM u.src.snapshots' | tail -1)" &&
  "$floe" --warehouse "$work/user" --quiet table append u.src "$work/g3" >/dev/null &&
  now_snap="$("$floe" --warehouse "$work/user" query --format csv -e 'SELECT snapshot_id FROM u.src.snapshots ORDER BY committed_at DESC LIMIT 1' | tail -1)"
check "a user's table u.src in two snapshots" $?
cat >"$work/fromtable.yaml" <<YAML
name: fromtable
table: b.ev
source: {table: u.src, snapshot: $first_snap, writes: 2}
designs: [{name: A}, {name: B, partition_by: day(event_ts)}]
questions: [{name: n, sql: 'SELECT count(*), count(DISTINCT customer_id) FROM {table}'}]
YAML
"$floe" --warehouse "$work/user" --quiet bench "$work/fromtable.yaml" --rounds 1 --warmup 0 \
  --json "$work/fromtable.json" --out "$work/fromtable" >/dev/null 2>"$work/fromtable.err"
status=$?; check "bench from a pinned table exits 0: $(cat "$work/fromtable.err")" "$status"
want_distinct="$("$floe" --warehouse "$work/user" query --format csv -e "SELECT count(DISTINCT customer_id) FROM u.src FOR VERSION AS OF $first_snap" | tail -1)"
python3 - "$work/fromtable.json" "$first_snap" "$want_distinct" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == {"table": "u.src", "snapshot_id": int(sys.argv[2])}, d["source"]
assert [x["rows"] for x in d["designs"]] == [20000, 20000], d["designs"]
assert d["designs"][0]["data_files"] == 2, d["designs"]       # writes: 2
r = d["questions"][0]["results"]
assert [x["first_value"] for x in r] == ["20000", "20000"] or [x["first_value"] for x in r] == [20000, 20000], r
PY
check "bench from u.src at its first snapshot: 20000 rows in 2 writes, the snapshot named" $?
grep -q "Source: table \`u.src\` at snapshot $first_snap" "$work/fromtable/fromtable.md"
check "the report names the source table and its snapshot" $?
sed -i "s/, snapshot: $first_snap//" "$work/fromtable.yaml"
"$floe" --warehouse "$work/user" --quiet bench "$work/fromtable.yaml" --rounds 1 --warmup 0 \
  --json "$work/fromtable2.json" --out "$work/fromtable" >/dev/null 2>"$work/fromtable2.err"
python3 - "$work/fromtable2.json" "$now_snap" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == {"table": "u.src", "snapshot_id": int(sys.argv[2])}, d["source"]
assert [x["rows"] for x in d["designs"]] == [40000, 40000], d["designs"]
PY
check "bench from u.src unpinned: its current snapshot, pinned for the run" $?
[[ "$("$floe" --warehouse "$work/user" query --format csv -e 'SELECT count(*) FROM u.src.snapshots' | tail -1)" == 2 ]]
check "the source table is left as it was" $?
# advise against the table in the user's warehouse: its source is that table at its current
# snapshot, same-shape questions merge (their count the daily weight), and what floe cannot ask
# (another table, a DELETE, a function floe lacks) is listed in a comment -- then it runs as is.
cat >"$work/ulog.sql" <<'SQL'
SELECT * FROM u.src WHERE customer_id = 7;
SELECT * FROM u.src WHERE customer_id = 9;
SELECT * FROM u.src WHERE customer_id = 11;
SELECT count(*) FROM u.src WHERE event_ts >= '2024-01-02' AND event_ts < '2024-01-03';
SELECT count(*) FROM u.src WHERE event_ts >= '2024-01-04' AND event_ts < '2024-01-05';
SELECT s.country, count(*) FROM u.src s JOIN u.dim d ON s.customer_id = d.id GROUP BY 1;
DELETE FROM u.src WHERE customer_id = 1;
SELECT no_such_function(amount) FROM u.src;
SQL
"$floe" --warehouse "$work/user" advise --queries "$work/ulog.sql" --table u.src >"$work/uadvised.yaml"
u="$work/uadvised.yaml"
grep -Pzo "source:\n  table: u.src\n  snapshot: $now_snap\n" "$u" >/dev/null &&
  [[ "$(grep -c '^  - name: q' "$u")" == 2 ]] &&
  grep -Pzo '    sql: "SELECT \* FROM \{table\} WHERE customer_id = 7"\n    daily: 3\n' "$u" >/dev/null &&
  grep -Pzo "    sql: \"SELECT count\(\*\) FROM \{table\} WHERE event_ts >= '2024-01-02' AND event_ts < '2024-01-03'\"\n    daily: 2\n" "$u" >/dev/null &&
  grep -q '^#      -> also reads u.dim, which' "$u" && grep -q '^#   1x DELETE FROM u.src WHERE customer_id = 1$' "$u" &&
  grep -q '^#      -> floe cannot run it: unsupported: .*no_such_function' "$u"
check "advise --warehouse: the table as source at its snapshot, shapes merged, the rest commented" $?
"$floe" --warehouse "$work/user" --quiet bench "$work/uadvised.yaml" --rounds 1 --warmup 0 >/dev/null 2>"$work/uadvised.err"
status=$?; check "the advised worksheet runs as it is: $(cat "$work/uadvised.err")" "$status"
expect_error "bench: a missing source table" "source.table: table 'u.nope' does not exist" -- bash -c \
  "sed 's/u.src/u.nope/' '$work/fromtable.yaml' >'$work/bad3.yaml'; '$floe' --warehouse '$work/user' --quiet bench '$work/bad3.yaml'"
expect_error "bench: a source snapshot the table lacks" "source.table: table u.src has no snapshot 12345" -- bash -c \
  "sed 's/table: u.src/table: u.src, snapshot: 12345/' '$work/fromtable.yaml' >'$work/bad4.yaml'; '$floe' --warehouse '$work/user' --quiet bench '$work/bad4.yaml'"

# bench with changes: the orders workload's MERGE rounds on copy-on-write, merge-on-read (v2) and
# deletion vectors (v3), exact table states, the same answers on all three before and after
# compaction, and a schedule.
cat >"$work/orders.yaml" <<'YAML'
name: orders
table: b.orders
source: {generator: orders, rows: 8000, seed: 3, writes: 1}
designs:
  - name: cow
    partition_by: bucket(8, order_id)
  - name: mor
    partition_by: bucket(8, order_id)
    properties: {write.merge.mode: merge-on-read}
  - name: dv
    partition_by: bucket(8, order_id)
    properties: {write.merge.mode: merge-on-read, format-version: '3'}
changes:
  sql: >-
    MERGE INTO {table} t USING {changes} s ON t.order_id = s.order_id
    WHEN MATCHED THEN UPDATE SET status = s.status, updated_ts = s.updated_ts
  fraction: 0.01
  rounds: 2
  daily: 4
questions:
  - name: returned
    sql: SELECT count(*) FROM {table} WHERE status = 'returned'
    daily: 50
YAML
"$floe" --quiet bench "$work/orders.yaml" --rounds 2 --warmup 1 --json "$work/orders.json" \
  --out "$work/orders-report" >"$work/orders.out" 2>"$work/orders.err"
status=$?; check "bench with changes exits 0: $(cat "$work/orders.err")" "$status"
python3 - "$work/orders.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ch = {c["design"]: c for c in d["changes"]}
# 3 MERGEs (a warm-up and 2 rounds) of 80 rows each, no row twice: copy-on-write keeps one file per
# bucket; merge-on-read adds a file of new rows per bucket each time and deletes 240 positions in
# all, every one in the 8 first files -- one delete file (or vector) each, merged round after round.
assert ch["cow"]["after_changes"]["data_files"] == 8 and ch["cow"]["after_changes"]["delete_files"] == 0, ch["cow"]
for m in ("mor", "dv"):
    a = ch[m]["after_changes"]
    assert a["data_files"] == 32 and a["deleted_positions"] == 240 and a["delete_files"] == 8, (m, a)
    assert ch[m]["after_compaction"]["data_files"] == 8, (m, ch[m])
    assert ch[m]["latency_ms"]["runs"] == 2, ch[m]
q = {r["design"]: r for r in d["questions"][0]["results"]}
assert q["cow"]["data_files_opened"] == 8 and q["mor"]["data_files_opened"] == 32, q
assert q["cow"]["first_value"] == q["mor"]["first_value"] == q["dv"]["first_value"], q
after = {r["design"]: r for r in d["questions_after_compaction"][0]["results"]}
assert all(after[m]["data_files_opened"] == 8 for m in after), after
assert "cheapest schedule" in d["schedule"], d["schedule"]
PY
check "bench with changes: exact states, one answer on every design, compaction, a schedule" $?
[[ -f "$work/orders-report/orders-schedule.svg" ]] && grep -q "The schedule, not the mode" "$work/orders-report/orders.md"
check "bench with changes: the schedule chart and section in the report" $?
expect_error "bench: changes without {changes}" "must name the round's rows as {changes}" -- bash -c \
  "sed 's/USING {changes}/USING b.x/' '$work/orders.yaml' >'$work/bad2.yaml'; '$floe' --quiet bench '$work/bad2.yaml'"

echo "bench CLI: $pass passed, $fails failed"
[[ $fails == 0 ]]
