/* stack_switch.cpp - switch_stack_or_call_wrapper (PLATFORM.md "Runtime memory"): the wrapper
 * runs on the current stack when STACK_SIZE fits between SP and ISL, else on an HBM stack from
 * the HBM heap, reached through a dynamic translate window locked for the call, with ISL and KSL
 * at its bottom (an overflow past it is the core's stack-limit fault). */
#include <stdint.h>
#include <q7/customop_abi.h>
#include <q7/rt_state.h>
#include <neuron/wrapper_api.h>

#include "rt.h"

extern "C" uint32_t q7_call_on_stack(uint32_t fn, uint32_t new_sp, uint32_t new_isl);
extern "C" uint32_t q7_read_isl(void);

namespace {

/* Stack the runtime itself needs on top of STACK_SIZE (wrapper, marshalling, printf). */
constexpr uint32_t RUNTIME_RESERVE = 4096;
/* Below ISL: room for the window-overflow stores of the deepest frame. */
constexpr uint32_t GUARD = 64;

uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 16;
	while (p < v)
		p <<= 1;
	return p;
}

} // namespace

using namespace q7::rt;

int switch_stack_or_call_wrapper(uint32_t wrapper, uint32_t stack_size)
{
	boot();
	q7_rt_state *st = Q7_RT;
	if (st->stack_base) {
		/* The last dispatch stopped with a runtime error while on its HBM stack. */
		translate_unlock(st->stack_record);
		hbm_free(st->stack_base, Q7_HEAP_HBM_STACK, "kernel stack");
		st->stack_base = 0;
	}
	/* And the buffers of the streams it left open. */
	stream_reclaim();
	uint32_t sp;
	__asm__ volatile("mov %0, a1" : "=a"(sp));
	uint32_t isl = q7_read_isl() & ~15u;
	if (stack_size > Q7_MAX_STACK_SIZE)
		q7_fatal(Q7_ERR_ABORT, "STACK_SIZE %u is larger than MAX_STACK_SIZE %u", (unsigned)stack_size,
			 (unsigned)Q7_MAX_STACK_SIZE);
	uint32_t need = stack_size + RUNTIME_RESERVE;
	if (isl == 0 || (sp > isl && sp - isl >= need)) {
		q7_trace3(Q7_EV_STACK_SWITCH, sp, isl ? sp - isl : 0, 0);
		switched_stack = false;
		reinterpret_cast<void (*)()>(uintptr_t(wrapper))();
		q7_trace1(Q7_EV_STACK_RETURN, sp);
		return 0;
	}
	/* Aligned to a power of two at least its size, the stack never straddles a 16 MiB window
	 * region. */
	uint32_t bytes = (need + GUARD + 15u) & ~15u;
	uint64_t base = hbm_alloc(bytes, pow2_at_least(bytes), Q7_HEAP_HBM_STACK);
	if (!base)
		q7_fatal(Q7_ERR_OUT_OF_MEMORY, "kernel stack: the HBM heap cannot hold a %u-byte stack", (unsigned)bytes);
	uint32_t record = translate_lock(base);
	st->stack_base = base;
	st->stack_record = record;
	uint32_t bottom = uint32_t(uintptr_t(q7_translate(base)));
	uint32_t top = bottom + bytes;
	q7_trace3(Q7_EV_STACK_SWITCH, top, bytes, 1);
	switched_stack = true;
	q7_call_on_stack(wrapper, top, bottom + GUARD);
	switched_stack = false;
	q7_trace1(Q7_EV_STACK_RETURN, sp);
	translate_unlock(record);
	st->stack_base = 0;
	hbm_free(base, Q7_HEAP_HBM_STACK, "kernel stack");
	return 0;
}
