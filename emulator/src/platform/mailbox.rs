//! The mailbox (PLATFORM.md "Mailbox"): the invocation a dispatch places for the kernel —
//! opcode, sub-opcode, ARG_TENSOR descriptors, the core's HBM heap — and what the kernel
//! answers: its response word, or a runtime error code written to MBOX_ABORT (PLATFORM.md
//! "Runtime errors"), which stops the core. Decoded through `map::reg::mailbox`.

use super::device::{self, Device, DeviceCtx};
use super::map::{reg, reg::mailbox as regs, reg::Decoded, ARG_TENSOR_SIZE};
use crate::bus::BusFault;

/// One ARG_TENSOR descriptor.
pub type ArgTensor = [u8; ARG_TENSOR_SIZE as usize];

/// The runtime error codes of MBOX_ABORT (PLATFORM.md "Runtime errors"): code, name, when.
pub const RUNTIME_ERRORS: [(u32, &str, &str); 7] = [
    (
        1,
        "BAD_DESCRIPTOR",
        "a descriptor breaks a rule of the ARG_TENSOR table",
    ),
    (2, "BAD_DTYPE", "the marshalling gate rejected a dtype code"),
    (
        3,
        "ARG_KIND",
        "an argument of the wrong kind, or too few descriptors",
    ),
    (
        4,
        "RETURN_MISMATCH",
        "the returned tensor differs from the OUTPUT descriptor",
    ),
    (
        5,
        "OUT_OF_MEMORY",
        "an allocation the runtime cannot fail failed",
    ),
    (6, "ASSERT", "assert() failed in kernel code"),
    (
        7,
        "ABORT",
        "abort() or another fatal misuse the runtime detects",
    ),
];

/// The name of runtime error `code`, or "unknown" for a code outside [`RUNTIME_ERRORS`].
pub fn runtime_error_name(code: u32) -> &'static str {
    RUNTIME_ERRORS
        .iter()
        .find(|e| e.0 == code)
        .map_or("unknown", |e| e.1)
}

/// The invocation a dispatch places in the mailbox, and the kernel's response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mailbox {
    /// Dispatch opcode.
    pub opcode: u32,
    /// Sub-opcode.
    pub sub_opcode: u32,
    /// ARG_TENSOR descriptors (at most `MAX_ARGS`).
    pub args: Vec<ArgTensor>,
    /// TPB_WRITE_RESPONSE, once written.
    pub response: Option<u32>,
    /// The runtime error code written to MBOX_ABORT, once written (the core stopped there).
    pub abort: Option<u32>,
    /// This core's HBM heap: base address and size in bytes (MBOX_HEAP_*).
    pub heap: (u64, u32),
}

impl Mailbox {
    /// The word `at` bytes into MBOX_ARGS; 0 past the descriptors present.
    fn arg_word(&self, at: u32) -> u32 {
        let (i, b) = (
            (at / ARG_TENSOR_SIZE) as usize,
            (at % ARG_TENSOR_SIZE) as usize,
        );
        self.args.get(i).map_or(0, |d| {
            u32::from_le_bytes([d[b], d[b + 1], d[b + 2], d[b + 3]])
        })
    }
}

impl Device for Mailbox {
    fn block(&self) -> &'static reg::Block {
        &regs::BLOCK
    }

    fn load(&mut self, d: Decoded, _: &mut DeviceCtx<'_>, _: u64) -> Result<u32, BusFault> {
        Ok(match d.register {
            regs::OPCODE => self.opcode,
            regs::SUB_OPCODE => self.sub_opcode,
            regs::NARGS => self.args.len() as u32,
            regs::ARGS => self.arg_word(d.at),
            regs::HEAP_BASE_LO => self.heap.0 as u32,
            regs::HEAP_BASE_HI => (self.heap.0 >> 32) as u32,
            regs::HEAP_SIZE => self.heap.1,
            _ => u32::from(self.response.is_some()), // MBOX_RESPONSE_VALID
        })
    }

    fn store(
        &mut self,
        d: Decoded,
        v: u32,
        _: &mut DeviceCtx<'_>,
        _: u64,
    ) -> Result<u64, BusFault> {
        if d.register == regs::ABORT {
            self.abort = Some(v);
            return Err(device::error(
                d.off,
                format!(
                    "kernel aborted: runtime error {v} ({})",
                    runtime_error_name(v)
                ),
            ));
        }
        self.response = Some(v); // MBOX_RESPONSE
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::Rig;

    #[test]
    fn the_kernel_reads_the_invocation_word_by_word() {
        let mut arg = [0u8; ARG_TENSOR_SIZE as usize];
        arg[0x2c..].copy_from_slice(&0xfeed_f00d_u32.to_le_bytes());
        let mut m = Mailbox {
            opcode: 133,
            sub_opcode: 7,
            args: vec![[0; ARG_TENSOR_SIZE as usize], arg],
            heap: (0x1_2345_6000, 0x400_0000),
            ..Mailbox::default()
        };
        let mut rig = Rig::new();
        let words = [
            reg::MBOX_OPCODE,
            reg::MBOX_SUB_OPCODE,
            reg::MBOX_NARGS,
            reg::MBOX_ARGS + ARG_TENSOR_SIZE + 0x2c,
            reg::MBOX_ARGS + 2 * ARG_TENSOR_SIZE,
            reg::MBOX_RESPONSE_VALID,
            regs::BLOCK.at(&regs::HEAP_BASE_LO, 0),
            regs::BLOCK.at(&regs::HEAP_BASE_HI, 0),
            regs::BLOCK.at(&regs::HEAP_SIZE, 0),
        ]
        .map(|off| rig.load(&mut m, off, 0).unwrap());
        assert_eq!(
            words,
            [133, 7, 2, 0xfeed_f00d, 0, 0, 0x2345_6000, 1, 0x400_0000]
        );
    }

    #[test]
    fn an_abort_records_the_code_and_stops_the_core_naming_it() {
        let (mut rig, mut m) = (Rig::new(), Mailbox::default());
        let off = regs::BLOCK.at(&regs::ABORT, 0);
        assert_eq!(off, 0x2408, "PLATFORM.md: MBOX_ABORT at 0x2408");
        assert_eq!(
            rig.store(&mut m, off, 2, 0).unwrap_err().to_string(),
            "kernel aborted: runtime error 2 (BAD_DTYPE)"
        );
        assert_eq!((m.abort, m.response), (Some(2), None));
        assert_eq!(runtime_error_name(99), "unknown");
    }

    #[test]
    fn the_response_is_write_only_and_sets_valid() {
        let (mut rig, mut m) = (Rig::new(), Mailbox::default());
        assert_eq!(rig.store(&mut m, reg::MBOX_RESPONSE, 42, 0), Ok(0));
        assert_eq!(rig.load(&mut m, reg::MBOX_RESPONSE_VALID, 0), Ok(1));
        assert_eq!(m.response, Some(42));
        assert_eq!(
            rig.load(&mut m, reg::MBOX_RESPONSE, 0)
                .unwrap_err()
                .to_string(),
            "read of MMIO register 0x03002400, which does not exist or is write-only"
        );
        assert_eq!(
            rig.store(&mut m, reg::MBOX_OPCODE, 1, 0)
                .unwrap_err()
                .to_string(),
            "write of MMIO register 0x03002000, which does not exist or is read-only"
        );
    }
}
