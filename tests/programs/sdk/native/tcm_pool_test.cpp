// The TCM user pool's allocator (examples/sdk/rt/customop/tcm_pool.h) over a host array: the
// whole 16 KiB can be handed out (one 16384-byte block, or four 4 KiB stream buffers), blocks are
// whole 64-byte granules, first fit, freed runs are found again, and the refusals: a pointer that
// is not a live block, a second free, a request larger than every free run.
#include <stdint.h>
#include "tcm_pool.h"
#include "check.h"

alignas(64) static uint8_t arena[Q7_TCM_POOL_SIZE];

int main()
{
	q7_tcm_pool state{};
	uint64_t base = uint64_t(uintptr_t(arena));
	q7::tcm::Pool pool{state, base};

	CHECK_EQ(Q7_TCM_GRANULES, 256u);
	CHECK_EQ(pool.largest_free(), 16384u);

	// The public API's 16 KiB: one block of all of it, and then nothing more.
	uint64_t all = pool.alloc(16384);
	CHECK_EQ(all, base);
	CHECK_EQ(pool.used_bytes(), 16384u);
	CHECK_EQ(pool.largest_free(), 0u);
	CHECK_EQ(pool.alloc(1), 0u);
	CHECK(pool.free(all));
	CHECK_EQ(pool.used_bytes(), 0u);
	CHECK_EQ(state.blocks, 0u);

	// Four stream buffers of 4 KiB fill it exactly.
	uint64_t s[4];
	for (int i = 0; i < 4; i++) {
		s[i] = pool.alloc(4096);
		CHECK_EQ(s[i], base + 4096u * i);
	}
	CHECK_EQ(pool.alloc(1), 0u);
	CHECK_EQ(state.blocks, 4u);
	// A freed buffer in the middle is the only room, and the next 4 KiB request takes it.
	CHECK(pool.free(s[2]));
	CHECK_EQ(pool.largest_free(), 4096u);
	CHECK_EQ(pool.alloc(4097), 0u);
	CHECK_EQ(pool.alloc(4096), s[2]);
	for (int i = 0; i < 4; i++)
		CHECK(pool.free(s[i]));
	CHECK_EQ(pool.largest_free(), 16384u);

	// Blocks are whole granules: 1, 64 and 0 bytes take one, 65 takes two; all 64-byte aligned.
	uint64_t a = pool.alloc(1);
	uint64_t b = pool.alloc(64);
	uint64_t c = pool.alloc(65);
	uint64_t d = pool.alloc(0);
	CHECK_EQ(a, base);
	CHECK_EQ(b, base + 64);
	CHECK_EQ(c, base + 128);
	CHECK_EQ(d, base + 256);
	CHECK_EQ(pool.used_bytes(), 320u);
	// First fit: the hole b leaves takes a one-granule request, not a two-granule one.
	CHECK(pool.free(b));
	CHECK_EQ(pool.alloc(100), base + 320);
	CHECK_EQ(pool.alloc(10), b);

	// Refusals: outside the pool, misaligned, inside a block, freed twice, over the pool.
	CHECK(!pool.free(base - 64));
	CHECK(!pool.free(base + 16384));
	CHECK(!pool.free(a + 1));
	CHECK(!pool.free(c + 64)); // the second granule of c's block
	CHECK(pool.free(d));
	CHECK(!pool.free(d));
	CHECK_EQ(pool.alloc(16385), 0u);
	CHECK_EQ(pool.alloc(uint64_t(1) << 40), 0u);
	return report();
}
