#!/usr/bin/env bash
# SET memory_limit through `floe query` on a generated table (floe gen orders): a self-join and a
# GROUP BY whose in-memory state is several times the limit complete, print the answer they print
# without a limit, report spilled_bytes in --stats, and peak at a resident set well below the run
# without a limit (measured on the same machine in this test: the limit run must stay under 70% of
# the unlimited one). Under AddressSanitizer (second argument "asan") the RSS comparison is skipped:
# its shadow memory and quarantine of freed blocks inflate the resident set of both runs. Bad
# values and an unwritable temp_directory are one-line errors.
set -u
floe="$1"
sanitized="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
f() { "$floe" --warehouse "$wh" --quiet "$@"; }
expect_error() {  # NAME SUBSTRING ARGS...
  local name="$1" want="$2"
  shift 2
  f "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ne 0 && $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$want" "$work/err"; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    check "$name" 1
  fi
}
# Runs floe with ARGS, its stdout to $work/out; prints the child's peak RSS in KiB.
peak_rss() {
  python3 - "$work/out" "$floe" --warehouse "$wh" --quiet "$@" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)
PY
}
spilled() { grep -o '"spilled_bytes": [0-9]*' "$work/out" | grep -o '[0-9]*$'; }
answer() { grep -v '"stats"' "$work/out" | grep -v '^{"data_files_opened"'; }

f gen orders --rows 1000000 --out "$work/or" >/dev/null
first="$(ls "$work"/or/*.parquet | head -1)"
f table create db.o --like "$first" >/dev/null
for p in "$work"/or/*.parquet; do f table append db.o "$p" >/dev/null; done

# The join's build side (1M order timestamps and item counts with their hash table; timestamps, as
# keys far apart, are hashed -- dense order ids would be looked up by value, in far less memory) is
# about 80 MB by the budget's estimate: 20MB is a quarter. The GROUP BY's 250,000 groups with their COUNT(DISTINCT)
# sets and the values median keeps take about 520 MB more resident memory than a plain scan:
# 128MB is a quarter.
join="select count(*) as n, sum(b.item_count) as q from db.o a join db.o b on a.order_ts = b.order_ts"
group="select count(*) as n, sum(c) as c, min(m) as lo, max(m) as hi from (select order_id % 250000 as g, count(distinct customer_id) as c, median(item_count) as m from db.o group by g) t"
for q in "$join" "$group"; do
  kind=$([[ "$q" == "$join" ]] && echo join || echo group-by)
  limit=$([[ "$q" == "$join" ]] && echo 20MB || echo 128MB)
  rss_free=$(peak_rss query --format csv --stats -e "$q")
  want="$(answer)"
  [[ "$rss_free" -gt 0 && -z "$(spilled)" ]]
  check "$kind without a limit: answers ($want), spills nothing" $?
  rss_limit=$(peak_rss query --format csv --stats --set memory_limit=$limit -e "$q")
  got="$(answer)"
  bytes="$(spilled)"
  [[ "$rss_limit" -gt 0 && "$got" == "$want" && -n "$bytes" && "$bytes" -gt 0 ]]
  check "$kind under memory_limit=$limit: the same answer ($got), spilled ${bytes:-0} bytes" $?
  echo "$kind: peak RSS $((rss_free / 1024)) MiB without a limit, $((rss_limit / 1024)) MiB with $limit; spilled ${bytes:-0} bytes"
  if [[ "$sanitized" != asan ]]; then
    [[ $((rss_limit * 10)) -lt $((rss_free * 7)) ]]
    check "$kind: peak RSS under the limit ($rss_limit KiB) below 70% of the unlimited run's ($rss_free KiB)" $?
  fi
done

# SET in a session, the settings listing, RESET.
[[ "$(f query --format csv -e "SET memory_limit = '512MiB'; SELECT value FROM floe_settings() WHERE name = 'memory_limit'" | tail -1)" == 536870912 ]]
check "SET memory_limit = '512MiB' shows in floe_settings()" $?
expect_error "a bad memory_limit" "setting memory_limit: 'plenty'" query --set memory_limit=plenty -e "select 1"
expect_error "an unwritable temp_directory" "temp_directory '/proc/floe-spill-test'" \
  query --set memory_limit=2MB --set temp_directory=/proc/floe-spill-test -e "$join"

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
