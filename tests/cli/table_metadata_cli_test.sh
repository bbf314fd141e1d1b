#!/usr/bin/env bash
# A table whose metadata.json is damaged: refs pointing at a missing snapshot, and every field
# given a value of another JSON type or removed. Every command on it -- reads and writes -- fails
# with one line on stderr naming the metadata file, a non-zero exit below 128 (no abort), and
# leaves every file of the table as it was.
set -u
floe="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
f() { "$floe" --warehouse "$wh" --quiet "$@"; }
tbl=t
files() { find "$wh/db.db/$tbl" -type f | sort | xargs md5sum; }

f table create db.t --schema '[{"name":"id","type":"long","required":true},{"name":"day","type":"date"}]' \
  --partition-by 'day' >/dev/null
check "create" $?
printf 'id,day\n1,2024-01-01\n2,2024-01-02\n' >"$work/a.csv"
printf 'id,day\n3,2024-01-03\n' >"$work/b.csv"
f table append db.t "$work/a.csv" >/dev/null && f table append db.t "$work/b.csv" >/dev/null
check "two appends" $?
meta="$(ls "$wh"/db.db/t/metadata/*.metadata.json | sort | tail -1)"
cp "$meta" "$work/good.json"

# Runs a command on the damaged table: an error of one line naming the metadata file (and WANT),
# rc 1..127, and no file of the table changed.
expect_refused() {  # NAME WANT -- CMD...
  local name="$1" want="$2"
  shift 3
  local before
  before="$(files)"
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -ge 1 && $rc -lt 128 && $(wc -l <"$work/err") -eq 1 ]] &&
     grep -qF -- "table metadata 'file://$meta'" "$work/err" && grep -qF -- "$want" "$work/err" &&
     [[ "$(files)" == "$before" ]]; then
    check "$name" 0
  else
    echo "FAIL: $name: rc=$rc stderr: $(cat "$work/err")" >&2
    check "$name" 1
  fi
}

# refs.main at a snapshot the table lacks: not an empty table but corrupt metadata, for every
# command (an append would otherwise start a new history and expire delete the old one).
python3 - "$work/good.json" "$meta" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["refs"]["main"]["snapshot-id"] = 12345
json.dump(m, open(sys.argv[2], "w"))
PY
ref="ref 'main' points at snapshot 12345, which is not among its snapshots"
expect_refused "query on a dangling main ref" "$ref" -- f query -e "select count(*) from db.t"
expect_refused "append on a dangling main ref" "$ref" -- f table append db.t "$work/b.csv"
expect_refused "expire on a dangling main ref" "$ref" -- f table expire db.t --older-than 0s --retain-last 1
expect_refused "snapshots on a dangling main ref" "$ref" -- f table snapshots db.t
expect_refused "remove-orphans on a dangling main ref" "$ref" -- f table remove-orphans db.t --dry-run
cp "$work/good.json" "$meta"
[[ "$(f query --format csv -e 'select count(*) from db.t' | tail -1)" == 3 ]]
check "the restored metadata reads all three rows" $?

# A table of its own for what follows, whatever the commands above did.
tbl=u
f table create db.u --schema '[{"name":"id","type":"long","required":true},{"name":"day","type":"date"}]' \
  --partition-by 'day' >/dev/null && f table append db.u "$work/a.csv" >/dev/null &&
  f table append db.u "$work/b.csv" >/dev/null
check "create and fill db.u" $?
meta="$(ls "$wh"/db.db/u/metadata/*.metadata.json | sort | tail -1)"
cp "$meta" "$work/good.json"

# Every field of the file given values of other JSON types (two per field, in rotation) or
# removed: never an abort, and a command that fails says so in one line and changes nothing.
# Under the sanitizers (ASAN_OPTIONS set: CI's time budget, each run of the binary there takes
# ten times as long) one value of another type per field, still rotating through all eight.
mkdir -p "$work/m"
python3 - "$work/good.json" "$work/m" "${ASAN_OPTIONS:+thin}" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
thin = sys.argv[3] == "thin"
values = [None, True, -1, 2**40, 1.5, "x", [], {}]
paths = []
def walk(j, p):
    if p: paths.append(p)
    if isinstance(j, dict):
        for k, v in j.items(): walk(v, p + [k])
    elif isinstance(j, list):
        for i, v in enumerate(j): walk(v, p + [i])
walk(base, [])
n = 0
for i, p in enumerate(paths):
    others = [values[(i + 3 * (i % 2)) % 8]] if thin else [values[i % 8], values[(i + 3) % 8]]
    for v in others + ["<removed>"]:
        m = copy.deepcopy(base)
        parent = m
        for k in p[:-1]: parent = parent[k]
        if v == "<removed>":
            del parent[p[-1]]
        else:
            parent[p[-1]] = v
        json.dump(m, open(f"{sys.argv[2]}/{n:05d}.json", "w"))
        open(f"{sys.argv[2]}/{n:05d}.what", "w").write(f"{'/'.join(map(str, p))} = {json.dumps(v)}")
        n += 1
PY
cp "$wh/catalog.db" "$work/good.db"
find "$wh/db.db/u" -type f | sort >"$work/orig.list"
aborts=0
bad=0
refused=0
runs=0
for m in "$work"/m/*.json; do
  what="$(cat "${m%.json}.what")"
  cp "$m" "$meta"
  for cmd in describe query append; do
    before="$(files)"
    case $cmd in
      describe) f table describe db.u >/dev/null 2>"$work/err" ;;
      query) f query -e "select count(*), sum(id) from db.u" >/dev/null 2>"$work/err" ;;
      append) f table append db.u "$work/b.csv" >/dev/null 2>"$work/err" ;;
    esac
    rc=$?
    runs=$((runs + 1))
    if [[ $rc -ge 128 ]]; then
      aborts=$((aborts + 1))
      echo "ABORT rc=$rc: $cmd with $what" >&2
    elif [[ $rc -ne 0 ]]; then
      refused=$((refused + 1))
      if [[ $(wc -l <"$work/err") -ne 1 || "$(files)" != "$before" ]]; then
        bad=$((bad + 1))
        echo "BAD REFUSAL: $cmd with $what: $(cat "$work/err")" >&2
      fi
    fi
  done
  # Undo what a successful append did: its files and the catalog's pointer.
  find "$wh/db.db/u" -type f | sort | comm -13 "$work/orig.list" - | xargs -r rm -f
  cp "$work/good.db" "$wh/catalog.db"
  cp "$work/good.json" "$meta"
done
[[ $aborts == 0 ]]
check "no command aborted in $runs runs over mutated metadata ($refused refused)" $?
[[ $bad == 0 ]]
check "every refusal was one line and changed no file" $?
[[ $refused -gt 300 ]]
check "most mutations are refused ($refused of $runs runs)" $?
[[ "$(f query --format csv -e 'select count(*) from db.u' | tail -1)" == 3 ]]
check "the table reads back whole" $?

echo "table metadata CLI: $pass passed, $fails failed"
[[ $fails == 0 ]]
