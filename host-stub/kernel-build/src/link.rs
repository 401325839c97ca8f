//! Linking (examples/sdk/BUILD.md "Link"): the objects become one image `<base>.so` in the 32 MiB single-core
//! window, or, for a multicore library, eight images `<base>_cpu{i}.so`, image *i* in core
//! *i*'s 2 MiB window — the same objects each time, only the window differs.
//!
//! Command: `xtensa-elf-g++` [`LINK_FLAGS`] `-Wl,--defsym=…` `-T <sdk>/ld/customop.ld -o
//! <image> <objects> <archives>`. The defined symbols are the numbers the script needs
//! ([`defsyms`]), each taken from its one definition: the window from the platform map, the
//! UCPL header size from the loader, the KTAB trailer size from the prelinker's trailer, the
//! trampoline size from the firmware. `--no-undefined` makes a missing runtime function a link
//! error instead of a symbol relocation the prelinker would refuse.

use std::path::{Path, PathBuf};
use std::process::Command;

use q7_emulator::platform::map;

use super::toolchain::{Tool, Toolchain};

/// Images of a multicore library (examples/sdk/BUILD.md "Link": eight, one per core).
pub const NUM_CPUS: u32 = 8;

/// Flags of every link.
pub const LINK_FLAGS: [&str; 6] = [
    "-shared",
    "-nostdlib",
    "-fpic",
    "-Wl,-Bsymbolic",
    "-Wl,--no-undefined",
    "-Wl,--build-id=none",
];

/// The linker script under the SDK.
pub const SCRIPT: &str = "ld/customop.ld";

/// Bytes of the KTAB trailer the prelinker writes after the data segment: magic, address, size.
pub const KTAB_TRAILER_SIZE: u32 = q7_loader::ktab::SIZE as u32;

/// An image window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First address.
    pub origin: u32,
    /// Bytes.
    pub length: u32,
}

/// One image to link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its file name, `<base>.so` or `<base>_cpu{i}.so`.
    pub so_name: String,
    /// The core it is linked for (0 for a single-core library).
    pub cpu_id: u8,
    /// Its window.
    pub window: Window,
}

/// The images of library `base`: one in the single-core window, or [`NUM_CPUS`] in the
/// per-core windows.
pub fn targets(base: &str, multicore: bool) -> Vec<Target> {
    if !multicore {
        let (origin, length) = map::SINGLE_CORE_IMAGE_WINDOW;
        return vec![Target {
            so_name: format!("{base}.so"),
            cpu_id: 0,
            window: Window { origin, length },
        }];
    }
    (0..NUM_CPUS)
        .map(|i| {
            let (origin, length) = map::image_window(i);
            Target {
                so_name: format!("{base}_cpu{i}.so"),
                cpu_id: i as u8,
                window: Window { origin, length },
            }
        })
        .collect()
}

/// The `--defsym` options the script reads for `window`.
pub fn defsyms(window: Window) -> Vec<String> {
    [
        ("__q7_window_origin", window.origin),
        ("__q7_window_length", window.length),
        ("__q7_ucpl_header_size", q7_loader::ucpl::SIZE as u32),
        ("__q7_ktab_trailer_size", KTAB_TRAILER_SIZE),
        ("__q7_trampoline_size", q7_layout::TRAMPOLINE_SIZE),
    ]
    .iter()
    .map(|(name, v)| format!("-Wl,--defsym={name}={v:#x}"))
    .collect()
}

/// The link command of `target` over `objects` then `archives`, writing `out`.
pub fn command(
    tools: &Toolchain,
    script: &Path,
    target: &Target,
    objects: &[PathBuf],
    archives: &[PathBuf],
    out: &Path,
    cwd: &Path,
) -> Command {
    let mut cmd = tools.command(Tool::Gxx);
    cmd.current_dir(cwd)
        .args(LINK_FLAGS)
        .args(defsyms(target.window))
        .arg("-T")
        .arg(script)
        .arg("-o")
        .arg(out)
        .args(objects)
        .args(archives);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multicore_is_the_cluster_core_count() {
        assert_eq!(
            NUM_CPUS,
            q7_emulator::platform::ClusterConfig::default().cores
        );
    }

    #[test]
    fn single_core_links_once_at_the_32_mib_window() {
        assert_eq!(
            targets("relu", false),
            [Target {
                so_name: "relu.so".into(),
                cpu_id: 0,
                window: Window {
                    origin: 0x8400_0000,
                    length: 0x0200_0000
                }
            }]
        );
    }

    #[test]
    fn multicore_links_eight_times_at_2_mib_steps() {
        let t = targets("relu", true);
        assert_eq!(t.len(), 8);
        for (i, t) in t.iter().enumerate() {
            assert_eq!(t.so_name, format!("relu_cpu{i}.so"));
            assert_eq!(t.cpu_id as usize, i);
            assert_eq!(
                t.window,
                Window {
                    origin: 0x8400_0000 + i as u32 * 0x20_0000,
                    length: 0x20_0000
                }
            );
        }
    }

    #[test]
    fn defsyms_give_the_script_its_numbers() {
        assert_eq!(
            defsyms(Window {
                origin: 0x8420_0000,
                length: 0x20_0000
            }),
            [
                "-Wl,--defsym=__q7_window_origin=0x84200000",
                "-Wl,--defsym=__q7_window_length=0x200000",
                "-Wl,--defsym=__q7_ucpl_header_size=0x20",
                "-Wl,--defsym=__q7_ktab_trailer_size=0xc",
                "-Wl,--defsym=__q7_trampoline_size=0x40",
            ]
        );
    }

    #[test]
    fn the_script_uses_every_defined_symbol() {
        let script =
            std::fs::read_to_string(super::super::sdk::default_dir().join(SCRIPT)).unwrap();
        for d in defsyms(Window {
            origin: 0,
            length: 0,
        }) {
            let name = d
                .trim_start_matches("-Wl,--defsym=")
                .split('=')
                .next()
                .unwrap();
            assert!(script.contains(name), "{SCRIPT} does not use {name}");
        }
    }
}
