//! The device firmware model (PLATFORM.md "Device load, bind and dispatch", stages 8–9): per core it consumes 0x1095 records —
//! load: resolve the selector to a resident library entry, DMA-pull the UCPL image from its
//! staging buffer in HBM into the core's image window (timed like an SDMA transfer), bind the
//! `.kernel_info_table`, run the library's start symbol on the core; unload: resolve the
//! selector, reclaim the window, clear the binding — and dispatches a kernel by key on all
//! cores of its library (8, or core 0 of a single-core library), running them to completion.
//!
//! Functions run through a trampoline the firmware keeps in the last 64 bytes of each core's
//! image window — windowed returns only reach the caller's 1 GiB region, so the caller must sit
//! next to the library: `callx8 a8; movi a2, 1; movi a3, 0; simcall` — a windowed call of the
//! target from a fresh frame (SP at the top of the firmware band), ending in a semihosting exit
//! the firmware recognises as "returned".

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use q7_emulator::platform::mailbox::{self, ArgTensor};
use q7_emulator::platform::{map, sdma, Cluster, PlatformBus, PlatformCounters};
use q7_emulator::{FaultKind, FaultReport, NoTrace, Stats, Stop};
use q7_isa::sreg::sr;
use q7_isa::Opcode;
use q7_loader::kernel_table::{self, KernelEntry};
use q7_loader::ktab::KtabTrailer;
use q7_loader::load_record::{Direction, LoadRecord, RecordError};
use q7_loader::ucpl::{UcplError, UcplHeader};

use q7_conventions::exit_code::{Kind, Outcome};
use q7_layout::TRAMPOLINE_SIZE;

use crate::console::CoreConsole;
use crate::debugger::Debugger;
use crate::observer::Observer;

/// The line the SDK runtime prints before writing MBOX_ABORT (PLATFORM.md "Runtime errors").
pub const RUNTIME_ERROR_PREFIX: &str = "q7 runtime error:";

/// The top of the firmware band, where the firmware call stack starts.
pub const STACK_TOP: u32 = map::FWDATA.0 + map::FWDATA.1;
/// SP of the trampoline's frame: 32 bytes below [`STACK_TOP`], which hold that frame's extra
/// save area should a deep call chain spill it.
pub const CALL_SP: u32 = STACK_TOP - 32;
/// Cycle budget of one firmware call (start symbol or kernel) before it counts as runaway:
/// a bare-metal run's, 10^10 cycles, about 7 s of the 1.4 GHz core (PLATFORM.md "Cores"), so a
/// correct kernel of a few seconds on the device is never stopped (an RWKV-5 WKV forward at
/// (1, 64, 4, 64) takes some 3.1 × 10^9); docs/cli.md "Timing".
pub const CALL_BUDGET: u64 = q7_emulator::baremetal::DEFAULT_MAX_CYCLES;
/// ISL for firmware calls: the bottom of the 32 KiB call stack at the top of the firmware band
/// (PLATFORM.md "Runtime memory").
pub const STACK_LIMIT: u32 = STACK_TOP - CALL_STACK_BYTES;
/// Bytes of the firmware call stack.
pub const CALL_STACK_BYTES: u32 = 32 << 10;
/// Bytes of each core's HBM heap, handed to the runtime in MBOX_HEAP_* (PLATFORM.md).
pub const HEAP_BYTES: u32 = 64 << 20;

/// Misuse and failures, each naming what and where.
#[derive(Debug, thiserror::Error)]
pub enum FirmwareError {
    /// The record does not parse.
    #[error("core {core}: bad load record: {source}")]
    Record {
        /// Core.
        core: u32,
        /// Why.
        source: RecordError,
    },
    /// The staged image is not UCPL.
    #[error("core {core}: staged image at HBM {addr:#x}: {source}")]
    Image {
        /// Core.
        core: u32,
        /// HBM address.
        addr: u64,
        /// Why.
        source: UcplError,
    },
    /// The staged image is not readable.
    #[error("core {core}: staged image at HBM {addr:#x}+{size:#x} is outside HBM")]
    Staging {
        /// Core.
        core: u32,
        /// Address.
        addr: u64,
        /// Size.
        size: u32,
    },
    /// The image does not fit the core's image window.
    #[error("core {core}: Prelinked library would be larger than the available buffer on device: {size:#x} bytes, image window holds {window:#x}")]
    TooLarge {
        /// Core.
        core: u32,
        /// Image size.
        size: u32,
        /// Window size.
        window: u32,
    },
    /// The image has no kernel table.
    #[error("core {core}: library image has no .kernel_info_table")]
    NoKernelTable {
        /// Core.
        core: u32,
    },
    /// The trailer names a kernel table the image cannot hold.
    #[error("core {core}: .kernel_info_table at {addr:#x}+{len:#x}: {why}")]
    BadKernelTable {
        /// Core.
        core: u32,
        /// Table address from the trailer.
        addr: u32,
        /// Table size from the trailer.
        len: u32,
        /// What is wrong.
        why: &'static str,
    },
    /// Selector already loaded on that core.
    #[error("core {core}: library selector {selector} is already loaded (unload it first)")]
    DoubleLoad {
        /// Core.
        core: u32,
        /// Selector.
        selector: u32,
    },
    /// Unload or dispatch of a selector that is not resident.
    #[error("core {core}: library selector {selector} is not loaded")]
    UnknownSelector {
        /// Core.
        core: u32,
        /// Selector.
        selector: u32,
    },
    /// Dispatch of a key no bound table has.
    #[error("dispatch of key {key:#x} (spec {:#x}, opcode {:#x}): no loaded library binds it", key >> 8, key & 0xff)]
    UnknownKey {
        /// The key.
        key: u32,
    },
    /// A library is resident on neither 1 nor 8 cores.
    #[error("library selector {selector} is loaded on {cores} cores: total_cpus must be 1 or 8 (NUM_POOL_CORES)")]
    TotalCpus {
        /// Selector.
        selector: u32,
        /// Cores.
        cores: usize,
    },
    /// The SDK runtime gave up (MBOX_ABORT) with a runtime error.
    #[error("core {core}: {what} aborted with runtime error {code} ({name}){}", if message.is_empty() { String::new() } else { format!(": {message}") })]
    Aborted {
        /// Core.
        core: u32,
        /// "start symbol" or "kernel".
        what: &'static str,
        /// The code written to MBOX_ABORT.
        code: u32,
        /// Its name (PLATFORM.md "Runtime errors").
        name: &'static str,
        /// The runtime's `q7 runtime error: …` line from the core's console, without the prefix.
        message: String,
        /// Where the core stopped, for the backtrace of the call that gave up (the kernel's
        /// line that called `abort()` or misused an accessor, when the image has symbols).
        report: Option<Box<FaultReport>>,
    },
    /// More ARG_TENSOR descriptors than the mailbox holds.
    #[error("dispatch of key {key:#x} with {count} ARG_TENSOR descriptors: the mailbox holds at most {max} (PLATFORM.md \"Mailbox\")")]
    TooManyArgs {
        /// The key.
        key: u32,
        /// Descriptors given.
        count: usize,
        /// `MAX_ARGS`.
        max: u32,
    },
    /// No HBM for a core's runtime heap.
    #[error("core {core}: HBM heap of {bytes} bytes: {source}")]
    Heap {
        /// Core.
        core: u32,
        /// Requested size.
        bytes: u32,
        /// Why.
        source: q7_emulator::platform::HbmError,
    },
    /// The host threads that run the cores could not be started.
    #[error(transparent)]
    Threads(#[from] q7_emulator::platform::cluster::ThreadsError),
    /// The debugger (the GDB server of `--gdb`, docs/gdb.md) could not serve the dispatch.
    #[error("{0}")]
    Debugger(Box<dyn crate::debugger::DebuggerFailure>),
    /// Ctrl-C stopped the cores running library code: where each one was.
    #[error("{}", interrupted_text(what, reports, finished))]
    Interrupted {
        /// "kernel".
        what: &'static str,
        /// The report of each core that was still running, by PRID.
        reports: Vec<FaultReport>,
        /// Cores that had already finished.
        finished: Vec<u32>,
    },
    /// A library call that did not complete: a semihosting exit instead of a return (the
    /// core's report says where), or a kernel that returned without writing
    /// TPB_WRITE_RESPONSE. What the core printed is shown.
    #[error("{}", incomplete_text(*core, what, how, report.as_deref(), console))]
    Incomplete {
        /// Core.
        core: u32,
        /// "start symbol" or "kernel".
        what: &'static str,
        /// How it ended.
        how: String,
        /// Where the core stopped, for an exit.
        report: Option<Box<FaultReport>>,
        /// What the core printed.
        console: Box<CoreConsole>,
    },
    /// A core faulted while running library code.
    #[error("core {core} faulted while running {what}:\n{report}")]
    Fault {
        /// Core.
        core: u32,
        /// "start symbol" or "kernel".
        what: &'static str,
        /// The report.
        report: Box<FaultReport>,
    },
}

/// The text of [`FirmwareError::Incomplete`].
fn incomplete_text(
    core: u32,
    what: &str,
    how: &str,
    report: Option<&FaultReport>,
    console: &crate::console::CoreConsole,
) -> String {
    let mut out = format!("core {core}: {what} {how}");
    if let Some(r) = report {
        out.push_str(&format!(":\n{}", r.to_string().trim_end()));
    }
    if console.is_empty() {
        out.push_str(&format!("\ncore {core} printed nothing"));
    } else {
        out.push_str(&format!("\ncore {core} printed:"));
        let dropped = q7_emulator::platform::console::dropped_line(console.dropped);
        for line in dropped.lines().chain(console.text.lines()) {
            out.push_str(&format!("\n  | {line}"));
        }
    }
    out.push('\n');
    out
}

/// The text of [`FirmwareError::Interrupted`].
fn interrupted_text(what: &str, reports: &[FaultReport], finished: &[u32]) -> String {
    let mut out = format!(
        "interrupted (Ctrl-C) while running {what} on {} core(s)",
        reports.len()
    );
    if !finished.is_empty() {
        let list: Vec<String> = finished.iter().map(u32::to_string).collect();
        out.push_str(&format!(" (core(s) {} had finished)", list.join(", ")));
    }
    out.push_str("; where each core was:");
    for r in reports {
        out.push_str(&format!("\n{r}"));
    }
    out
}

impl Outcome for FirmwareError {
    /// The outcome it ends a command with ([`q7_conventions::exit_code`]): a runaway (the call
    /// budget ran out), an interrupt (Ctrl-C) and a fault or runtime error each have theirs; the rest is an image,
    /// key or argument the device refused.
    fn kind(&self) -> Kind {
        match self {
            FirmwareError::Fault { report, .. } => Kind::of_fault(&report.kind),
            FirmwareError::Interrupted { .. } => Kind::Interrupted,
            FirmwareError::Debugger(failure) => failure.kind(),
            FirmwareError::Aborted { .. } | FirmwareError::Incomplete { .. } => Kind::Fault,
            _ => Kind::BadInput,
        }
    }
}

/// A library resident on some cores.
#[derive(Debug, Clone, Default)]
struct Resident {
    /// Per core: its bound kernel table.
    tables: BTreeMap<u32, Vec<KernelEntry>>,
    /// Per core: the HBM heap handed to its runtime.
    heaps: BTreeMap<u32, u64>,
}

/// How deep a firmware call went on the call stack (PLATFORM.md "Runtime memory"): from
/// [`CALL_SP`] down to the lowest SP an ENTRY or MOVSP set during the call
/// ([`q7_emulator::Core::lowest_sp`]), against the [`STACK_LIMIT`] that KSL enforces. A call that
/// runs on an HBM stack (the runtime's stack switch) shows only its use of the firmware stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct StackUse {
    /// The lowest SP of the call ([`CALL_SP`] when no frame was allocated).
    pub lowest_sp: u32,
    /// Bytes used: [`CALL_SP`] − `lowest_sp`. Window spills may write up to 16 bytes further
    /// down (the base save area below the deepest frame's SP).
    pub bytes: u32,
    /// Bytes the call may use before KSL stops it: [`CALL_SP`] − [`STACK_LIMIT`].
    pub limit: u32,
}

impl StackUse {
    /// The use of a call whose lowest SP was `lowest_sp`.
    pub fn of(lowest_sp: u32) -> StackUse {
        StackUse {
            lowest_sp,
            bytes: CALL_SP.saturating_sub(lowest_sp),
            limit: CALL_SP - STACK_LIMIT,
        }
    }
}

/// One core's result of a dispatch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CoreResult {
    /// Core.
    pub core: u32,
    /// TPB_WRITE_RESPONSE, when the kernel wrote one.
    pub response: Option<u32>,
    /// Counters of this dispatch only.
    pub stats: Stats,
    /// Platform counters of this dispatch only: SDMA, translate windows, I-cache.
    pub platform: PlatformCounters,
    /// How deep the kernel went on the firmware call stack.
    pub stack: StackUse,
}

impl CoreResult {
    /// The identities docs/run-report.md states between the counters of a completed dispatch
    /// run under `model`, each one that does not hold described (empty when all hold):
    /// cycles − stall cycles = `issue` × (instructions + exceptions − 1); hbm stalls = HBM
    /// window hits × `hbm_latency`; sram stalls = SRAM window hits × `sram_latency`; fetch
    /// stalls = I-cache misses × `sram_latency` (kernel code runs from its image window). They
    /// hold for every model [`q7_emulator::TimingModel::check`] accepts (docs/timing.md
    /// "Bounds").
    pub fn broken_identities(&self, model: &q7_emulator::TimingModel) -> Vec<String> {
        let s = &self.stats;
        let w = &self.platform.windows;
        let mut broken = Vec::new();
        let stalled = s.stalls.total();
        let issued = (s.instructions + s.exceptions)
            .checked_sub(1)
            .and_then(|n| n.checked_mul(u64::from(model.issue)));
        if s.cycles.checked_sub(stalled) != issued || issued.is_none() {
            broken.push(format!(
                "core {}: {} cycles − {stalled} stall cycles ≠ issue {} × ({} instructions + {} \
                 exceptions − 1)",
                self.core, s.cycles, model.issue, s.instructions, s.exceptions
            ));
        }
        for (what, stalls, hits, latency) in [
            ("hbm", s.stalls.hbm, w.hbm_accesses, model.hbm_latency),
            ("sram", s.stalls.sram, w.sram_accesses, model.sram_latency),
            (
                "fetch",
                s.stalls.fetch,
                self.platform.icache.misses,
                model.sram_latency,
            ),
        ] {
            if hits.checked_mul(u64::from(latency)) != Some(stalls) {
                broken.push(format!(
                    "core {}: {stalls} {what} stall cycles ≠ {hits} × {latency}",
                    self.core
                ));
            }
        }
        broken
    }
}

/// The firmware of every core of a cluster.
#[derive(Debug)]
pub struct Firmware {
    /// The cluster the firmware runs on.
    pub cluster: Cluster,
    resident: BTreeMap<u32, Resident>,
    /// Whether libraries use the 32 MiB single-core image window.
    pub single_core: bool,
    /// Cycle budget of each firmware call; a call that exceeds it stops with a
    /// `BudgetExhausted` fault naming the core (default [`CALL_BUDGET`]).
    pub call_budget: u64,
    /// What observes the cores' runs (traces, timelines, checked mode), if anything.
    pub observer: Option<Arc<dyn Observer>>,
    /// The debugger that kernel dispatches are served to (`--gdb`, docs/gdb.md): each
    /// dispatch waits for it with its cores stopped before the kernel's first instruction,
    /// and runs under it instead of on the host threads: the observer's tracers see nothing
    /// of a debugged dispatch; its [`Observer::dispatch_hook`] sees every instruction and
    /// exception instead — checked mode's checks, which stop the cores at the first error
    /// (docs/gdb.md "Checked mode"), and the cycle profile (docs/profiling.md).
    pub debugger: Option<Arc<dyn Debugger>>,
}

/// The device as [`Firmware::checkpoint`] kept it: the cluster and the firmware's record of
/// the libraries resident on each core.
#[derive(Debug, Clone)]
pub struct FirmwareCheckpoint {
    cluster: q7_emulator::platform::ClusterCheckpoint,
    resident: BTreeMap<u32, Resident>,
}

impl FirmwareCheckpoint {
    /// The HBM bytes it holds.
    pub fn hbm_bytes(&self) -> u64 {
        self.cluster.hbm_bytes()
    }
}

/// The cores of `cluster` whose PRIDs are `prids`, in PRID order.
fn cores_of<'c>(cluster: &'c Cluster, prids: &[u32]) -> Vec<&'c q7_emulator::Core<PlatformBus>> {
    cluster
        .cores
        .iter()
        .filter(|c| prids.contains(&c.bus.prid()))
        .collect()
}

fn trampoline(at: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for (op, args) in [
        (Opcode::Callx8, vec![8u32]),
        (Opcode::Movi, vec![2, 1]),
        (Opcode::Movi, vec![3, 0]),
        (Opcode::Simcall, vec![]),
    ] {
        let pc = at + out.len() as u32;
        out.extend_from_slice(op.encode(&args, pc).expect("trampoline encodes").as_bytes());
    }
    out
}

impl Firmware {
    /// The device now, between dispatches, to start later ones from with
    /// [`Firmware::restore`]: a library loaded once and called many times, each call from
    /// the state right after the load (docs/python.md "Calls per second").
    pub fn checkpoint(&self) -> FirmwareCheckpoint {
        FirmwareCheckpoint {
            cluster: self.cluster.checkpoint(),
            resident: self.resident.clone(),
        }
    }

    /// Makes the device what it was at `c`.
    pub fn restore(
        &mut self,
        c: &FirmwareCheckpoint,
    ) -> Result<(), q7_emulator::platform::HbmError> {
        self.resident = c.resident.clone();
        self.cluster.restore(&c.cluster)
    }

    /// Boots the firmware on `cluster`.
    pub fn new(mut cluster: Cluster) -> Firmware {
        cluster.set_stop_request(&q7_conventions::interrupt::stop_request());
        Firmware {
            cluster,
            resident: BTreeMap::new(),
            single_core: false,
            call_budget: CALL_BUDGET,
            observer: None,
            debugger: None,
        }
    }

    /// Address of `core`'s call trampoline: the last 64 bytes of its image window.
    pub fn trampoline_addr(&self, core: u32) -> u32 {
        let (win, size) = self.image_window(core);
        win + size - TRAMPOLINE_SIZE
    }

    /// Address of the trampoline's `simcall` on `core`: the one semihosting exit that is a
    /// library call returning.
    pub fn return_pc(&self, core: u32) -> u32 {
        let at = self.trampoline_addr(core);
        let simcall = Opcode::Simcall
            .encode(&[], at)
            .expect("simcall encodes")
            .as_bytes()
            .len() as u32;
        at + trampoline(at).len() as u32 - simcall
    }

    /// How `core`'s call of `what` ended when it stopped with a semihosting exit of `status`:
    /// `None` when it returned through the trampoline (and, for a kernel, wrote its
    /// response), else the error saying how it ended instead.
    fn incomplete(&self, core: u32, what: &'static str, status: i32) -> Option<FirmwareError> {
        let c = &self.cluster.cores[core as usize];
        let pc = c.state.pc;
        let (how, report) = if pc != self.return_pc(core) {
            (
                format!(
                    "ended without returning: a semihosting exit (status {status}) at pc \
                     {pc:#010x}{}",
                    if what == "kernel" {
                        ", before writing TPB_WRITE_RESPONSE"
                    } else {
                        ""
                    }
                ),
                Some(Box::new(c.report(pc, FaultKind::Exited { status }, None))),
            )
        } else if what == "kernel" && c.bus.mailbox.response.is_none() {
            (
                "returned without writing TPB_WRITE_RESPONSE (the runtime's customop_cleanup \
                 writes it): the kernel did not complete its response"
                    .to_string(),
                None,
            )
        } else {
            return None;
        };
        tracing::warn!(core, what, how, "library call incomplete");
        Some(FirmwareError::Incomplete {
            core,
            what,
            how,
            report,
            console: Box::new(crate::console::CoreConsole::of_ring(
                &c.bus.console,
                core,
                0,
            )),
        })
    }

    /// The image window of `core`: 2 MiB per core, or 32 MiB at 0x84000000 for single-core
    /// libraries (PLATFORM.md "Translate windows").
    pub fn image_window(&self, core: u32) -> (u32, u32) {
        if self.single_core {
            map::SINGLE_CORE_IMAGE_WINDOW
        } else {
            map::image_window(core)
        }
    }

    /// Consumes one 0x1095 record on `core`.
    pub fn process(&mut self, core: u32, record: &[u8]) -> Result<(), FirmwareError> {
        let r = LoadRecord::decode(record).map_err(|source| FirmwareError::Record { core, source });
        let r = r.inspect_err(|e| tracing::warn!(core, error = %e, "load record refused"))?;
        let _span = tracing::info_span!(
            "record",
            core,
            direction = ?r.direction,
            selector = r.selector
        )
        .entered();
        let result = match r.direction {
            Direction::Load => self.load(core, r),
            Direction::Unload => self.unload(core, r.selector),
        };
        match &result {
            Ok(()) => tracing::debug!("record done"),
            // The first line: a fault's report follows it, and was logged where it happened.
            Err(e) => tracing::warn!(
                error = e.to_string().lines().next().unwrap_or(""),
                "record failed"
            ),
        }
        result
    }

    fn load(&mut self, core: u32, r: LoadRecord) -> Result<(), FirmwareError> {
        if self
            .resident
            .get(&r.selector)
            .is_some_and(|l| l.tables.contains_key(&core))
        {
            return Err(FirmwareError::DoubleLoad {
                core,
                selector: r.selector,
            });
        }
        let (win, size) = self.image_window(core);
        if r.image_size > size - TRAMPOLINE_SIZE {
            return Err(FirmwareError::TooLarge {
                core,
                size: r.image_size,
                window: size - TRAMPOLINE_SIZE,
            });
        }
        tracing::debug!(
            staged = format_args!("{:#x}", r.device_addr),
            bytes = r.image_size,
            window = format_args!("{win:#010x}"),
            "pulling the image into the window"
        );
        let hbm = self.cluster.hbm.clone();
        let mut image = vec![0u8; r.image_size as usize];
        hbm.read(r.device_addr, &mut image)
            .map_err(|_| FirmwareError::Staging {
                core,
                addr: r.device_addr,
                size: r.image_size,
            })?;
        let header = UcplHeader::decode(&image).map_err(|source| FirmwareError::Image {
            core,
            addr: r.device_addr,
            source,
        })?;
        // DMA-pull into the window (HBM scratch behind the pinned translate windows).
        let c = &mut self.cluster.cores[core as usize];
        c.bus
            .write_bytes(win, &image)
            .map_err(|_| FirmwareError::Staging {
                core,
                addr: r.device_addr,
                size: r.image_size,
            })?;
        c.invalidate_code();
        c.bus.images.occupy(win, u64::from(r.image_size));
        let cost = sdma::transfer_cycles(&c.timing, r.image_size);
        let pulled_from = c.stats.cycles;
        c.stats.cycles += cost;
        c.stats.stalls.device_wait += cost;
        if let Some(o) = &self.observer {
            o.image_pull(core, pulled_from, pulled_from + cost, r.image_size);
        }
        // Bind the kernel table named by the image's trailer.
        let KtabTrailer { addr, size: len } =
            KtabTrailer::of_image(&header, &image).ok_or(FirmwareError::NoKernelTable { core })?;
        let bad_table = |why: &'static str| FirmwareError::BadKernelTable {
            core,
            addr,
            len,
            why,
        };
        let inside = addr
            .checked_sub(win)
            .and_then(|off| off.checked_add(len))
            .is_some_and(|end| end <= r.image_size);
        if !inside {
            return Err(bad_table("it lies outside the loaded image"));
        }
        // The runtime's HBM heap, then the start symbol (its registration); the table is read
        // after it, since the start symbol fills it (PLATFORM.md "Kernel table").
        let heap = hbm
            .alloc(u64::from(HEAP_BYTES), 64)
            .map_err(|source| FirmwareError::Heap {
                core,
                bytes: HEAP_BYTES,
                source,
            })?;
        self.cluster.cores[core as usize].bus.mailbox.heap = (heap, HEAP_BYTES);
        let table = self
            .call(core, header.start_sym, "start symbol")
            .and_then(|()| {
                let bytes = self.cluster.cores[core as usize]
                    .bus
                    .read_bytes(addr, len as usize)
                    .map_err(|_| bad_table("it is not readable"))?;
                kernel_table::decode(&bytes)
                    .map_err(|_| bad_table("its size is not a multiple of the 8-byte entry"))
            });
        let table = match table {
            Ok(t) => t,
            Err(e) => {
                let _ = hbm.free(heap);
                return Err(e);
            }
        };
        tracing::debug!(kernels = table.len(), "kernel table bound");
        let lib = self.resident.entry(r.selector).or_default();
        lib.tables.insert(core, table);
        lib.heaps.insert(core, heap);
        Ok(())
    }

    fn unload(&mut self, core: u32, selector: u32) -> Result<(), FirmwareError> {
        let (win, _) = self.image_window(core);
        let lib = self
            .resident
            .get_mut(&selector)
            .filter(|l| l.tables.contains_key(&core))
            .ok_or(FirmwareError::UnknownSelector { core, selector })?;
        lib.tables.remove(&core);
        if let Some(heap) = lib.heaps.remove(&core) {
            let _ = self.cluster.hbm.free(heap);
            self.cluster.cores[core as usize].bus.mailbox.heap = (0, 0);
        }
        if lib.tables.is_empty() {
            self.resident.remove(&selector);
        }
        self.cluster.cores[core as usize].bus.images.release(win);
        Ok(())
    }

    /// Sets `core` up to call `func` through the trampoline (fresh window, SP at the top of the
    /// firmware band, PS.WOE).
    fn prepare_call(&mut self, core: u32, func: u32) {
        let at = self.trampoline_addr(core);
        let c = &mut self.cluster.cores[core as usize];
        if c.bus.read_bytes(at, 3).ok().as_deref() != Some(&trampoline(at)[..3]) {
            // Written behind the core's back: forget decoded instructions there.
            let _ = c.bus.write_bytes(at, &trampoline(at));
            c.bus.images.release(at);
            c.bus.images.occupy(at, TRAMPOLINE_SIZE.into());
            c.invalidate_code();
        }
        // The trampoline's frame is the outermost: when a deep call chain spills it, the
        // overflow handler stores its a4..a7 32 bytes below the SP it finds at SP - 12
        // (isa/ISA.md §3.8). Give it the top of the band, above this frame's SP.
        let _ = c.bus.write_bytes(CALL_SP - 12, &STACK_TOP.to_le_bytes());
        // ISL is the runtime's limit (seed); kernels run with PS.EXCM = 0, where the active
        // limit is KSL (isa/ISA.md §9.4), so both hold it.
        c.state.set_sr(sr::ISL, STACK_LIMIT);
        c.state.set_sr(sr::KSL, STACK_LIMIT);
        c.bus.mailbox.abort = None;
        // The trampoline's `callx8 a8` calls `func`.
        c.prepare_call(at, CALL_SP, &[(8, func)]);
    }

    fn call(&mut self, core: u32, func: u32, what: &'static str) -> Result<(), FirmwareError> {
        let _span =
            tracing::debug_span!("call", core, what, func = format_args!("{func:#010x}")).entered();
        self.prepare_call(core, func);
        let stop = self.run_cores(&[core], 1, what);
        match stop.into_iter().next() {
            Some(Stop::Exited(status)) => match self.incomplete(core, what, status) {
                None => Ok(()),
                Some(e) => Err(e),
            },
            Some(Stop::Fault(report)) => Err(self.failure(core, what, report)),
            None => panic!("internal: run_subset returned no result for core {core}"),
        }
    }

    /// Runs `cores` (set up by [`Firmware::prepare_call`]) for at most the call budget each on
    /// `threads` host threads, each with the observer's tracer for the call `what` when there
    /// is an observer; their stops, in the same order.
    fn run_cores(&mut self, cores: &[u32], threads: usize, what: &str) -> Vec<Stop> {
        let which: Vec<usize> = cores.iter().map(|&c| c as usize).collect();
        match self.observer.clone() {
            Some(observer) => {
                observer.run_cores(&mut self.cluster, &which, threads, self.call_budget, what)
            }
            None => self
                .cluster
                .run_subset::<NoTrace>(&which, threads, self.call_budget)
                .into_iter()
                .map(|(stop, _)| stop)
                .collect(),
        }
    }

    /// The error for `core` stopping with `report` while running `what`: the runtime's abort
    /// when it wrote MBOX_ABORT, else the fault.
    fn failure(&self, core: u32, what: &'static str, report: Box<FaultReport>) -> FirmwareError {
        let bus = &self.cluster.cores[core as usize].bus;
        let Some(code) = bus.mailbox.abort else {
            tracing::warn!(
                core,
                what,
                pc = format_args!("{:#010x}", report.pc),
                fault = %report.kind,
                "core faulted"
            );
            return FirmwareError::Fault { core, what, report };
        };
        tracing::warn!(
            core,
            what,
            code,
            name = mailbox::runtime_error_name(code),
            "runtime error"
        );
        // The runtime's line is the last whole line the core wrote (kept whatever the ring's
        // size, PLATFORM.md "Console"); it starts a line of its own, and a line it did not
        // start is taken from the prefix on all the same.
        let runtime_line = |l: &str| {
            l.find(RUNTIME_ERROR_PREFIX)
                .map(|at| l[at + RUNTIME_ERROR_PREFIX.len()..].trim().to_string())
        };
        let message = runtime_line(&String::from_utf8_lossy(bus.console.last_line()))
            .or_else(|| {
                let console = bus.console.contents();
                String::from_utf8_lossy(&console)
                    .lines()
                    .rev()
                    .find_map(runtime_line)
            })
            .unwrap_or_default();
        FirmwareError::Aborted {
            core,
            what,
            code,
            name: mailbox::runtime_error_name(code),
            message,
            report: Some(report),
        }
    }

    /// Dispatches the kernel bound to `key` with the invocation (`opcode`, `sub_opcode`, ARG_TENSOR
    /// descriptors) on every core of its library, `threads` host threads; results by core.
    pub fn dispatch(
        &mut self,
        key: u32,
        opcode: u32,
        sub_opcode: u32,
        args: &[ArgTensor],
        threads: usize,
    ) -> Result<Vec<CoreResult>, FirmwareError> {
        let _span = tracing::info_span!(
            "dispatch",
            key = format_args!("{key:#x}"),
            opcode,
            sub_opcode,
            args = args.len(),
            threads
        )
        .entered();
        if args.len() > map::MAX_ARGS as usize {
            return Err(FirmwareError::TooManyArgs {
                key,
                count: args.len(),
                max: map::MAX_ARGS,
            });
        }
        let (selector, lib) = self
            .resident
            .iter()
            .find(|(_, l)| {
                l.tables
                    .values()
                    .any(|t| kernel_table::lookup(t, key).is_some())
            })
            .ok_or(FirmwareError::UnknownKey { key })?;
        let cores: Vec<u32> = lib.tables.keys().copied().collect();
        if !matches!(cores.len(), 1 | 8) {
            return Err(FirmwareError::TotalCpus {
                selector: *selector,
                cores: cores.len(),
            });
        }
        let mut launchers = Vec::new();
        for &core in &cores {
            let f = kernel_table::lookup(&lib.tables[&core], key)
                .ok_or(FirmwareError::UnknownKey { key })?
                .func;
            launchers.push((core, f));
        }
        let before: Vec<(Stats, PlatformCounters)> = cores
            .iter()
            .map(|&c| {
                let core = &self.cluster.cores[c as usize];
                (core.stats.clone(), core.bus.counters())
            })
            .collect();
        for &(core, f) in &launchers {
            let mb = &mut self.cluster.cores[core as usize].bus.mailbox;
            mb.opcode = opcode;
            mb.sub_opcode = sub_opcode;
            mb.args = args.to_vec();
            mb.response = None;
            self.prepare_call(core, f);
        }
        let stops = match self.debugger.clone() {
            Some(server) => {
                let budget = self.call_budget;
                let what = format!("{} {key:#x}", crate::observer::DISPATCH);
                // The observer sees the debugged cores through its hook: in checked mode they
                // stop at the first error a check finds; a profile records them.
                let observer = self.observer.clone();
                let mut hook = observer
                    .as_ref()
                    .and_then(|o| o.dispatch_hook(&cores_of(&self.cluster, &cores), &what));
                let debugged = self
                    .cluster
                    .cores
                    .iter_mut()
                    .enumerate()
                    .filter(|(i, _)| cores.contains(&(*i as u32)))
                    .map(|(_, c)| c)
                    .collect();
                let stops = match &mut hook {
                    Some(h) => server.serve(debugged, budget, h.as_mut()),
                    None => server.serve(debugged, budget, &mut q7_emulator::debug::NoHook),
                };
                if let Some(h) = hook {
                    h.finish(&cores_of(&self.cluster, &cores));
                }
                stops.map_err(FirmwareError::Debugger)?
            }
            None => {
                self.cluster.prepare_threads(threads)?;
                self.run_cores(
                    &cores,
                    threads,
                    &format!("{} {key:#x}", crate::observer::DISPATCH),
                )
            }
        };
        let interrupted = stops
            .iter()
            .any(|stop| matches!(stop, Stop::Fault(r) if r.kind == FaultKind::Interrupted));
        if interrupted {
            tracing::warn!("interrupted (Ctrl-C)");
            let (mut reports, mut finished) = (Vec::new(), Vec::new());
            for (core, stop) in cores.iter().zip(stops) {
                match stop {
                    Stop::Fault(r) => reports.push(*r),
                    Stop::Exited(_) => finished.push(*core),
                }
            }
            return Err(FirmwareError::Interrupted {
                what: "kernel",
                reports,
                finished,
            });
        }
        let mut out = Vec::new();
        for ((core, stop), (stats, counters)) in cores.iter().zip(stops).zip(before) {
            match stop {
                Stop::Fault(report) => return Err(self.failure(*core, "kernel", report)),
                // A dispatch succeeds only when every kernel returned with its response.
                Stop::Exited(status) => {
                    if let Some(e) = self.incomplete(*core, "kernel", status) {
                        return Err(e);
                    }
                }
            }
            let c = &self.cluster.cores[*core as usize];
            out.push(CoreResult {
                core: *core,
                response: c.bus.mailbox.response,
                stats: c.stats.since(&stats),
                platform: c.bus.counters().since(&counters),
                stack: StackUse::of(c.lowest_sp),
            });
        }
        tracing::info!(
            cores = out.len(),
            instructions = out.iter().map(|r| r.stats.instructions).sum::<u64>(),
            max_cycles = out.iter().map(|r| r.stats.cycles).max().unwrap_or(0),
            "dispatch done"
        );
        Ok(out)
    }

    /// Selectors resident on `core`.
    pub fn loaded_on(&self, core: u32) -> BTreeSet<u32> {
        self.resident
            .iter()
            .filter(|(_, l)| l.tables.contains_key(&core))
            .map(|(s, _)| *s)
            .collect()
    }

    /// The kernel table bound for library `selector` on `core` (read after its start symbol
    /// ran, PLATFORM.md "Kernel table"), when it is resident there.
    pub fn kernel_table(&self, selector: u32, core: u32) -> Option<&[KernelEntry]> {
        self.resident
            .get(&selector)?
            .tables
            .get(&core)
            .map(Vec::as_slice)
    }
}
/// The consoles a device failure reports: of the core that faulted or aborted, or of each one
/// Ctrl-C stopped. A runtime error's console that holds nothing but the runtime's own line,
/// which the error already quotes, is left out. An incomplete call quotes its console itself.
pub fn failure_consoles(cluster: &Cluster, e: &FirmwareError) -> Box<[CoreConsole]> {
    let cores = match e {
        FirmwareError::Fault { core, .. } | FirmwareError::Aborted { core, .. } => vec![*core],
        FirmwareError::Interrupted { reports, .. } => reports.iter().map(|r| r.core).collect(),
        _ => Vec::new(),
    };
    let only_the_runtime_line = |c: &CoreConsole| {
        c.dropped == 0
            && c.text
                .lines()
                .all(|l| l.is_empty() || l.starts_with(RUNTIME_ERROR_PREFIX))
    };
    cores
        .into_iter()
        .filter(|&c| (c as usize) < cluster.cores.len())
        .map(|c| CoreConsole::of(cluster, c))
        .filter(|c| !(matches!(e, FirmwareError::Aborted { .. }) && only_the_runtime_line(c)))
        .collect()
}

/// The text of a device failure: the error, `symbols` (its backtrace symbolised, or empty),
/// then what each core in `console` printed.
pub fn failure_text(source: &FirmwareError, symbols: &str, console: &[CoreConsole]) -> String {
    let mut out = format!("{source}{symbols}");
    for c in console.iter().filter(|c| !c.is_empty()) {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&c.printed());
    }
    out
}
