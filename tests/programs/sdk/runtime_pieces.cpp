// Runtime pieces that need no firmware support beyond today's, on the emulated core: printf on
// the console (exact decimal floats, 64-bit integers, flags), start-up of the per-core state
// (pinned TLB records mirror windows 0 and 1), translation of five HBM regions through three
// dynamic windows (round-robin reprogramming), and neuron_memcpy / fills with the DMA, C and VEC
// methods in every direction, HBM-to-HBM through the bounce buffer over many ring wraps.
// Mailbox argument i, words 0 and 1: HBM buffer i (A: source pattern, B, C, D: destinations,
// E: region probes). Exit code 0, else the failing step; the host checks B, C, D and E.
#include <stdint.h>
#include <stdio.h>
#include <q7/platform.h>
#include <q7/rt_state.h>
#include <q7/runtime.h>

// What the generated wrapper and the linker script would define.
extern "C" {
const uint32_t __q7_cpu_count = 1;
struct q7_kentry __q7_kernel_table[1] = {};
q7_init_fn __q7_init_array_start[1], __q7_init_array_end[1];
uint32_t get_func_cnt(void) { return 0; }
const char *get_func_name(uint32_t) { return nullptr; }
q7_launcher_fn get_func_ptr(uint32_t) { return nullptr; }
}

namespace q7 {
namespace rt {
void boot();
void fill_pattern(uint64_t dst, bool dst_local, const void *pattern, uint32_t psize, uint64_t n);
} // namespace rt
} // namespace q7

static uint64_t arg(unsigned i) { return uint64_t(Q7_MBOX_ARG(i, 0)) | (uint64_t(Q7_MBOX_ARG(i, 1)) << 32); }

static uint8_t far_buffer[3000]; // outside DATARAM: the DMA path bounces

int main()
{
	printf("[%d|%5u|%-6x|%08X|%+lld|%llu]\n", -42, 7u, 0xabcu, 0xC0DEu, -9000000000ll, 18446744073709551615ull);
	printf("[%f|%.3e|%g|%g|%.0f|%.2f]\n", 3.14159265358979, 1234.5678, 0.0001, 1e20, 2.5, -0.125);
	printf("[%s|%.3s|%c|%%|%zu|%p]\n", "str", "abcdef", 'Z', sizeof(Q7PtrType), (void *)0x1234);
	printf("[%.17g|%e|%G]\n", 0.1, 5e-324, 1e-10);

	q7::rt::boot();
	q7_rt_state *st = Q7_RT;
	if (!st->tlb[0].valid || !st->tlb[0].pinned || st->tlb[0].hbm_base != 0 || st->tlb[1].hbm_base != 0x1000000)
		return 1;
	if (get_cpu_id() != 0 || get_cpu_count() != 1)
		return 2;

	// Five regions through three dynamic windows: every write lands, reads see it.
	uint64_t e = arg(4);
	for (unsigned r = 0; r < 5; r++) {
		volatile uint32_t *p = static_cast<volatile uint32_t *>(q7_translate(e + r * 0x1000000ull));
		p[0] = 0xE0000000u + r;
		if (p[0] != 0xE0000000u + r)
			return 3;
	}
	if (Q7_MEM_WINDOW_CTRL(2) != 1 || Q7_MEM_WINDOW_CTRL(4) != 1)
		return 4;
	if ((Q7_MEM_WINDOW_BASE_LO(3) >> 24) != (uint32_t((e + 4 * 0x1000000ull) >> 24) & 0xFF))
		return 5; // region 4 replaced region 1 in window 3
	if (*static_cast<volatile uint32_t *>(q7_translate(e + 0x1000000ull)) != 0xE0000001u)
		return 6; // region 1 comes back on a miss

	Q7PtrType a = Q7PtrType::hbm(arg(0)), b = Q7PtrType::hbm(arg(1)), c = Q7PtrType::hbm(arg(2));
	uint8_t *tcm = reinterpret_cast<uint8_t *>(uintptr_t(Q7_TCM_POOL_ADDR)); // (tcm_malloc reports on TRACE)
	if (neuron_get_memcpy_method() != NEURON_DMA)
		return 7;
	const int methods[3] = {NEURON_DMA, NEURON_C_MEMCPY, NEURON_VEC_MEMCPY};
	for (int m = 0; m < 3; m++) {
		if (neuron_set_memcpy_method(methods[m]) != 0)
			return 8;
		// HBM -> TCM (DATARAM, direct SDMA), check, TCM -> HBM B + m * 4096.
		neuron_memcpy(tcm, a + 100, 4000);
		for (unsigned i = 0; i < 4000; i++)
			if (tcm[i] != uint8_t((i + 100) * 7))
				return 10 + m;
		neuron_memcpy(b + m * 4096, tcm, 4000);
		// HBM -> a buffer outside DATARAM (bounced), and back out to HBM C + m * 4096.
		neuron_memcpy(far_buffer, a + 1, sizeof far_buffer);
		for (unsigned i = 0; i < sizeof far_buffer; i++)
			if (far_buffer[i] != uint8_t((i + 1) * 7))
				return 20 + m;
		neuron_memcpy(c + m * 4096, far_buffer, sizeof far_buffer);
	}
	if (neuron_set_memcpy_method(4) != -1 || neuron_set_memcpy_method(-1) != -1 || neuron_set_memcpy_method(3) != 0)
		return 30;
	neuron_set_memcpy_method(NEURON_DMA);
	// HBM -> HBM, 1 MiB + 7 bytes: 513 bounce chunks, the rings wrap 32 times.
	neuron_memcpy(c + 0x10000, a, 0x100007);
	// Fills: 4-byte pattern over 12345 bytes of D by DMA, 2-byte over 100 bytes of D + 0x4000 by C.
	uint32_t pat4 = 0xA1B2C3D4u;
	q7::rt::fill_pattern(arg(3), false, &pat4, 4, 12344);
	neuron_set_memcpy_method(NEURON_C_MEMCPY);
	uint16_t pat2 = 0x5A6B;
	q7::rt::fill_pattern(arg(3) + 0x4000, false, &pat2, 2, 100);
	return 0;
}
