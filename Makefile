# dst: distributed storage.  See README.md.
#
#   make            build the module (src/dst_storage.ko) and dstadm
#   make test       the whole test suite (host unit tests, QEMU guest tests)
#   make demo       boot a guest and show dst at work
#   make bench      fio on brd, dst and nbd side by side in one guest
#   make test-debug the guest tests on a KASAN/lockdep/kmemleak kernel (long)
#   make deb        the Debian packages (dst-dkms, dstadm) in dist/, lintian clean
#
# KVER selects the kernel to build for: by default the newest installed
# Debian 6.1 headers that have a matching kernel image in /boot.

VERSION := $(shell cat VERSION)
KVER ?= $(shell tests/lib/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all module dstadm tools deps test test-debug demo bench deb clean

all: module dstadm

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/src DST_VERSION=$(VERSION) modules

dstadm:
	$(MAKE) -C dstadm DST_VERSION=$(VERSION)

# The test tools, and tests/debug/kdelay (a kprobe delay for race tests)
# for the kernel the guests boot, built apart in tests/out/kdelay.
tools:
	$(MAKE) -C tests/tools
	rm -rf tests/out/kdelay
	mkdir -p tests/out/kdelay
	cp tests/debug/kdelay/kdelay.c tests/debug/kdelay/Kbuild tests/out/kdelay/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/out/kdelay modules

deps:
	tests/lib/deps.sh

# DST_TESTS=PATTERN runs only the guest tests whose names match.
test:
	tests/run.sh all $(DST_TESTS)

# The debug-kernel tier: builds (once) and boots a 6.1 kernel with KASAN,
# lockdep, kmemleak and fault injection; not part of "make test".
test-debug:
	tests/run.sh debug $(DST_TESTS)

demo:
	tests/demo.sh

# Speed against brd and nbd in one guest; prints ratios, asserts nothing.
bench:
	tests/run.sh bench

deb:
	tests/lib/deb.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/src clean 2>/dev/null || true
	$(MAKE) -C dstadm clean
	$(MAKE) -C tests/tools clean
	$(MAKE) -C tests/unit clean
	rm -rf tests/out dist
