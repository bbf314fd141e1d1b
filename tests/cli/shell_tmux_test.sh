#!/usr/bin/env bash
# The interactive shell of `floe query`, driven in a real terminal (tmux: send-keys, capture-pane):
# dot commands, tab completion of tables and columns, Ctrl-C on a line and on a running statement
# (the shell lives on), history written as statements are entered, and the box fitted to the
# terminal's width. Waits poll the screen; nothing is timed.
set -u
floe="$1"
# scripts/setup.sh installs tmux; a machine set up with --build-only has none.
command -v tmux >/dev/null || { echo "shell (tmux): tmux is not installed (scripts/setup.sh)"; exit 77; }
work="$(mktemp -d)"
sock="floe-shell-test-$$"
# A UTF-8 terminal whatever the caller's locale: the box is drawn in box-drawing characters.
export LC_ALL=C.UTF-8
T() { tmux -u -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$work"' EXIT
wh="$work/wh"
fails=0
pass=0
check() { if [[ "$2" == 0 ]]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
f() { "$floe" --warehouse "$wh" --quiet "$@"; }

printf 'id,amount,region\n1,2.5,eu\n2,4.0,us\n3,8.25,eu\n' >"$work/a.csv"
f query -e "CREATE TABLE shop.orders (id bigint, amount double, region string)" >/dev/null &&
  f table append shop.orders "$work/a.csv" >/dev/null || { echo "setup failed" >&2; exit 1; }

screen() { T capture-pane -t "$1" -p -S -200; }
# Waits until the screen of session $1 shows a line matching $2 (grep -E), for up to 60 s.
wait_for() {
  local i
  for ((i = 0; i < 600; ++i)); do
    screen "$1" | grep -qE -- "$2" && return 0
    sleep 0.1
  done
  echo "--- screen of $1, waiting for: $2" >&2
  screen "$1" >&2
  return 1
}
type_text() { T send-keys -t "$1" -l "$2"; }
semicolon() { T send-keys -t "$1" -H 3b; }  # a ';' typed (tmux reads a bare one as a separator)
enter() { T send-keys -t "$1" Enter; }
statement() { type_text "$1" "$2" && semicolon "$1" && enter "$1"; }
# Waits until session $1's last non-empty line is an empty prompt: the shell reads again (keys
# sent while it still prints a result may be flushed when it takes the terminal back).
prompt() {
  local i
  for ((i = 0; i < 600; ++i)); do
    [[ "$(screen "$1" | grep -v '^ *$' | tail -1)" =~ ^floe\>\ *$ ]] && return 0
    sleep 0.1
  done
  echo "--- screen of $1, waiting for an empty prompt" >&2
  screen "$1" >&2
  return 1
}

T new-session -d -s sh -x 60 -y 50 "env HOME=$work $floe --warehouse $wh query"
wait_for sh '^floe>'
check "the shell starts with a prompt" $?

type_text sh ".help" && enter sh && wait_for sh '^\.maxrows N +rows the table format shows'
check ".help lists the dot commands" $?

type_text sh ".tables" && enter sh && wait_for sh '│ shop +│ orders │'
check ".tables lists the tables" $?

type_text sh ".schema shop.orders" && enter sh && wait_for sh '│ amount +│ double +│'
check ".schema TABLE describes it" $?

# Tab completes a table name whole (a '.' does not break the word), then a column. Each line is
# typed at an empty prompt: keys sent while a result still prints are echoed by the terminal
# before the shell's line editor takes it, and the line is drawn mangled (a loaded CI's failure).
prompt sh && type_text sh "select count(*) as n from shop.ord" && T send-keys -t sh Tab &&
  wait_for sh 'from shop\.orders *$' && semicolon sh && enter sh && wait_for sh '^│ +3 │$'
check "Tab completes a table name" $?
prompt sh && type_text sh "select sum(amo" && T send-keys -t sh Tab && wait_for sh 'select sum\(amount *$' &&
  type_text sh ") as total from shop.orders" && semicolon sh && enter sh && wait_for sh '^│ +14\.75 │$'
check "Tab completes a column name" $?

# Ctrl-C drops the line being typed; the shell goes on.
# Ctrl-C only once the line is echoed: the terminal discards input not yet read when it signals.
prompt sh && type_text sh "select 'dropped' as gone" && wait_for sh "as gone *$" && T send-keys -t sh C-c &&
  wait_for sh "gone\^C$" && prompt sh && type_text sh ".mode csv" && enter sh &&
  statement sh "select 42 as answer" && wait_for sh '^42$' &&
  ! screen sh | grep -q '^dropped$'
check "Ctrl-C cancels the line, and the shell takes the next" $?

# History is written as statements are entered, not only at exit.
grep -q '^select\\04042\\040as\\040answer;$' "$work/.floe_history"
check "history is written as you go" $?

prompt sh && type_text sh ".timer on" && enter sh && statement sh "select 1 as one" && wait_for sh '^Run Time \(s\): real [0-9.]+$'
check ".timer on prints each statement's time" $?
prompt sh && type_text sh ".timer off" && enter sh && type_text sh ".mode table" && enter sh &&
  type_text sh ".maxrows 2" && enter sh && statement sh "select id from shop.orders order by id" &&
  wait_for sh '^3 rows \(2 shown\)$'
check ".mode table and .maxrows 2" $?

# The box fits the terminal: 60 columns (no --max-width given), the wide value cut to fit.
prompt sh && statement sh "select id, repeat('x', 200) as wide from shop.orders where id = 1" &&
  wait_for sh '^│ +1 │ x+… │$' &&
  [[ "$(screen sh | grep -E '^│ +1 │ x+… │$' | tail -1 | wc -m)" == 61 ]]
check "the box fits the terminal's 60 columns" $?

prompt sh && type_text sh ".bogus" && enter sh && wait_for sh "unknown command '.bogus'; .help lists them" &&
  statement sh "select 5 as five" && wait_for sh '^│ +5 │$'
check "an unknown dot command says so, and the shell goes on" $?

prompt sh && type_text sh ".quit" && enter sh
for ((i = 0; i < 100; ++i)); do T has-session -t sh 2>/dev/null || break; sleep 0.1; done
! T has-session -t sh 2>/dev/null
check ".quit leaves the shell" $?

# Ctrl-C stops a running statement (every request 1.5 s late, one at a time) before it answers.
T new-session -d -s slow -x 100 -y 30 \
  "env HOME=$work $floe --warehouse $wh --simulate-s3 first_byte_ms=1500 query --set read.request-budget=1"
wait_for slow '^floe>' && statement slow "select sum(amount) as slow_total from shop.orders" &&
  sleep 1 && T send-keys -t slow C-c && wait_for slow 'floe: cancelled: the statement was cancelled' &&
  statement slow "select 7 as seven" && wait_for slow '^│ +7 │$' && ! screen slow | grep -q '14\.75'
check "Ctrl-C cancels the running statement, never the shell" $?

echo "shell (tmux): $pass passed, $fails failed"
[[ $fails -eq 0 ]]
