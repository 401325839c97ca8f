/* sdma.cpp - the runtime's use of the two SDMA queues (PLATFORM.md "SDMA"): rings of
 * Q7_SDMA_RING_ENTRIES descriptors in the state block; a slot is reused only after the
 * descriptor that last held it completed, so a doorbell never overflows the ring. */
#include <stdint.h>
#include <q7/platform.h>
#include <q7/rt_state.h>

#include "rt.h"

namespace q7 {
namespace rt {

uint32_t sdma_push(uint32_t q, uint64_t hbm, uint32_t local, uint32_t len)
{
	q7_rt_state *st = Q7_RT;
	uint32_t tail = st->sdma_tail[q];
	if (tail - Q7_SDMA_COMPLETED(q) >= Q7_SDMA_RING_ENTRIES)
		sdma_wait(q, tail - Q7_SDMA_RING_ENTRIES + 1);
	volatile q7_sdma_desc &d = st->ring[q][tail % Q7_SDMA_RING_ENTRIES];
	d.hbm_lo = uint32_t(hbm);
	d.hbm_hi = uint32_t(hbm >> 32);
	d.local = local;
	d.len = len;
	__asm__ volatile("memw" ::: "memory");
	st->sdma_tail[q] = tail + 1;
	Q7_SDMA_DOORBELL(q) = tail + 1;
	return tail + 1;
}

void sdma_wait(uint32_t q, uint32_t count)
{
	/* Counts are monotonic and wrap: a wait only for what has not completed yet. */
	if (int32_t(Q7_SDMA_COMPLETED(q) - count) < 0)
		Q7_SDMA_WAIT(q) = count;
	__asm__ volatile("memw" ::: "memory");
}

void sdma_drain()
{
	q7_rt_state *st = Q7_RT;
	for (uint32_t q = 0; q < 2; q++)
		sdma_wait(q, st->sdma_tail[q]);
}

} // namespace rt
} // namespace q7
