//! The MMIO register map of PLATFORM.md: one [`Block`] per device — its registers' names,
//! offsets and access — listed in [`BLOCKS`]. Devices decode every access through their block
//! ([`Block::decode`]); `tests/tests/all/platform_doc.rs` checks every block against PLATFORM.md's
//! register tables. Offsets are relative to `MMIO.0`.

use super::{queue, ARG_TENSOR_SIZE, MAX_ARGS, WINDOWS};

/// The width of every register: other access sizes are refused.
pub const WIDTH: u32 = 4;

/// Which accesses a register answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-only.
    R,
    /// Write-only.
    W,
    /// Read and write.
    RW,
}

impl Access {
    /// The access column of PLATFORM.md.
    pub const fn as_str(self) -> &'static str {
        match self {
            Access::R => "R",
            Access::W => "W",
            Access::RW => "RW",
        }
    }

    /// Whether a register of this access answers a read (`want` = [`Access::R`]) or a write
    /// ([`Access::W`]).
    pub const fn permits(self, want: Access) -> bool {
        matches!(
            (self, want),
            (Access::RW, _) | (Access::R, Access::R) | (Access::W, Access::W)
        )
    }
}

/// One register, or a register array of `len` bytes, of a device instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Register {
    /// Name as in PLATFORM.md, without the instance index.
    pub name: &'static str,
    /// Offset inside the instance.
    pub offset: u32,
    /// Bytes it spans (4, or more for an array such as MBOX_ARGS).
    pub len: u32,
    /// What it answers.
    pub access: Access,
}

/// A device's registers: `instances` copies of `registers`, `stride` bytes each, back to back
/// from `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Device name (PLATFORM.md section).
    pub name: &'static str,
    /// Offset of instance 0 in MMIO.
    pub base: u32,
    /// Bytes per instance.
    pub stride: u32,
    /// Number of instances.
    pub instances: u32,
    /// The instance index as PLATFORM.md writes it (`w`, `q`), or "" for a single instance.
    pub index: &'static str,
    /// The registers of one instance, by offset.
    pub registers: &'static [Register],
}

/// A decoded access: which register, of which instance, how many bytes into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    /// The MMIO offset accessed.
    pub off: u32,
    /// The register.
    pub register: Register,
    /// The instance (window, queue; 0 for single-instance devices).
    pub instance: u32,
    /// Byte offset inside the register (non-zero only inside arrays).
    pub at: u32,
}

impl Block {
    /// `(offset, size)` of the whole block in MMIO.
    pub const fn span(&self) -> (u32, u32) {
        (self.base, self.instances * self.stride)
    }

    /// Whether MMIO offset `off` lies in the block.
    pub const fn contains(&self, off: u32) -> bool {
        off.wrapping_sub(self.base) < self.instances * self.stride
    }

    /// MMIO offset of register `r` of instance `instance`.
    pub const fn at(&self, r: &Register, instance: u32) -> u32 {
        self.base + instance * self.stride + r.offset
    }

    /// The register at MMIO offset `off` if it answers `want` ([`Access::R`] for a read,
    /// [`Access::W`] for a write); `None` for a gap, another block or the wrong direction.
    pub fn decode(&self, off: u32, want: Access) -> Option<Decoded> {
        if !self.contains(off) {
            return None;
        }
        let rel = off - self.base;
        let (instance, inner) = (rel / self.stride, rel % self.stride);
        self.registers
            .iter()
            .find(|r| inner.wrapping_sub(r.offset) < r.len)
            .filter(|r| r.access.permits(want))
            .map(|r| Decoded {
                off,
                register: *r,
                instance,
                at: inner - r.offset,
            })
    }
}

const fn word(name: &'static str, offset: u32, access: Access) -> Register {
    Register {
        name,
        offset,
        len: WIDTH,
        access,
    }
}

/// The translate windows' registers (PLATFORM.md "Translate windows").
pub mod mem_window {
    use super::{word, Access, Block, Register, WINDOWS};

    /// MEM_WINDOW_BASE_LO: HBM base, bits 31:0.
    pub const BASE_LO: Register = word("MEM_WINDOW_BASE_LO", 0x0, Access::RW);
    /// MEM_WINDOW_BASE_HI: HBM base, bits 63:32.
    pub const BASE_HI: Register = word("MEM_WINDOW_BASE_HI", 0x4, Access::RW);
    /// MEM_WINDOW_CTRL: bit 0 = enabled.
    pub const CTRL: Register = word("MEM_WINDOW_CTRL", 0x8, Access::RW);
    /// One instance per window.
    pub const BLOCK: Block = Block {
        name: "MEM_WINDOW",
        base: 0x0000,
        stride: 0x10,
        instances: WINDOWS,
        index: "w",
        registers: &[BASE_LO, BASE_HI, CTRL],
    };
}

/// The SDMA queues' registers (PLATFORM.md "SDMA").
pub mod sdma {
    use super::{queue, word, Access, Block, Register};

    /// SDMA_RING_BASE: DATARAM address of the ring.
    pub const RING_BASE: Register = word("SDMA_RING_BASE", 0x0, Access::RW);
    /// SDMA_RING_SIZE: entries in the ring.
    pub const RING_SIZE: Register = word("SDMA_RING_SIZE", 0x4, Access::RW);
    /// SDMA_DOORBELL: the new tail.
    pub const DOORBELL: Register = word("SDMA_DOORBELL", 0x8, Access::W);
    /// SDMA_COMPLETED: descriptors completed so far.
    pub const COMPLETED: Register = word("SDMA_COMPLETED", 0xc, Access::R);
    /// SDMA_WAIT: stall until COMPLETED reaches the value.
    pub const WAIT: Register = word("SDMA_WAIT", 0x10, Access::W);
    /// One instance per queue.
    pub const BLOCK: Block = Block {
        name: "SDMA",
        base: 0x1000,
        stride: 0x20,
        instances: queue::COUNT,
        index: "q",
        registers: &[RING_BASE, RING_SIZE, DOORBELL, COMPLETED, WAIT],
    };
}

/// The mailbox's registers (PLATFORM.md "Mailbox").
pub mod mailbox {
    use super::{word, Access, Block, Register, ARG_TENSOR_SIZE, MAX_ARGS};

    /// MBOX_OPCODE: dispatch opcode.
    pub const OPCODE: Register = word("MBOX_OPCODE", 0x0, Access::R);
    /// MBOX_SUB_OPCODE: sub-opcode.
    pub const SUB_OPCODE: Register = word("MBOX_SUB_OPCODE", 0x4, Access::R);
    /// MBOX_NARGS: number of ARG_TENSOR descriptors.
    pub const NARGS: Register = word("MBOX_NARGS", 0x8, Access::R);
    /// MBOX_ARGS: the ARG_TENSOR descriptors, `ARG_TENSOR_SIZE` bytes each.
    pub const ARGS: Register = Register {
        name: "MBOX_ARGS",
        offset: 0x10,
        len: MAX_ARGS * ARG_TENSOR_SIZE,
        access: Access::R,
    };
    /// MBOX_RESPONSE: TPB_WRITE_RESPONSE.
    pub const RESPONSE: Register = word("MBOX_RESPONSE", 0x400, Access::W);
    /// MBOX_RESPONSE_VALID: 1 once MBOX_RESPONSE was written.
    pub const RESPONSE_VALID: Register = word("MBOX_RESPONSE_VALID", 0x404, Access::R);
    /// MBOX_ABORT: the runtime gives up with an error code (PLATFORM.md "Runtime errors").
    pub const ABORT: Register = word("MBOX_ABORT", 0x408, Access::W);
    /// MBOX_HEAP_BASE_LO: this core's HBM heap, base bits 31:0.
    pub const HEAP_BASE_LO: Register = word("MBOX_HEAP_BASE_LO", 0x410, Access::R);
    /// MBOX_HEAP_BASE_HI: base bits 63:32.
    pub const HEAP_BASE_HI: Register = word("MBOX_HEAP_BASE_HI", 0x414, Access::R);
    /// MBOX_HEAP_SIZE: heap bytes.
    pub const HEAP_SIZE: Register = word("MBOX_HEAP_SIZE", 0x418, Access::R);
    /// A single instance.
    pub const BLOCK: Block = Block {
        name: "MAILBOX",
        base: 0x2000,
        stride: 0x41c,
        instances: 1,
        index: "",
        registers: &[
            OPCODE,
            SUB_OPCODE,
            NARGS,
            ARGS,
            RESPONSE,
            RESPONSE_VALID,
            ABORT,
            HEAP_BASE_LO,
            HEAP_BASE_HI,
            HEAP_SIZE,
        ],
    };
}

/// The console's register (PLATFORM.md "Console").
pub mod console {
    use super::{word, Access, Block, Register};

    /// CONSOLE_PUTC: append the low byte to the ring.
    pub const PUTC: Register = word("CONSOLE_PUTC", 0x0, Access::W);
    /// A single instance.
    pub const BLOCK: Block = Block {
        name: "CONSOLE",
        base: 0x3000,
        stride: 0x4,
        instances: 1,
        index: "",
        registers: &[PUTC],
    };
}

/// The annotation port's registers (PLATFORM.md "Annotation port (TRACE)").
pub mod trace {
    use super::{word, Access, Block, Register};

    /// TRACE_ARG0..3: event arguments, written before the event code.
    pub const ARGS: [Register; 4] = [
        word("TRACE_ARG0", 0x0, Access::W),
        word("TRACE_ARG1", 0x4, Access::W),
        word("TRACE_ARG2", 0x8, Access::W),
        word("TRACE_ARG3", 0xc, Access::W),
    ];
    /// TRACE_EVENT: the event code; the write commits the event.
    pub const EVENT: Register = word("TRACE_EVENT", 0x10, Access::W);
    /// A single instance.
    pub const BLOCK: Block = Block {
        name: "TRACE",
        base: 0x4000,
        stride: 0x14,
        instances: 1,
        index: "",
        registers: &[ARGS[0], ARGS[1], ARGS[2], ARGS[3], EVENT],
    };
}

/// Every device's block, in address order: the register map.
pub const BLOCKS: [&Block; 5] = [
    &mem_window::BLOCK,
    &sdma::BLOCK,
    &mailbox::BLOCK,
    &console::BLOCK,
    &trace::BLOCK,
];

/// MEM_WINDOW_BASE_LO of window `w`.
pub const fn mem_window_base_lo(w: u32) -> u32 {
    mem_window::BLOCK.at(&mem_window::BASE_LO, w)
}
/// MEM_WINDOW_BASE_HI of window `w`.
pub const fn mem_window_base_hi(w: u32) -> u32 {
    mem_window::BLOCK.at(&mem_window::BASE_HI, w)
}
/// MEM_WINDOW_CTRL of window `w`.
pub const fn mem_window_ctrl(w: u32) -> u32 {
    mem_window::BLOCK.at(&mem_window::CTRL, w)
}
/// SDMA_RING_BASE of queue `q`.
pub const fn sdma_ring_base(q: u32) -> u32 {
    sdma::BLOCK.at(&sdma::RING_BASE, q)
}
/// SDMA_RING_SIZE of queue `q`.
pub const fn sdma_ring_size(q: u32) -> u32 {
    sdma::BLOCK.at(&sdma::RING_SIZE, q)
}
/// SDMA_DOORBELL of queue `q`.
pub const fn sdma_doorbell(q: u32) -> u32 {
    sdma::BLOCK.at(&sdma::DOORBELL, q)
}
/// SDMA_COMPLETED of queue `q`.
pub const fn sdma_completed(q: u32) -> u32 {
    sdma::BLOCK.at(&sdma::COMPLETED, q)
}
/// SDMA_WAIT of queue `q`.
pub const fn sdma_wait(q: u32) -> u32 {
    sdma::BLOCK.at(&sdma::WAIT, q)
}
/// MBOX_OPCODE.
pub const MBOX_OPCODE: u32 = mailbox::BLOCK.at(&mailbox::OPCODE, 0);
/// MBOX_SUB_OPCODE.
pub const MBOX_SUB_OPCODE: u32 = mailbox::BLOCK.at(&mailbox::SUB_OPCODE, 0);
/// MBOX_NARGS.
pub const MBOX_NARGS: u32 = mailbox::BLOCK.at(&mailbox::NARGS, 0);
/// MBOX_ARGS (`ARG_TENSOR_SIZE` bytes per ARG_TENSOR descriptor).
pub const MBOX_ARGS: u32 = mailbox::BLOCK.at(&mailbox::ARGS, 0);
/// MBOX_RESPONSE (TPB_WRITE_RESPONSE).
pub const MBOX_RESPONSE: u32 = mailbox::BLOCK.at(&mailbox::RESPONSE, 0);
/// MBOX_RESPONSE_VALID.
pub const MBOX_RESPONSE_VALID: u32 = mailbox::BLOCK.at(&mailbox::RESPONSE_VALID, 0);
/// CONSOLE_PUTC.
pub const CONSOLE_PUTC: u32 = console::BLOCK.at(&console::PUTC, 0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_in_address_order_disjoint_and_inside_mmio() {
        for pair in BLOCKS.windows(2) {
            let ((a, la), (b, _)) = (pair[0].span(), pair[1].span());
            assert!(a + la <= b, "{} overlaps {}", pair[0].name, pair[1].name);
        }
        let (last, len) = BLOCKS[BLOCKS.len() - 1].span();
        assert!(last + len <= super::super::MMIO.1);
    }

    #[test]
    fn registers_fit_their_instance_in_offset_order_and_are_word_aligned() {
        for b in BLOCKS {
            for pair in b.registers.windows(2) {
                assert!(
                    pair[0].offset + pair[0].len <= pair[1].offset,
                    "{}",
                    pair[1].name
                );
            }
            for r in b.registers {
                assert!(
                    r.offset + r.len <= b.stride,
                    "{} leaves its instance",
                    r.name
                );
                assert_eq!((r.offset % WIDTH, r.len % WIDTH), (0, 0), "{}", r.name);
            }
        }
    }

    #[test]
    fn decode_finds_register_instance_and_byte_offset() {
        let d = sdma::BLOCK.decode(0x102c, Access::R).unwrap();
        assert_eq!((d.register, d.instance, d.at), (sdma::COMPLETED, 1, 0));
        let d = mailbox::BLOCK.decode(0x2010 + 0x30 + 8, Access::R).unwrap();
        assert_eq!((d.register, d.instance, d.at), (mailbox::ARGS, 0, 0x38));
        assert_eq!(
            mem_window::BLOCK
                .decode(0x48, Access::W)
                .map(|d| d.instance),
            Some(4)
        );
    }

    #[test]
    fn decode_refuses_gaps_other_blocks_and_the_wrong_direction() {
        assert_eq!(
            mem_window::BLOCK.decode(0xc, Access::R),
            None,
            "gap after CTRL"
        );
        assert_eq!(mem_window::BLOCK.decode(0x50, Access::R), None, "window 5");
        assert_eq!(sdma::BLOCK.decode(0x1008, Access::R), None, "DOORBELL is W");
        assert_eq!(
            sdma::BLOCK.decode(0x100c, Access::W),
            None,
            "COMPLETED is R"
        );
        assert_eq!(mailbox::BLOCK.decode(0x200c, Access::R), None, "gap");
        assert_eq!(console::BLOCK.decode(0x2000, Access::W), None, "mailbox");
    }

    #[test]
    fn named_offsets_come_from_the_blocks() {
        assert_eq!(
            (
                mem_window_base_lo(1),
                mem_window_base_hi(1),
                mem_window_ctrl(1)
            ),
            (0x10, 0x14, 0x18)
        );
        assert_eq!(
            (sdma_ring_base(1), sdma_doorbell(0), sdma_wait(1)),
            (0x1020, 0x1008, 0x1030)
        );
        assert_eq!(
            (MBOX_ARGS, MBOX_RESPONSE, CONSOLE_PUTC),
            (0x2010, 0x2400, 0x3000)
        );
    }

    #[test]
    fn access_permits_its_directions() {
        assert!(Access::RW.permits(Access::R) && Access::RW.permits(Access::W));
        assert!(Access::R.permits(Access::R) && !Access::R.permits(Access::W));
        assert!(Access::W.permits(Access::W) && !Access::W.permits(Access::R));
    }
}
