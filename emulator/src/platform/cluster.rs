//! The POOL cluster: eight ncore2gp cores sharing one HBM, run on a pool of host threads of
//! the size a run asks for, each core wholly on one thread at a time. Cores share
//! nothing else, and each core's cycle count depends only on its own instruction stream, so
//! outputs, cycle counts and traces are identical for every thread count — as long as the cores
//! do not communicate through HBM within one run (one dispatch): no core reads HBM that another
//! core writes during the same run. Cores that do see each other's stores at moments that
//! depend on host thread scheduling, so their results may differ between thread counts and
//! between runs. Nothing detects such a run yet.

use std::sync::{Arc, Mutex};

use super::bus::PlatformBus;
use super::hbm::{Hbm, HbmError};
use super::map;
use crate::bootrom;
use crate::core::{Console, Core};
use crate::fault::Stop;
use crate::timing::TimingModel;
use crate::trace::Tracer;

/// Cluster parameters.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// Number of cores (8 on the POOL engine).
    pub cores: u32,
    /// HBM size in bytes (virtual).
    pub hbm_bytes: u64,
    /// The timing model of every core.
    pub timing: TimingModel,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            cores: 8,
            hbm_bytes: map::DEFAULT_HBM_BYTES,
            timing: TimingModel::default(),
        }
    }
}

/// Semihosting output of one core, captured in memory (cores run on parallel threads, so they
/// must not share a stream).
#[derive(Debug, Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// The bytes written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A core and where its result goes.
type Job<'a, T> = (&'a mut Core<PlatformBus>, &'a mut Option<(Stop, T)>);

/// The host threads could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} host threads for the cores: {source}")]
pub struct ThreadsError {
    /// Threads asked for.
    pub threads: usize,
    /// Why.
    pub source: rayon::ThreadPoolBuildError,
}

/// The pool of host threads that run the cores: exactly as many threads as a run asked for
/// (never rayon's global pool, whose size is the host's), made on the first run that needs
/// them and kept for the next runs of the same count.
#[derive(Debug, Default)]
struct Threads(Option<rayon::ThreadPool>);

impl Threads {
    /// A pool of `n` threads, reusing the current one when it has that many.
    fn get(&mut self, n: usize) -> Result<&rayon::ThreadPool, ThreadsError> {
        if self.0.as_ref().is_none_or(|p| p.current_num_threads() != n) {
            self.0 = None;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("q7-cores-{i}"))
                .build()
                .map_err(|source| ThreadsError { threads: n, source })?;
            self.0 = Some(pool);
        }
        Ok(self.0.as_ref().expect("made above"))
    }
}

/// The cluster.
#[derive(Debug)]
pub struct Cluster {
    /// Shared HBM.
    pub hbm: Arc<Hbm>,
    /// Cores, indexed by PRID.
    pub cores: Vec<Core<PlatformBus>>,
    /// Each core's semihosting output.
    pub output: Vec<Captured>,
    threads: Threads,
}

/// A cluster as [`Cluster::checkpoint`] kept it: each core, HBM, and the semihosting output.
#[derive(Debug, Clone)]
pub struct ClusterCheckpoint {
    cores: Vec<crate::core::CoreCheckpoint<PlatformBus>>,
    hbm: super::hbm::HbmCheckpoint,
    output: Vec<Vec<u8>>,
}

impl ClusterCheckpoint {
    /// The HBM bytes it holds.
    pub fn hbm_bytes(&self) -> u64 {
        self.hbm.bytes()
    }
}

impl Cluster {
    /// The cluster now (no core running), to start later runs from with
    /// [`Cluster::restore`]: how the host keeps a library loaded between calls.
    pub fn checkpoint(&self) -> ClusterCheckpoint {
        ClusterCheckpoint {
            cores: self.cores.iter().map(Core::checkpoint).collect(),
            hbm: self.hbm.checkpoint(),
            output: self.output.iter().map(Captured::bytes).collect(),
        }
    }

    /// Makes the cluster what it was at `c`: every core, HBM and the semihosting output. Each
    /// core keeps its decoded and compiled code when the memory it was made from holds the same
    /// bytes after the restore (docs/jit.md "Kept code").
    pub fn restore(&mut self, c: &ClusterCheckpoint) -> Result<(), HbmError> {
        assert_eq!(
            self.cores.len(),
            c.cores.len(),
            "a checkpoint of this cluster"
        );
        let images: Vec<_> = self.cores.iter().map(Core::code_image).collect();
        for (core, saved) in self.cores.iter_mut().zip(&c.cores) {
            core.restore_keeping_code(saved);
        }
        for (out, saved) in self.output.iter().zip(&c.output) {
            *out.0.lock().unwrap_or_else(|p| p.into_inner()) = saved.clone();
        }
        let restored = self.hbm.restore(&c.hbm);
        for (core, image) in self.cores.iter_mut().zip(&images) {
            if restored.is_ok() {
                core.keep_code_if_unchanged(image);
            } else {
                core.invalidate_code();
            }
        }
        restored
    }

    /// Boots `config.cores` cores in reset state: boot ROM at IRAM 0 (VECBASE 0), translate
    /// windows 0 and 1 pinned to HBM scratch, PC 0 until [`Cluster::set_entry`].
    pub fn new(config: &ClusterConfig) -> Result<Cluster, HbmError> {
        let hbm = Arc::new(Hbm::new(config.hbm_bytes, map::HBM_SCRATCH.1)?);
        let rom = bootrom::image(0);
        let mut cores = Vec::new();
        let mut output = Vec::new();
        for prid in 0..config.cores {
            let mut bus = PlatformBus::new(prid, hbm.clone(), &config.timing);
            bus.write_bytes(map::IRAM.0, &rom)
                .expect("the boot ROM fits IRAM");
            bus.images.occupy(map::IRAM.0, rom.len() as u64);
            let mut core = Core::new(&q7_isa::NCORE2GP, bus, prid, 0, 0);
            core.timing = config.timing.clone();
            core.handler_code = std::iter::once(0..bootrom::SIZE).collect();
            let out = Captured::default();
            core.console = Console {
                stdout: Box::new(out.clone()),
                stderr: Box::new(out.clone()),
            };
            output.push(out);
            cores.push(core);
        }
        Ok(Cluster {
            hbm,
            cores,
            output,
            threads: Threads::default(),
        })
    }

    /// Makes every core stop where it is when `stop` is raised (Ctrl-C).
    pub fn set_stop_request(&mut self, stop: &crate::stop_request::StopRequest) {
        for c in &mut self.cores {
            c.stop_request = stop.clone();
        }
    }

    /// Writes `bytes` at `addr` of every core (e.g. a program into IRAM).
    pub fn load_all(&mut self, addr: u32, bytes: &[u8]) -> Result<(), crate::bus::BusFault> {
        for c in &mut self.cores {
            c.bus.write_bytes(addr, bytes)?;
            c.bus.images.occupy(addr, bytes.len() as u64);
            c.invalidate_code();
        }
        Ok(())
    }

    /// Sets every core's PC.
    pub fn set_entry(&mut self, pc: u32) {
        for c in &mut self.cores {
            c.state.pc = pc;
        }
    }

    /// The number of host threads a run of `cores` cores on `threads` threads uses: at least
    /// 1, at most one per core.
    pub fn threads_for(threads: usize, cores: usize) -> usize {
        threads.clamp(1, cores.max(1))
    }

    /// Starts the host threads a run of all cores on `threads` threads uses (runs start them
    /// on demand; this reports a failure to start them as an error instead of a panic).
    pub fn prepare_threads(&mut self, threads: usize) -> Result<(), ThreadsError> {
        let n = Self::threads_for(threads, self.cores.len());
        if n > 1 {
            self.threads.get(n)?;
        }
        Ok(())
    }

    /// Turns tier 2 on or off on every core; on, the cores share the host code they compile
    /// (docs/jit.md "Code shared by cores") when there are several.
    pub fn set_jit(&mut self, on: bool) {
        let shared = std::sync::Arc::new(crate::jit::SharedCode::default());
        let cores = self.cores.len();
        for c in &mut self.cores {
            c.set_jit(on);
            if cores > 1 {
                c.share_jit_code(&shared, cores);
            }
        }
    }

    /// What tier 2 did on every core together (docs/jit.md).
    pub fn jit_stats(&self) -> crate::jit::JitStats {
        let mut all = crate::jit::JitStats::default();
        for c in &self.cores {
            all.add(&c.jit_stats());
        }
        all
    }

    /// Runs every core to exit, fault or `max_cycles` more cycles (counted from each core's
    /// current cycle count) on `threads` threads (1..=cores); returns each core's stop and
    /// tracer, by PRID. Identical for every thread count while no core reads HBM another core
    /// writes during the run (see the module documentation).
    pub fn run_traced<T: Tracer + Send + Default>(
        &mut self,
        threads: usize,
        max_cycles: u64,
    ) -> Vec<(Stop, T)> {
        let all: Vec<usize> = (0..self.cores.len()).collect();
        self.run_subset(&all, threads, max_cycles)
    }

    /// Runs the cores with the given PRIDs (the others stay put), each for at most `max_cycles`
    /// more cycles; results in the same order.
    pub fn run_subset<T: Tracer + Send + Default>(
        &mut self,
        which: &[usize],
        threads: usize,
        max_cycles: u64,
    ) -> Vec<(Stop, T)> {
        self.run_subset_with(which, threads, max_cycles, |_| T::default())
    }

    /// [`Cluster::run_subset`] with each core's tracer made by `tracer(core)` as its run
    /// starts.
    ///
    /// One thread runs the cores in PRID order on the calling thread; more run them on a pool
    /// of exactly that many threads ([`Cluster::threads_for`]), each core wholly on one
    /// thread. Panics only when the pool's threads cannot be started, which
    /// [`Cluster::prepare_threads`] reports as an error beforehand.
    pub fn run_subset_with<T, F>(
        &mut self,
        which: &[usize],
        threads: usize,
        max_cycles: u64,
        tracer: F,
    ) -> Vec<(Stop, T)>
    where
        T: Tracer + Send,
        F: Fn(&Core<PlatformBus>) -> T + Sync,
    {
        let n = Self::threads_for(threads, which.len());
        let mut results: Vec<Option<(Stop, T)>> = (0..self.cores.len()).map(|_| None).collect();
        let jobs: Vec<Job<'_, T>> = self
            .cores
            .iter_mut()
            .zip(results.iter_mut())
            .enumerate()
            .filter(|(i, _)| which.contains(i))
            .map(|(_, job)| job)
            .collect();
        // Pool threads do not inherit the caller's span: each core's span names it as parent.
        let parent = tracing::Span::current();
        let run = |(core, slot): Job<'_, T>| {
            let prid = core.bus.prid();
            let _span =
                tracing::debug_span!(parent: &parent, "core", core = prid, budget = max_cycles)
                    .entered();
            let (insns, cycles) = (core.stats.instructions, core.stats.cycles);
            let mut t = tracer(core);
            let stop = core.run_for(max_cycles, &mut t);
            let (insns, cycles) = (core.stats.instructions - insns, core.stats.cycles - cycles);
            match &stop {
                Stop::Exited(status) => {
                    tracing::debug!(instructions = insns, cycles, status, "core exited")
                }
                Stop::Fault(r) => tracing::debug!(
                    instructions = insns,
                    cycles,
                    pc = format_args!("{:#010x}", r.pc),
                    fault = %r.kind,
                    "core stopped"
                ),
            }
            *slot = Some((stop, t));
        };
        if n == 1 {
            jobs.into_iter().for_each(run);
        } else {
            let pool = match self.threads.get(n) {
                Ok(pool) => pool,
                Err(e) => panic!("{e}"),
            };
            pool.scope(|s| {
                for job in jobs {
                    s.spawn(|_| run(job));
                }
            });
        }
        results.into_iter().flatten().collect()
    }

    /// The console output to print after a run: core 0's ring only (as public hardware prints
    /// in multicore mode), or every core's ring labelled `[core N]` when `all_cores`.
    pub fn console_output(&self, all_cores: bool) -> String {
        let mut out = String::new();
        for core in &self.cores {
            let prid = core.bus.prid();
            if prid != 0 && !all_cores {
                continue;
            }
            // A ring that overwrote bytes starts with the line saying how many.
            let text = core.bus.console.text();
            if all_cores {
                for line in text.lines() {
                    out.push_str(&format!("[core {prid}] {line}\n"));
                }
            } else {
                out.push_str(&text);
            }
        }
        out
    }

    /// [`Cluster::run_traced`] without tracing.
    pub fn run(&mut self, threads: usize, max_cycles: u64) -> Vec<Stop> {
        self.run_traced::<crate::trace::NoTrace>(threads, max_cycles)
            .into_iter()
            .map(|(s, _)| s)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Event;
    use q7_isa::Opcode;

    /// Counts the instructions a core attempts, remembering the PRID it was made for.
    #[derive(Debug)]
    struct Count {
        prid: u32,
        seen: u32,
    }

    impl Tracer for Count {
        const ENABLED: bool = true;
        fn event(&mut self, e: Event<'_>) {
            if let Event::Before { .. } = e {
                self.seen += 1;
            }
        }
    }

    /// A cluster whose cores run `movi a2, 1; simcall` at 0x1000 with a3 = PRID: a
    /// semihosting exit with the core's PRID.
    fn exiting_with_prid() -> Cluster {
        let mut c = cluster_running(&assemble(&[
            (Opcode::Movi, vec![2, 1]),
            (Opcode::Simcall, vec![]),
        ]));
        for core in &mut c.cores {
            let prid = core.bus.prid();
            core.state.set_a(3, prid);
        }
        c
    }

    #[test]
    fn each_core_gets_the_tracer_made_for_its_prid_on_any_thread_count() {
        for threads in [1, 2, 3, 8, 64] {
            let mut c = exiting_with_prid();
            let results =
                c.run_subset_with(&[0, 1, 2, 3, 4, 5, 6, 7], threads, 1000, |core| Count {
                    prid: core.bus.prid(),
                    seen: 0,
                });
            let got: Vec<(Stop, u32, u32)> = results
                .into_iter()
                .map(|(s, t)| (s, t.prid, t.seen))
                .collect();
            let want: Vec<(Stop, u32, u32)> =
                (0..8).map(|p| (Stop::Exited(p as i32), p, 2)).collect();
            assert_eq!(got, want, "threads = {threads}");
        }
    }

    #[test]
    fn a_subset_runs_only_the_cores_named_and_returns_them_in_prid_order() {
        let mut c = exiting_with_prid();
        let results = c.run_subset::<crate::NoTrace>(&[5, 1], 2, 1000);
        let stops: Vec<Stop> = results.into_iter().map(|(s, _)| s).collect();
        assert_eq!(stops, [Stop::Exited(1), Stop::Exited(5)]);
        let ran: Vec<u64> = c.cores.iter().map(|k| k.stats.instructions).collect();
        assert_eq!(
            ran,
            [0, 2, 0, 0, 0, 2, 0, 0],
            "MOVI and the exiting SIMCALL"
        );
    }

    /// Core 0 of a cluster running `code` at 0x1000 (each instruction with its operands), with
    /// window 2 onto HBM at 2 × WINDOW_SIZE holding 5 at its first word; tier 2 on (compiling
    /// from the second arrival) or off.
    fn loading_through_window_2(
        code: &[(Opcode, Vec<u32>)],
        jit: bool,
    ) -> (Stop, Core<PlatformBus>) {
        let mut c = cluster_running(&assemble(code));
        let core = &mut c.cores[0];
        core.bus.windows.windows[2] = crate::platform::mem_window::Window {
            base: 2 * u64::from(map::WINDOW_SIZE),
            enabled: true,
        };
        core.bus
            .hbm()
            .store(2 * u64::from(map::WINDOW_SIZE), 4, 5)
            .unwrap();
        core.set_jit(jit);
        core.set_jit_tier_up(2);
        let stop = c.run_subset::<crate::trace::NoTrace>(&[0], 1, 1_000_000)[0]
            .0
            .clone();
        (stop, c.cores.swap_remove(0))
    }

    /// [`loading_through_window_2`] with tier 2 on and off: both fault at `pc` alike, with the
    /// same counters; the cores (on, off).
    fn faulting_alike_in_both_tiers(
        code: &[(Opcode, Vec<u32>)],
        pc: u32,
    ) -> (Core<PlatformBus>, Core<PlatformBus>) {
        let (stop_on, on) = loading_through_window_2(code, true);
        let (stop_off, off) = loading_through_window_2(code, false);
        assert_eq!(stop_on, stop_off);
        let Stop::Fault(report) = &stop_off else {
            panic!("{stop_off:?}")
        };
        assert_eq!(report.pc, pc);
        assert_eq!(on.stats, off.stats);
        assert_eq!(on.bus.counters(), off.bus.counters());
        (on, off)
    }

    #[test]
    fn compiled_loads_through_a_window_count_and_charge_what_the_interpreter_does() {
        use Opcode::*;
        // a4 = window 2's first byte (0x43 << 25 = XLATE + 2 × 16 MiB); 300 rounds of a7 +=
        // [a4]; then a load through window 3, which is disabled: a fault at 0x1021.
        let code = [
            (Movi, vec![4, 0x43]),
            (Slli, vec![4, 4, 25]),
            (Movi, vec![5, 300]),
            (Movi, vec![7, 0]),
            (L32i, vec![6, 4, 0]),
            (Add, vec![7, 7, 6]),
            (Addi, vec![5, 5, -1i32 as u32]),
            (Bnez, vec![5, 0x100c]),
            (Movi, vec![8, 1]),
            (Slli, vec![8, 8, 24]),
            (Add, vec![4, 4, 8]),
            (L32i, vec![6, 4, 0]),
        ];
        assert_eq!(map::XLATE.0 + 2 * map::WINDOW_SIZE, 0x43 << 25);
        // The load through the disabled window.
        let (on, off) = faulting_alike_in_both_tiers(&code, 0x1021);
        assert!(on.jit_stats().executed > 0, "the loop ran compiled");
        assert_eq!(off.jit_stats().executed, 0);
        assert_eq!(on.state.a(7), 300 * 5);
        assert_eq!(on.bus.counters().windows.hbm_accesses, 300);
        let hbm = u64::from(TimingModel::default().hbm_latency);
        // The latency goes by address class, so the faulting load through window 3 is
        // charged it too (but not counted as an access).
        assert_eq!(off.stats.stalls.hbm, 301 * hbm);
    }

    #[test]
    fn a_load_compiled_for_a_window_reads_dataram_through_its_helper_when_its_base_moved() {
        use Opcode::*;
        // Two rounds of 100 × a7 += [a4]: a4 is window 2's first word (5) in the first, when the
        // loop is compiled (its load for the window: docs/jit.md "Memory"), and DATARAM's first
        // word (7) in the second, which the same compiled load reads through its helper. The
        // jump forward ends the loop's region, so no instruction of it writes a4.
        let code = [
            (Movi, vec![8, 8]),
            (Slli, vec![8, 8, 16]),
            (Movi, vec![6, 7]),
            (S32i, vec![6, 8, 0]),
            (Movi, vec![4, 0x43]),
            (Slli, vec![4, 4, 25]),
            (Movi, vec![9, 2]),
            (Movi, vec![7, 0]),
            (Movi, vec![5, 100]),
            (L32i, vec![6, 4, 0]),
            (Add, vec![7, 7, 6]),
            (Addi, vec![5, 5, -1i32 as u32]),
            (Bnez, vec![5, 0x101b]),
            (J, vec![0x102d]),
            (Movi, vec![10, 0]),
            (Or, vec![4, 8, 8]),
            (Addi, vec![9, 9, -1i32 as u32]),
            (Bnez, vec![9, 0x1018]),
        ];
        assert_eq!(map::DATARAM.0, 8 << 16);
        // The zeros after the code.
        let (on, _) = faulting_alike_in_both_tiers(&code, 0x1036);
        assert_eq!(on.state.a(7), 100 * 5 + 100 * 7);
        assert!(on.jit_stats().executed > 150, "{:?}", on.jit_stats());
        assert_eq!(on.bus.counters().windows.hbm_accesses, 100);
    }

    #[test]
    fn a_literal_compiled_in_is_dropped_when_the_core_stores_into_it() {
        use Opcode::*;
        // LITBASE 0x8600_1001 puts the loop's L32R literal at window 2's first word (5), which
        // tier 2 compiles in as a constant (docs/jit.md "Literals"); after 100 rounds of
        // a7 += literal a store writes 9 there and 100 more rounds run. The store is outside
        // every block's instructions: only the literal's mark drops the loop's block, and
        // without it the second round adds the 5 compiled in.
        let window2 = 0x43 << 25;
        let code = [
            (Movi, vec![4, 0x43]),
            (Slli, vec![4, 4, 25]),
            (Movi, vec![9, 0x43]),
            (Slli, vec![9, 9, 25]),
            (Addmi, vec![9, 9, 0x1000]),
            (Addi, vec![9, 9, 1]),
            (Wsr, vec![9, u32::from(q7_isa::sreg::sr::LITBASE)]),
            (Movi, vec![10, 2]),
            (Movi, vec![7, 0]),
            (Movi, vec![5, 100]),
            (L32r, vec![6, 0x20]),
            (Add, vec![7, 7, 6]),
            (Addi, vec![5, 5, -1i32 as u32]),
            (Bnez, vec![5, 0x101e]),
            (Movi, vec![6, 9]),
            (S32i, vec![6, 4, 0]),
            (Addi, vec![10, 10, -1i32 as u32]),
            (Bnez, vec![10, 0x101b]),
        ];
        assert_eq!(
            q7_isa::sreg::litbase::literal_address(window2 + 0x1001, 0x101e, 0x20),
            window2
        );
        // The zeros after the code.
        let (on, _) = faulting_alike_in_both_tiers(&code, 0x1036);
        assert_eq!(on.state.a(7), 100 * 5 + 100 * 9);
        assert!(on.jit_stats().executed > 150, "{:?}", on.jit_stats());
        assert!(on.jit_stats().invalidated >= 1, "{:?}", on.jit_stats());
        // The 200 loads of the literal and the 2 stores.
        assert_eq!(on.bus.counters().windows.hbm_accesses, 202);
    }

    /// `rounds` rounds of a3 += 1, then a semihosting exit with a3, at 0x1000.
    fn counting_loop(rounds: u32) -> Vec<u8> {
        use Opcode::*;
        assert!(rounds < 1 << 17, "a count MOVI, SLLI and ADDI make");
        assemble(&[
            (Movi, vec![5, rounds >> 6]),
            (Slli, vec![5, 5, 6]),
            (Addi, vec![5, 5, rounds & 63]),
            (Movi, vec![3, 0]),
            (Addi, vec![3, 3, 1]),
            (Addi, vec![5, 5, -1i32 as u32]),
            (Bnez, vec![5, 0x100c]),
            (Movi, vec![2, 1]),
            (Simcall, vec![]),
        ])
    }

    /// A cluster (HBM twice its scratch) whose cores run `bytes`, loaded at 0x1000.
    fn cluster_running(bytes: &[u8]) -> Cluster {
        let mut c = Cluster::new(&ClusterConfig {
            hbm_bytes: 2 * map::HBM_SCRATCH.1,
            ..ClusterConfig::default()
        })
        .unwrap();
        c.load_all(0x1000, bytes).unwrap();
        c.set_entry(0x1000);
        c
    }

    /// `code` (each instruction with its operands) encoded from 0x1000 on.
    fn assemble(code: &[(Opcode, Vec<u32>)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (op, args) in code {
            let pc = 0x1000 + bytes.len() as u32;
            bytes.extend_from_slice(op.encode(args, pc).unwrap().as_bytes());
        }
        bytes
    }

    #[test]
    fn a_restore_keeps_the_code_memory_still_holds_and_forgets_code_it_no_longer_holds() {
        let mut c = cluster_running(&counting_loop(300));
        c.cores[0].set_jit(true);
        c.cores[0].set_jit_tier_up(2);
        let loaded = c.checkpoint();
        let run = |c: &mut Cluster| {
            let stop = c.run_subset::<crate::trace::NoTrace>(&[0], 1, 1_000_000)[0]
                .0
                .clone();
            (stop, c.cores[0].stats.clone(), c.cores[0].jit_stats())
        };
        let (stop, stats, first) = run(&mut c);
        assert_eq!(stop, Stop::Exited(300));
        assert!(first.blocks >= 1, "{first:?}");
        // The same code after each restore: kept (with the arrivals counted so far, so the
        // second run may compile what only then arrives twice, but the third compiles
        // nothing), and every run counts what the first did.
        c.restore(&loaded).unwrap();
        let (stop2, stats2, second) = run(&mut c);
        assert_eq!((stop2, stats2), (Stop::Exited(300), stats.clone()));
        c.restore(&loaded).unwrap();
        let (stop3, stats3, third) = run(&mut c);
        assert_eq!((stop3, stats3), (Stop::Exited(300), stats.clone()));
        assert_eq!(third.blocks, second.blocks, "nothing compiled again");
        assert!(
            third.executed - second.executed >= second.executed - first.executed,
            "the kept code ran: {first:?} {second:?} {third:?}"
        );
        // Other code loaded after the checkpoint and compiled: the restore brings back
        // memory holding the first program, so that code must go.
        c.load_all(0x1000, &counting_loop(200)).unwrap();
        c.set_entry(0x1000);
        assert_eq!(run(&mut c).0, Stop::Exited(200));
        c.restore(&loaded).unwrap();
        let (stop4, stats4, _) = run(&mut c);
        assert_eq!((stop4, stats4), (Stop::Exited(300), stats));
    }

    #[test]
    fn a_core_copies_a_block_another_core_compiled_at_its_copy_at_th_arrival() {
        // docs/jit.md "Code shared by cores": two cores run 40,000 rounds of the same loop at
        // the same place (0x1000), one after the other on one thread. The first compiles the
        // loop's block at its TIER_UP-th arrival; the second copies it at its COPY_AT-th, so
        // it runs the rounds after that compiled. Both count the same.
        use crate::jit::{COPY_AT, TIER_UP};
        let rounds = 40_000u32;
        let mut c = cluster_running(&counting_loop(rounds));
        c.set_jit(true);
        let results = c.run_subset::<crate::trace::NoTrace>(&[0, 1], 1, 10_000_000);
        assert_eq!(results[0].0, Stop::Exited(40_000));
        assert_eq!(results[1].0, Stop::Exited(40_000));
        assert_eq!(c.cores[0].stats, c.cores[1].stats);
        let (a, b) = (c.cores[0].jit_stats(), c.cores[1].jit_stats());
        let (first, second) = if a.copied == 0 { (a, b) } else { (b, a) };
        assert_eq!((first.copied, second.copied), (0, 1), "{a:?} {b:?}");
        // The loop's three instructions a round, compiled from the arrival that made it hot
        // (the block at the loop's head: its first arrival is the second round's).
        let compiled_rounds = |arrival: u16| u64::from(rounds - 1 - u32::from(arrival) + 1);
        assert!(
            first.executed <= 3 * compiled_rounds(TIER_UP) + 3,
            "{first:?}"
        );
        assert!(
            second.executed >= 3 * compiled_rounds(COPY_AT),
            "{second:?}"
        );
    }

    #[test]
    fn a_run_uses_at_most_one_thread_per_core() {
        assert_eq!(Cluster::threads_for(1, 8), 1);
        assert_eq!(Cluster::threads_for(2, 8), 2);
        assert_eq!(Cluster::threads_for(64, 8), 8);
        assert_eq!(Cluster::threads_for(2, 1), 1);
        assert_eq!(Cluster::threads_for(0, 8), 1);
    }
}
