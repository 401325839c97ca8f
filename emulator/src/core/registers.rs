//! Special and user registers: RSR/WSR/XSR/RUR/WUR as the register table of [`q7_isa::sreg`]
//! says (where each value is stored, how a write changes it), RSIL, the external-register
//! instructions RER/WER, dc233c's EXPSTATE TIE instructions, and register access by number for
//! hosts — where a register the profile does not have is an error, never another register.

use std::fmt;

use q7_isa::sreg::{self, sr, ur, Access, RegisterInfo, SPECIAL_REGISTERS, USER_REGISTERS};
use q7_isa::Opcode;

use super::{not_in_family, Core, Flow};
use crate::bus::Bus;
use crate::predecode::Op;
use crate::state::ps;

/// The two register files RSR/WSR/XSR and RUR/WUR name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegisterFile {
    /// Special registers (RSR/WSR/XSR).
    Special,
    /// User registers (RUR/WUR).
    User,
}

impl fmt::Display for RegisterFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RegisterFile::Special => "special",
            RegisterFile::User => "user",
        })
    }
}

/// A register access by number that the core's profile cannot do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// No register of that number in that file may be read (or written) on the profile.
    #[error("{profile} has no {file} register {number} that {instruction} may name")]
    Unknown {
        /// Special or user.
        file: RegisterFile,
        /// The register number.
        number: u8,
        /// "rsr", "wsr", "rur" or "wur".
        instruction: &'static str,
        /// The profile's name.
        profile: &'static str,
    },
}

impl<B: Bus> Core<B> {
    /// The value of register `row` of `file` as RSR/RUR reads it.
    fn read_row(&self, file: RegisterFile, row: &RegisterInfo) -> u32 {
        match (row.word(), file) {
            (Some(w), RegisterFile::Special) => self.state.sr(w),
            (Some(w), RegisterFile::User) => self.state.ur(w),
            (None, _) => (self.stats.cycles as u32).wrapping_add(self.ccount_offset),
        }
    }

    /// Writes `v` to register `row` of `file` as WSR/WUR does: through the row's write rule
    /// into its storage, then refreshing what the pipeline derives from PS and the window.
    fn write_row(&mut self, file: RegisterFile, row: &RegisterInfo, v: u32) {
        match (row.word(), file) {
            (Some(w), RegisterFile::Special) => {
                let new = row.write.apply(self.state.sr(w), v, self.config);
                self.state.set_sr(w, new);
            }
            (Some(w), RegisterFile::User) => {
                let word = self.state.ur_mut(w);
                *word = row.write.apply(*word, v, self.config);
            }
            (None, _) => {
                let count = row.write.apply(0, v, self.config);
                self.ccount_offset = count.wrapping_sub(self.stats.cycles as u32);
            }
        }
        if file == RegisterFile::Special
            && matches!(row.number, sr::WINDOWBASE | sr::WINDOWSTART | sr::PS)
        {
            self.refresh();
        }
    }

    /// Executes a register-family instruction (`opcode` is `op`'s, as a constant of the
    /// dispatch).
    #[inline(always)]
    pub(super) fn registers(&mut self, opcode: Opcode, op: &Op) -> Flow {
        let o = op.insn.operands;
        let special = || &SPECIAL_REGISTERS[o[1] as usize];
        let user = || &USER_REGISTERS[o[1] as usize];
        use Opcode::*;
        use RegisterFile::{Special, User};
        match opcode {
            Rsr => self.set(o[0], self.read_row(Special, special())),
            Wsr => self.write_row(Special, special(), self.a(o[0])),
            Xsr => {
                let old = self.read_row(Special, special());
                self.write_row(Special, special(), self.a(o[0]));
                self.set(o[0], old);
            }
            Rur => self.set(o[0], self.read_row(User, user())),
            Wur => self.write_row(User, user(), self.a(o[0])),
            Rsil => {
                let old = self.state.ps();
                self.state.set_sr(sr::PS, (old & !ps::INTLEVEL) | o[1]);
                self.refresh();
                self.set(o[0], old);
            }
            // No external registers are modelled.
            Rer | Wer => {}
            // dc233c's example TIE: an input wire that reads 0, and EXPSTATE bit operations
            // (WRMSK as QEMU models it: EXPSTATE = value & mask).
            ReadImpwire => self.set(o[0], 0),
            SetbExpstate => *self.state.ur_mut(ur::EXPSTATE) |= 1 << o[0],
            ClrbExpstate => *self.state.ur_mut(ur::EXPSTATE) &= !(1 << o[0]),
            WrmskExpstate => *self.state.ur_mut(ur::EXPSTATE) = self.a(o[0]) & self.a(o[1]),
            _ => not_in_family("register", op),
        }
        Flow::NEXT
    }

    fn row(
        &self,
        file: RegisterFile,
        number: u8,
        access: Access,
    ) -> Result<&'static RegisterInfo, RegisterError> {
        let write = access == Access::WRITE;
        let (row, instruction) = match file {
            RegisterFile::Special => (
                sreg::special(number, access, self.config),
                if write { "wsr" } else { "rsr" },
            ),
            RegisterFile::User => (
                sreg::user(number, access, self.config),
                if write { "wur" } else { "rur" },
            ),
        };
        row.ok_or(RegisterError::Unknown {
            file,
            number,
            instruction,
            profile: self.config.name,
        })
    }

    /// Register `number` of `file`, as RSR/RUR would read it.
    pub fn read_register(&self, file: RegisterFile, number: u8) -> Result<u32, RegisterError> {
        let row = self.row(file, number, Access::READ)?;
        Ok(self.read_row(file, row))
    }

    /// Writes register `number` of `file` as WSR/WUR would (write rule, pipeline refresh).
    pub fn write_register(
        &mut self,
        file: RegisterFile,
        number: u8,
        v: u32,
    ) -> Result<(), RegisterError> {
        let row = self.row(file, number, Access::WRITE)?;
        self.write_row(file, row, v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, exec};
    use super::*;
    use crate::fault::ExcCause;
    use q7_isa::{DC233C, NCORE2GP};

    fn row_of(name: &str) -> u32 {
        SPECIAL_REGISTERS
            .iter()
            .position(|r| r.name == name)
            .unwrap() as u32
    }

    #[test]
    fn wsr_applies_the_write_rule_and_rsr_reads_the_same_word() {
        let mut c = core_with(&DC233C, &[]);
        c.set(3, u32::MAX);
        exec(&mut c, Opcode::Wsr, &[3, row_of("sar")]).unwrap();
        assert_eq!(c.state.sar(), 0x3f);
        exec(&mut c, Opcode::Wsr, &[3, row_of("ps")]).unwrap();
        assert_eq!(c.state.ps(), 0x7_0fff);
        exec(&mut c, Opcode::Rsr, &[4, row_of("ps")]).unwrap();
        assert_eq!(c.a(4), 0x7_0fff);
        c.set(3, 0b0110);
        exec(&mut c, Opcode::Wsr, &[3, row_of("intset")]).unwrap();
        c.set(3, 0b0010);
        exec(&mut c, Opcode::Wsr, &[3, row_of("intclear")]).unwrap();
        assert_eq!(c.read_register(RegisterFile::Special, 226), Ok(0b0100));
    }

    #[test]
    fn xsr_exchanges_and_ccount_counts_cycles_from_the_written_value() {
        let mut c = core_with(&DC233C, &[]);
        c.set(3, 1000);
        exec(&mut c, Opcode::Xsr, &[3, row_of("ccount")]).unwrap();
        let after = c.read_register(RegisterFile::Special, sr::CCOUNT).unwrap();
        assert_eq!(after, 1001, "written before the instruction's own cycle");
        c.stats.cycles += 10;
        assert_eq!(c.read_register(RegisterFile::Special, sr::CCOUNT), Ok(1011));
    }

    #[test]
    fn privileged_registers_trap_outside_ring_0() {
        let mut c = core_with(&DC233C, &[]);
        c.state.set_sr(sr::PS, 1 << ps::RING_SHIFT);
        c.refresh();
        let e = exec(&mut c, Opcode::Rsr, &[3, row_of("vecbase")]).unwrap_err();
        assert_eq!(e.cause(), Some(ExcCause::Privileged));
        assert_eq!(e.describe(&DC233C), "rsr in ring 1");
        exec(&mut c, Opcode::Rsr, &[3, row_of("sar")]).unwrap();
    }

    #[test]
    fn user_registers_have_their_own_words_and_unknown_ones_are_errors() {
        let mut c = core_with(&DC233C, &[]);
        c.set(3, 0x1234);
        exec(&mut c, Opcode::Wur, &[3, 1]).unwrap();
        assert_eq!(
            c.read_register(RegisterFile::User, ur::THREADPTR),
            Ok(0x1234)
        );
        assert_eq!(c.read_register(RegisterFile::User, ur::EXPSTATE), Ok(0));
        exec(&mut c, Opcode::SetbExpstate, &[3]).unwrap();
        assert_eq!(c.state.ur(ur::EXPSTATE), 8);
        assert_eq!(
            c.read_register(RegisterFile::User, 0),
            Err(RegisterError::Unknown {
                file: RegisterFile::User,
                number: 0,
                instruction: "rur",
                profile: "dc233c"
            })
        );
        let n = core_with(&NCORE2GP, &[]);
        let e = n
            .read_register(RegisterFile::User, ur::EXPSTATE)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "ncore2gp has no user register 230 that rur may name"
        );
        assert!(n.read_register(RegisterFile::Special, sr::PRID).is_ok());
        let mut n = n;
        assert!(n
            .write_register(RegisterFile::Special, sr::PRID, 1)
            .is_err());
    }

    #[test]
    fn rsil_sets_the_interrupt_level_and_returns_the_old_ps() {
        let mut c = core_with(&DC233C, &[]);
        exec(&mut c, Opcode::Rsil, &[3, 4]).unwrap();
        assert_eq!((c.a(3), c.state.ps()), (0x1f, 0x14));
    }
}
