/* heap.h - the allocator behind every runtime heap (HBM, DATARAM, TCM pool, libc heap): first
 * fit over an address-ordered free list, blocks split on allocation and coalesced with both
 * neighbours on free. Header-only and free of device code, so it is also tested natively.
 *
 * A block is a 16-byte header followed by its payload; block sizes are multiples of the heap's
 * alignment A and every header sits at A - 16 modulo A, so every payload is A-aligned.
 * Header: +0 u32 block bytes (header included), +4 u32 state (USED or FREE), +8 u64 next free
 * block (free blocks only; 0 ends the list). Addresses are 64-bit so the HBM heap shares the
 * code; `Mem` reads and writes header words at an address (directly, or through the translate
 * windows for HBM). */
#ifndef Q7_RT_HEAP_H
#define Q7_RT_HEAP_H

#include <stdint.h>
#include <q7/rt_state.h>

namespace q7 {
namespace heap {

constexpr uint32_t HDR = 16;
constexpr uint32_t USED = 0x51A7A110u;
constexpr uint32_t FREE = 0x51A7F4EEu;

/* Outcome of free(). */
enum class FreeResult { Ok, NotABlock };

inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

template <class Mem> struct Heap {
	q7_heap_root &r;

	static uint32_t size_of(uint64_t h) { return Mem::ld32(h); }
	static uint32_t state_of(uint64_t h) { return Mem::ld32(h + 4); }
	static uint64_t next_of(uint64_t h) { return Mem::ld64(h + 8); }
	static void set(uint64_t h, uint32_t size, uint32_t state, uint64_t next)
	{
		Mem::st32(h, size);
		Mem::st32(h + 4, state);
		Mem::st64(h + 8, next);
	}

	/* Sets the heap up over [base, end) with payload alignment `align` (a power of two >= 16).
	 * False when not one block fits. */
	bool init(uint64_t base, uint64_t end, uint32_t align)
	{
		r.align = align;
		r.live_blocks = 0;
		r.live_bytes = 0;
		r.free_head = 0;
		uint64_t first = round_up(base + HDR, align) - HDR;
		if (base == 0 || end <= first || end - first < align) {
			r.base = r.end = 0;
			r.ready = 1;
			return false;
		}
		uint64_t span = (end - first) & ~uint64_t(align - 1);
		if (span > 0xFFFFFFF0u)
			span = 0xFFFFFFF0u & ~uint64_t(align - 1);
		r.base = first;
		r.end = first + span;
		set(first, uint32_t(span), FREE, 0);
		r.free_head = first;
		r.ready = 1;
		return true;
	}

	/* A block of at least `n` payload bytes aligned to `align` (raised to the heap's
	 * alignment); 0 when nothing fits. */
	uint64_t alloc(uint64_t n, uint64_t align)
	{
		if (align < r.align)
			align = r.align;
		if (n == 0)
			n = 1;
		if (n > 0xFFFFFF00u || align > 0x80000000u || (align & (align - 1)) != 0)
			return 0;
		uint64_t need = round_up(n + HDR, r.align);
		uint64_t prev = 0;
		for (uint64_t h = r.free_head; h != 0; prev = h, h = next_of(h)) {
			uint64_t size = size_of(h);
			uint64_t lead = round_up(h + HDR, align) - (h + HDR);
			if (lead + need > size)
				continue;
			/* [h, b) stays free (when lead != 0), [b, b + need) is the block, the rest
			 * of h (when any) becomes a free block after it. */
			uint64_t b = h + lead;
			uint64_t rest = size - lead - need;
			uint64_t link = next_of(h);
			if (rest != 0) {
				set(b + need, uint32_t(rest), FREE, link);
				link = b + need;
			} else {
				need = size - lead;
			}
			if (lead != 0)
				set(h, uint32_t(lead), FREE, link);
			else if (prev != 0)
				Mem::st64(prev + 8, link);
			else
				r.free_head = link;
			set(b, uint32_t(need), USED, 0);
			r.live_blocks++;
			r.live_bytes += need;
			return b + HDR;
		}
		return 0;
	}

	/* Whether `p` is the payload of a live block of this heap. */
	bool owns(uint64_t p) const
	{
		if (p < r.base + HDR || p >= r.end || ((p) & (r.align - 1)) != 0)
			return false;
		uint64_t h = p - HDR;
		uint32_t size = size_of(h);
		return state_of(h) == USED && size >= r.align && (size & (r.align - 1)) == 0 &&
		       h + size <= r.end;
	}

	/* Payload bytes of the live block at `p` (which `owns`). */
	uint64_t capacity(uint64_t p) const { return size_of(p - HDR) - HDR; }

	FreeResult free(uint64_t p)
	{
		if (!owns(p))
			return FreeResult::NotABlock;
		uint64_t h = p - HDR;
		uint64_t size = size_of(h);
		r.live_blocks--;
		r.live_bytes -= size;
		uint64_t prev = 0, next = r.free_head;
		while (next != 0 && next < h) {
			prev = next;
			next = next_of(next);
		}
		if (next != 0 && h + size == next) {
			size += size_of(next);
			next = next_of(next);
		}
		if (prev != 0 && prev + size_of(prev) == h) {
			set(prev, uint32_t(size_of(prev) + size), FREE, next);
			Mem::st32(h + 4, 0);  /* no longer a header: a second free is caught */
			return FreeResult::Ok;
		}
		set(h, uint32_t(size), FREE, next);
		if (prev != 0)
			Mem::st64(prev + 8, h);
		else
			r.free_head = h;
		return FreeResult::Ok;
	}
};

} // namespace heap
} // namespace q7

#endif
