/* start.cpp - the start symbol (`_start` -> `entry_func` -> static constructors ->
 * `register_funcs`, PLATFORM.md "Kernel table"), the once-per-load start-up of the per-core
 * state, and the core's identity. */
#include <stdint.h>
#include <stdio.h>
#include <q7/customop_abi.h>
#include <q7/platform.h>
#include <q7/rt_state.h>
#include <q7/runtime.h>

#include "rt.h"
#include "tlb.h"

namespace q7 {
namespace rt {

uint32_t cpu_id;
/* In .bss, so zero after every load: the DATARAM state is set up again for a new image. */
static uint32_t booted;

struct WindowRegs {
	static uint64_t base(uint32_t w)
	{
		return uint64_t(Q7_MEM_WINDOW_BASE_LO(w)) | (uint64_t(Q7_MEM_WINDOW_BASE_HI(w)) << 32);
	}
	static bool enabled(uint32_t w) { return (Q7_MEM_WINDOW_CTRL(w) & 1u) != 0; }
	static void program(uint32_t w, uint64_t hbm_base)
	{
		__asm__ volatile("memw" ::: "memory");
		Q7_MEM_WINDOW_BASE_LO(w) = uint32_t(hbm_base);
		Q7_MEM_WINDOW_BASE_HI(w) = uint32_t(hbm_base >> 32);
		Q7_MEM_WINDOW_CTRL(w) = 1u;
		__asm__ volatile("memw" ::: "memory");
	}
};

void boot()
{
	if (booted)
		return;
	booted = 1;
	cpu_id = q7_prid();
	q7_rt_state *st = Q7_RT;
	uint32_t *w = reinterpret_cast<uint32_t *>(st);
	for (uint32_t i = 0; i < sizeof(q7_rt_state) / 4; i++)
		w[i] = 0;
	tlb::Tlb<WindowRegs>{*st}.init();
	for (uint32_t q = 0; q < 2; q++) {
		Q7_SDMA_RING_BASE(q) = uint32_t(uintptr_t(&st->ring[q][0]));
		Q7_SDMA_RING_SIZE(q) = Q7_SDMA_RING_ENTRIES;
		st->sdma_tail[q] = Q7_SDMA_COMPLETED(q);
	}
	st->op = 0xFFFFFFFFu;
	st->memcpy_method = NEURON_DMA;
}

void anchor_root_frame()
{
	/* The frame the firmware calls from has no caller: the 16 bytes below its SP are nobody's,
	 * and the Overflow8 handler takes the word at SP - 12 as where the caller's SP is, storing
	 * this frame's a4..a7 in the 16 bytes 32 below that address. */
	*(volatile uint32_t *)uintptr_t(Q7_FW_STACK_TOP - 12) = uint32_t(uintptr_t(&Q7_RT->root_save[0])) + 32;
}

const char *op_name()
{
	static char fallback[16];
	uint32_t op = Q7_RT->op;
	if (op == 0xFFFFFFFFu)
		return "start-up";
	const char *name = op < get_func_cnt() ? get_func_name(op) : nullptr;
	if (name)
		return name;
	snprintf(fallback, sizeof fallback, "op %u", (unsigned)op);
	return fallback;
}

/* The out-of-line translation path (q7/rt_state.h). */
extern "C" void *q7_translate_miss(uint64_t hbm_addr)
{
	tlb::Tlb<WindowRegs> t{*Q7_RT};
	uint32_t w = t.map(hbm_addr);
	if (w == tlb::NONE)
		q7_fatal(Q7_ERR_ABORT, "translate: HBM address 0x%llx needs a window but all three dynamic windows are locked",
			 (unsigned long long)hbm_addr);
	return (void *)uintptr_t(Q7_RT->tlb[w].nx_base + tlb::Tlb<WindowRegs>::offset(hbm_addr));
}

/* Maps `hbm_addr`'s region and locks its record (an HBM stack's window); the record index. */
uint32_t translate_lock(uint64_t hbm_addr)
{
	tlb::Tlb<WindowRegs> t{*Q7_RT};
	uint32_t w = t.map(hbm_addr);
	if (w == tlb::NONE)
		q7_fatal(Q7_ERR_ABORT, "translate: no unlocked window left for the HBM stack at 0x%llx",
			 (unsigned long long)hbm_addr);
	Q7_RT->tlb[w].locked = 1;
	return w;
}

void translate_unlock(uint32_t record) { Q7_RT->tlb[record].locked = 0; }

} // namespace rt
} // namespace q7

using namespace q7::rt;

extern "C" void register_funcs(void)
{
	uint32_t n = get_func_cnt();
	if (n > Q7_MAX_FUNCS)
		q7_fatal(Q7_ERR_ABORT, "the library registers %u ops; a library has at most %u", (unsigned)n,
			 (unsigned)Q7_MAX_FUNCS);
	for (uint32_t i = 0; i < n; i++) {
		q7_launcher_fn fn = get_func_ptr(i);
		if (!fn)
			q7_fatal(Q7_ERR_ABORT, "get_func_ptr(%u) is null", (unsigned)i);
		uint32_t key = Q7_KEY(i);
		__q7_kernel_table[i].key_be = (key >> 24) | ((key >> 8) & 0xFF00u) | ((key << 8) & 0xFF0000u) | (key << 24);
		__q7_kernel_table[i].fn = uint32_t(uintptr_t(fn));
	}
}

extern "C" void entry_func(void)
{
	boot();
	anchor_root_frame();
	for (q7_init_fn *f = __q7_init_array_start; f < __q7_init_array_end; ++f)
		(*f)();
	register_funcs();
}

extern "C" __attribute__((visibility("default"))) void _start(void) { entry_func(); }

uint32_t get_cpu_id()
{
	boot();
	return cpu_id;
}

uint32_t get_cpu_count() { return __q7_cpu_count; }
