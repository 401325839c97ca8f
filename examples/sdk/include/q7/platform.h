/* q7/platform.h - the emulated POOL platform as device code sees it (PLATFORM.md). The address
 * map, the register map and the special-register numbers are q7/platform_map.h, generated from
 * the Rust tables that define them (tests/tests/all/sdk_headers.rs); this header adds what no table
 * holds. */
#ifndef Q7_PLATFORM_H
#define Q7_PLATFORM_H

#include <q7/platform_map.h>

/* One SDMA descriptor (16 bytes). */
struct q7_sdma_desc {
	unsigned int hbm_lo, hbm_hi;
	unsigned int local;
	unsigned int len;
};

static inline unsigned int q7_prid(void)
{
	unsigned int p;
	__asm__ volatile("rsr.prid %0" : "=a"(p));
	return p;
}

#endif
