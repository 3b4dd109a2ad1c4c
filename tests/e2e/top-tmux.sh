#!/usr/bin/env bash
# top-tmux.sh PROFD URL DIR — `orti-profd top --url URL` in a detached tmux session of a fixed
# size (100x30) while the daemon at URL records a live rig session (test-daemon-rest.sh runs it
# inside its rig boot, workload split): a person's terminal, with keys sent and the screen read
# (send-keys, capture-pane), every step waiting for the state it needs:
#  1. the rig firmware's tasks (SplitA..SplitD) appear, and the loads and bounds shown equal
#     the REST API's read just before and just after the screen was captured (a load between
#     the two, widened by the bound the product reports and the rounding; a bound "—" where
#     REST has null); a screen drawn before the daemon's last refresh is read once more;
#  2. n / p / l sort by name, by p99 (longest first, unknown last), by load (highest first);
#  3. q quits with status 0, leaving the terminal as it was: the primary screen, the cursor
#     shown, the same stty settings (stty -g) as before; so do ^C (SIGINT) in a second run and
#     SIGTERM in a third; a smaller window (60x10) is followed: no line wider, the rows that do
#     not fit counted;
#  4. with stdout a pipe, top prints one plain screen holding the same tasks and exits 0, also
#     from the database (--db DIR/profile.db, read-only) while the session records into it.
set -euo pipefail
profd=$1 url=$2 dir=$3
session=1
export LANG=C.UTF-8 LC_ALL=C.UTF-8
sock=$dir/tmux.sock
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
fail() { echo "top-tmux: FAIL: $*" >&2; echo "--- screen:" >&2; tm capture-pane -p -t top >&2 || true; exit 1; }
pane() { tm capture-pane -p -t top; }
# wait_pane REGEX [SECONDS]: until the screen holds a line matching REGEX
wait_pane() {
  local t0=$SECONDS
  until pane | grep -Eq -- "$1"; do
    (( SECONDS - t0 < ${2:-30} )) || fail "no line matching '$1' within ${2:-30} s"
    sleep 0.1
  done
}

tm -f /dev/null new-session -d -s top -x 100 -y 30 \
  "env PS1='$ ' TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile"
tm send-keys -t top "stty -g >'$dir/stty.before'; clear" Enter
tm send-keys -t top "'$profd' top --url '$url' --session $session --interval 0.5; echo top-exit=\$?" Enter

# 1. the tasks, with the REST API's loads
names=$(curl -sf "$url/api/sessions/$session/tasks" | python3 -c 'import json,sys; print(" ".join(sorted(t["task"] for t in json.load(sys.stdin))))')
for t in SplitA SplitB SplitC SplitD; do
  [[ " $names " == *" $t "* ]] || fail "REST names no $t: $names"
done
for t in $names; do wait_pane "^task +$t "; done
wait_pane "^sort: load"
ok=
for try in $(seq 20); do
  curl -sf "$url/api/sessions/$session/tasks" >"$dir/top-rest1.json"
  pane >"$dir/top-screen.txt"
  curl -sf "$url/api/sessions/$session/tasks" >"$dir/top-rest2.json"
  if python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]
r1, r2 = ({t["task"]: t for t in json.load(open(f"{d}/top-rest{i}.json"))} for i in (1, 2))
shown = {}
for line in open(f"{d}/top-screen.txt"):
    m = re.match(r"^task +(\S+) +(\S+) +± (\S+) ", line)
    if m:
        shown[m.group(1)] = (m.group(2), m.group(3))
if set(shown) != set(r1):
    print(f"top-tmux: tasks shown {sorted(shown)}, REST {sorted(r1)}"); sys.exit(1)
bad = []
def fmt(t):
    b = t["load_bound_percent"]
    return f"{t['load_percent']:.3f} ± {'null' if b is None else f'{b:.3f}'}"
for name, (load, bound) in shown.items():
    rest = [r[name] for r in (r1, r2) if name in r]
    # the bound: "—" exactly where REST says null (a live poll session's loads have none
    # until the end), else REST's rounded
    if bound == "—":
        bound_ok = any(t["load_bound_percent"] is None for t in rest)
        b = 0.0
    else:
        bound_ok = any(t["load_bound_percent"] is not None
                       and abs(float(bound) - t["load_bound_percent"]) <= 0.005 for t in rest)
        b = float(bound)
    if load == "—":
        load_ok = any(t["load_percent"] is None for t in rest)
    else:  # between the two reads, widened by the bound shown and the rounding
        known = [t["load_percent"] for t in rest if t["load_percent"] is not None]
        load_ok = bool(known) and min(known) - b - 0.005 <= float(load) <= max(known) + b + 0.005
    line = f"{name} shown {load} ± {bound} %, REST before and after {', '.join(fmt(t) for t in rest)}"
    (print(f"top-tmux: {line}") if load_ok and bound_ok else bad.append(line))
if bad:
    print("top-tmux: not yet:", "; ".join(bad)); sys.exit(1)
PY
  then ok=1; break; fi
  sleep 0.2
done
[[ -n $ok ]] || fail "the loads shown never equalled the REST API's (20 reads)"

# 2. sorting keys: the rows' order on the screen
rows_sorted_by() {  # rows_sorted_by name|p99|load: the task and ISR2 rows are in that order
  pane | python3 -c '
import re, sys
key = sys.argv[1]
rows = [l.split() for l in sys.stdin if re.match(r"^(task|isr) ", l)]
def us(v, unit):
    return None if v == "—" else float(v) * {"µs": 1, "ms": 1e3, "s": 1e6}[unit]
vals = []
for r in rows:
    # KIND NAME LOAD ± B JOBS P99 [unit] ± B [unit] HISTORY
    p99 = None if r[6] == "—" else us(r[6], r[7])
    vals.append((r[1], None if r[2] == "—" else float(r[2]), p99))
if key == "name":
    ok = [v[0] for v in vals] == sorted(v[0] for v in vals)
else:
    i = 2 if key == "p99" else 1
    known = [v[i] for v in vals if v[i] is not None]
    first_unknown = next((n for n, v in enumerate(vals) if v[i] is None), len(vals))
    ok = known == sorted(known, reverse=True) and all(v[i] is None for v in vals[first_unknown:])
sys.exit(0 if ok and len(vals) >= 4 else 1)' "$1"
}
for k in n:name p:p99 l:load; do
  tm send-keys -t top "${k%%:*}"
  wait_pane "^sort: ${k#*:} "
  t0=$SECONDS  # the next refresh may reorder rows whose figures changed: read until sorted
  until rows_sorted_by "${k#*:}"; do
    (( SECONDS - t0 < 10 )) || fail "rows not sorted by ${k#*:}"
    sleep 0.1
  done
done
echo "top-tmux: sorted by name, p99 and load"
# the terminal's size followed (SIGWINCH): 60x10 holds 3 of the rows, the rest counted
tm resize-window -t top -x 60 -y 10
wait_pane "^… [0-9]+ more \(enlarge the terminal\)"
pane | python3 -c 'import sys; sys.exit(max(len(l.rstrip("\n")) for l in sys.stdin) > 60)' ||
  fail "lines wider than 60 columns"
tm resize-window -t top -x 100 -y 30
wait_pane "^task +SplitA "
echo "top-tmux: 60x10 and back to 100x30"

# 3. q, then ^C: the terminal as it was
check_restored() {
  wait_pane "^top-exit=0" 15
  [[ $(tm display -p -t top '#{alternate_on} #{cursor_flag}') == "0 1" ]] ||
    fail "$1: alternate screen / cursor: $(tm display -p -t top '#{alternate_on} #{cursor_flag}')"
  rm -f "$dir/stty.after"
  tm send-keys -t top "stty -g >'$dir/stty.after'; clear" Enter
  t0=$SECONDS
  until [[ -s $dir/stty.after ]]; do (( SECONDS - t0 < 10 )) || fail "$1: stty -g"; sleep 0.1; done
  cmp -s "$dir/stty.before" "$dir/stty.after" ||
    fail "$1: stty settings changed: $(cat "$dir/stty.before") -> $(cat "$dir/stty.after")"
  echo "top-tmux: $1 restored the terminal"
}
tm send-keys -t top q
check_restored "q"
tm send-keys -t top "'$profd' top --url '$url'; echo top-exit=\$?" Enter
wait_pane "^task +SplitA "
tm send-keys -t top C-c
check_restored "^C"
tm send-keys -t top "'$profd' top --url '$url'; echo top-exit=\$?" Enter
wait_pane "^task +SplitA "
top_pid=$(pgrep -P "$(tm display -p -t top '#{pane_pid}')")  # the shell's one child: top
kill -TERM "$top_pid"
check_restored "SIGTERM"

# 4. stdout a pipe: one plain screen
"$profd" top --url "$url" --session $session >"$dir/top-plain.txt" || fail "top into a pipe: exit $?"
for t in $names; do
  grep -Eq "^task +$t " "$dir/top-plain.txt" || fail "top into a pipe: no $t: $(cat "$dir/top-plain.txt")"
done
echo "top-tmux: one plain screen into a pipe"
"$profd" top --db "$dir/profile.db" >"$dir/top-db.txt" || fail "top --db while recording: exit $?"
grep -q "session $session \"[^\"]*\" running" "$dir/top-db.txt" || fail "top --db: $(cat "$dir/top-db.txt")"
for t in $names; do
  grep -Eq "^task +$t " "$dir/top-db.txt" || fail "top --db: no $t: $(cat "$dir/top-db.txt")"
done
echo "top-tmux: one plain screen from the database being recorded"
