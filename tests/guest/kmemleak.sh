#!/bin/bash
# Debug kernel: kmemleak's reports of objects allocated through dst.
# Sourced by the runner and by lib.sh (tests audit M7).
#
# kmemleak names a frame of a loaded module as "func+0x../0x.. [dst]",
# and one of a module unloaded since as its bare address: so that an
# object allocated by a dst_storage that is gone (a leak of its
# module_exit, or one younger than kmemleak's minimum age of 5 s at the
# scan before the unload) is still told, the address range of the
# module's core (text, then data) is noted whenever it is loaded.
DST_TEXT_RANGES=/run/dst-text-ranges
DST_KMEMLEAK=/sys/kernel/debug/kmemleak

# Note the range of dst_storage's core as loaded now (16 hex digits each
# end): from its lowest section that is not an init one (which need not
# be .text: .exit.text, say, may come first), coresize bytes.
dst_note_text() {
	local base size
	size=$(cat /sys/module/dst_storage/coresize 2>/dev/null) || return 0
	base=$(find /sys/module/dst_storage/sections -maxdepth 1 -type f ! -name '.init*' \
		-exec cat {} + 2>/dev/null | sort | head -n1)
	[[ -n "$base" ]] || return 0
	printf '%016x %016x\n' "$base" $((base + size)) >>"$DST_TEXT_RANGES"
}

# Scan, print the unreferenced objects allocated through dst (a frame
# "[dst]" or in a noted range), then their count as the last line; clear
# them so that each is told once.
kmemleak_dst() {
	[[ -w $DST_KMEMLEAK ]] || { echo 0; return 0; }
	dst_note_text
	echo scan >"$DST_KMEMLEAK"
	awk -v ranges="$(sort -u "$DST_TEXT_RANGES" 2>/dev/null | tr '\n' ' ')" '
		BEGIN { nr = split(ranges, r, " ") }
		function ours(b,   a, i, rest) {
			if (b ~ /\[dst\]/)
				return 1
			rest = b
			# "[<%pK>] %pS": the first hashed, the second the bare
			# address when no module has it.
			while (match(rest, /\] 0x[0-9a-f]+/)) {
				a = substr(rest, RSTART + 4, RLENGTH - 4)
				rest = substr(rest, RSTART + RLENGTH)
				for (i = 1; i < nr; i += 2)
					if (length(a) == 16 && a >= r[i] && a < r[i + 1])
						return 1
			}
			return 0
		}
		/^unreferenced object/ { if (ours(blk)) { print blk; n++ } blk = $0; next }
		{ blk = blk "\n" $0 }
		END { if (ours(blk)) { print blk; n++ } print n + 0 }' "$DST_KMEMLEAK"
	echo clear >"$DST_KMEMLEAK"
}
