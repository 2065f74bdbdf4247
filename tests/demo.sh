#!/bin/bash
# Boots the test guest in demo mode: runs tests/guest/demo.sh with its
# output shown live, then powers off; then the packaged flow in a Debian
# guest (tests/lib/pkg.sh: make deb, apt install, /etc/dst.conf, systemctl
# enable --now dst). Env as for tests/run.sh, plus DST_DEMO_TIMEOUT
# (default 900 s) and DST_DEMO_PKG=0 (no packaged part).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/run.sh
source "$ROOT/tests/run.sh"

build
prepare_guest
DST_VM_LIVE=1 boot_guest "$ROOT/tests/out/demo" demo "${DST_DEMO_TIMEOUT:-900}" quiet ||
	die "demo guest did not finish (console: tests/out/demo/console.log)"
# Then the packaged flow (DST_DEMO_PKG=0 skips it).
if [[ "${DST_DEMO_PKG:-1}" == 1 ]]; then
	pkg_demo "$ROOT/tests/out/demo-pkg" ||
		die "packaged demo did not finish (tests/out/demo-pkg/console1.log)"
fi
