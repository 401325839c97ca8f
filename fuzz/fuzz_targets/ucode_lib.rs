//! Arbitrary text as ucode_lib.json: parsing never panics; what parses re-serialises and
//! parses to the same registry.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_loader::ucode_lib::Registry;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(r) = Registry::from_json(text) {
        if let Some(json) = r.to_json() {
            assert_eq!(Registry::from_json(&json).expect("our own JSON parses"), r);
        }
    }
});
