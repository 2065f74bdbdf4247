// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of dstadm's configuration parser: any bytes, parsed,
 * dumped when valid, the dump parsed again to the same dump, and freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct dst_config c, again;
	char *dump = NULL, *dump2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *f;

	if (!null)
		null = fopen("/dev/null", "w");
	if (config_parse("fuzz", (const char *)data, size, &c, null) < 0) {
		config_free(&c);
		return 0;
	}
	f = open_memstream(&dump, &len);
	config_dump(f, &c);
	fclose(f);
	if (config_parse("dump", dump, len, &again, null) < 0)
		abort();	/* what dump prints must parse */
	f = open_memstream(&dump2, &len2);
	config_dump(f, &again);
	fclose(f);
	if (len != len2 || memcmp(dump, dump2, len))
		abort();	/* and print the same again */
	config_free(&c);
	config_free(&again);
	free(dump);
	free(dump2);
	return 0;
}
