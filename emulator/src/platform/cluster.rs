//! The POOL cluster: eight ncore2gp cores sharing one HBM, each on its own thread. Cores share
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

/// The cluster.
#[derive(Debug)]
pub struct Cluster {
    /// Shared HBM.
    pub hbm: Arc<Hbm>,
    /// Cores, indexed by PRID.
    pub cores: Vec<Core<PlatformBus>>,
    /// Each core's semihosting output.
    pub output: Vec<Captured>,
}

impl Cluster {
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
        Ok(Cluster { hbm, cores, output })
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
        let threads = threads.clamp(1, which.len().max(1));
        let mut results: Vec<Option<(Stop, T)>> = (0..self.cores.len()).map(|_| None).collect();
        std::thread::scope(|scope| {
            // The n-th selected core runs on thread n mod threads, in PRID order per thread.
            let mut work: Vec<Vec<Job<'_, T>>> = (0..threads).map(|_| Vec::new()).collect();
            let selected = self
                .cores
                .iter_mut()
                .zip(results.iter_mut())
                .enumerate()
                .filter(|(i, _)| which.contains(i));
            for (n, (_, job)) in selected.enumerate() {
                work[n % threads].push(job);
            }
            for batch in work {
                scope.spawn(move || {
                    for (core, slot) in batch {
                        let mut tracer = T::default();
                        let stop = core.run_for(max_cycles, &mut tracer);
                        *slot = Some((stop, tracer));
                    }
                });
            }
        });
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
            let text = String::from_utf8_lossy(&core.bus.console.contents()).into_owned();
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
