/* tcm_pool.h - the allocator of the 16 KiB TCM user pool (PLATFORM.md "Runtime memory"), which
 * `torch::neuron::tcm_malloc` and the stream accessors' 4 KiB buffers share: Q7_TCM_GRANULES
 * granules of Q7_TCM_GRANULE (64) bytes, a block being a run of whole granules, first fit. Its
 * bookkeeping (`q7_tcm_pool`, one length per granule) lives in the runtime state block, not in
 * the pool, so the whole 16 KiB can be handed out: one 16384-byte tcm_malloc, or four stream
 * buffers, as the public API describes the pool. Every block is 64-byte aligned. Header-only
 * and free of device code, so it is also tested natively. */
#ifndef Q7_RT_TCM_POOL_H
#define Q7_RT_TCM_POOL_H

#include <stdint.h>
#include <q7/rt_state.h>

namespace q7 {
namespace tcm {

struct Pool {
	q7_tcm_pool &s;
	uint64_t base; /* address of granule 0 */

	/* A block of at least `n` bytes (0 counts as 1), 64-byte aligned; 0 when no run of free
	 * granules is long enough. */
	uint64_t alloc(uint64_t n)
	{
		if (n > uint64_t(Q7_TCM_GRANULES) * Q7_TCM_GRANULE)
			return 0;
		uint32_t need = n == 0 ? 1u : uint32_t((n + Q7_TCM_GRANULE - 1) / Q7_TCM_GRANULE);
		uint32_t run = 0;
		for (uint32_t g = 0; g < Q7_TCM_GRANULES;) {
			if (s.len[g]) {
				g += s.len[g];
				run = 0;
				continue;
			}
			run++;
			g++;
			if (run == need) {
				uint32_t first = g - need;
				s.len[first] = uint16_t(need);
				s.used += need;
				s.blocks++;
				return base + uint64_t(first) * Q7_TCM_GRANULE;
			}
		}
		return 0;
	}

	/* The first granule of the live block at `p`, or Q7_TCM_GRANULES when `p` is not one. */
	uint32_t block_of(uint64_t p) const
	{
		if (p < base || p - base >= uint64_t(Q7_TCM_GRANULES) * Q7_TCM_GRANULE || (p - base) % Q7_TCM_GRANULE)
			return Q7_TCM_GRANULES;
		uint32_t g = uint32_t((p - base) / Q7_TCM_GRANULE);
		return s.len[g] ? g : Q7_TCM_GRANULES;
	}

	/* Frees the block at `p`; false when `p` is not a live block (never handed out, or freed). */
	bool free(uint64_t p)
	{
		uint32_t g = block_of(p);
		if (g == Q7_TCM_GRANULES)
			return false;
		s.used -= s.len[g];
		s.blocks--;
		s.len[g] = 0;
		return true;
	}

	/* Bytes in live blocks. */
	uint32_t used_bytes() const { return s.used * Q7_TCM_GRANULE; }

	/* Bytes of the longest run of free granules: the largest block alloc can hand out. */
	uint32_t largest_free() const
	{
		uint32_t best = 0, run = 0;
		for (uint32_t g = 0; g < Q7_TCM_GRANULES;) {
			if (s.len[g]) {
				g += s.len[g];
				run = 0;
				continue;
			}
			run++;
			g++;
			if (run > best)
				best = run;
		}
		return best * Q7_TCM_GRANULE;
	}
};

} // namespace tcm
} // namespace q7

#endif
