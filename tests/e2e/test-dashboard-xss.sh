#!/usr/bin/env bash
# test-dashboard-xss.sh — issue 34, finding 3: a database whose every text is markup (made by
# make-hostile-db through the real store), served by `orti-profd serve`, rendered in headless
# Chromium by tests/web/xss-test.mjs: all shown as text, nothing run. Skips (77) without
# chromium or node.
source "$(dirname "$0")/e2e-common.sh"
command -v chromium >/dev/null && command -v node >/dev/null || { echo "chromium/node missing"; exit 77; }
tmp=$(mktemp -d)
served=
cleanup() {
  [[ -n $served ]] && kill "$served" 2>/dev/null && wait "$served" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
"$ORTI_BUILD_DIR/tests/e2e/make-hostile-db" "$tmp/hostile.db" || die "make-hostile-db failed"
"$PROFD" serve --db "$tmp/hostile.db" --http 127.0.0.1:0 2>"$tmp/serve.log" &
served=$!
url=$(wait_url "$tmp/serve.log") || die "serve did not start: $(cat "$tmp/serve.log")"
DASHBOARD_URL=$url node "$ORTI_SOURCE_DIR/tests/web/xss-test.mjs" || die "the hostile database ran or showed wrongly"
