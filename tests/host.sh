#!/bin/bash
# Host-side tests: dstadm unit tests (plain, under valgrind, under
# ASan/UBSan), kernel style, man page and completion in sync with dstadm.
# Expects "make all" to have run. Output: tests/out/host/*.log, counts, and
# a last line "host: N passed, N failed".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/tests/out/host
# checkpatch.pl from Debian's linux-source-6.1, unpacked once per version.
KSRC=${DST_KSRC:-/var/cache/dst-test/checkpatch-$(dpkg-query -W -f='${Version}' linux-source-6.1)}
passed=0
failed=0

pass() {
	echo "PASS $1"
	passed=$((passed + 1))
}

fail() {
	echo "FAIL $1"
	failed=$((failed + 1))
	if [[ -f "$OUT/$1.log" ]]; then
		echo "----- $1.log -----"
		tail -n 60 "$OUT/$1.log"
		echo "----- end of $1.log -----"
	fi
}

# check NAME CMD...: one test whose result is CMD's exit status.
check() {
	local name=$1
	shift
	if "$@" >"$OUT/$name.log" 2>&1; then pass "$name"; else fail "$name"; fi
}

# cmocka NAME CMD...: a cmocka binary; each of its tests counts, read from
# its standard summary ("[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s),").
cmocka() {
	local name=$1 rc=0 p f
	shift
	"$@" >"$OUT/$name.log" 2>&1 || rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$OUT/$name.log")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$OUT/$name.log")
	p=${p:-0}
	f=${f:-0}
	if ((rc != 0 && f == 0)); then
		f=1 # crashed, or a sanitizer or valgrind error
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if ((f == 0 && p > 0)); then
		echo "PASS $name ($p tests)"
	else
		echo "FAIL $name ($p passed, $f failed, exit status $rc)"
		tail -n 60 "$OUT/$name.log"
	fi
}

checkpatch() {
	if [[ ! -x "$KSRC/scripts/checkpatch.pl" ]]; then
		mkdir -p "$KSRC"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$KSRC" --strip-components=1 \
			linux-source-6.1/scripts linux-source-6.1/Documentation/dev-tools
	fi
	local f out rc=0
	local -a files=()
	for f in "$ROOT"/src/*.[ch] "$ROOT"/src/uapi/*.h; do
		[[ "$f" == *.mod.c ]] || files+=("${f#"$ROOT"/}")
	done
	# Its exit status too: a checkpatch that could not run prints nothing.
	out=$(cd "$ROOT" && perl "$KSRC/scripts/checkpatch.pl" --no-tree --strict --terse \
		--show-types -f "${files[@]}") || rc=$?
	echo "$out"
	((rc == 0)) && ! grep -qE '(ERROR|WARNING|CHECK):' <<<"$out"
}

man_renders() {
	local page out
	for page in "$ROOT"/man/*.[0-9]; do
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
		[[ -z "$out" ]] || { echo "$page: $out"; return 1; }
		# The NAME section as mandb and apropos read it.
		lexgrog "$page" >/dev/null || { echo "$page: lexgrog cannot parse NAME"; return 1; }
	done
}

# Every command of dstadm's table is documented in dstadm(8).
commands_documented() {
	local cmds c m rc=0
	cmds=$("$ROOT/dstadm/dstadm" help | awk '/^Commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
	[[ -n "$cmds" ]] || { echo "no commands in 'dstadm help'"; return 1; }
	for c in $cmds; do
		# In roff a hyphen of a command name is written \-.
		m=${c//-/\\\\-}
		grep -q "^\.BI\? \"\?$m\b" "$ROOT/man/dstadm.8" ||
			grep -q "^\.BR \"$m " "$ROOT/man/dstadm.8" ||
			{ echo "$c missing in man/dstadm.8"; rc=1; }
	done
	return $rc
}

# The bash completion, run as bash-completion runs it, offers what
# dstadm's tables hold: "dstadm WORDS" completes to the words expected.
completes() { # EXPECTED WORDS...
	local want=$1 got
	shift
	got=$(PATH=$ROOT/dstadm:$PATH bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		shift
		COMP_WORDS=(dstadm "$@")
		COMP_CWORD=$#
		COMP_LINE="dstadm $*"
		COMP_POINT=${#COMP_LINE}
		_dstadm
		printf "%s\n" "${COMPREPLY[@]}" | sort | xargs' _ "$ROOT/completions/dstadm" "$@")
	[[ "$got" == "$want" ]] || { echo "dstadm $* <TAB>: '$got', not '$want'"; return 1; }
}

completion() {
	local rc=0
	printf 'storage s1 {\n\talg linear\n\tnode local /dev/sdb\n}\nexport x1 {\n\tdevice /dev/dst/s1\n\tlisten 127.0.0.1:7000\n}\n' >"$OUT/compl.conf"
	completes "check-config" chec || rc=1
	completes "--allow" export --al || rc=1
	completes "--secret-file" export e --al 10.0.0.0/8 --se || rc=1
	completes "linear mirror" create x --alg "" || rc=1
	completes "chacha20-poly1305" export x --tls-cipher ch || rc=1
	completes "--check --config" status --c || rc=1
	completes "--dead-timeout" add m remote 127.0.0.1:1 --dead || rc=1
	completes "--program" monitor --pro || rc=1
	completes "--timestamps" monitor --time || rc=1
	completes "--dry-run" adjust --dry || rc=1
	completes "local remote" add m "" || rc=1
	completes "" import r0 --remote "" || rc=1
	completes "s1 x1" up -c "$OUT/compl.conf" "" || rc=1
	completes "s1 x1" down --config "$OUT/compl.conf" "" || rc=1
	return $rc
}

# What dstadm writes must reach stdout: a full disk is an error (exit 1).
stdout_errors() {
	local rc=0 args
	printf 'storage s {\n\talg linear\n\tnode local /dev/sdb\n}\n' >"$OUT/full.conf"
	for args in "--help" "help" "help export" "check-config $OUT/full.conf" "dump -c $OUT/full.conf"; do
		# shellcheck disable=SC2086 # the words of $args are the arguments
		"$ROOT/dstadm/dstadm" $args >/dev/full 2>"$OUT/full.err"
		if [[ $? != 1 ]] || ! grep -q "write error on standard output" "$OUT/full.err"; then
			echo "dstadm $args >/dev/full did not fail: $(cat "$OUT/full.err")"
			rc=1
		fi
	done
	return $rc
}

# The entry of command $1 in dstadm(8): from its heading (after .TP) to
# the next command's.
man_entry() {
	awk -v want="$1" '
		prev == ".TP" && match($0, /^\.B[IR]? "?[a-z\\-]+/) {
			name = substr($0, RSTART, RLENGTH)
			sub(/^\.B[IR]? "?/, "", name)
			gsub(/\\-/, "-", name)
			on = (name == want)
		}
		/^\.SH / { on = 0 }
		on { print }
		{ prev = $0 }' "$ROOT/man/dstadm.8"
}

# Every option of every command, from its table (dstadm help COMMAND), is
# in that command's entry of dstadm(8), long and short form; the bash
# completion reads the same help.
options_documented() {
	local c short long entry rc=0 n=0
	for c in $("$ROOT/dstadm/dstadm" help | awk '/^Commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'); do
		entry=$(man_entry "$c")
		[[ -n "$entry" ]] || { echo "$c: no entry in man/dstadm.8"; rc=1; continue; }
		while read -r short long; do
			[[ "$long" == help ]] && continue
			[[ "$short" == - ]] && short=
			n=$((n + 1))
			grep -qF -- "\\-\\-${long//-/\\-}" <<<"$entry" ||
				{ echo "$c --$long: not in its entry of man/dstadm.8"; rc=1; }
			[[ -z "$short" ]] || grep -qF -- "\\-$short\\fR" <<<"$entry" ||
				{ echo "$c -$short (--$long): not in its entry of man/dstadm.8"; rc=1; }
		done < <("$ROOT/dstadm/dstadm" help "$c" |
			sed -n 's/^    *--\([a-z-]*\).*/- \1/p; s/^  -\(.\), --\([a-z-]*\).*/\1 \2/p' | sort -u)
	done
	((n > 30)) || { echo "only $n options found in dstadm help"; rc=1; }
	return $rc
}

# check-config reads a pipe, as a config-management validate hook gives
# it the file (review D25): "-" and /dev/stdin.
config_stdin() {
	local conf='storage s {\n\talg linear\n\tnode local /dev/sdb\n}\n' f
	for f in - /dev/stdin; do
		# shellcheck disable=SC2059 # the format is the file
		printf "$conf" | "$ROOT/dstadm/dstadm" check-config "$f" | grep -qxF -- "$f: 1 storage(s), 0 export(s): ok" ||
			{ echo "check-config $f did not read the pipe"; return 1; }
	done
	! printf 'storage s {\n' | "$ROOT/dstadm/dstadm" check-config - 2>/dev/null
}

shell_scripts_clean() {
	cd "$ROOT" && shellcheck -x -s bash tests/*.sh tests/lib/*.sh tests/guest/*.sh tests/multi/*.sh tests/debug/*.sh tests/bench/*.sh tests/pkg/*.sh .ci/run
}

# The config parser under libFuzzer (fixed seed and runs).
config_fuzz() {
	make -s -C "$ROOT/tests/fuzz" run >"$OUT/fuzz.log" 2>&1 || { tail -n 30 "$OUT/fuzz.log"; return 1; }
	grep -q "^Done [0-9]* runs" "$OUT/fuzz.log" || { tail -n 30 "$OUT/fuzz.log"; return 1; }
}

# make deb: the packages build and lintian has no error or warning.
packages() {
	"$ROOT/tests/lib/deb.sh" >"$OUT/deb.log" 2>&1 || { tail -n 30 "$OUT/deb.log"; return 1; }
}

dkms_conf_sane() {
	local f=$ROOT/dkms.conf
	grep -q '^PACKAGE_NAME="dst"$' "$f" || { echo "PACKAGE_NAME is not dst"; return 1; }
	! grep -q 'uname -r' "$f" || { echo "dkms.conf uses uname -r"; return 1; }
	grep -q 'kernel_source_dir' "$f" || { echo "dkms.conf does not build for \$kernelver"; return 1; }
}

main() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	make -s -C "$ROOT/tests/unit" >"$OUT/build.log" 2>&1 || { fail build; cat "$OUT/build.log"; }
	cmocka unit "$ROOT/tests/unit/build/test_dstadm"
	cmocka unit-valgrind valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect "$ROOT/tests/unit/build/test_dstadm"
	cmocka unit-asan env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
		"$ROOT/tests/unit/build/test_dstadm_asan"
	check checkpatch checkpatch
	check man-pages man_renders
	check commands-documented commands_documented
	check stdout-errors stdout_errors
	check options-documented options_documented
	check completion completion
	check config-stdin config_stdin
	check shellcheck shell_scripts_clean
	check dkms-conf dkms_conf_sane
	check config-fuzz config_fuzz
	check packages packages
	echo "$passed $failed" >"$OUT/counts"
	echo "host: $passed passed, $failed failed"
	((failed == 0))
}

main "$@"
