//! The NEFF-style bundle of a compiled model's custom-op part (PLATFORM.md "NEFF bundle"): a tar archive with
//! `ucode_lib.json`, each library binary as its own member, and `def.json` carrying the same
//! table under the key `ucode_lib` plus the custom-ops feature bit 0x8.
//!
//! Also the builtin staging of the compiler front end: the data directory must exist, and each of
//! `libbuiltincustomop_cpu0` … `_cpu7` (`.stripped.so`) is staged when it is a file.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ucode_lib::Registry;

/// `neff_feature_custom_ops`: the feature bit set when the library set is non-empty.
pub const FEATURE_CUSTOM_OPS: u64 = 0x8;

/// Why a bundle could not be written or the builtins staged.
#[derive(Debug, thiserror::Error)]
pub enum NeffError {
    /// The seed's error text when the custom-op data directory is missing.
    #[error("Custom op data directory not found")]
    DataDirNotFound,
    /// A library named in the registry has no binary.
    #[error("library {0} is registered but no binary was given for it")]
    MissingBinary(String),
    /// Writing the archive failed.
    #[error("writing the bundle: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Serialize)]
struct DefJson {
    neff_features: u64,
    ucode_lib: serde_json::Value,
}

/// Writes the bundle: `def.json`, each library binary (`binaries`: file name → bytes, in
/// registry order), then `ucode_lib.json`. An empty registry writes only `def.json` with no
/// custom-op feature.
pub fn write_bundle(
    registry: &Registry,
    binaries: &[(&str, &[u8])],
    out: impl std::io::Write,
) -> Result<(), NeffError> {
    let mut tar = tar::Builder::new(out);
    let json = registry.to_json();
    let table = match &json {
        Some(j) => serde_json::from_str::<serde_json::Value>(j).map_err(std::io::Error::other)?
            ["ucode_lib"]
            .clone(),
        None => serde_json::Value::Array(vec![]),
    };
    let def = DefJson {
        neff_features: if json.is_some() {
            FEATURE_CUSTOM_OPS
        } else {
            0
        },
        ucode_lib: table,
    };
    let def_text = serde_json::to_string_pretty(&def).map_err(std::io::Error::other)? + "\n";
    append(&mut tar, "def.json", def_text.as_bytes())?;
    if let Some(j) = json {
        for lib in registry.libraries() {
            let bytes = binaries
                .iter()
                .find(|(n, _)| *n == lib.file_name)
                .map(|(_, b)| *b)
                .ok_or_else(|| NeffError::MissingBinary(lib.file_name.clone()))?;
            append(&mut tar, &lib.file_name, bytes)?;
        }
        append(&mut tar, "ucode_lib.json", j.as_bytes())?;
    }
    tar.finish()?;
    Ok(())
}

fn append<W: std::io::Write>(
    tar: &mut tar::Builder<W>,
    name: &str,
    data: &[u8],
) -> std::io::Result<()> {
    let mut h = tar::Header::new_ustar();
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_mtime(0);
    h.set_cksum();
    tar.append_data(&mut h, name, data)
}

/// The builtin library file names (PLATFORM.md "NEFF bundle"): `libbuiltincustomop_cpu0` … `_cpu7`.
pub fn builtin_names() -> impl Iterator<Item = String> {
    (0..8).map(|i| format!("libbuiltincustomop_cpu{i}.stripped.so"))
}

/// Stages the builtins from `dir`: the directory must exist; each builtin that is a file is
/// returned with its cpu id.
pub fn stage_builtins(dir: &Path) -> Result<Vec<(u8, PathBuf)>, NeffError> {
    if !dir.is_dir() {
        return Err(NeffError::DataDirNotFound);
    }
    Ok(builtin_names()
        .enumerate()
        .map(|(i, n)| (i as u8, dir.join(n)))
        .filter(|(_, p)| p.is_file())
        .collect())
}
