//! Test helpers for the core's modules: a 1 MiB RAM bus, a core over it with code assembled
//! at 0x1000, and single-instruction execution.

use q7_isa::{CoreConfig, Insn, Opcode};

use super::exception::Exc;
use super::Core;
use crate::bus::{Bus, BusFault};
use crate::fault::Stop;
use crate::predecode::Op;
use crate::trace::NoTrace;

/// Where [`core_with`] puts code and starts.
pub const CODE: u32 = 0x1000;

/// 1 MiB of RAM at address 0; everything above is unmapped.
#[derive(Debug)]
pub struct TestBus(Vec<u8>, bool);

impl TestBus {
    /// Offers the RAM to compiled code as memory that may hold code ([`Bus::direct_code`]:
    /// loads and stores, the stores only into granules holding no decoded instruction), as
    /// the platform's firmware band is.
    pub fn offer_direct_code(&mut self) {
        self.1 = true;
    }

    /// Writes `bytes` at `addr`.
    pub fn write(&mut self, addr: u32, bytes: &[u8]) {
        self.0[addr as usize..addr as usize + bytes.len()].copy_from_slice(bytes);
    }

    /// `n` bytes at `addr`.
    pub fn read(&self, addr: u32, n: usize) -> Vec<u8> {
        self.0[addr as usize..addr as usize + n].to_vec()
    }

    fn range(&self, addr: u32, size: u32) -> Result<std::ops::Range<usize>, BusFault> {
        let end = addr as usize + size as usize;
        if end > self.0.len() {
            return Err(BusFault::Unmapped { addr });
        }
        Ok(addr as usize..end)
    }
}

impl Bus for TestBus {
    fn load(&mut self, addr: u32, size: u32, _now: u64) -> Result<u32, BusFault> {
        let r = self.range(addr, size)?;
        Ok(self.0[r]
            .iter()
            .rev()
            .fold(0, |v, &b| (v << 8) | u32::from(b)))
    }

    fn store(&mut self, addr: u32, size: u32, value: u32, _now: u64) -> Result<u64, BusFault> {
        let r = self.range(addr, size)?;
        self.0[r].copy_from_slice(&value.to_le_bytes()[..size as usize]);
        Ok(0)
    }

    fn plain_load(&mut self, addr: u32, size: u32) -> Option<u32> {
        self.load(addr, size, 0).ok()
    }

    fn plain_store(&mut self, addr: u32, size: u32, value: u32) -> bool {
        self.store(addr, size, value, 0).is_ok()
    }

    fn fetch(&mut self, addr: u32, buf: &mut [u8]) -> Result<usize, BusFault> {
        let n = buf.len().min(self.0.len().saturating_sub(addr as usize));
        if n == 0 {
            return Err(BusFault::Unmapped { addr });
        }
        buf[..n].copy_from_slice(&self.0[addr as usize..addr as usize + n]);
        Ok(n)
    }

    fn peek(&self, addr: u32) -> Option<u32> {
        let r = self.range(addr, 4).ok()?;
        Some(u32::from_le_bytes(self.0[r].try_into().ok()?))
    }

    fn direct_code(&mut self) -> Option<crate::bus::Direct> {
        self.1.then_some(crate::bus::Direct {
            base: 0,
            len: self.0.len() as u64,
            ptr: self.0.as_mut_ptr(),
            stores: true,
            touched: std::ptr::null(),
        })
    }
}

/// A core of `config` in reset state at [`CODE`], with `code` assembled there.
pub fn core_with(config: &'static CoreConfig, code: &[(Opcode, Vec<u32>)]) -> Core<TestBus> {
    let mut bus = TestBus(vec![0; 1 << 20], false);
    let mut pc = CODE;
    for (opcode, operands) in code {
        let bytes = opcode.encode(operands, pc).expect("valid test instruction");
        bus.write(pc, bytes.as_bytes());
        pc += bytes.as_bytes().len() as u32;
    }
    Core::new(config, bus, 0, CODE, 0)
}

/// A core with `code` followed by a semihosting exit with status `a<status>`, PS 0 (ring 0,
/// EXCM clear).
pub fn core_exiting(
    config: &'static CoreConfig,
    code: &[(Opcode, Vec<u32>)],
    status: u32,
) -> Core<TestBus> {
    let mut all = code.to_vec();
    all.extend([
        (Opcode::Or, vec![3, status, status]),
        (Opcode::Movi, vec![2, 1]),
        (Opcode::Simcall, vec![]),
    ]);
    let mut core = core_with(config, &all);
    core.state.set_sr(q7_isa::sreg::sr::PS, 0);
    core.refresh();
    core
}

/// Runs [`core_exiting`]'s core to its stop.
pub fn run_to_exit(config: &'static CoreConfig, code: &[(Opcode, Vec<u32>)], status: u32) -> Stop {
    core_exiting(config, code, status).run(1_000_000, &mut NoTrace)
}

/// The op of `opcode` with `operands` (table order, not encoded).
pub fn op(opcode: Opcode, operands: &[u32]) -> Op {
    Op::from_insn(Insn::new(opcode, operands))
}

/// Executes one instruction at the core's PC: the next PC or the exception it raises.
pub fn exec<B: Bus>(core: &mut Core<B>, opcode: Opcode, operands: &[u32]) -> Result<u32, Exc> {
    let pc = core.state.pc;
    core.execute::<NoTrace>(&op(opcode, operands), pc)
}

/// Takes exception `e` as if raised by an `ill` at `pc`.
pub fn take<B: Bus>(core: &mut Core<B>, pc: u32, e: Exc) -> Option<Stop> {
    core.take(pc, &op(Opcode::Ill, &[]), e, &mut NoTrace)
}
