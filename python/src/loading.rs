//! What `q7emu.load` needs of Rust (docs/python.md "Build and load"): the build itself, reporting
//! every file its compilers read; a digest of those files to tell whether a build is up to
//! date; the `lib<name>.so` record read like every other input file; and the check of the SDK
//! the package wrote out. Every file is read through `q7_loader::input` — regular files only,
//! each kind with its bound (PLATFORM.md "Input file limits") — so a FIFO, a device or a huge
//! file never blocks or exhausts a load.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sha2::{Digest, Sha256};

use q7_loader::input::{self, InputError, InputKind};
use q7_run::api::Kernel;

use crate::errors::{BadInputError, BuildError};
use crate::{embedded, error, Library};

/// Builds a library as `q7emu build --project` does, from `compute_srcs` and the
/// `NEURON_LIBRARY` block of `shape_srcs`, into `build_directory`, and opens it: the library
/// and every file the compilers read (absolute, in path order).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (name, compute_srcs, shape_srcs, build_directory, multicore=false, extra_cflags=Vec::new(), extra_include_paths=Vec::new(), verbose=false))]
fn build(
    py: Python<'_>,
    name: String,
    compute_srcs: Vec<PathBuf>,
    shape_srcs: Vec<PathBuf>,
    build_directory: PathBuf,
    multicore: bool,
    extra_cflags: Vec<String>,
    extra_include_paths: Vec<PathBuf>,
    verbose: bool,
) -> PyResult<(Library, Vec<PathBuf>)> {
    let Some(first) = compute_srcs.first() else {
        return Err(BuildError::new_err(
            "compute_srcs is empty: a library needs a source file",
        ));
    };
    let mut k = Kernel::new(first).name(name);
    for s in &compute_srcs[1..] {
        k = k.source(s);
    }
    for s in &shape_srcs {
        k = k.shape(s);
    }
    if multicore {
        k = k.multicore();
    }
    for f in extra_cflags {
        k = k.cflag(f);
    }
    for i in &extra_include_paths {
        k = k.include(i);
    }
    if verbose {
        k = k.verbose();
    }
    let (lib, inputs) = py
        .detach(move || k.build_with_inputs(&build_directory))
        .map_err(error)?;
    Ok((Library::new(lib, true), inputs))
}

/// Adds `bytes` to `h` after its length, so that no two sequences of parts hash alike.
fn part(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// The SHA-256 (hex) of `text` and of each of `files`: its path, then its contents — or,
/// for a file that cannot be read as a build input (missing, not a regular file, over the
/// bound), why not, so that such a file counts as changed rather than failing the check (the
/// build that follows reports it).
#[pyfunction]
fn digest_inputs(py: Python<'_>, text: String, files: Vec<PathBuf>) -> String {
    py.detach(move || {
        let mut h = Sha256::new();
        part(&mut h, b"q7emu build inputs 1");
        part(&mut h, text.as_bytes());
        for f in &files {
            part(&mut h, f.as_os_str().as_encoded_bytes());
            match hash_file(f) {
                Ok(digest) => {
                    part(&mut h, b"file");
                    part(&mut h, &digest);
                }
                Err(e) => {
                    part(&mut h, b"unreadable");
                    part(&mut h, e.to_string().as_bytes());
                }
            }
        }
        format!("{:x}", h.finalize())
    })
}

/// The SHA-256 of file `path`, read as a build input: streamed, never held whole.
fn hash_file(path: &Path) -> Result<Vec<u8>, InputError> {
    let (mut file, _) = input::open(path, InputKind::BuildInput)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().to_vec())
}

/// The contents of the load record `path` (the `lib<name>.so` of `load`); None when there is
/// no such file; `BadInputError` naming it when it is not a regular file or is over its bound.
#[pyfunction]
fn read_load_record(py: Python<'_>, path: PathBuf) -> PyResult<Option<Bound<'_, PyBytes>>> {
    match input::read_file(&path, InputKind::LoadRecord) {
        Ok(bytes) => Ok(Some(PyBytes::new(py, &bytes))),
        Err(InputError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => Err(BadInputError::new_err(e.to_string())),
    }
}

/// How the SDK written out in `dir` differs from the one the extension carries (the first
/// difference found), or None when it is the same file for file: no file missing, replaced
/// by a symbolic link or another kind of file, changed or added.
#[pyfunction]
fn sdk_difference(py: Python<'_>, dir: PathBuf) -> Option<String> {
    py.detach(move || sdk_difference_of(&dir))
}

fn sdk_difference_of(dir: &Path) -> Option<String> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Some(format!("{} is not a directory", dir.display())),
        Err(e) => return Some(format!("{}: {e}", dir.display())),
    }
    for (rel, bytes) in embedded::SDK_FILES {
        let path = dir.join(rel);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Some(format!("{rel} is a symbolic link"))
            }
            Ok(m) if !m.is_file() => return Some(format!("{rel} is not a regular file")),
            Ok(m) if m.len() != bytes.len() as u64 => {
                return Some(format!("{rel} has {} bytes, not {}", m.len(), bytes.len()))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Some(format!("{rel} is missing"))
            }
            Err(e) => return Some(format!("{rel}: {e}")),
        }
        match input::read_file(&path, InputKind::BuildInput) {
            Ok(read) if read == *bytes => {}
            Ok(_) => return Some(format!("{rel} has other contents")),
            Err(e) => return Some(e.to_string()),
        }
    }
    let carried: BTreeSet<&Path> = embedded::SDK_FILES
        .iter()
        .map(|(rel, _)| Path::new(*rel))
        .collect();
    extra_entry(dir, Path::new(""), &carried)
}

/// The first entry under `dir/rel` that is neither a carried file nor a directory on the way
/// to one.
fn extra_entry(dir: &Path, rel: &Path, carried: &BTreeSet<&Path>) -> Option<String> {
    let entries = match std::fs::read_dir(dir.join(rel)) {
        Ok(entries) => entries,
        Err(e) => return Some(format!("{}: {e}", dir.join(rel).display())),
    };
    let mut names: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| rel.join(e.file_name()))
        .collect();
    names.sort();
    for name in names {
        if carried.contains(name.as_path()) {
            continue;
        }
        let is_dir = std::fs::symlink_metadata(dir.join(&name)).is_ok_and(|m| m.is_dir());
        if is_dir && carried.iter().any(|c| c.starts_with(&name)) {
            if let Some(found) = extra_entry(dir, &name, carried) {
                return Some(found);
            }
            continue;
        }
        return Some(format!("{} is not a file of the SDK", name.display()));
    }
    None
}

/// Adds this module's functions to the extension module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(digest_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(read_load_record, m)?)?;
    m.add_function(wrap_pyfunction!(sdk_difference, m)?)?;
    Ok(())
}
