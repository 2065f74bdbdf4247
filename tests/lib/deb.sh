#!/bin/bash
# make deb: build the Debian packages (dst-dkms, dstadm) from a copy of the
# tree, leave them in dist/, and run lintian on them (errors and warnings
# fail).  Installs the packaging tools when missing.
# Env (for the package test): DST_DEB_DIST another output folder;
# DST_DEB_VERSION another version (with a changelog entry saying so).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/deps.sh
source "$ROOT/tests/lib/deps.sh"
DST_DEPS+=(debhelper dh-dkms lintian dpkg-dev)
dst_deps

VERSION=${DST_DEB_VERSION:-$(<"$ROOT/VERSION")}
DIST=${DST_DEB_DIST:-$ROOT/dist}
SRC=$DIST/build/dst-$VERSION

rm -rf "$DIST"
mkdir -p "$SRC"
# The sources as the checkout has them (tracked and new, not ignored).
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$ROOT" ls-files -z -co --exclude-standard |
		(cd "$ROOT" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$SRC"
else
	tar -C "$ROOT" --exclude=./dist --exclude=./tests/out --exclude='*.o' \
		--exclude='*.ko' -cf - . | tar -xf - -C "$SRC"
fi
if [[ -n "${DST_DEB_VERSION:-}" ]]; then
	echo "$VERSION" >"$SRC/VERSION"
	{
		printf 'dst (%s) unstable; urgency=medium\n\n' "$VERSION"
		printf '  * Test build of version %s.\n\n' "$(<"$ROOT/VERSION")"
		printf ' -- dst developers <dst-devel@lists.dst-storage.org>  %s\n\n' "$(date -R)"
		cat "$ROOT/debian/changelog"
	} >"$SRC/debian/changelog"
fi
# The source package first, from the clean copy; then the binaries.
(cd "$DIST" && dpkg-source -b "build/dst-$VERSION") >"$DIST/build.log" 2>&1 || {
	tail -n 20 "$DIST/build.log"
	echo "deb: dpkg-source -b failed (dist/build.log)" >&2
	exit 1
}
(cd "$SRC" && dpkg-buildpackage -us -uc -b) >>"$DIST/build.log" 2>&1 || {
	tail -n 40 "$DIST/build.log"
	echo "deb: dpkg-buildpackage failed (dist/build.log)" >&2
	exit 1
}
mv "$DIST"/build/*.deb "$DIST"/build/*.changes "$DIST"/build/*.buildinfo "$DIST/"
ls -1 "$DIST"/*.deb
lintian --fail-on error,warning --tag-display-limit 0 "$DIST"/*.changes "$DIST"/*.dsc
rm -rf "$DIST/build"
echo "deb: lintian clean"
