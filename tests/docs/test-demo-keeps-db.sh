#!/usr/bin/env bash
# test-demo-keeps-db.sh — scripts/demo never touches an existing database: with DEMO_DB (or
# ./profile.db) present it refuses at once (exit status 2, saying which file and what to do),
# before it installs, builds or starts anything, and the file is byte for byte as it was.
set -euo pipefail
src=${ORTI_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
printf 'SQLite format 3\0 sessions of an earlier demo\n' >"$tmp/profile.db"
cp "$tmp/profile.db" "$tmp/before"
for how in env cwd; do
  st=0
  if [[ $how == env ]]; then
    DEMO_DB="$tmp/profile.db" timeout 60 "$src/scripts/demo" >"$tmp/out" 2>"$tmp/err" || st=$?
  else
    (cd "$tmp" && timeout 60 "$src/scripts/demo") >"$tmp/out" 2>"$tmp/err" || st=$?
  fi
  [[ $st == 2 ]] || die "$how: exit status $st, not 2: $(cat "$tmp/err")"
  grep -q "profile.db exists" "$tmp/err" || die "$how: no reason given: $(cat "$tmp/err")"
  [[ ! -s $tmp/out ]] || die "$how: it started something: $(cat "$tmp/out")"
  cmp -s "$tmp/profile.db" "$tmp/before" || die "$how: the existing database was changed"
  [[ ! -e $tmp/profile.db-wal && ! -e $tmp/profile.db-shm ]] || die "$how: -wal/-shm left beside it"
done
echo "demo: refused an existing database (DEMO_DB and ./profile.db), left it untouched"
