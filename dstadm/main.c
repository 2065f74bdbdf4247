// SPDX-License-Identifier: GPL-2.0
#include "dstadm.h"

int main(int argc, char *argv[])
{
	return dstadm_main(argc, argv);
}
