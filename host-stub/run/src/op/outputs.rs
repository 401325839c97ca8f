//! The files a run writes, checked before anything runs (docs/cli.md "Output files",
//! docs/tracing.md "Where the files go"): the trace directory and the timeline are not empty
//! paths, no output is the file of an input or of another output (a trace file included), and
//! no output file takes the place of the trace directory. `q7emu run` and every run of the
//! testing API that traces or takes a timeline (the Python package's) go through [`check`].

use std::path::Path;

use super::Library;
use q7_conventions::output::{check_distinct, check_not_dir, Named, PathClash};
use q7_kernel_build::metadata::build_dir_files;
use q7_observe::profile;
use q7_observe::trace::{writer, ObserveSpec};

/// Why the files of a run are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    /// `--trace-dir` or `--timeline` is an empty path.
    #[error("{flag} \"\": an empty path names no {what}")]
    Empty {
        /// The flag.
        flag: &'static str,
        /// "directory" or "file".
        what: &'static str,
    },
    /// An output names the file of an input or of another output, or the trace directory.
    #[error(transparent)]
    Clash(#[from] PathClash),
}

/// The files of build directory `lib` that a run reads, named `BUILD_DIR`: `q7build.json`,
/// `ucode_lib.json`, and every image, stripped and unstripped.
pub fn build_files(lib: &Library) -> Vec<Named> {
    let mut files = build_dir_files("BUILD_DIR", &lib.dir);
    let dir = |f: &String| Named::new("BUILD_DIR", lib.dir.join(f));
    files.extend(lib.info.images.iter().chain(&lib.info.linked).map(dir));
    files
}

/// The files a run observed as `spec` asks writes on `lib`, each named by its flag: the
/// timeline, then both trace files of each core traced (`--trace-cores`, else every core the
/// library runs on).
pub fn observed_files(spec: &ObserveSpec, lib: &Library) -> Vec<Named> {
    let mut files: Vec<Named> = spec
        .timeline
        .iter()
        .map(|t| Named::new("--timeline", &t.path))
        .collect();
    if let Some(p) = &spec.profile {
        files.push(Named::new("--profile", p.dir.join(profile::PROFILE_JSON)));
        for core in 0..lib.images.len() as u32 {
            for name in [profile::core_folded(core), profile::core_flame(core)] {
                files.push(Named::new("--profile", p.dir.join(name)));
            }
        }
        for name in [profile::ALL_FOLDED, profile::FLAME_SVG, profile::PPROF] {
            files.push(Named::new("--profile", p.dir.join(name)));
        }
    }
    if let Some(t) = &spec.trace {
        let cores: Vec<u32> = match &t.cores {
            Some(list) => list.clone(),
            None => (0..lib.images.len() as u32).collect(),
        };
        for core in cores {
            for ext in ["trace", "jsonl"] {
                files.push(Named::new("--trace-dir", writer::path(&t.dir, core, ext)));
            }
        }
    }
    files
}

/// Refuses the files of a run of `lib` observed as `spec` asks, with `inputs` and `outputs`
/// the other files it reads and writes (`--input`, `--timing`; `--output`, `--json-file`):
/// an empty `--trace-dir` or `--timeline`; an output that is the same file as an input (the
/// build directory's files included) or as another output, the trace files included
/// ([`check_distinct`], files not there yet compared by their resolved paths); an output file
/// that is the trace directory or a directory above it.
pub fn check(
    lib: &Library,
    spec: &ObserveSpec,
    inputs: &[Named],
    outputs: &[Named],
) -> Result<(), OutputError> {
    let empty = |p: &Path| p.as_os_str().is_empty();
    if spec.trace.as_ref().is_some_and(|t| empty(&t.dir)) {
        return Err(OutputError::Empty {
            flag: "--trace-dir",
            what: "directory",
        });
    }
    if spec.timeline.as_ref().is_some_and(|t| empty(&t.path)) {
        return Err(OutputError::Empty {
            flag: "--timeline",
            what: "file",
        });
    }
    if spec.profile.as_ref().is_some_and(|p| empty(&p.dir)) {
        return Err(OutputError::Empty {
            flag: "--profile",
            what: "directory",
        });
    }
    let mut all_inputs = build_files(lib);
    all_inputs.extend_from_slice(inputs);
    let mut all_outputs = outputs.to_vec();
    all_outputs.extend(observed_files(spec, lib));
    // No other output is an observer's directory or one above it.
    let dirs = [
        ("--trace-dir", spec.trace.as_ref().map(|t| &t.dir)),
        ("--profile", spec.profile.as_ref().map(|p| &p.dir)),
    ];
    for (flag, dir) in dirs {
        if let Some(dir) = dir {
            let files: Vec<Named> = all_outputs
                .iter()
                .filter(|n| n.flag != flag)
                .cloned()
                .collect();
            check_not_dir(&Named::new(flag, dir), &files)?;
        }
    }
    check_distinct(&all_inputs, &all_outputs)?;
    Ok(())
}
