//! # q7-gdb — `--gdb PORT`: a GDB remote server for the cores of a run (docs/gdb.md)
//!
//! The server speaks the remote protocol itself ([`wire`]: framing and acknowledgements;
//! [`command`]: the packets it takes) and serves the cores of one dispatch (8 or 1 for
//! `q7emu run`) or the single core of `q7emu run-elf`, one GDB thread each (thread id =
//! PRID + 1), in all-stop mode — when one core stops every core stops. Cores run in turn,
//! [`QUANTUM`] instructions at a time in PRID order, stepped through
//! [`q7_emulator::debug::run`] (breakpoints, watchpoints, the [`StopHook`]); since cores do
//! not communicate within a dispatch (ARCHITECTURE.md "Threads and determinism") this changes
//! nothing any core computes. Memory goes through the address map of the thread GDB selected
//! ([`DebugMemory`]); an unmapped address is an error reply. The register layout is [`arch`].
//!
//! No packet ends the session but `D`, `k` and `vKill`, and no resume waits for ever: a bad
//! packet gets its [`Refusal`] (docs/gdb.md "Packets and errors"), and a resume ends in a stop
//! reply or `E05` (docs/gdb.md "Threads and stopping").
//!
//! [`Server`] is q7-runtime's [`q7_runtime::debugger::Debugger`]: the firmware serves kernel
//! dispatches to it without naming it.

pub mod arch;
pub mod command;
mod session;
pub mod wire;

use std::net::{TcpListener, TcpStream};

use q7_conventions::exit_code::{Kind, Outcome};
use q7_emulator::debug::{DebugMemory, StopHook};
use q7_emulator::platform::PlatformBus;
use q7_emulator::{Bus, Core, ExcCause, FaultKind, Stop};
use q7_runtime::debugger::{Debugger, DebuggerFailure};

pub use self::command::Refusal;
use self::session::{End, Session};
use self::wire::Link;

/// Instructions a core runs before the next core's turn (and between looks at the
/// connection for GDB's Ctrl-C).
pub const QUANTUM: u64 = 4096;

/// Bytes an `m` packet answers at most (half a packet: the reply's hex fills the rest); fewer
/// when the rest is unmapped.
pub const MAX_READ: usize = wire::PACKET_SIZE / 2;

/// Breakpoints (`Z0`, `Z1`) a session holds at most; one more is refused with `E06`.
pub const MAX_BREAKPOINTS: usize = 4096;

/// Watchpoints (`Z2`..`Z4`) a session holds at most; one more is refused with `E06`.
pub const MAX_WATCHPOINTS: usize = 64;

/// The signal numbers the server reports, as the remote protocol numbers them.
pub mod signal {
    /// No signal: a core stopped because the cores GDB resumed have ended (docs/gdb.md
    /// "Threads and stopping").
    pub const NONE: u8 = 0;
    /// Interrupt (Ctrl-C).
    pub const SIGINT: u8 = 2;
    /// Illegal instruction.
    pub const SIGILL: u8 = 4;
    /// Trace/breakpoint trap.
    pub const SIGTRAP: u8 = 5;
    /// Aborted.
    pub const SIGABRT: u8 = 6;
    /// Arithmetic exception.
    pub const SIGFPE: u8 = 8;
    /// Bus error.
    pub const SIGBUS: u8 = 10;
    /// Segmentation fault.
    pub const SIGSEGV: u8 = 11;
    /// Bad system call.
    pub const SIGSYS: u8 = 12;
    /// CPU time limit exceeded.
    pub const SIGXCPU: u8 = 24;
}

/// The server could not be set up, or no debugger came.
#[derive(Debug, thiserror::Error)]
pub enum GdbError {
    /// The port could not be bound.
    #[error("--gdb: cannot listen on 127.0.0.1:{port}: {source}")]
    Listen {
        /// The port asked for.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// No debugger connected.
    #[error("--gdb: waiting for a debugger on {addr}: {source}")]
    Accept {
        /// The address listened on.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Ctrl-C while waiting for a debugger.
    #[error("--gdb: interrupted (Ctrl-C) while waiting for a debugger on {addr}")]
    Interrupted {
        /// The address listened on.
        addr: String,
    },
}

impl Outcome for GdbError {
    /// Ctrl-C while waiting is an interrupt; a port that cannot be bound or a debugger that
    /// cannot connect is a refused input.
    fn kind(&self) -> Kind {
        match self {
            GdbError::Interrupted { .. } => Kind::Interrupted,
            GdbError::Listen { .. } | GdbError::Accept { .. } => Kind::BadInput,
        }
    }
}

/// A listening server, bound before the run starts; [`Server::serve`] waits for GDB.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: String,
}

impl Server {
    /// Listens on 127.0.0.1:`port` (0: a free port) and says where on stderr
    /// (`q7emu: GDB server listening on 127.0.0.1:PORT`).
    pub fn listen(port: u16) -> Result<Server, GdbError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|source| GdbError::Listen { port, source })?;
        let addr = listener
            .local_addr()
            .map(|a| a.to_string())
            .map_err(|source| GdbError::Listen { port, source })?;
        eprintln!("q7emu: GDB server listening on {addr}");
        Ok(Server { listener, addr })
    }

    /// Waits for a connection, looking every 50 ms at the process's stop request so that
    /// Ctrl-C ends the wait ([`q7_conventions::interrupt`]).
    fn accept(&self) -> Result<(TcpStream, std::net::SocketAddr), GdbError> {
        let failed = |source| GdbError::Accept {
            addr: self.addr.clone(),
            source,
        };
        self.listener.set_nonblocking(true).map_err(failed)?;
        eprintln!(
            "q7emu: waiting for a debugger on {}: the cores are stopped before their first \
             instruction",
            self.addr
        );
        let stop = q7_conventions::interrupt::stop_request();
        let accepted = loop {
            match self.listener.accept() {
                Ok(conn) => break conn,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if stop.is_requested() {
                        return Err(GdbError::Interrupted {
                            addr: self.addr.clone(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => return Err(failed(e)),
            }
        };
        accepted.0.set_nonblocking(false).map_err(failed)?;
        Ok(accepted)
    }

    /// Waits for GDB, then serves it `cores` (stopped before their next instruction) until
    /// they all stop, GDB detaches (the cores then run on to their end undebugged), kills the
    /// run or the connection is lost, or Ctrl-C stops q7emu while the cores are stopped (then
    /// unfinished cores stop as interrupted). Each core may spend `budget` more cycles. `hook`
    /// sees every instruction and exception of the cores, those after a detach included
    /// ([`StopHook::watches`]). Returns each core's stop, in the order given.
    pub fn serve<B: Bus + DebugMemory + 'static>(
        &self,
        cores: Vec<&mut Core<B>>,
        budget: u64,
        hook: &mut dyn StopHook,
    ) -> Result<Vec<Stop>, GdbError> {
        let (stream, peer) = self.accept()?;
        eprintln!("q7emu: debugger connected from {peer}");
        let _ = stream.set_nodelay(true);
        let mut link = Link::new(stream).map_err(|source| GdbError::Accept {
            addr: self.addr.clone(),
            source,
        })?;
        let mut session = Session::new(cores, budget, hook);
        match session.serve(&mut link) {
            End::Ended => {}
            End::Detached => {
                eprintln!("q7emu: debugger detached; the cores run on");
                session.finish_undebugged();
            }
            End::Killed => {
                eprintln!("q7emu: debugger killed the run");
                session.finish_killed();
            }
            End::Lost(e) => {
                eprintln!(
                    "q7emu: lost the debugger ({e}) without a detach or kill: the unfinished \
                     cores stop as interrupted"
                );
                session.finish_killed();
            }
            End::Interrupted => {
                eprintln!(
                    "q7emu: interrupted (Ctrl-C) during the debug session: the unfinished \
                     cores stop as interrupted"
                );
                session.finish_killed();
            }
        }
        Ok(session.into_stops())
    }
}

/// Kernel dispatches of `q7emu run --gdb` are served to the server through q7-runtime's seam.
impl Debugger for Server {
    fn serve(
        &self,
        cores: Vec<&mut Core<PlatformBus>>,
        budget: u64,
        hook: &mut dyn StopHook,
    ) -> Result<Vec<Stop>, Box<dyn DebuggerFailure>> {
        Server::serve(self, cores, budget, hook)
            .map_err(|e| Box::new(e) as Box<dyn DebuggerFailure>)
    }
}

/// The signal GDB is told for a core's fault (docs/gdb.md "Stop reasons").
pub fn fault_signal(kind: &FaultKind) -> u8 {
    use self::signal::*;
    let cause = |c: &ExcCause| match c {
        ExcCause::IllegalInstruction | ExcCause::Privileged | ExcCause::Alloca => SIGILL,
        ExcCause::Syscall => SIGSYS,
        ExcCause::LoadStoreAlignment => SIGBUS,
        ExcCause::IntegerDivideByZero => SIGFPE,
        ExcCause::InstructionFetchError
        | ExcCause::LoadStoreError
        | ExcCause::LoadProhibited
        | ExcCause::StoreProhibited => SIGSEGV,
    };
    match kind {
        FaultKind::Exception { cause: c, .. } | FaultKind::DoubleException { cause: c, .. } => {
            cause(c)
        }
        FaultKind::UnsupportedBundle { .. } | FaultKind::WindowException { .. } => SIGILL,
        FaultKind::StackLimit { .. }
        | FaultKind::StackOverflow { .. }
        | FaultKind::MemoryLimit { .. } => SIGSEGV,
        FaultKind::Breakpoint { .. } => SIGTRAP,
        FaultKind::BudgetExhausted { .. } => SIGXCPU,
        FaultKind::Interrupted => SIGINT,
        FaultKind::WaitForever | FaultKind::Exited { .. } => SIGABRT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/gdb.md "Packets and errors" gives the limits as the code has them.
    #[test]
    fn the_doc_gives_the_limits() {
        let doc = q7_tests::doc::read("docs/gdb.md");
        let section = q7_tests::doc::section(&doc, "## Packets and errors");
        let text = section.split_whitespace().collect::<Vec<_>>().join(" ");
        for said in [
            format!(
                "packets of at most {:#x} bytes, the `PacketSize`",
                wire::PACKET_SIZE
            ),
            format!("`m` answers at most {MAX_READ:#x} bytes"),
            format!("at most {MAX_BREAKPOINTS} breakpoints (`q7_gdb::MAX_BREAKPOINTS`)"),
            format!("and {MAX_WATCHPOINTS} watchpoints (`q7_gdb::MAX_WATCHPOINTS`)"),
        ] {
            assert!(text.contains(&said), "{said}");
        }
    }

    /// docs/gdb.md "Stop reasons": the signal of each exception cause.
    #[test]
    fn each_exception_cause_has_the_signal_the_doc_gives() {
        let signal = |cause| {
            fault_signal(&FaultKind::Exception {
                cause,
                detail: String::new(),
            })
        };
        for (cause, want) in [
            (ExcCause::IllegalInstruction, signal::SIGILL),
            (ExcCause::Privileged, signal::SIGILL),
            (ExcCause::Alloca, signal::SIGILL),
            (ExcCause::LoadStoreError, signal::SIGSEGV),
            (ExcCause::InstructionFetchError, signal::SIGSEGV),
            (ExcCause::LoadProhibited, signal::SIGSEGV),
            (ExcCause::StoreProhibited, signal::SIGSEGV),
            (ExcCause::LoadStoreAlignment, signal::SIGBUS),
            (ExcCause::IntegerDivideByZero, signal::SIGFPE),
            (ExcCause::Syscall, signal::SIGSYS),
        ] {
            assert_eq!(signal(cause), want, "{cause:?}");
        }
        assert_eq!(ExcCause::ALL.len(), 10, "every cause is listed above");
        let double = FaultKind::DoubleException {
            cause: ExcCause::LoadStoreAlignment,
            detail: String::new(),
        };
        assert_eq!(
            fault_signal(&double),
            signal::SIGBUS,
            "a double exception: its cause's"
        );
        let runaway = FaultKind::BudgetExhausted { max_cycles: 1 };
        assert_eq!(fault_signal(&runaway), signal::SIGXCPU);
    }
}
