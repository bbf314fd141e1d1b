#!/usr/bin/env bash
# The command-line contract of docs/cli.md: help lists every subcommand, errors are one line on stderr
# with a non-zero exit, global flags are accepted before or after the subcommand.
set -u
floe="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fails=0
pass=0

check() {  # check NAME CONDITION-EXIT-CODE
  if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi
}

# expect_error NAME EXPECTED_SUBSTRING -- CMD...: non-zero exit, exactly one stderr line naming it.
expect_error() {
  local name="$1" want="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $rc -ne 0 && $lines -eq 1 ]] && grep -qF -- "$want" "$work/err"; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc, stderr ($lines lines):" >&2
    cat "$work/err" >&2
    check "$name" 1
  fi
}

"$floe" --help >"$work/help" 2>&1
check "--help exits 0" $?
for sub in demo bench advise query gen table parquet store help; do
  grep -qE "^  $sub( |$)" "$work/help"
  check "--help lists '$sub'" $?
done
grep -q -- "--simulate-s3" "$work/help"
check "--help documents --simulate-s3" $?
# The long help once, in floe help; each --help points at it in one line.
"$floe" help simulate-s3 | grep -q "first_byte_ms \[25\]"
check "floe help simulate-s3 gives the simulated store's settings" $?
"$floe" help exit-codes | grep -q "^  2  invalid input"
check "floe help exit-codes" $?
"$floe" gen --help >"$work/genhelp" 2>&1
[[ "$(grep -c "first_byte_ms" "$work/genhelp")" == 0 ]] && grep -q "floe help simulate-s3" "$work/genhelp"
check "a subcommand's --help points at floe help instead of repeating it" $?
"$floe" --version | grep -qE '^floe [0-9]+\.[0-9]+\.[0-9]+$'
check "--version" $?

expect_error "unknown flag" "--no-such-flag" -- "$floe" --no-such-flag
expect_error "unknown subcommand" "frobnicate" -- "$floe" frobnicate
expect_error "a subcommand names its own bad flag" "--no-such-flag" -- "$floe" demo --no-such-flag
# Parse errors name the command and point at its help; a misspelt command gets a suggestion.
expect_error "a misspelt command" "unknown command 'querry' (did you mean 'query'?); see floe --help" -- "$floe" querry -e "select 1"
expect_error "a misspelt command after a global option's value" "unknown command 'querry'" -- "$floe" --warehouse "$work/wh" querry
expect_error "a misspelt subcommand" "table: unknown command 'lst' (did you mean 'list'?); see floe table --help" -- "$floe" table lst
expect_error "a missing argument names its command" "table create: table is required; see floe table create --help" -- "$floe" table create
expect_error "a bad flag names its command" "query: The following argument was not expected: --bogus; see floe query --help" -- "$floe" query --bogus

# Store access by URI, with global flags before and after the subcommand.
echo -n "hello floe" >"$work/hello.txt"
mkdir -p "$work/store"
"$floe" --quiet store put "file://$work/store/dir/hello.txt" "$work/hello.txt"
check "store put" $?
[[ "$("$floe" store get "$work/store/dir/hello.txt" --quiet)" == "hello floe" ]]
check "store get by plain path, global flag after the subcommand" $?
"$floe" store ls "file://$work/store" | grep -qE "^ +10  dir/hello.txt$"
check "store ls" $?
# ls and head as rows in the result formats: key, size, last_modified (ISO 8601, Z), etag.
[[ "$("$floe" store ls "$work/store" --format csv | cut -d, -f1,2)" == $'key,size\ndir/hello.txt,10' ]] &&
  "$floe" store ls "$work/store" --format csv | tail -1 | cut -d, -f3 | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' &&
  "$floe" store head "$work/store/dir/hello.txt" --format json |
    grep -qE '^\{"columns": \["key", "size", "last_modified", "etag"\], "types": \["string", "long", "timestamptz", "string"\], "rows": \[\["hello.txt", 10, "[0-9T:.Z-]+", '
check "store ls --format csv, head --format json" $?
expect_error "store ls: a format that is none" "store ls: --format: 'xml' is not a format: text, table, csv, json, jsonl or markdown" -- "$floe" store ls "$work/store" --format xml
expect_error "missing object names the key" "not found: object 'missing.txt'" -- "$floe" store get "$work/store/missing.txt"
expect_error "bad URI scheme" "gs://bucket" -- "$floe" store ls gs://bucket/x
expect_error "bad --simulate-s3 setting" "bogus" -- "$floe" --simulate-s3=bogus=1 store ls "$work/store"
"$floe" store rm "$work/store/dir/hello.txt" && [[ ! -e "$work/store/dir/hello.txt" ]]
check "store rm" $?

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
