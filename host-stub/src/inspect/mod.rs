//! `q7emu inspect`: what an image or a build holds, as the loader and firmware see it (its
//! command line is `commands::inspect`).
//!
//! An input is one of:
//!
//! * a build directory of `q7emu build` (it has `q7build.json`): the build's ops and
//!   `ucode_lib.json`, then every core's image;
//! * a packed library (an ET_REL with `lib_func`, [`q7_loader::packed`]): the container, then
//!   the device image it carries;
//! * a device image (a linked ET_DYN, or an ET_EXEC with a PT_DYNAMIC): the image;
//! * any other ELF32-Xtensa file (a bare-metal executable, an object): its header and segments.
//!
//! A device image is shown as the host stub stages it: prelinked ([`q7_loader::prelink`]) for
//! its core's image window, with its UCPL header ([`q7_loader::ucpl`]), the relocations the
//! prelinker applied by type ([`q7_loader::dynamic::RELOCATION_TYPES`]), and its kernel table
//! ([`q7_loader::ktab`], [`q7_loader::kernel_table`]) as the firmware binds it: the image is
//! loaded on an emulated cluster and its start symbol run, since that is what fills the table
//! (PLATFORM.md "Kernel table"). Op names come from the build's `q7build.json`, else its
//! `ucode_lib.json` (for a single image, the ones beside it); launcher names from the unstripped
//! image when the build directory has it.
//!
//! Files are read within the bounds of their kind ([`q7_loader::input`]): an ELF file within the
//! ELF-image bound, and a packed library within the packed-library bound; every malformed input
//! is refused with the loader's own error, naming the file.
//!
//! # Modules
//!
//! | module | what |
//! |---|---|
//! | `error` | [`InspectError`], why an input cannot be inspected |
//! | `model` | [`Report`] and its parts: what an inspection found, the `--json` document |
//! | `gathering` | [`inspect`]: reading an input or a build, prelinking its device images and binding their kernel tables |
//! | `text` | [`Report::text`], the human-readable rendering |

mod error;
mod gathering;
mod model;
mod text;

pub use error::InspectError;
pub use gathering::{inspect, Options};
pub use model::{
    BuildReport, DeviceReport, ElfReport, EntryReport, ImageReport, KernelTableReport,
    PackedReport, RelocationCount, RelocationReport, Report, SegmentReport, UcodeFunction,
    UcodeLibrary, UcplReport, WindowReport, FORMAT_VERSION,
};
