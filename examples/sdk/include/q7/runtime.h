// q7/runtime.h - the device runtime's C++ API under the tensor API: HBM pointers and their
// translation, bulk copies, the four heaps, the core's identity. Kernels may call these
// directly (seed spellings); examples/sdk/README.md lists them with their status.
#ifndef Q7_RUNTIME_H
#define Q7_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <q7/customop_abi.h>
#include <q7/rt_state.h>

// The TLB the translations go through (one per core).
typedef struct q7_rt_state neuron_translate_ctx_t;

inline neuron_translate_ctx_t *neuron_translate_ctx() { return Q7_RT; }

// The NX address of HBM byte `hbm_addr`, valid until three more distinct 16 MiB regions are
// translated (PLATFORM.md "Translate windows").
inline void *neuron_translate(neuron_translate_ctx_t *, uint64_t hbm_addr) { return q7_translate(hbm_addr); }

// A tensor's storage address: an HBM address, or a core-local one (a descriptor with location
// "local"), or none. 16 bytes.
struct Q7PtrType {
	uint64_t addr;
	neuron_translate_ctx_t *ctx;
	uint8_t is_nullptr;
	uint8_t is_local;
	uint16_t pad;

	static Q7PtrType hbm(uint64_t a) { return Q7PtrType{a, Q7_RT, 0, 0, 0}; }
	static Q7PtrType local(const void *p) { return Q7PtrType{uint64_t(uintptr_t(p)), Q7_RT, 0, 1, 0}; }
	static Q7PtrType null() { return Q7PtrType{0, Q7_RT, 1, 0, 0}; }

	// The address `bytes` further on (pure address arithmetic, nothing is translated).
	Q7PtrType operator+(int64_t bytes) const
	{
		Q7PtrType p = *this;
		p.addr += uint64_t(bytes);
		return p;
	}
	// The NX address of the byte it points at.
	void *translate() const { return is_local ? (void *)uintptr_t(addr) : q7_translate(addr); }
};
static_assert(sizeof(Q7PtrType) == 16, "Q7PtrType is 16 bytes");

// ---- bulk copies ----

// How neuron_memcpy moves bytes: C_MEMCPY (0, the core through the translate windows),
// VEC_MEMCPY (1, the same in 32-bit words), DMA (2, the default: the SDMA rings).
enum neuron_memcpy_method {
	NEURON_C_MEMCPY = 0,
	NEURON_VEC_MEMCPY = 1,
	NEURON_DMA = 2,
	NEURON_MAX_METHODS = 3
};

// Sets the method; refuses (returns -1) a value >= 4, the seed's bound. 3 (MAX_METHODS) is
// accepted as in the seed, and a copy with it then stops with a runtime error.
int neuron_set_memcpy_method(int method);
int neuron_get_memcpy_method();

// Copies `n` bytes between local memory and a tensor's storage, or between two storages.
void neuron_memcpy(void *dst, const Q7PtrType &src, size_t n);
void neuron_memcpy(const Q7PtrType &dst, const void *src, size_t n);
void neuron_memcpy(const Q7PtrType &dst, const Q7PtrType &src, size_t n);

// ---- heaps ----

// `bytes` of HBM from this core's HBM heap (PLATFORM.md MBOX_HEAP_*), `align`-aligned (at least
// 64); a null pointer when the heap is exhausted.
Q7PtrType neuron_hbm_allocate(size_t bytes, size_t align = 64);
void neuron_hbm_free(const Q7PtrType &p);

// `bytes` of the 40 KiB DATARAM heap, `align`-aligned (at least 64); nullptr when exhausted.
void *neuron_dataram_allocate(size_t bytes, size_t align = 64);
void neuron_dataram_free(void *p);

namespace torch {
namespace neuron {
// `nbytes` of the 16 KiB TCM user pool (64-byte aligned); nullptr when exhausted.
void *tcm_malloc(size_t nbytes);
// Frees a tcm_malloc block; nullptr is ignored; anything else stops the kernel.
void tcm_free(void *p);
} // namespace neuron
} // namespace torch

// ---- identity ----

// This core's id, PRID read once at start-up, in [0, get_cpu_count()).
uint32_t get_cpu_id();
// 8 in a multicore library, 1 in a single-core one.
uint32_t get_cpu_count();

namespace torch {
namespace neuron {
using ::get_cpu_count;
using ::get_cpu_id;
} // namespace neuron
} // namespace torch

#endif
