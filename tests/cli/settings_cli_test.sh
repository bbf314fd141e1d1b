#!/usr/bin/env bash
# Read settings (src/floe/sql/settings.h) from the command line: --set NAME=VALUE on query and
# table scan, SQL SET / RESET / SHOW in a session, SELECT * FROM floe_settings(), the --help
# listing; a setting changes the exact request count; bad names and values are one-line errors.
set -u
floe="$1"
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
# The GETs of the last JSON object a command prints.
gets() { "$@" | tail -1 | grep -o '"GET": [0-9]*' | grep -o '[0-9]*$'; }

# One data file of about 190 KB: under read.whole-file-bytes' default (2 MiB) it is fetched whole
# in one GET; with the threshold below its length, as a tail and then the projected columns.
f gen events --rows 20000 --out "$work/ev.parquet" >/dev/null
f table create db.ev --like "$work/ev.parquet" >/dev/null
f table append db.ev "$work/ev.parquet" >/dev/null
q="select sum(amount) as s from db.ev where customer_id > 5"
base=$(gets f query --format json --stats -e "$q")
[[ -n "$base" && "$base" -gt 0 ]]
check "a baseline GET count ($base)" $?
[[ "$(gets f query --format json --stats --set read.whole-file-bytes=0 -e "$q")" == $((base + 1)) ]]
check "--set read.whole-file-bytes=0 costs the file one more GET" $?
[[ "$(gets f query --format json --stats --set read.whole-file-bytes=64KiB -e "$q")" == $((base + 1)) ]]
check "sizes take units: 64KiB is under the file's length" $?
[[ "$(gets f query --format json --stats --set read.whole-file-bytes=1MB -e "$q")" == "$base" ]]
check "1MB is over the file's length: one GET again" $?
[[ "$(gets f query --format json --stats --set read.whole-file-bytes=0 --set read.whole-file-bytes=2MiB -e "$q")" == "$base" ]]
check "a later --set wins" $?
[[ "$(gets f query --format json --stats -e "SET read.whole-file-bytes = 0; $q")" == $((base + 1)) ]]
check "SQL SET applies to the later statements of the session" $?
# One session: after the first statement the metadata and the file's footer are cached, so the
# warm statement with read.whole-file-bytes=0 fetches only the projected column (1 GET); without
# the footer cache it fetches the tail first (2); RESET gives back the whole-file GET (1).
printf '%s;\nSET read.whole-file-bytes = 0;\n%s;\nSET read.footer-cache-enabled = false;\n%s;\nRESET read.whole-file-bytes;\n%s;\n' \
  "$q" "$q" "$q" "$q" >"$work/s.sql"
g="$(f query --format json --stats -f "$work/s.sql" | grep -o '"GET": [0-9]*' | grep -o '[0-9]*$' | tr '\n' ' ')"
[[ "$g" == "$base 0 1 0 2 0 1 " ]]
check "SET and RESET in one session (-f with several statements: $g)" $?
mr=$(gets f query --format json --stats --read-strategy parquet-mr -e "$q")
[[ "$mr" != "$base" && "$(gets f query --format json --stats --set read.strategy=parquet-mr -e "$q")" == "$mr" ]]
check "read.strategy is --read-strategy ($mr GETs)" $?
[[ "$(gets f query --format json --stats --read-strategy parquet-mr --set read.strategy=floe -e "$q")" == "$base" ]]
check "--set is applied over --read-strategy" $?
scan=$(gets f table scan db.ev --columns amount --where "customer_id > 5" --format json --stats)
[[ -n "$scan" && "$(gets f table scan db.ev --columns amount --where "customer_id > 5" --format json --stats --set read.whole-file-bytes=0)" == $((scan + 1)) ]]
check "table scan takes --set" $?

# A table's properties of the same names are its defaults: under --set, SET and a typed flag.
f table create db.tp --like "$work/ev.parquet" --property read.whole-file-bytes=0 \
  --property read.strategy=parquet-mr >/dev/null
f table append db.tp "$work/ev.parquet" >/dev/null
qt="select sum(amount) as s from db.tp where customer_id > 5"
[[ "$(gets f query --format json --stats -e "$qt")" == "$mr" ]]
check "a table's read.strategy property is the default of a query over it" $?
[[ "$(gets f query --format json --stats --read-strategy floe -e "$qt")" == $((base + 1)) ]]
check "a typed --read-strategy wins over the property; read.whole-file-bytes=0 still holds" $?
[[ "$(gets f query --format json --stats --set read.strategy=floe --set read.whole-file-bytes=2MiB -e "$qt")" == "$base" ]]
check "--set wins over the table's properties" $?
[[ "$(gets f query --format json --stats -e "SET read.strategy = floe; RESET read.whole-file-bytes; $qt")" == $((base + 1)) ]]
check "SQL SET wins over a property, RESET gives the property back" $?
f table create db.bad --like "$work/ev.parquet" --property read.baseline-tasks=0 >/dev/null
f table append db.bad "$work/ev.parquet" >/dev/null
expect_error "a bad table property" "table db.bad property read.baseline-tasks: '0' is out of range (1 to 1024)" query -e "select count(*) from db.bad"

# floe_settings(): every setting with the value in effect.
[[ "$(f query --format csv -e "SET read.request-budget = 32; select value, default_value from floe_settings() where name = 'read.request-budget'")" == $'value,default_value\n32,64' ]]
check "SET then floe_settings() shows the value" $?
[[ "$(f query --format csv --set read.coalesce-gap-bytes=1MiB --read-objective requests -e "select name, value from floe_settings() where name in ('read.coalesce-gap-bytes', 'read.objective') order by name")" == $'name,value\nread.coalesce-gap-bytes,1048576\nread.objective,requests' ]]
check "--set and --read-objective show in floe_settings()" $?
n=$(f query --format csv -e "select count(*) as n from floe_settings()" | tail -1)
[[ "$n" -ge 14 ]]
check "floe_settings() lists every setting ($n)" $?
[[ "$(f query --format csv -e "SET read.objective TO 'cost'; SHOW read.objective")" == $'read.objective\ncost' ]]
check "SET ... TO and SHOW" $?
[[ "$(f query -e "SET read.threads = 2")" == "SET read.threads = 2" ]]
check "SET answers with one line" $?

f query --help >"$work/help"
for s in read.strategy read.objective read.request-budget read.whole-file-bytes read.coalesce-gap-bytes \
  read.max-request-bytes read.footer-size-hint read.latency-slack read.threads \
  read.footer-cache-bytes read.metadata-cache-bytes read.max-buffered-bytes; do
  grep -q "^  $s " "$work/help" || { echo "FAIL: --help lacks $s" >&2; fails=$((fails + 1)); }
done
check "query --help lists the settings" 0
f bench --help | grep -q -- "--set" && f demo --help | grep -q -- "--set" && f table scan --help | grep -q -- "--set"
check "bench, demo and table scan take --set" $?

expect_error "--set out of range" "setting read.request-budget: '0' is out of range (1 to 4096)" query --set read.request-budget=0 -e "select 1"
expect_error "--set unknown setting" "unknown setting 'read.nope'" query --set read.nope=1 -e "select 1"
expect_error "--set without =" "expected NAME=VALUE" query --set read.threads -e "select 1"
expect_error "--set bad size" "setting read.max-buffered-bytes: '12XB' is not a size" query --set read.max-buffered-bytes=12XB -e "select 1"
expect_error "--set bad choice" "setting read.objective: 'fast' is not one of latency|requests|cost" query --set read.objective=fast -e "select 1"
expect_error "table scan --set out of range" "setting read.footer-size-hint: '4' is out of range (8 to 64 MiB)" table scan db.ev --set read.footer-size-hint=4
expect_error "SQL SET out of range" "setting read.latency-slack: '11' is out of range (0 to 10)" query -e "SET read.latency-slack = 11"
expect_error "SQL SET unknown" "unknown setting 'nope'" query -e "SET nope = 1"
expect_error "SQL SET without value" "SET read.threads: expected '=' and a value" query -e "SET read.threads"
expect_error "RESET unknown" "unknown setting 'read.x'" query -e "RESET read.x"
expect_error "unknown table function" "table function nope() does not exist" query -e "select * from nope()"

echo "settings CLI: $pass passed, $fails failed"
[[ $fails -eq 0 ]]
