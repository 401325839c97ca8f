//! Arbitrary bytes as a timing profile, read as JSON and as TOML: parsing never panics, a
//! profile that parses is inside the model's bounds (docs/timing.md "Bounds"), so building a
//! core's bus from it cannot fail either, and a short kernel run under it keeps the identities
//! of docs/run-report.md on every core (cycles − stall cycles = issue × (instructions +
//! exceptions − 1); hbm, sram and fetch stalls = their hits × their latency): no key's
//! arithmetic wraps or saturates whatever the values.
#![no_main]

use std::path::Path;
use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use q7_emulator::platform::bus::PlatformBus;
use q7_emulator::platform::hbm::Hbm;
use q7_run::op::{self, Library, OpRequest};
use q7_runtime::timing_profile::Profile;
use q7_tensor::HostTensor;
use q7_testing::tensor;

/// The element-accessor ReLU's committed build: HBM through a dynamic window, its runtime in
/// the image window's SRAM, SDMA, window exceptions.
static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels/relu_element/build");
    Library::open(&dir).expect("the committed relu_element build opens")
});

/// Its backward op's two 2×4 inputs.
static INPUT: LazyLock<HostTensor> = LazyLock::new(|| {
    tensor(&[2, 4], &[1.0f32, -2.0, 3.0, -4.0, 5.0, 6.0, -7.0, 8.0]).expect("a 2×4 tensor")
});

fuzz_target!(|data: &[u8]| {
    for name in ["fuzz.json", "fuzz.toml"] {
        let Ok(p) = Profile::parse(Path::new(name), data.to_vec()) else {
            continue;
        };
        assert_eq!(p.model.check(), Ok(()));
        let hbm = Arc::new(Hbm::new(1 << 20, 0).expect("a small HBM reserves"));
        let _ = PlatformBus::new(0, hbm, &p.model);
        let req = OpRequest {
            op: "relu_backward".into(),
            inputs: vec![INPUT.clone().into(), INPUT.clone().into()],
            scalars: vec![],
            out_dtype: None,
            out_shape: None,
            threads: 1,
            jit: true,
            // No accepted profile meets this budget: every run completes.
            call_budget: u64::MAX / 4,
            timing: p.clone(),
            progress: false,
            console: Default::default(),
            debugger: None,
            poison: None,
        };
        let run = op::run(&LIBRARY, &req)
            .unwrap_or_else(|e| panic!("relu_backward under {}: {e}", p.model));
        for core in &run.cores {
            let broken = core.broken_identities(&p.model);
            assert!(broken.is_empty(), "under {}: {broken:?}", p.model);
        }
    }
});
