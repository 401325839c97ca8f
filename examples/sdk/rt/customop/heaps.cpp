/* heaps.cpp - the four heaps (PLATFORM.md "Runtime memory"): HBM (MBOX_HEAP_*; tensors from
 * factories, HBM stacks), DATARAM, the 16 KiB TCM user pool (tcm_pool.h: tcm_malloc and the
 * stream buffers) and the libc heap in the image window. Each starts on first use; freeing
 * something a heap did not hand out stops the kernel. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <q7/customop_abi.h>
#include <q7/platform.h>
#include <q7/runtime.h>

#include "heap.h"
#include "rt.h"
#include "tcm_pool.h"

namespace q7 {
namespace rt {

namespace {

template <class Mem> heap::Heap<Mem> heap_of(uint32_t ix) { return heap::Heap<Mem>{Q7_RT->heaps[ix]}; }

heap::Heap<HbmMem> hbm()
{
	boot();
	auto h = heap_of<HbmMem>(Q7_HEAP_IX_HBM);
	if (!h.r.ready) {
		uint64_t base = uint64_t(Q7_MBOX_HEAP_BASE_LO) | (uint64_t(Q7_MBOX_HEAP_BASE_HI) << 32);
		h.init(base, base + Q7_MBOX_HEAP_SIZE, 64);
	}
	return h;
}

heap::Heap<LocalMem> local(uint32_t ix)
{
	boot();
	auto h = heap_of<LocalMem>(ix);
	if (!h.r.ready) {
		switch (ix) {
		case Q7_HEAP_IX_DATARAM:
			h.init(Q7_DATARAM_HEAP_ADDR, Q7_DATARAM_HEAP_ADDR + Q7_DATARAM_HEAP_SIZE, 64);
			break;
		default:
			h.init(uintptr_t(__q7_heap_start), uintptr_t(__q7_heap_end), 16);
			break;
		}
	}
	return h;
}

void *local_alloc(uint32_t ix, uint64_t bytes, uint64_t align)
{
	uint64_t p = local(ix).alloc(bytes, align);
	if (p)
		trace_alloc(ix + 1, p, bytes);
	return (void *)uintptr_t(p);
}

void local_free(uint32_t ix, void *p, const char *what)
{
	if (!p)
		return;
	if (local(ix).free(uintptr_t(p)) != heap::FreeResult::Ok)
		q7_fatal(Q7_ERR_ABORT, "%s(%p): not a block the heap handed out, or freed twice", what, p);
	trace_free(ix + 1, uintptr_t(p));
}

tcm::Pool tcm_pool()
{
	boot();
	return tcm::Pool{Q7_RT->tcm, Q7_TCM_POOL_ADDR};
}

} // namespace

/* A failed allocation and a release of nullptr are reported too, with address 0 (PLATFORM.md
 * "Annotation port"): the checked mode tells a tcm_free after a failed tcm_malloc from a
 * correct one. */
uint32_t tcm_alloc(uint32_t bytes)
{
	uint64_t p = tcm_pool().alloc(bytes);
	trace_alloc(Q7_HEAP_IX_TCM + 1, p, bytes);
	return uint32_t(p);
}

void tcm_release(uint32_t p, const char *what)
{
	if (!p) {
		trace_free(Q7_HEAP_IX_TCM + 1, 0);
		return;
	}
	if (!tcm_pool().free(p))
		q7_fatal(Q7_ERR_ABORT, "%s(%p): not a block of the TCM pool, or freed twice", what, (void *)uintptr_t(p));
	trace_free(Q7_HEAP_IX_TCM + 1, p);
}

TcmUse tcm_use()
{
	tcm::Pool pool = tcm_pool();
	return TcmUse{pool.used_bytes(), pool.s.blocks, pool.largest_free()};
}

uint64_t hbm_alloc(uint64_t bytes, uint64_t align, uint32_t trace_heap)
{
	uint64_t p = hbm().alloc(bytes, align);
	if (p)
		trace_alloc(trace_heap, p, bytes);
	return p;
}

void hbm_free(uint64_t addr, uint32_t trace_heap, const char *what)
{
	if (hbm().free(addr) != heap::FreeResult::Ok)
		q7_fatal(Q7_ERR_ABORT, "%s(0x%llx): not a block of the HBM heap, or freed twice", what,
			 (unsigned long long)addr);
	trace_free(trace_heap, addr);
}

} // namespace rt
} // namespace q7

using namespace q7::rt;

Q7PtrType neuron_hbm_allocate(size_t bytes, size_t align)
{
	uint64_t p = hbm_alloc(bytes, align, Q7_HEAP_HBM);
	return p ? Q7PtrType::hbm(p) : Q7PtrType::null();
}

void neuron_hbm_free(const Q7PtrType &p)
{
	if (!p.is_nullptr)
		hbm_free(p.addr, Q7_HEAP_HBM, "neuron_hbm_free");
}

void *neuron_dataram_allocate(size_t bytes, size_t align) { return local_alloc(Q7_HEAP_IX_DATARAM, bytes, align); }
void neuron_dataram_free(void *p) { local_free(Q7_HEAP_IX_DATARAM, p, "neuron_dataram_free"); }

namespace torch {
namespace neuron {
void *tcm_malloc(size_t nbytes) { return (void *)uintptr_t(tcm_alloc(uint32_t(nbytes))); }
void tcm_free(void *p) { tcm_release(uint32_t(uintptr_t(p)), "tcm_free"); }
} // namespace neuron
} // namespace torch

extern "C" {

void *malloc(size_t size) { return local_alloc(Q7_HEAP_IX_LIBC, size, 16); }

void *aligned_alloc(size_t align, size_t size)
{
	if (align == 0 || (align & (align - 1)) != 0)
		return nullptr;
	return local_alloc(Q7_HEAP_IX_LIBC, size, align);
}

void free(void *p) { local_free(Q7_HEAP_IX_LIBC, p, "free"); }

void *calloc(size_t n, size_t size)
{
	uint64_t bytes = uint64_t(n) * size;
	if (bytes > 0xFFFFFFFFu)
		return nullptr;
	void *p = malloc(size_t(bytes));
	if (p)
		memset(p, 0, size_t(bytes));
	return p;
}

void *realloc(void *p, size_t size)
{
	if (!p)
		return malloc(size);
	auto h = local(Q7_HEAP_IX_LIBC);
	if (!h.owns(uintptr_t(p)))
		q7_fatal(Q7_ERR_ABORT, "realloc(%p): not a block malloc handed out, or freed", p);
	uint64_t have = h.capacity(uintptr_t(p));
	if (size <= have)
		return p;
	void *q = malloc(size);
	if (q) {
		memcpy(q, p, size_t(have));
		free(p);
	}
	return q;
}

} // extern "C"
