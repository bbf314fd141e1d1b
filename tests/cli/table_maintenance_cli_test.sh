#!/usr/bin/env bash
# `floe table rewrite|rewrite-manifests|expire|remove-orphans` and `files` as CLI.md gives them:
# the summary lines, the table left readable with the same rows, and bad input as one line on
# stderr with a non-zero exit and no change to the table.
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
  local before
  before="$(ls "$wh/db.db/t/metadata" | sort)"
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ne 0 && $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$want" "$work/err" &&
     [[ "$(ls "$wh/db.db/t/metadata" | sort)" == "$before" ]]; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    check "$name" 1
  fi
}
f() { "$floe" --warehouse "$wh" --quiet "$@"; }
ids() { f table scan db.t --format csv | tail -n +2 | cut -d, -f1 | sort -n | tr '\n' ' '; }

f table create db.t --schema '[{"name":"id","type":"long","required":true},{"name":"name","type":"string"}]' --sort-by 'id' >/dev/null
check "create" $?
for b in 0 1 2 3 4 5; do
  { echo "id,name"; for i in 0 1 2 3 4 5 6 7 8 9; do echo "$((i * 6 + b)),n$((i * 6 + b))"; done; } >"$work/b$b.csv"
  f table append db.t "$work/b$b.csv" >/dev/null || check "append $b" 1
done
want="$(seq 0 59 | tr '\n' ' ')"
[[ "$(ids)" == "$want" ]]
check "six appends read back" $?
[[ "$(f table files db.t | tail -1)" == "6 data files" ]]
check "files: six" $?
f table files db.t | grep -q "    id                   \[0 .. 54\] nulls=0"
check "files: bounds per column from the files metadata table" $?

f table rewrite db.t --dry-run | grep -q "would rewrite 6 files"
check "rewrite --dry-run plans one group of six" $?
out="$(f table rewrite db.t --strategy sort)"
echo "$out" | grep -Eq "^rewrote db.t \(sort\): files in 6 -> out 1, bytes in [0-9.]+ MB -> out [0-9.]+ MB, 60 records, 1 groups, 1 commits, [0-9]+ ms$"
check "rewrite sort summary: $out" $?
[[ "$(ids)" == "$want" ]]
check "rows unchanged after the sort rewrite" $?
[[ "$(f table files db.t | tail -1)" == "1 data files" ]]
check "one file after the rewrite" $?
f table snapshots db.t | grep -q "replace"
check "snapshots show the replace" $?
[[ "$(f table scan db.t --format csv | tail -n +2 | cut -d, -f1 | tr '\n' ' ')" == "$want" ]]
check "the rewritten file is sorted by id" $?

out="$(f table rewrite db.t)"
[[ "$out" == *"files in 0 -> out 0"* && "$out" == *"nothing to rewrite: no partition has 5 or more files"*"--rewrite-all"* ]]
check "binpack leaves a single file alone, and says why: $out" $?
f table rewrite db.t --strategy sort --sort-by 'id DESC' --rewrite-all >/dev/null
[[ "$(f table scan db.t --format csv | tail -n +2 | cut -d, -f1 | head -1)" == "59" ]]
check "rewrite --sort-by 'id DESC' --rewrite-all" $?
f table rewrite-manifests db.t | grep -Eq "^rewrote manifests of db.t: manifests in [0-9]+ -> out 1, 1 entries"
check "rewrite-manifests" $?

out="$(f table expire db.t)"
[[ "$out" == "expired 0 snapshots of db.t"* && "$out" == *"nothing to expire: no snapshot is older than the table's history.expire.max-snapshot-age-ms (Iceberg's default: 5 days)"*"--older-than AGE"* ]]
check "expire: defaults keep snapshots younger than 5 days, and it says so: $out" $?
out="$(f table expire db.t --older-than 0s --retain-last 1)"
[[ "$out" == "expired 8 snapshots of db.t: deleted 7 data files, 0 position delete files, 0 equality delete files ("*" MB), 15 manifests, 8 manifest lists, "*" ms" ]]
check "expire --older-than 0s --retain-last 1: $out" $?
[[ "$(ids)" == "$want" ]]
check "rows unchanged after expiry" $?
[[ "$(find "$wh/db.db/t/data" -type f | wc -l)" == 1 ]]
check "expiry left only the live data file" $?

touch "$wh/db.db/t/data/stray.parquet"
out="$(f table remove-orphans db.t)"
[[ -f "$wh/db.db/t/data/stray.parquet" && "$out" == *"removed 0 orphan files"*"1 unreferenced but too new"* ]]
check "remove-orphans keeps files younger than 3 days: $out" $?
f table remove-orphans db.t --older-than 0s --dry-run | grep -q "^orphan file://$wh/db.db/t/data/stray.parquet$"
check "remove-orphans --dry-run lists the stray file" $?
[[ -f "$wh/db.db/t/data/stray.parquet" ]]
check "dry run deleted nothing" $?
# Iceberg warns that a short interval deletes the files of writes in flight: refused under 24 h.
expect_error "remove-orphans refuses an age under the 24 h floor" \
  "--older-than 0s: less than 24 hours ago, so the files of a write still in flight would be deleted and its commit would reference missing files; use an older time, or --unsafe-allow-recent when no write can be running" \
  -- f table remove-orphans db.t --older-than 0s
expect_error "remove-orphans refuses 23 hours too" "--older-than 23h: less than 24 hours ago" \
  -- f table remove-orphans db.t --older-than 23h
[[ -f "$wh/db.db/t/data/stray.parquet" ]]
check "the refused removal deleted nothing" $?
f table remove-orphans db.t --older-than 0s --unsafe-allow-recent >"$work/out" 2>"$work/err"
rc=$?
[[ $rc == 0 && ! -f "$wh/db.db/t/data/stray.parquet" ]] && grep -q "removed 1 orphan files" "$work/out" &&
  grep -q "^floe: warning: --unsafe-allow-recent: deleting unreferenced files younger than 24 hours" "$work/err"
check "--unsafe-allow-recent lifts the floor, loudly" $?
[[ "$(ids)" == "$want" ]]
check "rows intact after the unsafe removal" $?
touch "$wh/db.db/t/data/stray.parquet"
touch -d '4 days ago' "$wh/db.db/t/data/stray.parquet"
f table remove-orphans db.t | grep -q "removed 1 orphan files"
check "remove-orphans deletes an old stray file" $?
[[ ! -f "$wh/db.db/t/data/stray.parquet" && "$(ids)" == "$want" ]]
check "stray gone, rows intact" $?

expect_error "bad strategy" "--strategy" -- f table rewrite db.t --strategy zorder
expect_error "bad size" "--target-file-size" -- f table rewrite db.t --target-file-size 2XB
expect_error "sort-by without sort" "--sort-by needs --strategy sort" -- f table rewrite db.t --sort-by id
expect_error "bad sort column" "sort order" -- f table rewrite db.t --strategy sort --sort-by nosuch
expect_error "bad where" "--where" -- f table rewrite db.t --where 'id ~ 3'
expect_error "bad time" "--older-than '3 weeks'" -- f table expire db.t --older-than '3 weeks'
expect_error "bad retain" "--retain-last" -- f table expire db.t --retain-last -2
expect_error "missing table" "db.nope" -- f table rewrite db.nope

# An unreadable manifest list fails the expiry before it commits: metadata unchanged (checked by
# expect_error), every data file kept.
f table append db.t "$work/b0.csv" >/dev/null && f table append db.t "$work/b1.csv" >/dev/null
check "two more appends" $?
list="$(ls "$wh"/db.db/t/metadata/snap-*.avro | head -1)"
for l in "$wh"/db.db/t/metadata/snap-*.avro; do [[ "$l" -ot "$list" ]] && list="$l"; done
cp "$list" "$work/list.bak"
echo "not avro" >"$list"
data_before="$(find "$wh/db.db/t/data" -type f | sort)"
expect_error "expire with an unreadable manifest list fails before committing" "corrupt: " \
  -- f table expire db.t --older-than 0s --retain-last 1
[[ "$(find "$wh/db.db/t/data" -type f | sort)" == "$data_before" ]]
check "the failed expiry deleted no data file" $?
cp "$work/list.bak" "$list"
out="$(f table expire db.t --older-than 0s --retain-last 1)"
[[ "$out" == "expired 2 snapshots of db.t: deleted 0 data files, 0 position delete files, 0 equality delete files (0.0 MB), 0 manifests, 2 manifest lists, "* ]]
check "expire counts exactly: appends drop no file ($out)" $?

echo "table maintenance CLI: $pass passed, $fails failed"
[[ $fails == 0 ]]
