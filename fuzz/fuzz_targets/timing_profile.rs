//! Arbitrary bytes as a timing profile, read as JSON and as TOML: parsing never panics, and a
//! profile that parses is inside the model's bounds, so building a core's bus from it cannot
//! fail either.
#![no_main]

use std::path::Path;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use q7_emulator::platform::bus::PlatformBus;
use q7_emulator::platform::hbm::Hbm;
use q7_host::timing_profile::Profile;

fuzz_target!(|data: &[u8]| {
    for name in ["fuzz.json", "fuzz.toml"] {
        if let Ok(p) = Profile::parse(Path::new(name), data.to_vec()) {
            assert_eq!(p.model.check(), Ok(()));
            let hbm = Arc::new(Hbm::new(1 << 20, 0).expect("a small HBM reserves"));
            let _ = PlatformBus::new(0, hbm, &p.model);
        }
    }
});
