/* q7/customop_abi_tables.h - GENERATED, do not edit: generated from the host's dtype and
 * descriptor tables (host-stub/tensor/src/), build limits (host-stub/kernel-build/src/) and
 * firmware constants (host-stub/runtime/src/firmware.rs), the emulator's platform map, runtime
 * errors and annotation codes (emulator/src/platform/) and the loader's opcode and kernel
 * table (loader/src/) by tests/tests/all/sdk_headers.rs, which fails when this copy differs.
 * Regenerate it with
 *     Q7EMU_UPDATE_GENERATED=1 cargo test -p q7-tests --test all sdk_headers::
 * The values of the custom-op ABI (PLATFORM.md "Custom-op ABI") that the host, the firmware
 * and the emulator define. Included by q7/customop_abi.h. */
#ifndef Q7_CUSTOMOP_ABI_TABLES_H
#define Q7_CUSTOMOP_ABI_TABLES_H

/* ---- dispatch keys and the kernel table (PLATFORM.md "Dispatch keys") ---------------- */

#define Q7_CUSTOM_OP_OPCODE     0x85u         /* the custom-op opcode, 133 */
#define Q7_MAX_FUNCS            10u           /* ops per library (public API limit) */
#define Q7_KENTRY_BYTES         8u            /* one `.kernel_info_table` entry */

/* ---- ISA dtype codes (PLATFORM.md "ISA dtype codes") --------------------------------- */

/* X(code, ISA name, bytes, accepted by the marshalling gate), in code order */
#define Q7_DTYPES(X)           \
	X(0x0, FP8_EXP3, 1, 0) \
	X(0x1, FP8_EXP4, 1, 0) \
	X(0x2, INT8, 1, 1)     \
	X(0x3, UINT8, 1, 1)    \
	X(0x4, INT16, 2, 1)    \
	X(0x5, UINT16, 2, 0)   \
	X(0x6, INT32, 4, 1)    \
	X(0x7, INT64, 8, 1)    \
	X(0x8, FP16, 2, 1)     \
	X(0x9, FP8_EXP5, 1, 0) \
	X(0xA, BFLOAT16, 2, 1) \
	X(0xB, FP32R, 4, 0)    \
	X(0xC, FP32, 4, 1)     \
	X(0xD, UINT32, 4, 0)   \
	X(0xE, UINT64, 8, 0)   \
	X(0xF, INVALID, 0, 0)

/* ---- ARG_TENSOR descriptor (PLATFORM.md "ARG_TENSOR descriptor") --------------------- */

#define Q7_ARG_BYTES            0x30u
#define Q7_MAX_ARGS             16u           /* MBOX_NARGS bound, the OUTPUT descriptor included */

#define Q7_ARG_LOCATION_OFFSET  0x00u
#define Q7_ARG_DTYPE_OFFSET     0x01u
#define Q7_ARG_RANK_OFFSET      0x02u
#define Q7_ARG_FLAGS_OFFSET     0x03u
#define Q7_ARG_RESERVED0_OFFSET 0x04u
#define Q7_ARG_ADDR_OFFSET      0x08u
#define Q7_ARG_NUM_ELEM_OFFSET  0x10u
#define Q7_ARG_SHAPE_OFFSET     0x18u
#define Q7_ARG_RESERVED1_OFFSET 0x28u

#define Q7_LOC_HBM              0u
#define Q7_LOC_LOCAL            1u
#define Q7_LOC_SCALAR           2u

#define Q7_ARG_OUTPUT           0x01u         /* flags bit 0 */
#define Q7_ARG_WIDE_SHAPE       0x02u         /* flags bit 1 */

#define Q7_MAX_RANK             8u
#define Q7_MAX_RANK_WIDE        4u

/* ---- runtime errors (PLATFORM.md "Runtime errors": MBOX_ABORT codes) ----------------- */

#define Q7_ERRORS(X)          \
	X(1, BAD_DESCRIPTOR)  \
	X(2, BAD_DTYPE)       \
	X(3, ARG_KIND)        \
	X(4, RETURN_MISMATCH) \
	X(5, OUT_OF_MEMORY)   \
	X(6, ASSERT)          \
	X(7, ABORT)

/* Prefix of the console line printed before MBOX_ABORT is written (and its space). */
#define Q7_ERROR_PREFIX         "q7 runtime error: "

/* ---- annotation port (PLATFORM.md "Annotation port (TRACE)") ------------------------- */

#define Q7_EV_PHASE_BEGIN       1u
#define Q7_EV_PHASE_END         2u
#define Q7_EV_ALLOC             3u
#define Q7_EV_FREE              4u
#define Q7_EV_TENSOR_BIND       5u
#define Q7_EV_STACK_SWITCH      6u
#define Q7_EV_STACK_RETURN      7u
#define Q7_EV_ACCESSOR          8u

#define Q7_PHASE_SETUP          1u
#define Q7_PHASE_MARSHAL        2u
#define Q7_PHASE_COMPUTE        3u
#define Q7_PHASE_RETURN         4u
#define Q7_PHASE_CLEANUP        5u

#define Q7_HEAP_HBM             1u
#define Q7_HEAP_DATARAM         2u
#define Q7_HEAP_TCM             3u
#define Q7_HEAP_LIBC            4u
#define Q7_HEAP_HBM_STACK       5u

#define Q7_ACC_ELEMENT          1u
#define Q7_ACC_TCM              2u
#define Q7_ACC_READ_STREAM      3u
#define Q7_ACC_WRITE_STREAM     4u

#define Q7_BIND_OUTPUT          0xFFu         /* TENSOR_BIND argument index of the output */

/* ---- firmware calls and translate windows (PLATFORM.md "Runtime memory") ------------- */

#define Q7_TRAMPOLINE_BYTES     64u           /* the call trampoline at the image window's end */
#define Q7_FW_CALL_SP           0x020FFFE0u   /* SP the firmware sets before each call */
#define Q7_FW_STACK_LIMIT       0x020F8000u   /* ISL the firmware sets before each call */
#define Q7_TLB_RECORDS          5u            /* translate windows: the TLB's records */
#define Q7_TLB_PINNED           2u            /* of them pinned by the platform */

#endif /* Q7_CUSTOMOP_ABI_TABLES_H */
