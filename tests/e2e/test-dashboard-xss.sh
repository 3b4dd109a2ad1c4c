#!/usr/bin/env bash
# test-dashboard-xss.sh — issue 34, finding 3: a database whose every text is markup (made by
# make-hostile-db through the real store), served by `orti-profd serve`, rendered in headless
# Chromium by tests/web/xss-test.mjs: all shown as text, nothing run. Skips (77) without
# chromium or node.
source "$(dirname "$0")/e2e-common.sh"
page_test_setup
"$ORTI_BUILD_DIR/tests/e2e/make-hostile-db" "$tmp/hostile.db" || die "make-hostile-db failed"
serve_db "$tmp/hostile.db"
DASHBOARD_URL=$url node "$ORTI_SOURCE_DIR/tests/web/xss-test.mjs" || die "the hostile database ran or showed wrongly"
