//! Exact cycle profiles (`--profile DIR`, docs/profiling.md): every cycle of every core that
//! runs a dispatch, attributed to the instruction address and the call path it was spent in,
//! split into issue cycles and the run report's stall categories ([`record`]); mapped to
//! functions and source lines from the unstripped images ([`model`]); written as
//! `profile.json`, folded stacks ([`folded`]), flame graphs ([`flame`]) and pprof's format
//! ([`pprof`]); read back by `q7emu profile` ([`report`], [`annotate`], [`diff`]).
//!
//! Only dispatches are profiled (the firmware calls the run report counts), so a core's
//! profile adds up to exactly its report. A profile's size is bounded by the code that ran,
//! not by how long it ran.

pub mod annotate;
pub mod diff;
pub mod flame;
pub mod folded;
pub mod model;
pub mod pprof;
pub mod record;
pub mod report;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use q7_conventions::output::AtomicFile;
use q7_emulator::platform::PlatformBus;
use q7_emulator::Core;
use q7_symbols::Symbols;

use self::model::Profile;
use self::record::{CoreProfile, CoreRecord};

/// Why a profile could not be written, naming the file or directory.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The directory or a file could not be made or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `profile.json` does not serialise.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

impl From<q7_conventions::output::WriteError> for ProfileError {
    fn from(e: q7_conventions::output::WriteError) -> ProfileError {
        ProfileError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

/// Locks `m`, whether or not a thread panicked holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The file of the whole profile in a profile directory.
pub const PROFILE_JSON: &str = "profile.json";
/// The folded stacks of the cluster (every core's together).
pub const ALL_FOLDED: &str = "all.folded";
/// The profile in pprof's format.
pub const PPROF: &str = "profile.pb.gz";
/// The flame graph of the cluster.
pub const FLAME_SVG: &str = "flame.svg";

/// The flame graph of core `core`.
pub fn core_flame(core: u32) -> String {
    format!("flame-core{core}.svg")
}

/// The folded stacks of core `core`.
pub fn core_folded(core: u32) -> String {
    format!("core{core}.folded")
}

/// What `--profile` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileSpec {
    /// The directory the profile is written to (made when missing; only the profile's own
    /// files are written in it).
    pub dir: PathBuf,
}

/// What a written profile holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileSummary {
    /// Its directory.
    pub dir: PathBuf,
    /// The files written, in the order written.
    pub files: Vec<PathBuf>,
    /// The profile.
    pub profile: Profile,
}

/// The profile of one run: each core's recording between its calls, written at the end.
#[derive(Debug)]
pub struct Profiler {
    dir: PathBuf,
    /// By core: its recording, while no call of it runs.
    records: Vec<Mutex<Option<CoreRecord>>>,
}

/// Whether the firmware call `what` is a dispatch (the calls the run report counts): the only
/// calls a profile records.
pub fn is_dispatch(what: &str) -> bool {
    what.starts_with(q7_runtime::observer::DISPATCH)
}

impl Profiler {
    /// A profiler of `cores` cores writing to `spec.dir`, which it makes now (so that a
    /// directory that cannot be made fails before the run).
    pub fn new(spec: &ProfileSpec, cores: usize) -> Result<Profiler, ProfileError> {
        std::fs::create_dir_all(&spec.dir).map_err(|source| ProfileError::Io {
            path: spec.dir.clone(),
            source,
        })?;
        Ok(Profiler {
            dir: spec.dir.clone(),
            records: (0..cores)
                .map(|_| Mutex::new(Some(CoreRecord::default())))
                .collect(),
        })
    }

    /// The recorder of `core` for the firmware call `what`: `None` unless it is a dispatch.
    pub fn tracer(&self, core: &Core<PlatformBus>, what: &str) -> Option<CoreProfile> {
        is_dispatch(what).then(|| self.recorder(core))
    }

    /// The recorder of `core` for a dispatch, going on with the core's recording (a core the
    /// profile has no slot for records into a new one, which [`Profiler::finish`] drops).
    pub fn recorder(&self, core: &Core<PlatformBus>) -> CoreProfile {
        let record = self
            .records
            .get(core.bus.prid() as usize)
            .and_then(|slot| lock(slot).take())
            .unwrap_or_default();
        CoreProfile::new(record, &core.stats, core.state.pc, core.timing.issue)
    }

    /// `core`'s call that `profile` recorded ended.
    pub fn finish(&self, profile: CoreProfile, core: &Core<PlatformBus>) {
        let record = profile.finish(&core.stats);
        if let Some(slot) = self.records.get(core.bus.prid() as usize) {
            *lock(slot) = Some(record);
        }
    }

    /// Writes the profile of the cores that ran a dispatch, with the symbols and image names
    /// of each core: `profile.json`, `core<N>.folded`, `all.folded`, `flame.svg`,
    /// `profile.pb.gz` and `flame-core<N>.svg`, each written whole.
    pub fn close(
        &self,
        symbols: &[Symbols],
        images: &[String],
    ) -> Result<ProfileSummary, ProfileError> {
        let none = Symbols::default();
        let mut cores = Vec::new();
        for (core, slot) in self.records.iter().enumerate() {
            let Some(record) = lock(slot).take() else {
                continue;
            };
            if record.calls == 0 {
                continue;
            }
            let syms = symbols.get(core).unwrap_or(&none);
            let image = images.get(core).map_or("", String::as_str);
            cores.push(model::CoreProfile::build(core as u32, image, &record, syms));
        }
        let profile = Profile::new(cores);
        let mut files = Vec::new();
        let json = serde_json::to_string_pretty(&profile).map_err(|source| ProfileError::Json {
            path: self.dir.join(PROFILE_JSON),
            source,
        })?;
        write(
            &self.dir.join(PROFILE_JSON),
            (json + "\n").as_bytes(),
            &mut files,
        )?;
        for core in &profile.cores {
            let text = folded::of_core(core);
            write(
                &self.dir.join(core_folded(core.core)),
                text.as_bytes(),
                &mut files,
            )?;
        }
        let all = folded::of_cluster(&profile);
        write(&self.dir.join(ALL_FOLDED), all.as_bytes(), &mut files)?;
        // The flame graphs: the cluster's, then each core's (none of a profile of no cycles).
        let total: u64 = profile.cores.iter().map(|c| c.total.cycles).sum();
        if total > 0 {
            let functions = model::merge(profile.cores.iter().flat_map(|c| c.functions.iter()));
            let title = format!(
                "q7emu profile: {} core(s), {total} cycles",
                profile.cores.len()
            );
            self.flame(FLAME_SVG, &all, &title, &functions, total, &mut files)?;
        }
        let pb = pprof::gzip(&profile).map_err(|source| ProfileError::Io {
            path: self.dir.join(PPROF),
            source,
        })?;
        write(&self.dir.join(PPROF), &pb, &mut files)?;
        for core in profile.cores.iter().filter(|c| c.total.cycles > 0) {
            let title = format!(
                "q7emu profile: core {}, {} cycles",
                core.core, core.total.cycles
            );
            self.flame(
                &core_flame(core.core),
                &folded::of_core(core),
                &title,
                &core.functions,
                core.total.cycles,
                &mut files,
            )?;
        }
        Ok(ProfileSummary {
            dir: self.dir.clone(),
            files,
            profile,
        })
    }
}

impl Profiler {
    /// Draws and writes the flame graph `name` of `folded`.
    fn flame(
        &self,
        name: &str,
        folded: &str,
        title: &str,
        functions: &[model::Function],
        total: u64,
        files: &mut Vec<PathBuf>,
    ) -> Result<(), ProfileError> {
        let path = self.dir.join(name);
        let svg =
            flame::svg(folded, title, functions, total).map_err(|source| ProfileError::Io {
                path: path.clone(),
                source,
            })?;
        write(&path, &svg, files)
    }
}

/// Writes `bytes` to `path` whole (a temporary file renamed over it), noting it in `files`.
fn write(path: &Path, bytes: &[u8], files: &mut Vec<PathBuf>) -> Result<(), ProfileError> {
    AtomicFile::create(path)?.write_all_and_commit(bytes)?;
    files.push(path.to_path_buf());
    Ok(())
}
