// The runtime's allocator (examples/sdk/rt/customop/heap.h) over a host array: alignment and
// header placement, first fit, splitting, exhaustion, coalescing with both neighbours (the whole
// heap is one block again after everything is freed), aligned allocations leaving a free lead,
// and the refusals: a pointer that is not a live block, a second free.
#include <stdint.h>
#include "heap.h"
#include "check.h"

static uint8_t arena[1 << 16];
static uint64_t base_addr() { return uint64_t(uintptr_t(arena)); }

struct HostMem {
	static uint32_t ld32(uint64_t a) { uint32_t v; __builtin_memcpy(&v, (void *)uintptr_t(a), 4); return v; }
	static uint64_t ld64(uint64_t a) { uint64_t v; __builtin_memcpy(&v, (void *)uintptr_t(a), 8); return v; }
	static void st32(uint64_t a, uint32_t v) { __builtin_memcpy((void *)uintptr_t(a), &v, 4); }
	static void st64(uint64_t a, uint64_t v) { __builtin_memcpy((void *)uintptr_t(a), &v, 8); }
};

using q7::heap::FreeResult;
using q7::heap::HDR;

static uint32_t free_blocks(const q7_heap_root &r)
{
	uint32_t n = 0;
	for (uint64_t h = r.free_head; h; h = HostMem::ld64(h + 8))
		n++;
	return n;
}

int main()
{
	q7_heap_root root{};
	q7::heap::Heap<HostMem> h{root};

	// 64-byte payload alignment over a 16 KiB pool that starts 8 bytes into the arena.
	uint64_t b0 = (base_addr() + 63) & ~uint64_t(63);
	CHECK(h.init(b0 + 8, b0 + 8 + 16384, 64));
	CHECK_EQ(root.base % 64, 64 - HDR);
	CHECK_EQ(root.end - root.base, 16320u); // whole 64-byte blocks from the first header on
	CHECK_EQ(free_blocks(root), 1u);

	uint64_t a = h.alloc(100, 64);
	CHECK(a != 0);
	CHECK_EQ(a % 64, 0u);
	CHECK_EQ(a, root.base + HDR);
	CHECK_EQ(h.capacity(a), 128u - HDR); // 100 + 16 rounded up to 128
	uint64_t b = h.alloc(1, 64);
	CHECK_EQ(b, a + 128);                // first fit, right after
	CHECK_EQ(h.capacity(b), 64u - HDR);
	uint64_t c = h.alloc(0, 64);         // a zero-byte request still gets a block
	CHECK_EQ(c, b + 64);
	CHECK_EQ(root.live_blocks, 3u);
	CHECK_EQ(root.live_bytes, 256u);

	// Freeing the middle block leaves a hole that the next small request fills.
	CHECK(h.free(b) == FreeResult::Ok);
	CHECK_EQ(free_blocks(root), 2u);
	CHECK_EQ(h.alloc(40, 64), b);
	CHECK(h.free(b) == FreeResult::Ok);

	// A request too large for what is left fails; the heap is unchanged.
	CHECK_EQ(h.alloc(16384, 64), 0u);
	CHECK_EQ(root.live_blocks, 2u);

	// Coalescing: free a, c (both neighbours of the hole) — one block spans the heap again.
	CHECK(h.free(a) == FreeResult::Ok);
	CHECK(h.free(c) == FreeResult::Ok);
	CHECK_EQ(free_blocks(root), 1u);
	CHECK_EQ(root.live_blocks, 0u);
	CHECK_EQ(root.live_bytes, 0u);
	CHECK_EQ(HostMem::ld32(root.free_head), 16320u);

	// The whole heap in one allocation, then nothing more.
	uint64_t all = h.alloc(16320 - HDR, 64);
	CHECK_EQ(all, root.base + HDR);
	CHECK_EQ(h.alloc(1, 64), 0u);
	CHECK(h.free(all) == FreeResult::Ok);

	// Refusals: a second free, an interior pointer, a pointer outside the heap.
	CHECK(h.free(all) == FreeResult::NotABlock);
	uint64_t d = h.alloc(256, 64);
	CHECK(h.free(d + 64) == FreeResult::NotABlock);
	CHECK(h.free(base_addr() + sizeof arena - 64) == FreeResult::NotABlock);
	CHECK(h.free(d) == FreeResult::Ok);
	CHECK(h.free(d) == FreeResult::NotABlock);

	// A 4 KiB-aligned request (an HBM stack's power-of-two alignment) leaves the lead free.
	uint64_t e = h.alloc(100, 64);
	uint64_t big = h.alloc(4096, 4096);
	CHECK(big != 0);
	CHECK_EQ(big % 4096, 0u);
	CHECK_EQ(free_blocks(root), 2u);      // the lead before `big` and the tail after it
	uint64_t f = h.alloc(64, 64);         // first fit lands in the lead
	CHECK(f > e && f < big);
	CHECK(h.free(big) == FreeResult::Ok);
	CHECK(h.free(f) == FreeResult::Ok);
	CHECK(h.free(e) == FreeResult::Ok);
	CHECK_EQ(free_blocks(root), 1u);

	// A 16-byte-aligned heap (the libc heap): headers on 16-byte boundaries.
	q7_heap_root r16{};
	q7::heap::Heap<HostMem> l{r16};
	CHECK(l.init(b0 + 32768 + 4, b0 + 32768 + 4 + 1000, 16));
	uint64_t p = l.alloc(1, 16), q = l.alloc(17, 16);
	CHECK_EQ(p % 16, 0u);
	CHECK_EQ(q, p + 32);                  // 1 + 16 -> 32, then 17 + 16 -> 48
	CHECK(l.free(p) == FreeResult::Ok);
	CHECK(l.free(q) == FreeResult::Ok);
	CHECK_EQ(free_blocks(r16), 1u);

	// A range too small for one block: init fails and every request is refused.
	q7_heap_root tiny{};
	q7::heap::Heap<HostMem> t{tiny};
	CHECK(!t.init(b0 + 60000, b0 + 60000 + 40, 64));
	CHECK_EQ(t.alloc(1, 64), 0u);
	return report();
}
