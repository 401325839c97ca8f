//! The mailbox (PLATFORM.md "Mailbox"): the invocation a dispatch places for the kernel —
//! opcode, sub-opcode, ARG_TENSOR descriptors — and the kernel's response word, decoded through
//! `map::reg::mailbox`.

use super::device::{Device, DeviceCtx};
use super::map::{reg, reg::mailbox as regs, reg::Decoded, ARG_TENSOR_SIZE};
use crate::bus::BusFault;

/// One ARG_TENSOR descriptor.
pub type ArgTensor = [u8; ARG_TENSOR_SIZE as usize];

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
            _ => u32::from(self.response.is_some()), // MBOX_RESPONSE_VALID
        })
    }

    fn store(
        &mut self,
        _: Decoded,
        v: u32,
        _: &mut DeviceCtx<'_>,
        _: u64,
    ) -> Result<u64, BusFault> {
        // MBOX_RESPONSE is the one writable register.
        self.response = Some(v);
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
            response: None,
        };
        let mut rig = Rig::new();
        let words = [
            reg::MBOX_OPCODE,
            reg::MBOX_SUB_OPCODE,
            reg::MBOX_NARGS,
            reg::MBOX_ARGS + ARG_TENSOR_SIZE + 0x2c,
            reg::MBOX_ARGS + 2 * ARG_TENSOR_SIZE,
            reg::MBOX_RESPONSE_VALID,
        ]
        .map(|off| rig.load(&mut m, off, 0).unwrap());
        assert_eq!(words, [133, 7, 2, 0xfeed_f00d, 0, 0]);
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
