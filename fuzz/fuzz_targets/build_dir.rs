//! Arbitrary text as a build directory's `q7build.json` and `ucode_lib.json` (split at the first
//! NUL byte): the checks `run`, `inspect` and `testing::Library::open` apply never panic, and
//! what they accept is what a build writes (q7_run::op::library).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use q7_kernel_build::metadata::{dispatch_key, BuildInfo};
use q7_loader::ucode_lib::Registry;
use q7_run::op::library::{check_build_info, check_ucode_lib};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (info, ucode) = (&data[..split], data.get(split + 1..).unwrap_or_default());
    let Ok(info) = serde_json::from_slice::<BuildInfo>(info) else {
        return;
    };
    if check_build_info(Path::new("q7build.json"), &info).is_err() {
        return;
    }
    assert!((1..=10).contains(&info.ops.len()));
    for (i, op) in info.ops.iter().enumerate() {
        assert_eq!(op.function_id as usize, i);
        assert_eq!(op.key, dispatch_key(op.function_id));
        assert!(op.args.len() < 16, "the output takes the 16th descriptor");
    }
    assert_eq!(info.cpu_count, if info.multicore { 8 } else { 1 });
    assert_eq!(info.images.len(), info.cpu_count as usize);
    for name in info.images.iter().chain(&info.linked) {
        assert!(!name.is_empty() && !Path::new(name).is_absolute());
        assert!(!name.split('/').any(|c| c == ".." || c == "."));
    }
    let Ok(text) = std::str::from_utf8(ucode) else {
        return;
    };
    let Ok(registry) = Registry::from_json(text) else {
        return;
    };
    if check_ucode_lib(Path::new("ucode_lib.json"), &registry, &info).is_ok() {
        let libs = registry.libraries();
        assert_eq!(libs.len(), info.images.len());
        for (i, lib) in libs.iter().enumerate() {
            assert_eq!(lib.file_name, info.images[i]);
            assert_eq!(
                (usize::from(lib.cpu_id), usize::from(lib.total_cpus)),
                (i, libs.len())
            );
            assert_eq!(lib.functions.len(), info.ops.len());
        }
    }
});
