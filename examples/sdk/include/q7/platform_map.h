/* q7/platform_map.h - GENERATED, do not edit: generated from the address layout (isa/layout),
 * the emulator's platform map and register map (emulator/src/platform/map.rs, map/reg.rs) and
 * the special-register table (isa/src/sreg.rs) by tests/tests/all/sdk_headers.rs, which fails
 * when this copy differs. Regenerate it with
 *     Q7EMU_UPDATE_GENERATED=1 cargo test -p q7-tests --test all sdk_headers::
 * The address map and the MMIO register map of PLATFORM.md as device code sees them. Included
 * by q7/platform.h. */
#ifndef Q7_PLATFORM_MAP_H
#define Q7_PLATFORM_MAP_H

/* ---- address map (PLATFORM.md "Per-core address map") -------------------------------- */

#define Q7_IRAM_BASE            0x00000000u
#define Q7_IRAM_SIZE            0x00010000u
#define Q7_DATARAM_BASE         0x00080000u
#define Q7_DATARAM_SIZE         0x00010000u
#define Q7_FWDATA_BASE          0x02000000u
#define Q7_FWDATA_SIZE          0x00100000u
#define Q7_MMIO_BASE            0x03000000u
#define Q7_MMIO_SIZE            0x00010000u
#define Q7_XLATE_BASE           0x84000000u
#define Q7_XLATE_SIZE           0x05000000u
#define Q7_WINDOWS              5u            /* translate windows */
#define Q7_WINDOW_SIZE          0x01000000u
#define Q7_PINNED_WINDOWS       2u            /* windows pinned to HBM scratch at boot */
#define Q7_IMAGE_WINDOW_SIZE    0x00200000u
#define Q7_IMAGE_WINDOW(prid)   (0x84000000u + (prid) * 0x00200000u)

/* ---- registers (PLATFORM.md register tables), offsets in MMIO ------------------------ */

#define Q7_REG(off)             (*(volatile unsigned int *)(Q7_MMIO_BASE + (off)))

/* MEM_WINDOW: 5 instances `w`, 0x10 bytes apart */
#define Q7_MEM_WINDOW_BASE_LO(w) Q7_REG(0x0000u + (w) * 0x10u)
#define Q7_MEM_WINDOW_BASE_HI(w) Q7_REG(0x0004u + (w) * 0x10u)
#define Q7_MEM_WINDOW_CTRL(w)   Q7_REG(0x0008u + (w) * 0x10u)

/* SDMA: 2 instances `q`, 0x20 bytes apart */
#define Q7_SDMA_M2S             0u            /* queue: HBM -> DATARAM */
#define Q7_SDMA_S2M             1u            /* queue: DATARAM -> HBM */
#define Q7_SDMA_RING_BASE(q)    Q7_REG(0x1000u + (q) * 0x20u)
#define Q7_SDMA_RING_SIZE(q)    Q7_REG(0x1004u + (q) * 0x20u)
#define Q7_SDMA_DOORBELL(q)     Q7_REG(0x1008u + (q) * 0x20u)
#define Q7_SDMA_COMPLETED(q)    Q7_REG(0x100Cu + (q) * 0x20u)
#define Q7_SDMA_WAIT(q)         Q7_REG(0x1010u + (q) * 0x20u)

/* MAILBOX: one instance */
#define Q7_MBOX_OPCODE          Q7_REG(0x2000u)
#define Q7_MBOX_SUB_OPCODE      Q7_REG(0x2004u)
#define Q7_MBOX_NARGS           Q7_REG(0x2008u)
#define Q7_MBOX_ARG(i, word)    Q7_REG(0x2010u + (i) * 0x30u + (word) * 4u)
#define Q7_MBOX_RESPONSE        Q7_REG(0x2400u)
#define Q7_MBOX_RESPONSE_VALID  Q7_REG(0x2404u)
#define Q7_MBOX_ABORT           Q7_REG(0x2408u)
#define Q7_MBOX_HEAP_BASE_LO    Q7_REG(0x2410u)
#define Q7_MBOX_HEAP_BASE_HI    Q7_REG(0x2414u)
#define Q7_MBOX_HEAP_SIZE       Q7_REG(0x2418u)

/* CONSOLE: one instance */
#define Q7_CONSOLE_PUTC         Q7_REG(0x3000u)

/* TRACE: one instance */
#define Q7_TRACE_ARG(i)         Q7_REG(0x4000u + (i) * 4u) /* i < 4 */
#define Q7_TRACE_EVENT          Q7_REG(0x4010u)

/* ---- special registers the assembler has no name for (ncore2gp stack limits) --------- */

#define Q7_SR_ISL               248u
#define Q7_SR_KSL               249u

#endif /* Q7_PLATFORM_MAP_H */
