//! `q7emu run-packed`: one packed custom-op library through the whole host and device path of
//! seed 001 — prelinked and staged per core by [`Context::create`], loaded by 0x1095 records,
//! its `.kernel_info_table` bound, the kernel dispatched by key, then unloaded and destroyed.
//!
//! Invocation arguments are raw ARG_TENSOR descriptors (0x30 bytes, seed 002): each `--arg`
//! gives the leading little-endian words of one descriptor, the rest zero.

use serde::Serialize;

use crate::firmware::{CoreResult, Firmware, FirmwareError};
use crate::nrtucode::{coretype, Context, NrtError, Source};
use q7_emulator::platform::{Cluster, ClusterConfig, HbmError};

/// Size of one ARG_TENSOR descriptor (seed 002).
pub const ARG_BYTES: usize = 0x30;
/// The custom-op opcode every dispatch carries (seed 000: always 133).
pub const CUSTOM_OP_OPCODE: u32 = 133;
/// The library selector `run-packed` loads under.
pub const SELECTOR: u32 = 1;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct RunPacked {
    /// Library name (its per-core instances are `<name>_cpu<N>`).
    pub name: String,
    /// 8 (one instance per core, 2 MiB windows) or 1 (core 0, the 32 MiB window).
    pub cores: u32,
    /// Kernel key: spec << 8 | opcode.
    pub key: u32,
    /// Sub-opcode of the invocation.
    pub sub_opcode: u32,
    /// ARG_TENSOR descriptors, each given by its leading words.
    pub args: Vec<Vec<u32>>,
    /// How many times to dispatch (library state persists between dispatches).
    pub dispatches: u32,
    /// Host threads for the cores.
    pub threads: usize,
    /// Cycle budget of each firmware call.
    pub call_budget: u64,
}

/// Why a run failed, naming the step.
#[derive(Debug, thiserror::Error)]
pub enum RunPackedError {
    /// Only 1- and 8-core libraries exist (seed 002: total_cpus ∈ {1, NUM_POOL_CORES}).
    #[error("--cores {0}: a library runs on 1 core or on all 8")]
    Cores(u32),
    /// An argument has more words than a descriptor holds.
    #[error("argument {index}: {words} words, an ARG_TENSOR descriptor holds 12")]
    ArgTooLong {
        /// Which argument.
        index: usize,
        /// Words given.
        words: usize,
    },
    /// The cluster's HBM could not be mapped.
    #[error("cluster: {0}")]
    Cluster(#[from] HbmError),
    /// Host-side API failure (packed image, prelink, buffer).
    #[error("core {core}: {source}")]
    Host {
        /// Core whose instance failed.
        core: u32,
        /// Why.
        source: NrtError,
    },
    /// Device-side failure (load, dispatch, unload).
    #[error(transparent)]
    Device(#[from] FirmwareError),
}

/// The outcome: the prelinked size and, per dispatch, every core's result.
#[derive(Debug, Serialize)]
pub struct PackedRun {
    /// Library name.
    pub name: String,
    /// Prelinked UCPL image size of each core's instance, by core.
    pub prelinked_sizes: Vec<u32>,
    /// Kernel key.
    pub key: u32,
    /// Per dispatch, per core.
    pub dispatches: Vec<Vec<CoreResult>>,
}

/// Encodes argument words as ARG_TENSOR descriptors.
pub fn descriptors(args: &[Vec<u32>]) -> Result<Vec<[u8; ARG_BYTES]>, RunPackedError> {
    args.iter()
        .enumerate()
        .map(|(index, words)| {
            if words.len() > ARG_BYTES / 4 {
                return Err(RunPackedError::ArgTooLong {
                    index,
                    words: words.len(),
                });
            }
            let mut d = [0u8; ARG_BYTES];
            for (slot, w) in d.chunks_exact_mut(4).zip(words) {
                slot.copy_from_slice(&w.to_le_bytes());
            }
            Ok(d)
        })
        .collect()
}

/// Runs packed library `packed` as `run` says, on a fresh default cluster.
pub fn run_packed(packed: &[u8], run: &RunPacked) -> Result<PackedRun, RunPackedError> {
    if !matches!(run.cores, 1 | 8) {
        return Err(RunPackedError::Cores(run.cores));
    }
    let args = descriptors(&run.args)?;
    let mut device = Firmware::new(Cluster::new(&ClusterConfig::default())?);
    device.single_core = run.cores == 1;
    device.call_budget = run.call_budget;
    let mut ctx = Context::new(device);
    let host = |core| move |source| RunPackedError::Host { core, source };

    let mut libs = Vec::new();
    for core in 0..run.cores {
        let name = format!("{}_cpu{core}", run.name);
        let mut lib = ctx
            .create(
                coretype::CAYMAN,
                core,
                Some(SELECTOR),
                &name,
                Source::CustomOp(packed),
            )
            .map_err(host(core))?;
        for record in ctx.load_sequence(&mut lib, None) {
            ctx.device.process(core, &record)?;
        }
        libs.push((core, lib));
    }
    let mut dispatches = Vec::new();
    for _ in 0..run.dispatches {
        dispatches.push(ctx.device.dispatch(
            run.key,
            CUSTOM_OP_OPCODE,
            run.sub_opcode,
            &args,
            run.threads,
        )?);
    }
    let prelinked_sizes = libs.iter().map(|(_, l)| l.size()).collect();
    for (core, mut lib) in libs {
        for record in ctx.unload_sequence(&mut lib) {
            ctx.device.process(core, &record)?;
        }
        ctx.destroy(lib).map_err(host(core))?;
    }
    Ok(PackedRun {
        name: run.name.clone(),
        prelinked_sizes,
        key: run.key,
        dispatches,
    })
}

impl PackedRun {
    /// The human-readable result: one line per core and dispatch.
    pub fn text(&self) -> String {
        let mut out = format!(
            "library {}: {} core(s), key {:#x}, prelinked {} bytes per core\n",
            self.name,
            self.prelinked_sizes.len(),
            self.key,
            self.prelinked_sizes.first().copied().unwrap_or(0)
        );
        for (n, results) in self.dispatches.iter().enumerate() {
            for r in results {
                let response = match r.response {
                    Some(v) => format!("{v:#010x} ({v})"),
                    None => "none".to_string(),
                };
                out.push_str(&format!(
                    "dispatch {n} core {}: response {response}, {} instructions, {} cycles\n",
                    r.core, r.stats.instructions, r.stats.cycles
                ));
            }
        }
        out
    }
}
