//! Arbitrary bytes as a project's texts (examples/sdk/BUILD.md "Projects" and "Project
//! directories"): as a shape source, whose `NEURON_LIBRARY` registrations the build reads, and
//! as a `build.py`, whose `custom_op.load(...)` call `--project` reads. Reading never panics,
//! and an error names the file it read.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use q7_kernel_build::{project, project_dir};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = PathBuf::from("shape.cpp");
    match project::parse(&[(file, text.to_string())]) {
        Ok(p) => assert!(!p.ops.is_empty() && p.ops.len() <= 10, "{p:?}"),
        Err(e) => assert!(e.to_string().contains("shape.cpp"), "{e}"),
    }
    match project_dir::read_script(Path::new("build.py"), text) {
        Ok(p) => assert!(!p.compute.is_empty() && !p.shape.is_empty(), "{p:?}"),
        Err(e) => assert!(e.to_string().starts_with("build.py"), "{e}"),
    }
});
