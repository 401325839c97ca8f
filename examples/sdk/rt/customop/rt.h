/* rt.h - what the runtime's modules share (internal to examples/sdk/rt/customop). */
#ifndef Q7_RT_RT_H
#define Q7_RT_RT_H

#include <stddef.h>
#include <stdint.h>
#include <q7/customop_abi.h>
#include <q7/platform.h>
#include <q7/rt_state.h>

#include "heap.h"

namespace q7 {
namespace rt {

/* ---- start-up (start.cpp) ---- */

/* Sets the per-core state up once per load (PRID, translate TLB, SDMA rings; heaps start
 * lazily): every entry point that touches the state calls it first. */
void boot();
extern uint32_t cpu_id;

/* Maps `hbm_addr`'s 16 MiB region and locks its TLB record (an HBM stack); the record. */
uint32_t translate_lock(uint64_t hbm_addr);
void translate_unlock(uint32_t record);

/* The running op's name for messages ("op 3" when the wrapper has no name for it). */
const char *op_name();

/* How messages name a tensor: "argument N" (its descriptor index, which the host maps to the
 * schema's name), "the output", or "the tensor at HBM 0x…" for one the kernel made
 * (tensor.cpp; the text is valid until the next call). */
const char *tensor_name(uint8_t arg, uint64_t addr, bool local);

/* ---- console (console.cpp) ---- */

/* Ends the line the console is in the middle of, if it is: a runtime error's line starts a
 * line of its own (fatal.cpp). */
void console_line_break();

/* ---- annotation port ---- */

inline void trace_phase_begin(uint32_t phase) { q7_trace1(Q7_EV_PHASE_BEGIN, phase); }
inline void trace_phase_end(uint32_t phase) { q7_trace1(Q7_EV_PHASE_END, phase); }
inline void trace_alloc(uint32_t heap, uint64_t addr, uint64_t bytes)
{
	q7_trace4(Q7_EV_ALLOC, heap, uint32_t(addr), uint32_t(addr >> 32), uint32_t(bytes));
}
inline void trace_free(uint32_t heap, uint64_t addr)
{
	q7_trace3(Q7_EV_FREE, heap, uint32_t(addr), uint32_t(addr >> 32));
}

/* ---- heaps (heaps.cpp) ---- */

/* Header words of local heaps (DATARAM, TCM pool, libc heap): plain loads and stores. */
struct LocalMem {
	static uint32_t ld32(uint64_t a) { return *(volatile uint32_t *)uintptr_t(a); }
	static uint64_t ld64(uint64_t a)
	{
		return uint64_t(ld32(a)) | (uint64_t(ld32(a + 4)) << 32);
	}
	static void st32(uint64_t a, uint32_t v) { *(volatile uint32_t *)uintptr_t(a) = v; }
	static void st64(uint64_t a, uint64_t v)
	{
		st32(a, uint32_t(v));
		st32(a + 4, uint32_t(v >> 32));
	}
};

/* Header words of the HBM heap: through the translate windows. */
struct HbmMem {
	static uint32_t ld32(uint64_t a) { return *(volatile uint32_t *)q7_translate(a); }
	static uint64_t ld64(uint64_t a)
	{
		return uint64_t(ld32(a)) | (uint64_t(ld32(a + 4)) << 32);
	}
	static void st32(uint64_t a, uint32_t v) { *(volatile uint32_t *)q7_translate(a) = v; }
	static void st64(uint64_t a, uint64_t v)
	{
		st32(a, uint32_t(v));
		st32(a + 4, uint32_t(v >> 32));
	}
};

/* HBM: `bytes` aligned to `align`, 0 when exhausted; free stops the kernel on a bad pointer
 * naming `what`. `trace_heap` is Q7_HEAP_HBM or Q7_HEAP_HBM_STACK. */
uint64_t hbm_alloc(uint64_t bytes, uint64_t align, uint32_t trace_heap);
void hbm_free(uint64_t addr, uint32_t trace_heap, const char *what);

/* The TCM user pool (tcm_pool.h): a 64-byte aligned block of `bytes`, 0 when no run of free
 * granules is long enough; free stops the kernel on a pointer that is not a live block, naming
 * `what`. Both report ALLOC/FREE of heap 3 on the annotation port. */
uint32_t tcm_alloc(uint32_t bytes);
void tcm_release(uint32_t p, const char *what);
/* What the TCM pool holds: bytes and blocks in use, the largest block it can still hand out. */
struct TcmUse {
	uint32_t used;
	uint32_t blocks;
	uint32_t largest_free;
};
TcmUse tcm_use();

/* ---- streams (stream.cpp) ---- */

/* Gives back the TCM buffers of streams a dispatch that stopped with a runtime error left open
 * (at the next dispatch's start, as its HBM stack). */
void stream_reclaim();

/* ---- SDMA (sdma.cpp) ---- */

/* Queues one transfer of `len` bytes (1..65536) between HBM and DATARAM on queue `q`
 * (Q7_SDMA_M2S: HBM -> DATARAM, Q7_SDMA_S2M: DATARAM -> HBM); the count to wait for. */
uint32_t sdma_push(uint32_t q, uint64_t hbm, uint32_t local, uint32_t len);
/* Stalls until `count` descriptors of `q` completed. */
void sdma_wait(uint32_t q, uint32_t count);
/* Waits for everything queued on both queues. */
void sdma_drain();

/* Whether [p, p + n) lies in DATARAM, where SDMA can reach it. */
inline bool in_dataram(uintptr_t p, uint64_t n)
{
	return p >= Q7_DATARAM_BASE && n <= Q7_DATARAM_SIZE && p - Q7_DATARAM_BASE <= Q7_DATARAM_SIZE - n;
}

/* ---- copies (memcpy.cpp) ---- */

/* Storage-to-storage, storage-to-local and local-to-storage copies with the current method.
 * `local` flags say an address is core-local rather than HBM. */
void copy(uint64_t dst, bool dst_local, uint64_t src, bool src_local, uint64_t n);
/* Fills `n` bytes of storage at `dst` with `pattern` (`psize` bytes, repeated). */
void fill_pattern(uint64_t dst, bool dst_local, const void *pattern, uint32_t psize, uint64_t n);

} // namespace rt
} // namespace q7

#endif
