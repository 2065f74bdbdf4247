// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "dstadm.h"

int main(int argc, char *argv[])
{
	/*
	 * Line by line, also into a pipe or the journal, so that progress
	 * and errors (on stderr) come out in the order they happened.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return dstadm_main(argc, argv);
}
