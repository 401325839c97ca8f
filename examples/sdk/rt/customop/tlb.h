/* tlb.h - the translate-window TLB: five records, one per MEM_WINDOW (PLATFORM.md "Translate
 * windows"). Records 0 and 1 mirror the windows the platform pinned at boot; 2..4 are dynamic:
 * a miss reprograms the next round-robin victim that is not locked. Header-only and free of
 * device code (the window registers are reached through `Hw`), so it is also tested natively. */
#ifndef Q7_RT_TLB_H
#define Q7_RT_TLB_H

#include <stdint.h>
#include <q7/rt_state.h>

namespace q7 {
namespace tlb {

constexpr uint64_t REGION = Q7_WINDOW_SIZE;
constexpr uint32_t NONE = 0xFFFFFFFFu;

/* `Hw` provides: uint64_t base(w), bool enabled(w) (read a window's registers) and
 * void program(w, uint64_t hbm_base) (two memw fences around the MMIO stores). */
template <class Hw> struct Tlb {
	q7_rt_state &st;

	void init()
	{
		for (uint32_t w = 0; w < Q7_TLB_RECORDS; w++) {
			q7_tlb_rec &r = st.tlb[w];
			r.nx_base = Q7_XLATE_BASE + w * Q7_WINDOW_SIZE;
			r.pinned = w < Q7_TLB_PINNED;
			r.locked = 0;
			r.pad = 0;
			r.valid = r.pinned && Hw::enabled(w);
			r.hbm_base = r.valid ? Hw::base(w) : 0;
		}
		st.hot_base = ~uint64_t(0);
		st.hot_nx = 0;
		st.tlb_next = Q7_TLB_PINNED;
	}

	uint32_t find(uint64_t base) const
	{
		for (uint32_t w = 0; w < Q7_TLB_RECORDS; w++)
			if (st.tlb[w].valid && st.tlb[w].hbm_base == base)
				return w;
		return NONE;
	}

	/* The next unlocked dynamic record in round-robin order (advancing the pointer past it),
	 * or NONE when all three are locked. */
	uint32_t victim()
	{
		constexpr uint32_t n = Q7_TLB_RECORDS - Q7_TLB_PINNED;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t w = Q7_TLB_PINNED + (st.tlb_next - Q7_TLB_PINNED + k) % n;
			if (!st.tlb[w].locked) {
				st.tlb_next = Q7_TLB_PINNED + (w - Q7_TLB_PINNED + 1) % n;
				return w;
			}
		}
		return NONE;
	}

	/* The record mapping `addr`'s 16 MiB region, programming a victim on a miss; NONE when
	 * every dynamic record is locked. Makes it the hot record. */
	uint32_t map(uint64_t addr)
	{
		uint64_t base = addr & ~(REGION - 1);
		uint32_t w = find(base);
		if (w == NONE) {
			w = victim();
			if (w == NONE)
				return NONE;
			Hw::program(w, base);
			st.tlb[w].hbm_base = base;
			st.tlb[w].valid = 1;
		}
		st.hot_base = base;
		st.hot_nx = st.tlb[w].nx_base;
		return w;
	}

	static uint32_t offset(uint64_t addr) { return uint32_t(addr & (REGION - 1)); }
};

} // namespace tlb
} // namespace q7

#endif
