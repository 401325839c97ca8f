//! Reading input files with a bound per kind (PLATFORM.md, "Input file limits"). Only regular
//! files are read — a device (`/dev/zero`), FIFO or directory is refused before it is opened for
//! reading — and no read goes past the bound of the file's [`InputKind`], so neither a special
//! file nor an oversized one can make a tool allocate without limit. Errors name the file, and
//! for an oversized one its size and the limit.

use std::fs::{File, FileType};
use std::io::Read;
use std::path::{Path, PathBuf};

use q7_layout::MAX_IMAGE_BYTES;

/// What a file is read as; each kind has its own bound ([`LIMITS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// An ELF32-Xtensa file for `disasm` or `run-elf`.
    ElfImage,
    /// A packed custom-op library (the container of a device image) for `run-packed`.
    PackedLibrary,
    /// A `.npy` tensor.
    Npy,
    /// A timing profile (`--timing`, JSON or TOML).
    TimingProfile,
    /// A build directory's `q7build.json` (what `q7emu build` wrote for `run` and `inspect`).
    BuildInfo,
    /// A build directory's `ucode_lib.json` (its library registry).
    UcodeLib,
    /// A file a build reads — a source, a header, a file of the SDK — when it is read to tell
    /// whether a build is up to date (the Python package's `load`).
    BuildInput,
    /// The `lib<name>.so` the Python package's `load` writes beside a build (JSON naming it).
    LoadRecord,
}

/// The bound of one input kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The kind.
    pub kind: InputKind,
    /// What errors call files of this kind (plural).
    pub name: &'static str,
    /// The largest file read, in bytes.
    pub bytes: u64,
}

/// The bound of every input kind, as PLATFORM.md lists them: an ELF image at most QEMU
/// `-M sim`'s default 128 MiB of RAM (what a bare-metal program can occupy); a packed library at
/// most twice the largest device image span ([`MAX_IMAGE_BYTES`]), room for the image and its
/// container; a `.npy` tensor at most 1 GiB, far above any tensor a kernel test uses and below
/// the emulated HBM; a timing profile at most 1 MiB, thousands of times the text of every key;
/// a build description (`q7build.json`) and a library registry (`ucode_lib.json`) at most 1 MiB
/// each, hundreds of times what a build of the most ops (10, each of the most arguments) and
/// cores (8) writes; a build's input at most 256 MiB, thousands of times the largest source or
/// header of the examples and the SDK; a load record at most 1 MiB, thousands of times the
/// record of a build with a thousand inputs.
pub const LIMITS: [Limit; 8] = [
    Limit {
        kind: InputKind::ElfImage,
        name: "ELF images",
        bytes: 128 << 20,
    },
    Limit {
        kind: InputKind::PackedLibrary,
        name: "packed libraries",
        bytes: 2 * MAX_IMAGE_BYTES,
    },
    Limit {
        kind: InputKind::Npy,
        name: ".npy inputs",
        bytes: 1 << 30,
    },
    Limit {
        kind: InputKind::TimingProfile,
        name: "timing profiles",
        bytes: 1 << 20,
    },
    Limit {
        kind: InputKind::BuildInfo,
        name: "build descriptions (q7build.json)",
        bytes: 1 << 20,
    },
    Limit {
        kind: InputKind::UcodeLib,
        name: "library registries (ucode_lib.json)",
        bytes: 1 << 20,
    },
    Limit {
        kind: InputKind::BuildInput,
        name: "build inputs (sources, headers, SDK files)",
        bytes: 256 << 20,
    },
    Limit {
        kind: InputKind::LoadRecord,
        name: "load records (lib<name>.so of q7emu.load)",
        bytes: 1 << 20,
    },
];

impl InputKind {
    /// This kind's row of [`LIMITS`].
    pub const fn limit(self) -> &'static Limit {
        let mut i = 0;
        while i < LIMITS.len() {
            if LIMITS[i].kind as u8 == self as u8 {
                return &LIMITS[i];
            }
            i += 1;
        }
        panic!("every input kind has a row in LIMITS")
    }
}

/// Why an input file is not read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// It cannot be inspected, opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a regular file.
    #[error("{}: not a regular file ({file_type})", path.display())]
    NotAFile {
        /// The file.
        path: PathBuf,
        /// What it is instead: "a directory", "a character device", ….
        file_type: &'static str,
    },
    /// Larger than the bound of its kind.
    #[error(
        "{}: {} bytes, over the {}-byte limit for {}",
        path.display(),
        size.map_or_else(|| format!("more than {}", kind.limit().bytes), |s| s.to_string()),
        kind.limit().bytes,
        kind.limit().name
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, when known (a file that grew while read has none).
        size: Option<u64>,
        /// Its kind, whose limit it exceeds.
        kind: InputKind,
    },
}

/// What a file type is, for [`InputError::NotAFile`].
fn describe(t: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Opens `path` for reading as `kind`: a regular file (symbolic links followed) of at most the
/// kind's bound. Returns the file, limited to that bound, and its size.
pub fn open(path: &Path, kind: InputKind) -> Result<(std::io::Take<File>, u64), InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_a_file = |t| InputError::NotAFile {
        path: path.to_path_buf(),
        file_type: describe(t),
    };
    // Checked before opening: opening a FIFO would block until a writer comes.
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let limit = kind.limit().bytes;
    if meta.len() > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            size: Some(meta.len()),
            kind,
        });
    }
    Ok((file.take(limit), meta.len()))
}

/// Reads the whole of `path` as `kind` (see [`open`]); a file that grows past the bound while it
/// is read is refused too.
pub fn read_file(path: &Path, kind: InputKind) -> Result<Vec<u8>, InputError> {
    let (file, size) = open(path, kind)?;
    let limit = kind.limit().bytes;
    // One byte past the bound tells a file that grew from one that fits exactly.
    let mut reader = file.into_inner().take(limit + 1);
    let mut data = Vec::with_capacity(size as usize);
    reader
        .read_to_end(&mut data)
        .map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if data.len() as u64 > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            size: None,
            kind,
        });
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> PathBuf {
        let p = std::env::temp_dir().join(format!("q7-input-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn every_kind_has_one_row_and_the_bounds_are_the_documented_ones() {
        for kind in [
            InputKind::ElfImage,
            InputKind::PackedLibrary,
            InputKind::Npy,
            InputKind::TimingProfile,
            InputKind::BuildInfo,
            InputKind::UcodeLib,
            InputKind::BuildInput,
            InputKind::LoadRecord,
        ] {
            assert_eq!(LIMITS.iter().filter(|l| l.kind == kind).count(), 1);
            assert_eq!(kind.limit().kind, kind);
        }
        assert_eq!(InputKind::ElfImage.limit().bytes, 128 << 20);
        assert_eq!(InputKind::PackedLibrary.limit().bytes, 64 << 20);
        assert_eq!(InputKind::Npy.limit().bytes, 1 << 30);
        assert_eq!(InputKind::TimingProfile.limit().bytes, 1 << 20);
        assert_eq!(InputKind::BuildInfo.limit().bytes, 1 << 20);
        assert_eq!(InputKind::UcodeLib.limit().bytes, 1 << 20);
        assert_eq!(InputKind::BuildInput.limit().bytes, 256 << 20);
        assert_eq!(InputKind::LoadRecord.limit().bytes, 1 << 20);
    }

    #[test]
    fn platform_md_lists_every_limit() {
        let doc = include_str!("../../PLATFORM.md");
        let section = doc
            .split("## Input file limits")
            .nth(1)
            .expect("PLATFORM.md has an \"Input file limits\" section");
        for l in LIMITS {
            let mib = l.bytes >> 20;
            let row = format!("| {} | {mib} MiB ({} bytes) |", l.name, l.bytes);
            assert!(section.contains(&row), "PLATFORM.md lacks the row `{row}`");
        }
    }

    #[test]
    fn a_regular_file_within_its_bound_is_read_whole() {
        let p = temp("ok", b"\x7fELF");
        assert_eq!(read_file(&p, InputKind::ElfImage).unwrap(), b"\x7fELF");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn special_files_are_refused_naming_what_they_are() {
        let e = read_file(Path::new("/dev/zero"), InputKind::ElfImage).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: not a regular file (a character device)"
        );
        let e = read_file(&std::env::temp_dir(), InputKind::PackedLibrary).unwrap_err();
        assert!(
            matches!(
                e,
                InputError::NotAFile {
                    file_type: "a directory",
                    ..
                }
            ),
            "{e}"
        );
        let e = read_file(Path::new("/nonexistent/q7"), InputKind::ElfImage).unwrap_err();
        assert!(
            e.to_string().starts_with("/nonexistent/q7: No such file"),
            "{e}"
        );
    }

    #[test]
    fn a_file_over_its_kinds_bound_is_refused_naming_size_and_limit() {
        let p = temp("big", b"");
        let f = File::options().write(true).open(&p).unwrap();
        // Sparse: no disk space, the size alone decides.
        f.set_len((64 << 20) + 1).unwrap();
        let e = read_file(&p, InputKind::PackedLibrary).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: 67108865 bytes, over the 67108864-byte limit for packed libraries",
                p.display()
            )
        );
        assert!(open(&p, InputKind::ElfImage).is_ok(), "within 128 MiB");
        std::fs::remove_file(p).unwrap();
    }
}
