//! The packager (examples/sdk/BUILD.md "Strip and pack", done with GNU binutils): a linked device image `<base>.so`
//! becomes the cleaned image `<base>.stripped.so` and the load-lib `<base>.packed.so`.
//!
//! 1. `strip` the image;
//! 2. read its section headers (`objdump -h`) and remove [`REMOVED_SECTIONS`] plus every
//!    section of size 0 (`objcopy --remove-section`);
//! 3. save that cleaned image as `<base>.stripped.so`;
//! 4. embed it as section `libdata` (flags readonly, alloc) of an empty assembled object;
//! 5. assemble the alignment shim `.section libdata,"a"` / `.align 4`;
//! 6. `ld -r` both with the script [`PACK_SCRIPT`], which puts `lib_func` at the start of the
//!    blob: `<base>.packed.so`.
//!
//! `<base>.stripped.so` is byte for byte the blob embedded under `lib_func`. The intermediate
//! files live in a private scratch directory beside the outputs (`.pack-<base>-XXXXXX`, a new
//! one each time, so nothing of anyone else's is in it), removed afterwards; no path or time
//! lands in an output, so the same image always packs to the same bytes.

use std::path::{Path, PathBuf};

use super::toolchain::{run, Tool, ToolError, Toolchain};

/// Sections the packager always removes (examples/sdk/BUILD.md "Strip and pack": the overlay path without symbol lookup).
pub const REMOVED_SECTIONS: [&str; 10] = [
    ".xtensa.info",
    ".xt.lit",
    ".xt.prop",
    ".interp",
    ".got.loc",
    ".got",
    ".hash",
    ".dynstr",
    ".dynsym",
    ".rela.plt",
];

/// The relocatable link's script: `lib_func` names the start of the embedded image.
pub const PACK_SCRIPT: &str = "SECTIONS { .rodata : { lib_func = . ; *(libdata) } }\n";

/// The alignment shim assembled in front of the blob.
pub const ALIGN_SHIM: &str = ".section libdata,\"a\"\n.align 4\n";

/// The packager's two outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// `<base>.stripped.so`: the cleaned device image.
    pub stripped: PathBuf,
    /// `<base>.packed.so`: the load-lib carrying it under `lib_func`.
    pub packed: PathBuf,
}

/// Why an image does not pack.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// The input is not named `<base>.so`.
    #[error("{}: a linked image to pack must be named <base>.so", .0.display())]
    Name(PathBuf),
    /// A tool failed.
    #[error("packing {}: {source}", .so.display())]
    Tool {
        /// The image being packed.
        so: PathBuf,
        /// What failed.
        source: ToolError,
    },
    /// A file could not be written or read.
    #[error("packing: {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl PackError {
    /// The error with each path it names mapped by `shown` (a build shows the paths its
    /// outputs are installed at).
    pub fn shown_as(self, shown: impl Fn(&Path) -> PathBuf) -> PackError {
        match self {
            PackError::Name(p) => PackError::Name(shown(&p)),
            PackError::Tool { so, source } => PackError::Tool {
                so: shown(&so),
                source,
            },
            PackError::Io { path, source } => PackError::Io {
                path: shown(&path),
                source,
            },
        }
    }
}

/// The output paths for `so` = `<dir>/<base>.so`: `<dir>/<base>.stripped.so` and
/// `<dir>/<base>.packed.so`.
pub fn outputs(so: &Path) -> Result<Packed, PackError> {
    let base = so
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".so"))
        .filter(|b| !b.is_empty())
        .ok_or_else(|| PackError::Name(so.to_path_buf()))?;
    let dir = so.parent().unwrap_or(Path::new(""));
    Ok(Packed {
        stripped: dir.join(format!("{base}.stripped.so")),
        packed: dir.join(format!("{base}.packed.so")),
    })
}

/// The sections of size 0 in `objdump -h` output, in header order.
pub fn empty_sections(headers: &str) -> Vec<String> {
    headers
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            (f.len() >= 3 && f[0].parse::<u32>().is_ok() && f[2] == "00000000")
                .then(|| f[1].to_string())
        })
        .collect()
}

/// The sections step 2 removes: [`REMOVED_SECTIONS`], then the empty ones not among them.
pub fn sections_to_remove(headers: &str) -> Vec<String> {
    let mut remove: Vec<String> = REMOVED_SECTIONS.iter().map(|s| s.to_string()).collect();
    for s in empty_sections(headers) {
        if !remove.contains(&s) {
            remove.push(s);
        }
    }
    remove
}

/// Packs `so` (`<dir>/<base>.so`) into `<dir>/<base>.stripped.so` and `<dir>/<base>.packed.so`.
pub fn pack(tools: &Toolchain, so: &Path, verbose: bool) -> Result<Packed, PackError> {
    let out = outputs(so)?;
    let base = so
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".so"))
        .unwrap_or_default();
    let dir = match so.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // A directory of its own, removed when dropped, whatever else the directory holds.
    let scratch = tempfile::Builder::new()
        .prefix(&format!(".pack-{base}-"))
        .tempdir_in(dir)
        .map_err(|source| PackError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    pack_in(tools, so, scratch.path(), &out, verbose).map(|()| out)
}

fn pack_in(
    tools: &Toolchain,
    so: &Path,
    scratch: &Path,
    out: &Packed,
    verbose: bool,
) -> Result<(), PackError> {
    let tool = |source| PackError::Tool {
        so: so.to_path_buf(),
        source,
    };
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text)
            .map_err(|source| PackError::Io {
                path: path.clone(),
                source,
            })
            .map(|()| path)
    };
    // 1. strip
    let stripped_tmp = scratch.join("strip.tmp");
    run(
        tools
            .command(Tool::Strip)
            .arg(so)
            .arg("-o")
            .arg(&stripped_tmp),
        verbose,
    )
    .map_err(tool)?;
    // 2. drop the fixed and the empty sections
    let headers = run(
        tools.command(Tool::Objdump).arg("-h").arg(&stripped_tmp),
        verbose,
    )
    .map_err(tool)?;
    let paged = scratch.join("paged.tmp");
    let mut objcopy = tools.command(Tool::Objcopy);
    objcopy.arg(&stripped_tmp).arg(&paged);
    for s in sections_to_remove(&String::from_utf8_lossy(&headers)) {
        objcopy.arg(format!("--remove-section={s}"));
    }
    run(&mut objcopy, verbose).map_err(tool)?;
    // 3. save the cleaned image
    std::fs::copy(&paged, &out.stripped).map_err(|source| PackError::Io {
        path: out.stripped.clone(),
        source,
    })?;
    // 4. embed it as libdata in an empty relocatable object
    let empty_s = write(scratch.join("empty.s"), "")?;
    let empty_o = scratch.join("empty.o");
    run(
        tools
            .command(Tool::As)
            .arg("-o")
            .arg(&empty_o)
            .arg(&empty_s),
        verbose,
    )
    .map_err(tool)?;
    let flattened = scratch.join("flattened.o");
    run(
        tools
            .command(Tool::Objcopy)
            .arg(&empty_o)
            .arg(&flattened)
            .arg(format!("--add-section=libdata={}", paged.display()))
            .args(["--set-section-flags", "libdata=readonly,alloc"]),
        verbose,
    )
    .map_err(tool)?;
    // 5. the script naming the blob's start, and the alignment shim
    let script = write(scratch.join("pack.ld"), PACK_SCRIPT)?;
    let shim_s = write(scratch.join("shim.s"), ALIGN_SHIM)?;
    let shim_o = scratch.join("shim.o");
    run(
        tools.command(Tool::As).arg("-o").arg(&shim_o).arg(&shim_s),
        verbose,
    )
    .map_err(tool)?;
    // 6. relocatable link
    run(
        tools
            .command(Tool::Ld)
            .arg("-r")
            .arg("-T")
            .arg(&script)
            .arg(&shim_o)
            .arg(&flattened)
            .arg("-o")
            .arg(&out.packed),
        verbose,
    )
    .map_err(tool)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADERS: &str = "
k.so:     file format elf32-xtensa-le

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         00000094  84200020  84200020  00001020  2**2
                  CONTENTS, ALLOC, LOAD, READONLY, CODE
  1 .got.loc      00000000  8420031c  8420031c  0000131c  2**2
                  CONTENTS, ALLOC, LOAD, READONLY, DATA
  2 .init_array   00000000  84200330  84200330  00001330  2**2
                  CONTENTS, ALLOC, LOAD, DATA
  3 .kernel_info_table 00000010  84200334  84200334  00001334  2**2
                  CONTENTS, ALLOC, LOAD, DATA
";

    #[test]
    fn empty_sections_are_those_of_size_zero() {
        assert_eq!(empty_sections(HEADERS), [".got.loc", ".init_array"]);
    }

    #[test]
    fn removal_list_is_the_fixed_set_then_new_empty_sections() {
        let r = sections_to_remove(HEADERS);
        assert_eq!(&r[..10], REMOVED_SECTIONS);
        assert_eq!(&r[10..], [".init_array"]);
    }

    #[test]
    fn outputs_sit_beside_the_image() {
        let p = outputs(Path::new("b/relu_cpu3.so")).unwrap();
        assert_eq!(p.stripped, Path::new("b/relu_cpu3.stripped.so"));
        assert_eq!(p.packed, Path::new("b/relu_cpu3.packed.so"));
        assert!(matches!(
            outputs(Path::new("b/relu.elf")),
            Err(PackError::Name(_))
        ));
    }
}
