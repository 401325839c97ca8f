//! Exceptions: what keeps an instruction from completing ([`Exc`]: an architectural [`Trap`]
//! taken through a vector, or a [`Halt`] that ends the run; a general exception's [`Reason`]
//! gives its cause and address, and is put into words only when a report is made), entry
//! through the XEA2 vectors ([`crate::vector`]; only ever for traps), and the exception family
//! of instructions — the returns
//! RFE, RFDE, RFWO, RFWU and RFI, SYSCALL, SIMCALL, BREAK, ILL, WAITI and the debug-mode
//! returns.

use q7_isa::sreg::sr;
use q7_isa::{CoreConfig, Opcode};

use super::{not_in_family, Core, Flow, Res};
use crate::bus::Bus;
use crate::fault::{ExcCause, FaultKind, Stop};
use crate::predecode::{Op, Undecodable};
use crate::semihost::{self, Outcome};
use crate::state::ps;
use crate::trace::{Event, Tracer};
pub use crate::vector::{Vector, WindowTrap};

/// What keeps an instruction from completing, raised before any of its effects: an
/// architectural trap, which exception entry ([`Core::take`]) takes through a [`Vector`], or an
/// emulator stop, which ends the run with a [`Stop`] instead. Kept to two words so the
/// per-instruction `Result` travels in registers (a test holds it to that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Exc {
    /// An architectural exception: the core takes it through its vector.
    Trap(Trap),
    /// The run ends here (boxed: it happens at most once per run).
    Halt(Box<Halt>),
}

/// An architectural exception: what exception entry takes through a vector (isa/ISA.md §3.8,
/// §5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trap {
    /// A general exception: the kernel, user or double exception vector, by PS (§5.3).
    General(Box<Reason>),
    /// A window overflow before an instruction naming registers of the frame `n` groups up
    /// (§3.3), or a window underflow on a return to a spilled frame of call increment `n`
    /// (§3.5): the window vector of `trap` for the frame the handler spills or restores, the
    /// window rotated `n` groups up or down.
    Window { trap: WindowTrap, n: u32 },
}

/// An emulator stop: no handler can take it, and the run ends with a [`Stop`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Halt {
    /// A fault that stops the core, with its address if it has one.
    Fatal(FaultKind, Option<u32>),
    /// Semihosting exit with this status (isa/ISA.md §2.4).
    Exit(i32),
}

impl Exc {
    /// A general exception for `reason`.
    pub(crate) fn general(reason: Reason) -> Exc {
        Exc::Trap(Trap::General(Box::new(reason)))
    }

    /// A window overflow spilling the live frame `n` groups up.
    pub(crate) fn overflow(n: u32) -> Exc {
        Exc::Trap(Trap::Window {
            trap: WindowTrap::Overflow,
            n,
        })
    }

    /// A window underflow restoring the spilled caller of call increment `n`.
    pub(crate) fn underflow(n: u32) -> Exc {
        Exc::Trap(Trap::Window {
            trap: WindowTrap::Underflow,
            n,
        })
    }

    /// A fault that stops the core, with its address if it has one.
    pub(crate) fn fatal(kind: FaultKind, address: Option<u32>) -> Exc {
        Exc::Halt(Box::new(Halt::Fatal(kind, address)))
    }

    /// Semihosting exit with status `code`.
    pub(crate) fn exit(code: i32) -> Exc {
        Exc::Halt(Box::new(Halt::Exit(code)))
    }

    /// EXCCAUSE of a general exception.
    #[cfg(test)]
    pub(crate) fn cause(&self) -> Option<ExcCause> {
        match self {
            Exc::Trap(Trap::General(r)) => Some(r.cause()),
            _ => None,
        }
    }

    /// A general exception's detail as a report gives it.
    #[cfg(test)]
    pub(crate) fn describe(&self, config: &CoreConfig) -> String {
        match self {
            Exc::Trap(Trap::General(r)) => r.describe(config),
            other => format!("{other:?}"),
        }
    }
}

/// Why a general exception was raised: its EXCCAUSE, its EXCVADDR, and (for a report only)
/// what exactly happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reason {
    /// A privileged instruction or register outside ring 0.
    Privileged { opcode: Opcode, ring: u32 },
    /// A load or store of an address nothing is mapped at.
    Unmapped { addr: u32, store: bool },
    /// A device refused an access, saying why.
    Device { addr: u32, message: String },
    /// The region forbids this kind of access (`kind` as the bus names it).
    Prohibited {
        addr: u32,
        kind: &'static str,
        store: bool,
    },
    /// An unaligned load or store (`what` = "load from" / "store to").
    Unaligned {
        addr: u32,
        size: u32,
        what: &'static str,
    },
    /// An unaligned S32EX.
    UnalignedExclusive { addr: u32 },
    /// S32C1I while ATOMCTL's bypass field says "error".
    AtomicBypass { addr: u32 },
    /// QUOS/QUOU/REMS/REMU by zero.
    DivideByZero(Opcode),
    /// MOVSP with the caller's frame spilled.
    MovspSpilled,
    /// RFI of a level that is not 2..=7.
    RfiLevel(u32),
    /// SYSCALL.
    Syscall,
    /// ILL / ILL.N.
    Ill,
    /// Bytes that are not an instruction of the profile, at `pc`.
    Illegal { bad: Undecodable, pc: u32 },
    /// An instruction running past the end of fetchable memory at `pc`.
    FetchBeyondEnd { pc: u32 },
    /// RFDO/RFDD outside on-chip-debug mode.
    OutsideDebug(Opcode),
    /// A TLB instruction (flat memory has none).
    TlbNotModelled(Opcode),
    /// ENTRY naming a register above a3, or with window overflow checks off.
    Entry { above_a3: bool, ps: u32 },
    /// RETW with a bad a0 or live caller, or with window overflow checks off.
    Retw { a0: u32, n: u32, m: u32, ps: u32 },
}

impl Reason {
    /// EXCCAUSE.
    pub(crate) fn cause(&self) -> ExcCause {
        match self {
            Reason::Privileged { .. } => ExcCause::Privileged,
            Reason::Unmapped { .. } | Reason::Device { .. } | Reason::AtomicBypass { .. } => {
                ExcCause::LoadStoreError
            }
            Reason::Prohibited { store: true, .. } => ExcCause::StoreProhibited,
            Reason::Prohibited { store: false, .. } => ExcCause::LoadProhibited,
            Reason::Unaligned { .. } | Reason::UnalignedExclusive { .. } => {
                ExcCause::LoadStoreAlignment
            }
            Reason::DivideByZero(_) => ExcCause::IntegerDivideByZero,
            Reason::MovspSpilled => ExcCause::Alloca,
            Reason::Syscall => ExcCause::Syscall,
            Reason::FetchBeyondEnd { .. } => ExcCause::InstructionFetchError,
            Reason::RfiLevel(_)
            | Reason::Ill
            | Reason::Illegal { .. }
            | Reason::OutsideDebug(_)
            | Reason::TlbNotModelled(_)
            | Reason::Entry { .. }
            | Reason::Retw { .. } => ExcCause::IllegalInstruction,
        }
    }

    /// EXCVADDR: the faulting data or instruction address, when there is one.
    pub(crate) fn vaddr(&self) -> Option<u32> {
        match *self {
            Reason::Unmapped { addr, .. }
            | Reason::Device { addr, .. }
            | Reason::Prohibited { addr, .. }
            | Reason::Unaligned { addr, .. }
            | Reason::UnalignedExclusive { addr }
            | Reason::AtomicBypass { addr } => Some(addr),
            Reason::FetchBeyondEnd { pc } => Some(pc),
            _ => None,
        }
    }

    /// What exactly happened, for a report on a core of `config`.
    pub(crate) fn describe(&self, config: &CoreConfig) -> String {
        match self {
            Reason::Privileged { opcode, ring } => {
                format!("{} in ring {ring}", opcode.mnemonic())
            }
            Reason::Unmapped { addr, store } => format!(
                "{} of unmapped address {addr:#010x}",
                if *store { "store" } else { "load" }
            ),
            Reason::Device { message, .. } => message.clone(),
            Reason::Prohibited { addr, kind, .. } => format!("{kind} not allowed at {addr:#010x}"),
            Reason::Unaligned { addr, size, what } => {
                format!("unaligned {size}-byte {what} {addr:#010x}")
            }
            Reason::UnalignedExclusive { addr } => {
                format!("unaligned exclusive store to {addr:#010x}")
            }
            Reason::AtomicBypass { addr } => {
                format!("s32c1i to {addr:#010x} with ATOMCTL bypass field 0")
            }
            Reason::DivideByZero(opcode) => format!("{} by zero", opcode.mnemonic()),
            Reason::MovspSpilled => "movsp with the caller's frame spilled".to_string(),
            Reason::RfiLevel(level) => format!("rfi {level}"),
            Reason::Syscall => "syscall".to_string(),
            Reason::Ill => "ill".to_string(),
            Reason::Illegal { bad, pc } => bad.describe(*pc, config),
            Reason::FetchBeyondEnd { .. } => {
                "instruction fetch beyond the end of memory".to_string()
            }
            Reason::OutsideDebug(opcode) => {
                format!("{} outside on-chip-debug mode", opcode.mnemonic())
            }
            Reason::TlbNotModelled(opcode) => format!(
                "{}: MMU TLB operations are not modelled (flat memory)",
                opcode.mnemonic()
            ),
            Reason::Entry { above_a3, ps } => format!(
                "entry with {} (PS {ps:#x})",
                if *above_a3 {
                    "a register above a3"
                } else {
                    "window overflow checks disabled"
                }
            ),
            Reason::Retw { a0, n, m, ps } => format!(
                "retw with a0 {a0:#010x} (call increment {n}, live caller at -{m}, PS {ps:#x})"
            ),
        }
    }
}

impl<B: Bus> Core<B> {
    fn installed(&self, addr: u32) -> bool {
        self.handler_code.iter().any(|r| r.contains(&addr))
    }

    /// The vacant region `pc` lies in when `reason` is the instruction there being no
    /// instruction (`ill` or undecodable) and no image occupies it: a jump into nothing.
    fn fetched_from_vacant(&self, reason: &Reason, pc: u32) -> Option<String> {
        match reason {
            Reason::Ill | Reason::Illegal { .. } | Reason::FetchBeyondEnd { .. } => {
                self.bus.vacant(pc)
            }
            _ => None,
        }
    }

    /// Takes exception `e` raised by the instruction at `pc`; `Some` when the core stops: a
    /// trap goes through its vector ([`Core::trap`]), a halt ends the run.
    #[cold]
    #[inline(never)]
    pub(super) fn take<T: Tracer>(
        &mut self,
        pc: u32,
        op: &Op,
        e: Exc,
        tracer: &mut T,
    ) -> Option<Stop> {
        match e {
            Exc::Trap(trap) => self.trap(pc, op, trap, tracer),
            Exc::Halt(halt) => Some(match *halt {
                Halt::Exit(code) => {
                    self.stats.instructions += 1;
                    Stop::Exited(code)
                }
                Halt::Fatal(kind, address) => {
                    Stop::Fault(Box::new(self.report_op(pc, op, kind, address)))
                }
            }),
        }
    }

    /// Exception entry: takes trap `t`, raised by the instruction at `pc`, through its vector;
    /// `Some` when the core stops instead, because no handler is installed at the vector or
    /// the stack is outside its region.
    fn trap<T: Tracer>(&mut self, pc: u32, op: &Op, t: Trap, tracer: &mut T) -> Option<Stop> {
        // An exception taken with the stack outside its region is the overflow's doing: the
        // core stops rather than run a handler on the wrecked stack (a window trap is the
        // overflow itself; a general exception is reported as what it went on to cause).
        let overflow = self.stack_overflow();
        let ps = self.state.ps();
        let (vector, target) = match t {
            Trap::Window { trap, n } => {
                let (vector, target) = match self.window_vector(trap, n, overflow) {
                    Ok(to) => to,
                    Err(kind) => {
                        return Some(Stop::Fault(Box::new(self.report_op(pc, op, kind, None))))
                    }
                };
                self.window_entry(pc, trap, n);
                (vector, target)
            }
            Trap::General(reason) => {
                let vector = Vector::general(ps);
                let target = self.vector_address(vector);
                if !self.installed(target) || overflow.is_some() {
                    let (cause, mut detail) = (reason.cause(), reason.describe(self.config));
                    if let Some(region) = self.fetched_from_vacant(&reason, pc) {
                        detail = format!(
                            "instruction fetch at {pc:#010x} hit {region}: no code there ({detail})"
                        );
                    }
                    let kind = if vector == Vector::Double {
                        FaultKind::DoubleException { cause, detail }
                    } else {
                        FaultKind::Exception { cause, detail }
                    };
                    let address = reason.vaddr();
                    return Some(Stop::Fault(Box::new(self.report_op(pc, op, kind, address))));
                }
                self.state.set_sr(sr::EXCCAUSE, reason.cause().code());
                if let Some(v) = reason.vaddr() {
                    self.state.set_sr(sr::EXCVADDR, v);
                }
                let epc = if vector == Vector::Double {
                    sr::DEPC
                } else {
                    sr::EPC1
                };
                self.state.set_sr(epc, pc);
                self.state.set_sr(sr::PS, self.state.sr(sr::PS) | ps::EXCM);
                (vector, target)
            }
        };
        self.enter(target, vector, tracer)
    }

    /// Where `vector` is: its offset from VECBASE.
    fn vector_address(&self, vector: Vector) -> u32 {
        self.state.sr(sr::VECBASE).wrapping_add(vector.offset())
    }

    /// The size in registers (4, 8 or 12) of the frame a window trap spills or restores: for
    /// an underflow the call increment's; for an overflow the distance from the frame `n`
    /// groups up to the live frame above it (isa/ISA.md §3.8).
    fn window_frame(&self, trap: WindowTrap, n: u32) -> u32 {
        match trap {
            WindowTrap::Underflow => 4 * n,
            WindowTrap::Overflow => {
                let s = &self.state;
                let new_wb = s.windowbase() + n;
                if s.ws_bit(new_wb + 1) {
                    4
                } else if s.ws_bit(new_wb + 2) {
                    8
                } else {
                    12
                }
            }
        }
    }

    /// The window vector trap `trap` of `n` groups goes to and its address; or the fault
    /// that stops the core instead: `overflow` (the stack outside its region, as
    /// [`Core::stack_overflow`] found), else no handler installed there. Changes nothing.
    fn window_vector(
        &self,
        trap: WindowTrap,
        n: u32,
        overflow: Option<FaultKind>,
    ) -> Result<(Vector, u32), FaultKind> {
        let frame = self.window_frame(trap, n);
        let vector = Vector::window_trap(trap, frame);
        let target = self.vector_address(vector);
        if let Some(kind) = overflow {
            return Err(kind);
        }
        if !self.installed(target) {
            return Err(FaultKind::WindowException {
                kind: trap.name(),
                frame,
                vector: target,
            });
        }
        Ok((vector, target))
    }

    /// A window trap's state change, raised by the instruction at `pc`: PS.OWB and PS.EXCM
    /// set, the window rotated `n` groups up (overflow) or down, EPC1 `pc`.
    fn window_entry(&mut self, pc: u32, trap: WindowTrap, n: u32) {
        let ps = self.state.ps();
        let wb = self.state.windowbase();
        self.state
            .set_sr(sr::PS, (ps & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM);
        self.rotate(match trap {
            WindowTrap::Overflow => n as i32,
            WindowTrap::Underflow => -(n as i32),
        });
        self.state.set_sr(sr::EPC1, pc);
    }

    /// Exception `e`, raised in compiled code by the instruction at `pc` (docs/jit.md
    /// "Window traps"), taken as the interpreter's step takes it when it is a window trap
    /// that does not stop the core: that instruction's fetch first (compiled code has not
    /// fetched it, or fetched its line last, which costs nothing again), then the trap's
    /// entry. The vector and the cycles for compiled code to add to its count (the fetch and
    /// exception stalls are charged here); `None`, with nothing changed, otherwise (the block
    /// leaves for the interpreter, which raises `e`).
    pub(super) fn window_trap_compiled(&mut self, pc: u32, e: &Exc) -> Option<(u32, u64)> {
        let Exc::Trap(Trap::Window { trap, n }) = *e else {
            return None;
        };
        let overflow = self.stack_overflow();
        let (_, target) = self.window_vector(trap, n, overflow).ok()?;
        let mut cycles = 0;
        if B::FETCH_TIMING {
            let c = self.bus.fetch_cycles(pc);
            self.stats.stalls.fetch += u64::from(c);
            cycles += u64::from(c);
        }
        self.window_entry(pc, trap, n);
        Some((target, cycles + self.entered()))
    }

    /// An exception's entry: the gates refreshed, the exception counted and its stalls
    /// charged; the cycles it takes (issue and entry), for the caller to add.
    fn entered(&mut self) -> u64 {
        self.refresh();
        self.stats.exceptions += 1;
        self.stats.stalls.exception += u64::from(self.timing.exception_entry);
        u64::from(self.timing.issue) + u64::from(self.timing.exception_entry)
    }

    fn enter<T: Tracer>(&mut self, target: u32, vector: Vector, tracer: &mut T) -> Option<Stop> {
        let cost = self.entered();
        self.stats.cycles += cost;
        if T::ENABLED {
            tracer.event(Event::Exception {
                vector,
                pc: self.state.sr(sr::EPC1),
                state: &self.state,
                cycle: self.stats.cycles,
                stats: &self.stats,
            });
        }
        self.state.pc = target;
        None
    }

    /// RFWO (`overflow`) or RFWU: WINDOWSTART's bit of the handler's frame cleared (RFWO) or
    /// set (RFWU), WINDOWBASE back to PS.OWB, PS.EXCM cleared; the address to return to (EPC1).
    pub(super) fn return_from_window(&mut self, overflow: bool) -> u32 {
        let wb = self.state.windowbase();
        let ws = self.state.windowstart();
        let ws = if overflow {
            ws & !(1 << wb)
        } else {
            ws | 1 << wb
        };
        self.state.set_sr(sr::WINDOWSTART, ws);
        let owb = (self.state.ps() & ps::OWB) >> ps::OWB_SHIFT;
        self.state.set_windowbase(owb);
        self.state.set_sr(sr::PS, self.state.sr(sr::PS) & !ps::EXCM);
        self.refresh();
        self.state.sr(sr::EPC1)
    }

    /// Executes an exception-family instruction (`opcode` is `op`'s, as a constant of the
    /// dispatch).
    #[inline(always)]
    pub(super) fn exception(&mut self, opcode: Opcode, op: &Op) -> Res<Flow> {
        let o = op.insn.operands;
        use Opcode::*;
        let target = match opcode {
            Rfe => {
                self.state.set_sr(sr::PS, self.state.sr(sr::PS) & !ps::EXCM);
                self.refresh();
                self.state.sr(sr::EPC1)
            }
            Rfde => self.state.sr(sr::DEPC),
            Rfwo | Rfwu => self.return_from_window(opcode == Rfwo),
            Rfi => {
                let level = o[0];
                if !(2..=7).contains(&level) {
                    return Err(Exc::general(Reason::RfiLevel(level)));
                }
                self.state
                    .set_sr(sr::PS, self.state.sr(sr::EPS2 + level as u8 - 2));
                self.refresh();
                self.state.sr(sr::EPC1 + level as u8 - 1)
            }
            Excw => return Ok(Flow::NEXT),
            Waiti => return Err(Exc::fatal(FaultKind::WaitForever, None)),
            Syscall => return Err(Exc::general(Reason::Syscall)),
            Simcall => return self.simcall().map(|()| Flow::NEXT),
            Break | BreakN => {
                let imm = (o[0], if opcode == Break { o[1] } else { 0 });
                return Err(Exc::fatal(FaultKind::Breakpoint { imm }, None));
            }
            Ill | IllN => {
                // Undecodable bytes are cached as `ill` with the reason attached.
                return Err(match op.bad {
                    Some(bad) => self.undecodable(bad),
                    None => Exc::general(Reason::Ill),
                });
            }
            Rfdo | Rfdd => return Err(Exc::general(Reason::OutsideDebug(opcode))),
            _ => not_in_family("exception", op),
        };
        Ok(Flow {
            target: Some(target),
            extra: self.exception_return_cost(),
        })
    }

    /// Extra cycles of an exception return: a taken jump (charged as such) plus the rest of
    /// the exception-return cost.
    pub(super) fn exception_return_cost(&mut self) -> u32 {
        let extra = self
            .timing
            .exception_return
            .saturating_sub(self.timing.taken_branch);
        self.stats.stalls.exception += u64::from(extra);
        extra
    }

    #[cold]
    fn undecodable(&self, bad: Undecodable) -> Exc {
        let pc = self.state.pc;
        match bad {
            Undecodable::Bundle(len) => Exc::fatal(FaultKind::UnsupportedBundle { len }, None),
            Undecodable::Illegal { .. } => Exc::general(Reason::Illegal { bad, pc }),
            Undecodable::Fetch => Exc::general(Reason::FetchBeyondEnd { pc }),
        }
    }

    /// SIMCALL: the semihosting call in a2 with arguments a3..a5; the result in a2, errno in
    /// a3. A write costs `semihost_write_byte` cycles per byte and takes no more bytes than
    /// the rest of the run's budget pays for.
    fn simcall(&mut self) -> Res {
        let (call, args) = (self.a(2), [self.a(3), self.a(4), self.a(5)]);
        let now = self.stats.cycles;
        let per_byte = u64::from(self.timing.semihost_write_byte);
        let room = match per_byte {
            0 => u32::MAX,
            n => u32::try_from(self.deadline.saturating_sub(now) / n).unwrap_or(u32::MAX),
        };
        let bus = &mut self.bus;
        let read = |addr: u32| bus.load(addr, 1, now).ok().map(|v| v as u8);
        match semihost::simcall(call, args, room, read, &mut self.console) {
            Outcome::Exit(code) => Err(Exc::exit(code)),
            Outcome::Return { value, errno } => {
                if call == semihost::SYS_WRITE && errno == 0 {
                    let cost = u64::from(value) * per_byte;
                    self.stats.cycles += cost;
                    self.stats.stalls.host_io += cost;
                }
                self.set(2, value);
                self.set(3, errno);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, op, take};
    use super::*;
    use q7_isa::Opcode::{Rfe, Rfi};
    use q7_isa::{DC233C, NCORE2GP};

    #[test]
    fn vectors_have_the_xea2_offsets_and_window_frames() {
        let offsets: Vec<u32> = Vector::ALL.iter().map(|v| v.offset()).collect();
        assert_eq!(
            offsets,
            [0x000, 0x040, 0x080, 0x0c0, 0x100, 0x140, 0x300, 0x340, 0x3c0]
        );
        for v in Vector::ALL {
            if let Some((trap, frame)) = v.window() {
                assert_eq!(Vector::window_trap(trap, frame), v);
            }
        }
        assert_eq!(Vector::general(ps::EXCM | ps::UM), Vector::Double);
        assert_eq!(Vector::general(ps::UM), Vector::User);
        assert_eq!(Vector::general(0), Vector::Kernel);
    }

    #[test]
    fn an_exception_stays_two_words() {
        // The per-instruction `Result` travels in registers.
        assert!(std::mem::size_of::<Exc>() <= 16);
    }

    #[test]
    fn a_halt_ends_the_run_without_a_vector() {
        let mut c = core_with(&DC233C, &[]);
        c.handler_code = std::iter::once(0..0x1000).collect();
        assert_eq!(take(&mut c, 0x1000, Exc::exit(3)), Some(Stop::Exited(3)));
        let Some(Stop::Fault(r)) = take(&mut c, 0x1000, Exc::fatal(FaultKind::WaitForever, None))
        else {
            panic!()
        };
        assert_eq!((r.kind, c.stats.exceptions), (FaultKind::WaitForever, 0));
    }

    #[test]
    fn reasons_give_cause_address_and_the_words_of_a_report() {
        let r = Reason::Unaligned {
            addr: 0x202,
            size: 4,
            what: "load from",
        };
        assert_eq!(r.cause(), ExcCause::LoadStoreAlignment);
        assert_eq!(r.vaddr(), Some(0x202));
        assert_eq!(r.describe(&DC233C), "unaligned 4-byte load from 0x00000202");
        let p = Reason::Prohibited {
            addr: 0x10,
            kind: "store",
            store: true,
        };
        assert_eq!(p.cause(), ExcCause::StoreProhibited);
        assert_eq!(p.describe(&DC233C), "store not allowed at 0x00000010");
        let f = Reason::FetchBeyondEnd { pc: 0xffff_fffe };
        assert_eq!(f.cause(), ExcCause::InstructionFetchError);
        assert_eq!(f.vaddr(), Some(0xffff_fffe));
        let e = Reason::Entry {
            above_a3: false,
            ps: 0x1f,
        };
        assert_eq!(
            e.describe(&NCORE2GP),
            "entry with window overflow checks disabled (PS 0x1f)"
        );
    }

    #[test]
    fn an_installed_handler_takes_a_general_exception_and_rfe_returns() {
        let mut c = core_with(&DC233C, &[]);
        c.handler_code = std::iter::once(0x300..0x340).collect();
        c.state.set_sr(sr::PS, ps::WOE);
        c.refresh();
        assert_eq!(take(&mut c, 0x1000, Exc::general(Reason::Syscall)), None);
        assert_eq!(c.state.pc, 0x300, "kernel vector at VECBASE 0");
        assert_eq!(c.state.sr(sr::EXCCAUSE), 1);
        assert_eq!(c.state.sr(sr::EPC1), 0x1000);
        assert_eq!(c.state.ps(), ps::WOE | ps::EXCM);
        assert_eq!((c.stats.exceptions, c.stats.stalls.exception), (1, 3));
        let flow = c.exception(Rfe, &op(Rfe, &[])).unwrap();
        assert_eq!(flow.target, Some(0x1000));
        assert_eq!(c.state.ps(), ps::WOE);
        // A second exception inside the handler goes to the double vector, which is absent.
        c.state.set_sr(sr::PS, c.state.sr(sr::PS) | ps::EXCM);
        let stop = take(&mut c, 0x1003, Exc::general(Reason::Ill)).unwrap();
        let Stop::Fault(r) = stop else { panic!() };
        assert_eq!(
            r.kind,
            FaultKind::DoubleException {
                cause: ExcCause::IllegalInstruction,
                detail: "ill".into()
            }
        );
    }

    #[test]
    fn a_window_overflow_with_no_handler_names_its_frame_and_vector() {
        let mut c = core_with(&DC233C, &[]);
        c.state.set_sr(sr::VECBASE, 0x2000);
        c.state.set_sr(sr::WINDOWSTART, 0b1001);
        let Some(Stop::Fault(r)) = take(&mut c, 0x1000, Exc::overflow(2)) else {
            panic!()
        };
        assert_eq!(
            r.kind,
            FaultKind::WindowException {
                kind: "overflow",
                frame: 4,
                vector: 0x2000
            }
        );
    }

    #[test]
    fn rfi_outside_levels_2_to_7_is_illegal() {
        let mut c = core_with(&DC233C, &[]);
        let e = c.exception(Rfi, &op(Rfi, &[1])).unwrap_err();
        assert_eq!(e.cause(), Some(ExcCause::IllegalInstruction));
        assert_eq!(e.describe(&DC233C), "rfi 1");
    }
}
