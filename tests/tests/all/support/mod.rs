//! Shared by the integration tests that start from a packed kernel.

use q7_kernel_build::pack::pack;
use q7_kernel_build::toolchain::Toolchain;
use q7_tests::build::{build_pic, Packaged};

/// [`build_pic`], then packaged by q7emu's packager (examples/sdk/BUILD.md "Strip and pack"); `None` when the toolchain
/// is absent (and not required).
pub fn build_packed(name: &str, sources: &[(&str, &str)], flags: &[&str]) -> Option<Packaged> {
    let pic = build_pic(name, sources, flags)?;
    let tools = Toolchain::find(&q7_tests::toolchain_prefix()).expect("the toolchain is installed");
    let out = pack(&tools, &pic.so, false).expect("the image packs");
    Some(pic.packaged(out.stripped, out.packed))
}
