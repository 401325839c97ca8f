/* q7/customop_abi.h - the custom-op ABI between a library built by `q7emu build`, the SDK
 * runtime (examples/sdk/rt/customop), the firmware and the host (PLATFORM.md "Custom-op ABI").
 * C and C++. The values the host, the firmware and the emulator define are
 * q7/customop_abi_tables.h, generated from their Rust tables (tests/tests/all/sdk_headers.rs); every
 * other value here is one row of a PLATFORM.md table, and tests/tests/all/sdk_abi.rs checks them
 * against it.
 *
 * What the generated wrapper (wrapper.cpp) defines, and the runtime reads:
 *
 *     #include <neuron/wrapper_api.h>
 *     at::Tensor vector_add(const at::Tensor& a, const at::Tensor& b);   // the user's kernels
 *
 *     extern "C" {
 *     const uint32_t __q7_cpu_count = 8;                     // 1 for a single-core library
 *     struct q7_kentry __q7_kernel_table[1]                  // one zeroed entry per op
 *         __attribute__((section(".kernel_info_table"), used)) = {};
 *     }
 *
 *     static void vector_add_wrapper() {
 *         customop_setup(true);
 *         {
 *             const at::Tensor arg0 = customop_next_tensor();   // one statement per argument:
 *             const at::Tensor arg1 = customop_next_tensor();   // descriptors are taken in order
 *             at::Tensor output = vector_add(arg0, arg1);
 *             customop_return_tensor(output);
 *         }                                                     // temporaries freed here
 *         customop_cleanup();
 *     }
 *     static int vector_add_stack_switch() {
 *         return switch_stack_or_call_wrapper((uint32_t)vector_add_wrapper);
 *     }
 *     extern "C" uint32_t get_func_cnt(void) { return 1; }
 *     extern "C" const char *get_func_name(uint32_t i) { return i == 0 ? "vector_add" : 0; }
 *     extern "C" q7_launcher_fn get_func_ptr(uint32_t i) { return i == 0 ? vector_add_stack_switch : 0; }
 *
 * Argument pulls by schema type (one `customop_next_*` call per argument, in schema order):
 *
 *     schema type     C++ parameter            pull
 *     Tensor          const at::Tensor&        customop_next_tensor()
 *     Scalar          const at::Scalar&        customop_next_scalar()
 *     float           double                   customop_next_double()
 *     int             int64_t                  customop_next_int64()
 *     bool            bool                     customop_next_bool()
 *
 * The arguments must be pulled in separate statements: C++ leaves the evaluation order of a
 * call's arguments unspecified, so `f(customop_next_tensor(), customop_next_tensor())` may bind
 * them backwards. The wrapper returns normally on whichever stack it ran; the seed's
 * `if (switched_stack) asm("j switchBack")` tail is not emitted: `switch_stack_or_call_wrapper`
 * switches back itself. `-DSTACK_SIZE=<bytes>` applies to the wrapper's translation unit.
 *
 * What the linker script defines: `__q7_heap_start` / `__q7_heap_end` (the libc heap: the end of
 * the image's bss, 16-byte aligned, to the image window's end less the 64-byte call trampoline)
 * and `__q7_init_array_start` / `__q7_init_array_end` around `.init_array` and `.ctors` (static
 * constructors, run in that order by the start symbol). ENTRY(_start). */
#ifndef Q7_CUSTOMOP_ABI_H
#define Q7_CUSTOMOP_ABI_H

#include <stdint.h>
#include <q7/customop_abi_tables.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- dispatch keys and the kernel table ------------------------------------------------ */

/* Q7_CUSTOM_OP_OPCODE, Q7_MAX_FUNCS, Q7_KENTRY_BYTES: q7/customop_abi_tables.h. */
/* Dispatch key of the op with FunctionId `fid` (its index in get_func_*). */
#define Q7_KEY(fid)         (((uint32_t)(fid) << 8) | Q7_CUSTOM_OP_OPCODE)

/* One `.kernel_info_table` entry: big-endian key, little-endian launcher address. */
struct q7_kentry {
	uint32_t key_be;
	uint32_t fn;
};

typedef int (*q7_launcher_fn)(void);

/* Defined by the generated wrapper. */
extern struct q7_kentry __q7_kernel_table[];
extern const uint32_t __q7_cpu_count;
uint32_t get_func_cnt(void);
const char *get_func_name(uint32_t idx);
q7_launcher_fn get_func_ptr(uint32_t idx);

/* Defined by the linker script (addresses only). */
extern char __q7_heap_start[], __q7_heap_end[];
typedef void (*q7_init_fn)(void);
extern q7_init_fn __q7_init_array_start[], __q7_init_array_end[];

/* Defined by the runtime: the start symbol the firmware calls once per load, and what it runs. */
void _start(void);
void entry_func(void);
void register_funcs(void);

/* ---- ISA dtype codes (PLATFORM.md "ISA dtype codes") ------------------------------------ */

/* Q7_DTYPES(X): q7/customop_abi_tables.h. */
enum q7_dtype {
#define Q7_DTYPE_ENUM(code, name, bytes, ok) Q7_DTYPE_##name = code,
	Q7_DTYPES(Q7_DTYPE_ENUM)
#undef Q7_DTYPE_ENUM
	Q7_DTYPE_COUNT /* codes run 0.. in order: one past the last */
};

/* ---- ARG_TENSOR descriptor (0x30 bytes) -------------------------------------------------- */

/* Q7_ARG_BYTES, Q7_MAX_ARGS, the field offsets Q7_ARG_*_OFFSET, the locations Q7_LOC_*, the
 * flags Q7_ARG_OUTPUT and Q7_ARG_WIDE_SHAPE, Q7_MAX_RANK(_WIDE): q7/customop_abi_tables.h. */

/* Scalars: the value's encoding in `addr`. */
#define Q7_SCALAR_DOUBLE    Q7_DTYPE_FP32  /* 0xC: IEEE double bits */
#define Q7_SCALAR_INT64     Q7_DTYPE_INT64 /* 0x7: signed 64-bit integer */

struct q7_arg_tensor {
	uint8_t location;
	uint8_t dtype;
	uint8_t rank;
	uint8_t flags;
	uint32_t reserved0;
	uint64_t addr;
	uint64_t num_elem;
	union {
		uint16_t narrow[8];
		uint32_t wide[4];
	} shape;
	uint64_t reserved1;
};

/* ---- runtime errors (MBOX_ABORT codes) --------------------------------------------------- */

/* Q7_ERRORS(X) and Q7_ERROR_PREFIX: q7/customop_abi_tables.h. */
enum q7_error {
#define Q7_ERROR_ENUM(code, name) Q7_ERR_##name = code,
	Q7_ERRORS(Q7_ERROR_ENUM)
#undef Q7_ERROR_ENUM
	Q7_ERR_COUNT
};

/* Prints `Q7_ERROR_PREFIX` + the formatted message + "\n" to the console, then writes `code` to
 * MBOX_ABORT (the core stops). For the runtime and the compiler helper routines (operator new
 * when the heap is exhausted, __cxa_pure_virtual, ...). */
__attribute__((noreturn, format(printf, 2, 3))) void q7_fatal(int code, const char *fmt, ...);

/* The response word `customop_cleanup` writes as TPB_WRITE_RESPONSE. */
#define Q7_RESPONSE_DONE    0u

/* ---- annotation port (TRACE) ------------------------------------------------------------- */

/* The event codes Q7_EV_*, the phases Q7_PHASE_*, heaps Q7_HEAP_* and accessor kinds Q7_ACC_*
 * of their arguments, Q7_BIND_OUTPUT: q7/customop_abi_tables.h. */

/* ---- runtime memory (per core) ----------------------------------------------------------- */

#define Q7_RT_STATE_ADDR    0x00080000u   /* runtime state: descriptor copies, SDMA rings, TLB */
#define Q7_RT_STATE_SIZE    0x00001000u
#define Q7_BOUNCE_ADDR      0x00081000u   /* bounce buffer */
#define Q7_BOUNCE_SIZE      0x00001000u
/* The returned-tensor record (PLATFORM.md "Returned-tensor record"): before a RETURN_MISMATCH,
 * customop_return_tensor writes what the kernel returned at the start of the bounce buffer, for
 * the host to re-dispatch with a matching output. */
#define Q7_RETURNED_ADDR    Q7_BOUNCE_ADDR
#define Q7_RETURNED_MAGIC   0x4E544552u   /* "RETN" */
struct q7_returned {
	uint32_t magic;    /* Q7_RETURNED_MAGIC */
	uint8_t dtype;     /* ISA dtype code; 0xF (INVALID) for an undefined tensor */
	uint8_t rank;      /* 0..8 */
	uint16_t reserved; /* 0 */
	int64_t dims[8];   /* outermost first; unused dims 0 */
};
#define Q7_TCM_POOL_ADDR    0x00082000u   /* tcm_malloc pool */
#define Q7_TCM_POOL_SIZE    0x00004000u
#define Q7_DATARAM_HEAP_ADDR 0x00086000u  /* neuron_dataram_allocate */
#define Q7_DATARAM_HEAP_SIZE 0x0000A000u
/* Q7_TRAMPOLINE_BYTES, Q7_FW_CALL_SP, Q7_FW_STACK_LIMIT: q7/customop_abi_tables.h. */

#define Q7_MAX_STACK_SIZE   0x00400000u   /* largest HBM stack */
#define Q7_DEFAULT_STACK_SIZE 4196u       /* STACK_SIZE when the build gives none */

/* Translate windows: Q7_TLB_RECORDS of them, the first Q7_TLB_PINNED pinned by the platform,
 * the rest the TLB's dynamic records (q7/customop_abi_tables.h). */

/* ---- assert ------------------------------------------------------------------------------ */

/* Reports "assertion failed: <expr> (<file>:<line>, <func>)" with code ASSERT. */
__attribute__((noreturn)) void __q7_assert_fail(const char *expr, const char *file, int line,
						const char *func);

#ifdef __cplusplus
}
#endif

/* The structures above have the sizes and field offsets of q7/customop_abi_tables.h. */
#ifdef __cplusplus
#define Q7_STATIC_ASSERT static_assert
#else
#define Q7_STATIC_ASSERT _Static_assert
#endif
#define Q7_ARG_FIELD_AT(field, NAME)                                                          \
	Q7_STATIC_ASSERT(__builtin_offsetof(struct q7_arg_tensor, field) == Q7_ARG_##NAME##_OFFSET, \
			 "ARG_TENSOR " #field " at Q7_ARG_" #NAME "_OFFSET");
Q7_STATIC_ASSERT(sizeof(struct q7_kentry) == Q7_KENTRY_BYTES, "kernel table entry size");
Q7_STATIC_ASSERT(sizeof(struct q7_arg_tensor) == Q7_ARG_BYTES, "ARG_TENSOR size");
Q7_ARG_FIELD_AT(location, LOCATION)
Q7_ARG_FIELD_AT(dtype, DTYPE)
Q7_ARG_FIELD_AT(rank, RANK)
Q7_ARG_FIELD_AT(flags, FLAGS)
Q7_ARG_FIELD_AT(reserved0, RESERVED0)
Q7_ARG_FIELD_AT(addr, ADDR)
Q7_ARG_FIELD_AT(num_elem, NUM_ELEM)
Q7_ARG_FIELD_AT(shape, SHAPE)
Q7_ARG_FIELD_AT(reserved1, RESERVED1)
#undef Q7_ARG_FIELD_AT
#undef Q7_STATIC_ASSERT

#endif
