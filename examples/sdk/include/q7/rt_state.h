/* q7/rt_state.h - the runtime's per-core state block at Q7_RT_STATE_ADDR in DATARAM (PLATFORM.md
 * "Runtime memory") and the two inline paths kernels hit on every access: the annotation port
 * (TRACE) and the translate TLB's hot record. Internal to the SDK: kernels use q7/runtime.h. */
#ifndef Q7_RT_STATE_H
#define Q7_RT_STATE_H

#include <stdint.h>
#include <q7/platform.h>
#include <q7/customop_abi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define Q7_SDMA_RING_ENTRIES 16u

/* One translate-window record: window w maps NX [Q7_XLATE_BASE + w * 16 MiB, +16 MiB) to HBM
 * [hbm_base, +16 MiB). */
struct q7_tlb_rec {
	uint64_t hbm_base;
	uint32_t nx_base;
	uint8_t valid;
	uint8_t pinned;
	uint8_t locked;
	uint8_t pad;
};

/* One heap's root (the blocks carry their own headers, see rt/customop/heap.h). */
struct q7_heap_root {
	uint64_t base;          /* first block header */
	uint64_t end;           /* end of the last block */
	uint64_t free_head;     /* first free block, 0 = none (no heap block starts at 0) */
	uint64_t live_bytes;    /* bytes in allocated blocks, headers included */
	uint32_t live_blocks;
	uint32_t align;         /* payload alignment, a power of two >= 16 */
	uint32_t ready;
	uint32_t pad;
};

/* Indices into q7_rt_state.heaps (the trace's heap ids are these + 1). The TCM pool keeps its
 * own bookkeeping (`tcm`), so heaps[Q7_HEAP_IX_TCM] is unused. */
#define Q7_HEAP_IX_HBM      0u
#define Q7_HEAP_IX_DATARAM  1u
#define Q7_HEAP_IX_TCM      2u
#define Q7_HEAP_IX_LIBC     3u

/* The TCM user pool (rt/customop/tcm_pool.h): Q7_TCM_GRANULES granules of Q7_TCM_GRANULE bytes;
 * len[g] is the length in granules of the live block that starts at granule g, 0 when none does. */
#define Q7_TCM_GRANULE      64u
#define Q7_TCM_GRANULES     (Q7_TCM_POOL_SIZE / Q7_TCM_GRANULE)
struct q7_tcm_pool {
	uint16_t len[Q7_TCM_GRANULES];
	uint32_t used;              /* granules in live blocks */
	uint32_t blocks;            /* live blocks */
};

/* Stream accessors (rt/customop/stream.cpp): at most Q7_STREAM_BUFFERS open streams hold a buffer
 * of Q7_STREAM_BUFFER_BYTES from the TCM pool; the others access the tensor element by element. */
#define Q7_STREAM_BUFFERS      4u
#define Q7_STREAM_BUFFER_BYTES 4096u

struct q7_rt_state {
	struct q7_sdma_desc ring[2][Q7_SDMA_RING_ENTRIES];  /* M2S, S2M */
	struct q7_arg_tensor args[Q7_MAX_ARGS];             /* this dispatch's descriptors */
	struct q7_tlb_rec tlb[Q7_TLB_RECORDS];
	uint64_t hot_base;          /* HBM base of the last record used; all ones = none */
	uint32_t hot_nx;            /* its NX base */
	uint32_t tlb_next;          /* next round-robin victim among the dynamic records */
	uint32_t sdma_tail[2];      /* descriptors queued so far per queue */
	struct q7_heap_root heaps[4];
	uint32_t nargs;             /* MBOX_NARGS of this dispatch */
	uint32_t cursor;            /* next descriptor customop_next_* takes */
	uint32_t ninputs;           /* descriptors before the OUTPUT one */
	uint32_t op;                /* FunctionId (MBOX_SUB_OPCODE) of this dispatch */
	uint32_t phase;             /* open phase, 0 = none */
	uint32_t has_output;
	uint32_t dst_taken;         /* get_dst_tensor() was called */
	uint32_t memcpy_method;     /* neuron_memcpy's method, DMA by default */
	uint64_t stack_base;        /* HBM stack of the running (or aborted) dispatch, 0 = none */
	uint32_t stack_record;      /* its locked TLB record */
	uint32_t pad;
	struct q7_tcm_pool tcm;     /* the TCM user pool's blocks */
	uint32_t stream_buf[Q7_STREAM_BUFFERS]; /* TCM buffers of open streams, 0 = slot free */
};

#define Q7_RT ((struct q7_rt_state *)Q7_RT_STATE_ADDR)

/* ---- annotation port ---- */

static inline void q7_trace1(uint32_t ev, uint32_t a0)
{
	Q7_TRACE_ARG(0) = a0;
	Q7_TRACE_EVENT = ev;
}

static inline void q7_trace3(uint32_t ev, uint32_t a0, uint32_t a1, uint32_t a2)
{
	Q7_TRACE_ARG(0) = a0;
	Q7_TRACE_ARG(1) = a1;
	Q7_TRACE_ARG(2) = a2;
	Q7_TRACE_EVENT = ev;
}

static inline void q7_trace4(uint32_t ev, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
	Q7_TRACE_ARG(0) = a0;
	Q7_TRACE_ARG(1) = a1;
	Q7_TRACE_ARG(2) = a2;
	Q7_TRACE_ARG(3) = a3;
	Q7_TRACE_EVENT = ev;
}

/* ---- translation ---- */

/* The out-of-line path: search the records, program a window on a miss. */
void *q7_translate_miss(uint64_t hbm_addr);

/* The NX address of HBM byte `hbm_addr`. Valid until three more distinct 16 MiB regions have
 * been translated (the dynamic records are reused round-robin), as on hardware. */
__attribute__((always_inline)) static inline void *q7_translate(uint64_t hbm_addr)
{
	struct q7_rt_state *st = Q7_RT;
	if (((hbm_addr ^ st->hot_base) >> 24) == 0)
		return (void *)(uintptr_t)(st->hot_nx + ((uint32_t)hbm_addr & (Q7_WINDOW_SIZE - 1u)));
	return q7_translate_miss(hbm_addr);
}

#ifdef __cplusplus
}
static_assert(sizeof(struct q7_rt_state) <= Q7_RT_STATE_SIZE, "runtime state fits its 4 KiB");
static_assert(__builtin_offsetof(struct q7_rt_state, ring) % 16 == 0, "SDMA rings 16-byte aligned");
#endif

#endif
