/* memcpy.cpp - neuron_memcpy and the runtime's bulk copies and fills. Three methods: C_MEMCPY
 * (the core copies through the translate windows, one 16 MiB region at a time), VEC_MEMCPY (the
 * same in 32-bit words when everything is word-aligned) and DMA, the default: SDMA straight
 * between DATARAM and HBM, through the DATARAM bounce buffer otherwise. Every copy has finished
 * when it returns. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <q7/customop_abi.h>
#include <q7/platform.h>
#include <q7/rt_state.h>
#include <q7/runtime.h>

#include "rt.h"

namespace q7 {
namespace rt {

namespace {

constexpr uint32_t MAX_DESC = 65536;
constexpr uint32_t HALF = Q7_BOUNCE_SIZE / 2;

/* Bytes from `addr` to the end of its 16 MiB window region. */
uint64_t region_left(uint64_t addr) { return Q7_WINDOW_SIZE - (addr & (Q7_WINDOW_SIZE - 1)); }

void *nx(uint64_t addr, bool local) { return local ? (void *)uintptr_t(addr) : q7_translate(addr); }

void cpu_copy(uint64_t dst, bool dl, uint64_t src, bool sl, uint64_t n, bool words)
{
	while (n) {
		uint64_t k = n;
		if (!dl && region_left(dst) < k)
			k = region_left(dst);
		if (!sl && region_left(src) < k)
			k = region_left(src);
		void *s = nx(src, sl);
		void *d = nx(dst, dl);
		if (words && ((uintptr_t(d) | uintptr_t(s) | k) & 3) == 0) {
			volatile uint32_t *dw = static_cast<volatile uint32_t *>(d);
			const volatile uint32_t *sw = static_cast<const volatile uint32_t *>(s);
			for (uint64_t i = 0; i < k / 4; i++)
				dw[i] = sw[i];
		} else {
			memcpy(d, s, size_t(k));
		}
		dst += k;
		src += k;
		n -= k;
	}
}

/* DATARAM [local, +n) <-> HBM in descriptors of at most 64 KiB; waits for the last. */
void dma_direct(uint32_t q, uint64_t hbm, uint32_t local, uint64_t n)
{
	uint32_t last = 0;
	while (n) {
		uint32_t k = n < MAX_DESC ? uint32_t(n) : MAX_DESC;
		last = sdma_push(q, hbm, local, k);
		hbm += k;
		local += k;
		n -= k;
	}
	if (last)
		sdma_wait(q, last);
}

/* HBM -> HBM through the two halves of the bounce buffer: chunk i is read into half i % 2
 * while chunk i - 1 is written out of the other. */
void dma_hbm_to_hbm(uint64_t dst, uint64_t src, uint64_t n)
{
	uint32_t written[2] = {0, 0};
	for (uint32_t i = 0; n; i++) {
		uint32_t k = n < HALF ? uint32_t(n) : HALF;
		uint32_t half = Q7_BOUNCE_ADDR + (i & 1) * HALF;
		if (written[i & 1])
			sdma_wait(Q7_SDMA_S2M, written[i & 1]);
		sdma_wait(Q7_SDMA_M2S, sdma_push(Q7_SDMA_M2S, src, half, k));
		written[i & 1] = sdma_push(Q7_SDMA_S2M, dst, half, k);
		dst += k;
		src += k;
		n -= k;
	}
	for (uint32_t h = 0; h < 2; h++)
		if (written[h])
			sdma_wait(Q7_SDMA_S2M, written[h]);
}

void dma_copy(uint64_t dst, bool dl, uint64_t src, bool sl, uint64_t n)
{
	if (dl && sl) {
		memcpy((void *)uintptr_t(dst), (const void *)uintptr_t(src), size_t(n));
	} else if (!dl && !sl) {
		dma_hbm_to_hbm(dst, src, n);
	} else if (dl) {
		/* HBM -> local */
		if (in_dataram(uintptr_t(dst), n)) {
			dma_direct(Q7_SDMA_M2S, src, uint32_t(dst), n);
			return;
		}
		while (n) {
			uint32_t k = n < Q7_BOUNCE_SIZE ? uint32_t(n) : Q7_BOUNCE_SIZE;
			sdma_wait(Q7_SDMA_M2S, sdma_push(Q7_SDMA_M2S, src, Q7_BOUNCE_ADDR, k));
			memcpy((void *)uintptr_t(dst), (const void *)uintptr_t(Q7_BOUNCE_ADDR), k);
			dst += k;
			src += k;
			n -= k;
		}
	} else {
		/* local -> HBM */
		if (in_dataram(uintptr_t(src), n)) {
			dma_direct(Q7_SDMA_S2M, dst, uint32_t(src), n);
			return;
		}
		while (n) {
			uint32_t k = n < Q7_BOUNCE_SIZE ? uint32_t(n) : Q7_BOUNCE_SIZE;
			memcpy((void *)uintptr_t(Q7_BOUNCE_ADDR), (const void *)uintptr_t(src), k);
			sdma_wait(Q7_SDMA_S2M, sdma_push(Q7_SDMA_S2M, dst, Q7_BOUNCE_ADDR, k));
			dst += k;
			src += k;
			n -= k;
		}
	}
}

} // namespace

void copy(uint64_t dst, bool dst_local, uint64_t src, bool src_local, uint64_t n)
{
	boot();
	if (n == 0)
		return;
	switch (Q7_RT->memcpy_method) {
	case NEURON_C_MEMCPY:
		cpu_copy(dst, dst_local, src, src_local, n, false);
		break;
	case NEURON_VEC_MEMCPY:
		cpu_copy(dst, dst_local, src, src_local, n, true);
		break;
	case NEURON_DMA:
		dma_copy(dst, dst_local, src, src_local, n);
		break;
	default:
		q7_fatal(Q7_ERR_ABORT, "neuron_memcpy: method %u (MAX_METHODS) has no implementation",
			 (unsigned)Q7_RT->memcpy_method);
	}
}

void fill_pattern(uint64_t dst, bool dst_local, const void *pattern, uint32_t psize, uint64_t n)
{
	boot();
	const uint8_t *p = static_cast<const uint8_t *>(pattern);
	if (dst_local || Q7_RT->memcpy_method != NEURON_DMA) {
		while (n) {
			uint64_t k = n;
			if (!dst_local && region_left(dst) < k)
				k = region_left(dst);
			uint8_t *d = static_cast<uint8_t *>(nx(dst, dst_local));
			for (uint64_t i = 0; i < k; i += psize)
				for (uint32_t b = 0; b < psize; b++)
					d[i + b] = p[b];
			dst += k;
			n -= k;
		}
		return;
	}
	uint8_t *bounce = (uint8_t *)uintptr_t(Q7_BOUNCE_ADDR);
	for (uint32_t i = 0; i < Q7_BOUNCE_SIZE; i += psize)
		for (uint32_t b = 0; b < psize; b++)
			bounce[i + b] = p[b];
	__asm__ volatile("memw" ::: "memory");
	uint32_t last = 0;
	while (n) {
		uint32_t k = n < Q7_BOUNCE_SIZE ? uint32_t(n) : Q7_BOUNCE_SIZE;
		last = sdma_push(Q7_SDMA_S2M, dst, Q7_BOUNCE_ADDR, k);
		dst += k;
		n -= k;
	}
	sdma_wait(Q7_SDMA_S2M, last);
}

} // namespace rt
} // namespace q7

using namespace q7::rt;

int neuron_set_memcpy_method(int method)
{
	boot();
	if (method < 0 || method >= 4)
		return -1;
	Q7_RT->memcpy_method = uint32_t(method);
	return 0;
}

int neuron_get_memcpy_method()
{
	boot();
	return int(Q7_RT->memcpy_method);
}

void neuron_memcpy(void *dst, const Q7PtrType &src, size_t n)
{
	copy(uintptr_t(dst), true, src.addr, src.is_local, n);
}

void neuron_memcpy(const Q7PtrType &dst, const void *src, size_t n)
{
	copy(dst.addr, dst.is_local, uintptr_t(src), true, n);
}

void neuron_memcpy(const Q7PtrType &dst, const Q7PtrType &src, size_t n)
{
	copy(dst.addr, dst.is_local, src.addr, src.is_local, n);
}
