// The translate-window TLB (examples/sdk/rt/customop/tlb.h) against a fake window register file:
// pinned records mirror windows 0 and 1, misses program dynamic windows 2, 3, 4 round-robin,
// hits program nothing, a locked record is never a victim, and with all three locked a miss
// reports NONE.
#include <stdint.h>
#include "tlb.h"
#include "check.h"

struct FakeWindows {
	static uint64_t base_reg[5];
	static bool enabled_reg[5];
	static int programs;
	static uint64_t base(uint32_t w) { return base_reg[w]; }
	static bool enabled(uint32_t w) { return enabled_reg[w]; }
	static void program(uint32_t w, uint64_t b)
	{
		base_reg[w] = b;
		enabled_reg[w] = true;
		programs++;
	}
};
uint64_t FakeWindows::base_reg[5] = {0x0, 0x1000000, 0, 0, 0};
bool FakeWindows::enabled_reg[5] = {true, true, false, false, false};
int FakeWindows::programs = 0;

constexpr uint64_t MiB16 = 0x1000000;

int main()
{
	static q7_rt_state st;
	q7::tlb::Tlb<FakeWindows> t{st};
	t.init();
	CHECK_EQ(st.tlb[0].nx_base, 0x84000000u);
	CHECK_EQ(st.tlb[4].nx_base, 0x88000000u);
	CHECK(st.tlb[0].valid && st.tlb[0].pinned && st.tlb[1].valid && st.tlb[1].pinned);
	CHECK(!st.tlb[2].valid && !st.tlb[2].pinned);
	CHECK_EQ(st.hot_base, ~uint64_t(0));

	// HBM scratch (pinned): no programming; the image window of core 3 at 0x84600000.
	CHECK_EQ(t.map(0x600010), 0u);
	CHECK_EQ(FakeWindows::programs, 0);
	CHECK_EQ(st.hot_nx + q7::tlb::Tlb<FakeWindows>::offset(0x600010), 0x84600010u);
	CHECK_EQ(t.map(MiB16 + 8), 1u);

	// Three regions above scratch take windows 2, 3, 4 in turn.
	uint64_t r[5] = {5 * MiB16, 9 * MiB16 + 0x123, 0x300000000ull, 40 * MiB16, 41 * MiB16};
	CHECK_EQ(t.map(r[0]), 2u);
	CHECK_EQ(t.map(r[1]), 3u);
	CHECK_EQ(t.map(r[2]), 4u);
	CHECK_EQ(FakeWindows::programs, 3);
	CHECK_EQ(FakeWindows::base_reg[4], 0x300000000ull);
	CHECK_EQ(st.hot_base, 0x300000000ull);
	CHECK_EQ(st.hot_nx, 0x88000000u);

	// Hits anywhere in a mapped region cost nothing.
	CHECK_EQ(t.map(r[0] + MiB16 - 4), 2u);
	CHECK_EQ(t.map(r[1]), 3u);
	CHECK_EQ(FakeWindows::programs, 3);

	// The fourth region evicts the oldest victim (window 2), the fifth the next (window 3).
	CHECK_EQ(t.map(r[3]), 2u);
	CHECK_EQ(t.map(r[4]), 3u);
	CHECK_EQ(t.find(r[0] & ~(MiB16 - 1)), q7::tlb::NONE);
	CHECK_EQ(FakeWindows::programs, 5);

	// Window 4 locked (an HBM stack): misses alternate between 2 and 3.
	st.tlb[4].locked = 1;
	CHECK_EQ(t.map(r[0]), 2u);
	CHECK_EQ(t.map(r[1]), 3u);
	CHECK_EQ(t.map(r[3]), 2u);
	CHECK_EQ(t.map(r[2]), 4u); // a hit on the locked record is still a hit

	// All three locked: a miss has no victim.
	st.tlb[2].locked = st.tlb[3].locked = 1;
	CHECK_EQ(t.map(77 * MiB16), q7::tlb::NONE);
	return report();
}
