//! What a build leaves for its consumers: `ucode_lib.json` (PLATFORM.md "`ucode_lib.json` and the library registry", written through the
//! loader's registry) and `q7build.json` (ours: what `q7emu run` needs to load the images and
//! marshal an op's arguments).
//!
//! `ucode_lib.json` lists one library per image — `<base>.packed.so` with `cpu_id` 0 and
//! `total_cpus` 1, or `<base>_cpu{i}.packed.so` with `cpu_id` i and `total_cpus` 8 (the
//! unstripped `.so` names when a `-g` build skips packing) — each with every op, `sub_opcode`
//! its FunctionId. The version strings are [`ULIB_TO_UCODE_VERSION`] and
//! [`ULIB_TO_ISA_VERSION`]; `is_builtin` is false.

use q7_loader::ucode_lib::{Registry, RegistryError};

use super::Op;

/// `ulib_to_ucode_version` of every library this build writes (ours).
pub const ULIB_TO_UCODE_VERSION: &str = "1";
/// `ulib_to_isa_version` of every library this build writes (ours: the core profile).
pub const ULIB_TO_ISA_VERSION: &str = "ncore2gp";
/// File name of the build metadata.
pub const BUILD_INFO_FILE: &str = "q7build.json";
/// File name of the library registry.
pub const UCODE_LIB_FILE: &str = "ucode_lib.json";

pub use q7_loader::kernel_table::dispatch_key;

/// One argument in `q7build.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArgInfo {
    /// Name in the schema.
    pub name: String,
    /// Kind (`tensor`, `scalar`, `int`, `float`).
    pub kind: q7_tensor::arg_kind::ArgKind,
}

/// One op in `q7build.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpInfo {
    /// Function name (`--fn`).
    pub name: String,
    /// FunctionId: its index in `--fn` order.
    pub function_id: u32,
    /// Dispatch key, `function_id << 8 | 0x85`.
    pub key: u32,
    /// The schema as given.
    pub schema: String,
    /// Arguments in declared order.
    pub args: Vec<ArgInfo>,
    /// A project op's kernel function (the third argument of its `m.def`), absent for a
    /// `--fn` op, whose kernel is `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// A project op's shape function (examples/sdk/BUILD.md "Projects").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape_fn: Option<String>,
}

/// A project's shape executable in `q7build.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShapeInfo {
    /// Its file, relative to the build directory: `<base>.shape`.
    pub file: String,
    /// Its SHA-256, as [`BuildInfo::image_sha256`]'s.
    pub sha256: String,
}

/// `q7build.json`: everything `q7emu run` needs from a build.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BuildInfo {
    /// Library base name.
    pub library: String,
    /// A project's library namespace (its `NEURON_LIBRARY(ns, m)`): ops are also called
    /// `ns::op`. Absent for a `--fn`/`--schema` build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Eight per-core images (true) or one single-core image (false).
    pub multicore: bool,
    /// What `get_cpu_count()` returns in the library: 8 or 1.
    pub cpu_count: u32,
    /// Whether the images were stripped and packed (false when the user's cflags had `-g`).
    pub packed: bool,
    /// The ops, in FunctionId order.
    pub ops: Vec<OpInfo>,
    /// The image of each core, in core order, relative to the build directory: the
    /// `.packed.so` load-libs, or the unstripped `.so` when not packed.
    pub images: Vec<String>,
    /// The unstripped linked images, in core order (for symbols and debugging).
    pub linked: Vec<String>,
    /// The SHA-256 of each file of `images`, in the same order, as 64 lowercase hex digits
    /// ([`sha256_hex`]): what makes an image that is not this build's (copied over from
    /// another build, patched) refused when the build is opened. Absent in builds of q7emu
    /// before it was written; those are checked by the op names their images hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_sha256: Vec<String>,
    /// The SHA-256 of each file of `linked`, the same way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked_sha256: Vec<String>,
    /// A project's shape executable, which computes each op's output dtype and shape
    /// (examples/sdk/BUILD.md "Projects"); absent for a `--fn`/`--schema` build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ShapeInfo>,
}

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest as _, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl BuildInfo {
    /// Reads `q7build.json` text.
    pub fn from_json(text: &str) -> Result<BuildInfo, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The `q7build.json` text (two-space indented, newline-terminated).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data serializes") + "\n"
    }
}

/// The op list of `q7build.json`.
pub fn op_infos(ops: &[Op]) -> Vec<OpInfo> {
    ops.iter()
        .map(|op| OpInfo {
            name: op.name.clone(),
            function_id: op.function_id,
            key: dispatch_key(op.function_id),
            schema: op.schema_text.clone(),
            args: op
                .schema
                .args
                .iter()
                .map(|a| ArgInfo {
                    name: a.name.clone(),
                    kind: a.kind,
                })
                .collect(),
            kernel: op.shape_fn.as_ref().map(|_| op.kernel.clone()),
            shape_fn: op.shape_fn.clone(),
        })
        .collect()
}

/// The registry of `images` (core order), each library holding every op. FunctionIds are
/// allocated once per op, in order, and must equal the ops' own.
pub fn registry(images: &[String], ops: &[Op]) -> Result<Registry, RegistryError> {
    let mut r = Registry::default();
    let total = images.len() as u8;
    for (cpu, image) in images.iter().enumerate() {
        r.add_lib_file(
            image,
            ULIB_TO_UCODE_VERSION,
            ULIB_TO_ISA_VERSION,
            false,
            cpu as u8,
            total,
        )?;
    }
    for op in ops {
        let id = r.allocate_function_id()?;
        debug_assert_eq!(id, op.function_id);
        for image in images {
            r.add_function(image, &op.name, id)?;
        }
    }
    Ok(r)
}

/// The files of build directory `dir` that `run` and `inspect` read, named `flag`:
/// `q7build.json`, `ucode_lib.json` and every `.so` image in it.
pub fn build_dir_files(flag: &str, dir: &std::path::Path) -> Vec<q7_conventions::output::Named> {
    let mut files = vec![
        q7_conventions::output::Named::new(flag, dir.join(BUILD_INFO_FILE)),
        q7_conventions::output::Named::new(flag, dir.join("ucode_lib.json")),
    ];
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut images: Vec<std::path::PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "so"))
            .collect();
        images.sort();
        files.extend(
            images
                .into_iter()
                .map(|p| q7_conventions::output::Named::new(flag, p)),
        );
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_put_the_function_id_above_the_custom_op_opcode() {
        assert_eq!(dispatch_key(0), 0x85);
        assert_eq!(dispatch_key(1), 0x185);
        assert_eq!(dispatch_key(9), 0x985);
    }

    #[test]
    fn digests_are_the_sha256_of_the_file_in_lowercase_hex() {
        // FIPS 180-2's test vector "abc".
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
