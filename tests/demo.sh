#!/bin/bash
# Boots the test guest in demo mode: runs tests/guest/demo.sh with its
# output shown live, then powers off. Env as for tests/run.sh, plus
# DST_DEMO_TIMEOUT (default 900 s).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/run.sh
source "$ROOT/tests/run.sh"

build
prepare_guest
DST_VM_LIVE=1 boot_guest "$ROOT/tests/out/demo" demo "${DST_DEMO_TIMEOUT:-900}" quiet ||
	die "demo guest did not finish (console: tests/out/demo/console.log)"
