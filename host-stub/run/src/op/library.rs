//! A build directory as `q7emu run`, `q7emu inspect` and `q7_testing::Library::open` open
//! it: `q7build.json` and `ucode_lib.json` read through the bounded reader
//! ([`q7_loader::input`], PLATFORM.md "Input file limits": a FIFO, a device or an oversized file
//! is refused before it is read) and checked for consistency before anything runs — with
//! themselves ([`check_build_info`]), with each other ([`check_ucode_lib`]) and with the images
//! they name ([`check_image_names`] when the image is read, [`check_kernel_table`] once its start
//! symbol has filled its kernel table). Every refusal names the file and the field.

use std::path::{Component, Path, PathBuf};

use q7_emulator::platform::map;
use q7_loader::input::{self, InputError, InputKind};
use q7_loader::kernel_table::KernelEntry;
use q7_loader::packed::{self, PackedError};
use q7_loader::ucode_lib::{ParseError, Registry};

use q7_kernel_build::metadata::{BuildInfo, OpInfo, BUILD_INFO_FILE, UCODE_LIB_FILE};
use q7_kernel_build::schema;
use q7_kernel_build::MAX_OPS;
use q7_loader::kernel_table::dispatch_key;

/// Why a build directory is refused, naming the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum BuildDirError {
    /// A file is not a regular file within its bound, or cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// `q7build.json` does not parse.
    #[error("{}: not a q7emu build description: {source}", path.display())]
    BuildInfo {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// `ucode_lib.json` does not parse.
    #[error("{}: {source}", path.display())]
    UcodeLib {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<ParseError>,
    },
    /// A field that does not hold what a build writes.
    #[error("{}: {field}: {why}", path.display())]
    Field {
        /// `q7build.json` or `ucode_lib.json`.
        path: PathBuf,
        /// The field, as a JSON path (`ops[1].key`).
        field: String,
        /// What is wrong.
        why: String,
    },
    /// A packed image that holds no device image.
    #[error("{}: {source}", path.display())]
    Packed {
        /// The image.
        path: PathBuf,
        /// Why.
        source: PackedError,
    },
    /// A shape executable that is not the one `q7build.json` describes.
    #[error("{}: not the shape executable {BUILD_INFO_FILE} describes: {why}; rebuild the library with `q7emu build`", path.display())]
    ShapeExecutable {
        /// The executable.
        path: PathBuf,
        /// What it holds and what was expected.
        why: String,
    },
    /// An image that is not the one `q7build.json` describes.
    #[error("{}: not the image {BUILD_INFO_FILE} describes: {why}; rebuild the library with `q7emu build`", path.display())]
    Image {
        /// The image.
        path: PathBuf,
        /// What it holds and what was expected.
        why: String,
    },
}

/// A field that does not hold; `path` is the file.
fn field(path: &Path, field: impl Into<String>, why: impl Into<String>) -> BuildDirError {
    BuildDirError::Field {
        path: path.to_path_buf(),
        field: field.into(),
        why: why.into(),
    }
}

/// `name (key 0x85), …` of `ops`.
fn op_list(ops: &[OpInfo]) -> String {
    ops.iter()
        .map(|o| format!("{} (key {:#x})", o.name, o.key))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `name` names a file inside the build directory: a relative path of plain
/// components (no root, no `..`, no `.`).
fn inside(name: &str) -> bool {
    // Components alone would let `a/./b` through (Path drops inner `.`): the text is checked too.
    !name.is_empty()
        && name.split('/').all(|c| c != "." && c != "..")
        && Path::new(name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Checks that `info` (read from `path`) is what a build writes: 1 to [`MAX_OPS`] ops, each
/// at its FunctionId with its dispatch key, a name of its own and arguments its schema
/// declares, at most [`map::MAX_ARGS`] descriptors with the output; `cpu_count` 8 for a
/// multicore build and 1 otherwise, with one image per core; every image path inside the build
/// directory.
pub fn check_build_info(path: &Path, info: &BuildInfo) -> Result<(), BuildDirError> {
    let n = info.ops.len();
    if n == 0 || n > MAX_OPS {
        return Err(field(
            path,
            "ops",
            format!("{n} ops; a library has 1 to {MAX_OPS} (PLATFORM.md \"Dispatch keys\")"),
        ));
    }
    for (i, op) in info.ops.iter().enumerate() {
        let at = |f: &str| format!("ops[{i}].{f}");
        if op.function_id as usize != i {
            return Err(field(
                path,
                at("function_id"),
                format!(
                    "is {}, but the ops are in FunctionId order: ops[{i}] has FunctionId {i}",
                    op.function_id
                ),
            ));
        }
        let key = dispatch_key(op.function_id);
        if op.key != key {
            return Err(field(
                path,
                at("key"),
                format!(
                    "is {:#x}, but FunctionId {i}'s dispatch key is {key:#x} (FunctionId << 8 | \
                     0x85, PLATFORM.md \"Dispatch keys\")",
                    op.key
                ),
            ));
        }
        if let Some(j) = info.ops[..i].iter().position(|o| o.name == op.name) {
            return Err(field(
                path,
                at("name"),
                format!("{:?} repeats ops[{j}].name", op.name),
            ));
        }
        let declared =
            schema::parse(&op.schema).map_err(|e| field(path, at("schema"), e.to_string()))?;
        if declared.name != op.name {
            return Err(field(
                path,
                at("schema"),
                format!(
                    "declares op {}, but ops[{i}].name is {}",
                    declared.name, op.name
                ),
            ));
        }
        let args = |a: &mut dyn Iterator<Item = (&str, q7_tensor::arg_kind::ArgKind)>| {
            a.map(|(n, k)| {
                // A name that is not an identifier is quoted, so that it reads as one name.
                let plain = !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !n.starts_with(|c: char| c.is_ascii_digit());
                if plain {
                    format!("{} {n}", k.spellings()[0])
                } else {
                    format!("{} {n:?}", k.spellings()[0])
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
        };
        let same = op.args.len() == declared.args.len()
            && op
                .args
                .iter()
                .zip(&declared.args)
                .all(|(a, d)| a.name == d.name && a.kind == d.kind);
        if !same {
            let listed = args(&mut op.args.iter().map(|a| (a.name.as_str(), a.kind)));
            let wanted = args(&mut declared.args.iter().map(|a| (a.name.as_str(), a.kind)));
            return Err(field(
                path,
                at("args"),
                format!("lists ({listed}), but ops[{i}].schema declares ({wanted})"),
            ));
        }
        if op.args.len() + 1 > map::MAX_ARGS as usize {
            return Err(field(
                path,
                at("args"),
                format!(
                    "{} arguments and the output are {} ARG_TENSOR descriptors; the mailbox \
                     holds {} (PLATFORM.md \"Mailbox\")",
                    op.args.len(),
                    op.args.len() + 1,
                    map::MAX_ARGS
                ),
            ));
        }
    }
    let cores: u32 = if info.multicore { 8 } else { 1 };
    if info.cpu_count != cores {
        return Err(field(
            path,
            "cpu_count",
            format!(
                "is {}, but a {} build's is {cores}",
                info.cpu_count,
                if info.multicore {
                    "multicore"
                } else {
                    "single-core"
                }
            ),
        ));
    }
    if info.images.len() != cores as usize {
        return Err(field(
            path,
            "images",
            format!(
                "lists {} image(s), but a build of cpu_count {cores} has one per core",
                info.images.len()
            ),
        ));
    }
    if !info.linked.is_empty() && info.linked.len() != info.images.len() {
        return Err(field(
            path,
            "linked",
            format!(
                "lists {} image(s), but there are {} images: one unstripped image per image, or \
                 none",
                info.linked.len(),
                info.images.len()
            ),
        ));
    }
    for (list, digests, files) in [
        ("image_sha256", &info.image_sha256, &info.images),
        ("linked_sha256", &info.linked_sha256, &info.linked),
    ] {
        if !digests.is_empty() && digests.len() != files.len() {
            return Err(field(
                path,
                list,
                format!(
                    "lists {} digest(s) for {} file(s): one per file, or none",
                    digests.len(),
                    files.len()
                ),
            ));
        }
        let hex =
            |d: &String| d.len() == 64 && d.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if let Some((i, d)) = digests.iter().enumerate().find(|(_, d)| !hex(d)) {
            return Err(field(
                path,
                format!("{list}[{i}]"),
                format!("{d:?} is not a SHA-256 (64 lowercase hex digits)"),
            ));
        }
    }
    if let Some(ns) = &info.namespace {
        let ident = ns
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && ns.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err(field(
                path,
                "namespace",
                format!("{ns:?} is not a C identifier, which a NEURON_LIBRARY namespace is"),
            ));
        }
    }
    if let Some(shape) = &info.shape {
        if !inside(&shape.file) {
            return Err(field(
                path,
                "shape.file",
                format!(
                    "{:?} is not a file inside the build directory (a relative path without \
                     \"..\" or \".\")",
                    shape.file
                ),
            ));
        }
        let hex = shape.sha256.len() == 64
            && shape
                .sha256
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !hex {
            return Err(field(
                path,
                "shape.sha256",
                format!(
                    "{:?} is not a SHA-256 (64 lowercase hex digits)",
                    shape.sha256
                ),
            ));
        }
    }
    for (i, op) in info.ops.iter().enumerate() {
        if op.shape_fn.is_some() && info.shape.is_none() {
            return Err(field(
                path,
                format!("ops[{i}].shape_fn"),
                "names a shape function, but the build lists no shape executable (shape)",
            ));
        }
    }
    for (list, names) in [("images", &info.images), ("linked", &info.linked)] {
        if let Some((i, name)) = names.iter().enumerate().find(|(_, n)| !inside(n)) {
            return Err(field(
                path,
                format!("{list}[{i}]"),
                format!(
                    "{name:?} is not a file inside the build directory (a relative path without \
                     \"..\" or \".\")"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that `registry` (read from `path`) lists what `info` describes: one library per image,
/// in core order, each named as the image, with its `cpu_id`, `total_cpus` the image count, and
/// every op as a function whose `sub_opcode` is its FunctionId.
pub fn check_ucode_lib(
    path: &Path,
    registry: &Registry,
    info: &BuildInfo,
) -> Result<(), BuildDirError> {
    let libs = registry.libraries();
    if libs.len() != info.images.len() {
        return Err(field(
            path,
            "ucode_lib",
            format!(
                "lists {} libraries, but {BUILD_INFO_FILE} lists {} image(s): one library per image",
                libs.len(),
                info.images.len()
            ),
        ));
    }
    let want_functions = info
        .ops
        .iter()
        .map(|o| format!("{} (sub_opcode {})", o.name, o.function_id))
        .collect::<Vec<_>>()
        .join(", ");
    for (i, (lib, image)) in libs.iter().zip(&info.images).enumerate() {
        let at = |f: &str| format!("ucode_lib[{i}].{f}");
        if &lib.file_name != image {
            return Err(field(
                path,
                at("library"),
                format!(
                    "is {:?}, but {BUILD_INFO_FILE}'s images[{i}] is {image:?}",
                    lib.file_name
                ),
            ));
        }
        if usize::from(lib.cpu_id) != i {
            return Err(field(
                path,
                at("cpu_id"),
                format!(
                    "is {}, but the library of images[{i}] runs on core {i}",
                    lib.cpu_id
                ),
            ));
        }
        if usize::from(lib.total_cpus) != info.images.len() {
            return Err(field(
                path,
                at("total_cpus"),
                format!(
                    "is {}, but {BUILD_INFO_FILE}'s cpu_count is {}",
                    lib.total_cpus, info.cpu_count
                ),
            ));
        }
        let same = lib.functions.len() == info.ops.len()
            && lib
                .functions
                .iter()
                .zip(&info.ops)
                .all(|((name, sub), op)| *name == op.name && u32::from(*sub) == op.function_id);
        if !same {
            let functions = lib
                .functions
                .iter()
                .map(|(name, sub)| format!("{name} (sub_opcode {sub})"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(field(
                path,
                at("functions"),
                format!(
                    "lists {}, but {BUILD_INFO_FILE}'s ops are {want_functions}",
                    if functions.is_empty() {
                        "none"
                    } else {
                        &functions
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// Reads and checks `q7build.json` and `ucode_lib.json` of build directory `dir`.
pub fn read_build(dir: &Path) -> Result<(BuildInfo, Registry), BuildDirError> {
    let info_path = dir.join(BUILD_INFO_FILE);
    let bytes = input::read_file(&info_path, InputKind::BuildInfo)?;
    let info: BuildInfo =
        serde_json::from_slice(&bytes).map_err(|source| BuildDirError::BuildInfo {
            path: info_path.clone(),
            source,
        })?;
    check_build_info(&info_path, &info)?;
    let ucode_path = dir.join(UCODE_LIB_FILE);
    let bytes = input::read_file(&ucode_path, InputKind::UcodeLib)?;
    let registry = std::str::from_utf8(&bytes)
        .map_err(|e| {
            ParseError::Json(serde_json::Error::io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                e,
            )))
        })
        .and_then(Registry::from_json)
        .map_err(|source| BuildDirError::UcodeLib {
            path: ucode_path.clone(),
            source: Box::new(source),
        })?;
    check_ucode_lib(&ucode_path, &registry, &info)?;
    Ok((info, registry))
}

/// The device image of image file `bytes` (`path`): the packed library's embedded image when
/// the build is packed, else the file itself.
pub fn device_image<'a>(
    path: &Path,
    bytes: &'a [u8],
    info: &BuildInfo,
) -> Result<&'a [u8], BuildDirError> {
    if info.packed {
        packed::device_image(bytes).map_err(|source| BuildDirError::Packed {
            path: path.to_path_buf(),
            source,
        })
    } else {
        Ok(bytes)
    }
}

/// Checks that `bytes`, the file of `info.images[core]` at `path`, is the image this build
/// made: its SHA-256 is `image_sha256[core]`. A build written without digests is checked by
/// the op names its device image holds ([`check_image_names`]).
pub fn check_image(
    path: &Path,
    core: usize,
    bytes: &[u8],
    info: &BuildInfo,
) -> Result<(), BuildDirError> {
    match info.image_sha256.get(core) {
        Some(want) => check_digest(path, "image_sha256", core, bytes, want),
        None => check_image_names(path, device_image(path, bytes, info)?, info),
    }
}

/// Checks that `bytes`, the file of `info.linked[core]` at `path`, is the unstripped image
/// this build made (`linked_sha256[core]`, when the build wrote digests): symbols from another
/// image would name the wrong functions.
pub fn check_linked(
    path: &Path,
    core: usize,
    bytes: &[u8],
    info: &BuildInfo,
) -> Result<(), BuildDirError> {
    match info.linked_sha256.get(core) {
        Some(want) => check_digest(path, "linked_sha256", core, bytes, want),
        None => Ok(()),
    }
}

fn check_digest(
    path: &Path,
    list: &str,
    core: usize,
    bytes: &[u8],
    want: &str,
) -> Result<(), BuildDirError> {
    let got = q7_kernel_build::metadata::sha256_hex(bytes);
    if got == want {
        return Ok(());
    }
    Err(BuildDirError::Image {
        path: path.to_path_buf(),
        why: format!(
            "its SHA-256 is {got}, but {BUILD_INFO_FILE}'s {list}[{core}] is {want}: the file \
             changed since the build wrote it"
        ),
    })
}

/// Checks that device image `device` (of image file `path`) is one of this build's: the
/// wrapper's `get_func_name` returns each op's name, so the image holds each name as a
/// NUL-terminated string; an image of another library does not.
pub fn check_image_names(
    path: &Path,
    device: &[u8],
    info: &BuildInfo,
) -> Result<(), BuildDirError> {
    for op in &info.ops {
        let mut name = op.name.as_bytes().to_vec();
        name.push(0);
        if !device.windows(name.len()).any(|w| w == name) {
            return Err(BuildDirError::Image {
                path: path.to_path_buf(),
                why: format!(
                    "{BUILD_INFO_FILE}'s op {} (key {:#x}) is not in it: the image holds no \
                     string {:?} for get_func_name to return, so it is another library's",
                    op.name, op.key, op.name
                ),
            });
        }
    }
    Ok(())
}

/// Checks that `bytes`, the file of the build's shape executable at `path`, is the one the
/// build made (`shape.sha256`).
pub fn check_shape_executable(path: &Path, bytes: &[u8], want: &str) -> Result<(), BuildDirError> {
    let got = q7_kernel_build::metadata::sha256_hex(bytes);
    if got == want {
        return Ok(());
    }
    Err(BuildDirError::ShapeExecutable {
        path: path.to_path_buf(),
        why: format!(
            "its SHA-256 is {got}, but {BUILD_INFO_FILE}'s shape.sha256 is {want}: the file \
             changed since the build wrote it"
        ),
    })
}

/// Checks the kernel table of image `path`, as its start symbol filled it, against
/// `q7build.json`'s ops: one entry per op, in FunctionId order, each with the op's key.
pub fn check_kernel_table(
    path: &Path,
    table: &[KernelEntry],
    info: &BuildInfo,
) -> Result<(), BuildDirError> {
    let keys: Vec<u32> = table.iter().map(|e| e.key).collect();
    let want: Vec<u32> = info.ops.iter().map(|o| o.key).collect();
    if keys == want {
        return Ok(());
    }
    let found = if keys.is_empty() {
        "no entry".to_string()
    } else {
        keys.iter()
            .map(|k| format!("{k:#x}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(BuildDirError::Image {
        path: path.to_path_buf(),
        why: format!(
            "its kernel table binds key(s) {found} ({} entries), but {BUILD_INFO_FILE}'s ops are \
             {}",
            keys.len(),
            op_list(&info.ops)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_kernel_build::metadata::ArgInfo;
    use q7_tensor::arg_kind::ArgKind;

    fn info() -> BuildInfo {
        BuildInfo {
            library: "lib".into(),
            namespace: None,
            multicore: false,
            cpu_count: 1,
            packed: true,
            ops: vec![
                OpInfo {
                    name: "a".into(),
                    function_id: 0,
                    key: 0x85,
                    schema: "a(Tensor x) -> Tensor".into(),
                    args: vec![ArgInfo {
                        name: "x".into(),
                        kind: ArgKind::Tensor,
                    }],
                    kernel: None,
                    shape_fn: None,
                },
                OpInfo {
                    name: "b".into(),
                    function_id: 1,
                    key: 0x185,
                    schema: "b(Tensor x, float s) -> Tensor".into(),
                    args: vec![
                        ArgInfo {
                            name: "x".into(),
                            kind: ArgKind::Tensor,
                        },
                        ArgInfo {
                            name: "s".into(),
                            kind: ArgKind::Float,
                        },
                    ],
                    kernel: None,
                    shape_fn: None,
                },
            ],
            images: vec!["lib.packed.so".into()],
            linked: vec!["lib.so".into()],
            image_sha256: vec![q7_kernel_build::metadata::sha256_hex(b"image")],
            linked_sha256: vec![],
            shape: None,
        }
    }

    /// The message refusing `info` after `change`.
    fn refused(change: impl FnOnce(&mut BuildInfo)) -> String {
        let mut i = info();
        change(&mut i);
        check_build_info(Path::new("q7build.json"), &i)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn what_a_build_writes_holds() {
        check_build_info(Path::new("q7build.json"), &info()).unwrap();
    }

    #[test]
    fn each_inconsistency_names_its_field() {
        assert_eq!(
            refused(|i| i.ops.clear()),
            "q7build.json: ops: 0 ops; a library has 1 to 10 (PLATFORM.md \"Dispatch keys\")"
        );
        assert_eq!(
            refused(|i| {
                let op = i.ops[0].clone();
                i.ops = vec![op; 11];
            }),
            "q7build.json: ops: 11 ops; a library has 1 to 10 (PLATFORM.md \"Dispatch keys\")"
        );
        assert_eq!(
            refused(|i| i.ops[1].function_id = 5),
            "q7build.json: ops[1].function_id: is 5, but the ops are in FunctionId order: ops[1] \
             has FunctionId 1"
        );
        assert_eq!(
            refused(|i| i.ops[1].key = 0x85),
            "q7build.json: ops[1].key: is 0x85, but FunctionId 1's dispatch key is 0x185 \
             (FunctionId << 8 | 0x85, PLATFORM.md \"Dispatch keys\")"
        );
        assert_eq!(
            refused(|i| {
                i.ops[1].name = "a".into();
                i.ops[1].schema = "a(Tensor x, float s) -> Tensor".into();
            }),
            "q7build.json: ops[1].name: \"a\" repeats ops[0].name"
        );
        assert_eq!(
            refused(|i| i.ops[0].schema = "z(Tensor x) -> Tensor".into()),
            "q7build.json: ops[0].schema: declares op z, but ops[0].name is a"
        );
        assert_eq!(
            refused(|i| i.ops[1].args[1].kind = ArgKind::Int),
            "q7build.json: ops[1].args: lists (Tensor x, int s), but ops[1].schema declares \
             (Tensor x, float s)"
        );
        assert_eq!(
            refused(|i| {
                i.ops[1].args = vec![ArgInfo {
                    name: "x, float s".into(),
                    kind: ArgKind::Tensor,
                }]
            }),
            "q7build.json: ops[1].args: lists (Tensor \"x, float s\"), but ops[1].schema \
             declares (Tensor x, float s)"
        );
        assert!(refused(|i| i.ops[0].schema = "a(".into())
            .starts_with("q7build.json: ops[0].schema: bad schema \"a(\""));
        assert_eq!(
            refused(|i| i.cpu_count = 8),
            "q7build.json: cpu_count: is 8, but a single-core build's is 1"
        );
        assert_eq!(
            refused(|i| {
                i.multicore = true;
                i.cpu_count = 8;
            }),
            "q7build.json: images: lists 1 image(s), but a build of cpu_count 8 has one per core"
        );
        assert_eq!(
            refused(|i| i.linked.push("x.so".into())),
            "q7build.json: linked: lists 2 image(s), but there are 1 images: one unstripped \
             image per image, or none"
        );
        for bad in [
            "../lib.packed.so",
            "/etc/passwd",
            "",
            "./lib.packed.so",
            "sub/./lib.packed.so",
            "sub/..",
        ] {
            assert_eq!(
                refused(|i| i.images[0] = bad.into()),
                format!(
                    "q7build.json: images[0]: {bad:?} is not a file inside the build directory \
                     (a relative path without \"..\" or \".\")"
                )
            );
        }
    }

    #[test]
    fn seventeen_descriptors_are_refused() {
        let args = (0..16)
            .map(|i| format!("Tensor t{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let e = refused(|i| {
            i.ops[0].schema = format!("a({args}) -> Tensor");
            i.ops[0].args = (0..16)
                .map(|n| ArgInfo {
                    name: format!("t{n}"),
                    kind: ArgKind::Tensor,
                })
                .collect();
        });
        // The schema grammar itself stops at the 16th argument (examples/sdk/BUILD.md
        // "Schemas"), before the descriptor count is taken.
        assert_eq!(
            e,
            format!(
                "q7build.json: ops[0].schema: bad schema \"a({args}) -> Tensor\" at character \
                 173: more than 15 arguments: an invocation carries at most 16 descriptors, the \
                 output's included (PLATFORM.md \"ARG_TENSOR descriptor\")"
            )
        );
    }

    #[test]
    fn the_registry_must_list_the_images_and_ops() {
        let i = info();
        let mut r = Registry::default();
        r.add_lib_file("lib.packed.so", "1", "ncore2gp", false, 0, 1)
            .unwrap();
        for (n, name) in ["a", "b"].iter().enumerate() {
            let id = r.allocate_function_id().unwrap();
            assert_eq!(id as usize, n);
            r.add_function("lib.packed.so", name, id).unwrap();
        }
        check_ucode_lib(Path::new("ucode_lib.json"), &r, &i).unwrap();
        let mut other = i.clone();
        other.images[0] = "other.packed.so".into();
        assert_eq!(
            check_ucode_lib(Path::new("ucode_lib.json"), &r, &other)
                .unwrap_err()
                .to_string(),
            "ucode_lib.json: ucode_lib[0].library: is \"lib.packed.so\", but q7build.json's \
             images[0] is \"other.packed.so\""
        );
        let mut renamed = i.clone();
        renamed.ops[1].name = "c".into();
        assert_eq!(
            check_ucode_lib(Path::new("ucode_lib.json"), &r, &renamed)
                .unwrap_err()
                .to_string(),
            "ucode_lib.json: ucode_lib[0].functions: lists a (sub_opcode 0), b (sub_opcode 1), \
             but q7build.json's ops are a (sub_opcode 0), c (sub_opcode 1)"
        );
    }

    #[test]
    fn digests_are_one_per_file_or_none_each_64_lowercase_hex_digits() {
        let mut none = info();
        none.image_sha256.clear();
        check_build_info(Path::new("q7build.json"), &none).unwrap();
        assert_eq!(
            refused(|i| i.image_sha256.push("0".repeat(64))),
            "q7build.json: image_sha256: lists 2 digest(s) for 1 file(s): one per file, or none"
        );
        assert_eq!(
            refused(|i| i.image_sha256[0] = "AB".repeat(32)),
            format!(
                "q7build.json: image_sha256[0]: \"{}\" is not a SHA-256 (64 lowercase hex \
                 digits)",
                "AB".repeat(32)
            )
        );
        assert_eq!(
            refused(|i| i.linked_sha256 = vec!["0".repeat(63)]),
            format!(
                "q7build.json: linked_sha256[0]: \"{}\" is not a SHA-256 (64 lowercase hex \
                 digits)",
                "0".repeat(63)
            )
        );
    }

    #[test]
    fn an_image_is_the_one_whose_sha256_the_build_recorded() {
        let i = info();
        let p = Path::new("lib.packed.so");
        check_image(p, 0, b"image", &i).unwrap();
        assert_eq!(
            check_image(p, 0, b"imagE", &i).unwrap_err().to_string(),
            format!(
                "lib.packed.so: not the image q7build.json describes: its SHA-256 is {}, but \
                 q7build.json's image_sha256[0] is {}: the file changed since the build wrote \
                 it; rebuild the library with `q7emu build`",
                q7_kernel_build::metadata::sha256_hex(b"imagE"),
                q7_kernel_build::metadata::sha256_hex(b"image")
            )
        );
        // No linked digests recorded: any unstripped image is taken.
        check_linked(Path::new("lib.so"), 0, b"anything", &i).unwrap();
        let mut with = i.clone();
        with.linked_sha256 = vec![q7_kernel_build::metadata::sha256_hex(b"linked")];
        check_linked(Path::new("lib.so"), 0, b"linked", &with).unwrap();
        assert!(check_linked(Path::new("lib.so"), 0, b"other", &with)
            .unwrap_err()
            .to_string()
            .starts_with("lib.so: not the image q7build.json describes: its SHA-256 is "));
    }

    #[test]
    fn an_image_is_matched_by_its_names_and_its_bound_table() {
        let i = info();
        let p = Path::new("lib.packed.so");
        check_image_names(p, b"..a\0..b\0", &i).unwrap();
        assert_eq!(
            check_image_names(p, b"..a\0..b_\0", &i)
                .unwrap_err()
                .to_string(),
            "lib.packed.so: not the image q7build.json describes: q7build.json's op b (key \
             0x185) is not in it: the image holds no string \"b\" for get_func_name to return, \
             so it is another library's; rebuild the library with `q7emu build`"
        );
        let table = [
            KernelEntry {
                key: 0x85,
                func: 0x8400_0100,
            },
            KernelEntry {
                key: 0x185,
                func: 0x8400_0200,
            },
        ];
        check_kernel_table(p, &table, &i).unwrap();
        assert_eq!(
            check_kernel_table(p, &table[..1], &i)
                .unwrap_err()
                .to_string(),
            "lib.packed.so: not the image q7build.json describes: its kernel table binds key(s) \
             0x85 (1 entries), but q7build.json's ops are a (key 0x85), b (key 0x185); rebuild \
             the library with `q7emu build`"
        );
    }
}
