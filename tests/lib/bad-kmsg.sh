#!/bin/bash
# The kernel log lines that fail a test, for grep -E: one list for the
# runner in the guests (tests/guest/runner.sh, tests/pkg/guest-pkg.sh) and
# for the host's checks of guest consoles (tests/lib/multi.sh, pkg.sh).
# shellcheck disable=SC2034 # used by the scripts that source this
DST_BAD_KMSG='\b(BUG|WARNING|Oops|lockdep|hung task|blocked for more than|soft lockup|hard LOCKUP|rcu_(sched|preempt) self-detected|rcu_(sched|preempt) detected stalls|refcount_t|general protection|Call Trace|KASAN|UBSAN|suspected memory leak|possible circular locking|inconsistent lock state)\b'
# Lines of a whole boot's log that match the list and are no report: the
# debug kernel says how it was built.
DST_KMSG_NOT_BAD='RCU lockdep checking is enabled'
