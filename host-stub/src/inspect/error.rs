//! Why an input of `q7emu inspect` cannot be inspected: every error names the file, and ends
//! the command as bad input (docs/exit-codes.md).

use std::path::PathBuf;

use q7_loader::elf::ElfError;
use q7_loader::input::InputError;
use q7_loader::packed::PackedError;
use q7_loader::prelink::PrelinkError;
use q7_loader::ucpl::UcplError;

use q7_kernel_build::metadata::BUILD_INFO_FILE;

/// Why an input cannot be inspected, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// A file cannot be read within its bound, or is not a regular file.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A directory cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A build directory whose `q7build.json`, `ucode_lib.json` or an image is refused
    /// (`q7_run::op::library`).
    #[error(transparent)]
    Build(#[from] q7_run::op::library::BuildDirError),
    /// A directory without `q7build.json`.
    #[error("{}: a directory without {BUILD_INFO_FILE}: not a build directory of `q7emu build`", path.display())]
    NotABuild {
        /// The directory.
        path: PathBuf,
    },
    /// Not a usable ELF32-Xtensa file.
    #[error("{}: {source}", path.display())]
    Elf {
        /// The file.
        path: PathBuf,
        /// Why.
        source: ElfError,
    },
    /// A packed library that yields no device image.
    #[error("{}: {source}", path.display())]
    Packed {
        /// The file.
        path: PathBuf,
        /// Why.
        source: PackedError,
    },
    /// A device image that does not prelink.
    #[error("{}: {source}", path.display())]
    Prelink {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<PrelinkError>,
    },
    /// The prelinked image's header does not read back.
    #[error("{}: {source}", path.display())]
    Ucpl {
        /// The file.
        path: PathBuf,
        /// Why.
        source: UcplError,
    },
}

impl q7_conventions::exit_code::Outcome for InspectError {
    /// The outcome it ends `q7emu inspect` with ([`q7_conventions::exit_code`]): every failure is bad
    /// input.
    fn kind(&self) -> q7_conventions::exit_code::Kind {
        q7_conventions::exit_code::Kind::BadInput
    }
}
