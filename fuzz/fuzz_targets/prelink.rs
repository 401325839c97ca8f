//! Arbitrary device images at an arbitrary base: the prelinker never panics; what it accepts
//! yields a UCPL image whose header decodes and whose size check is consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let base = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    if let Ok(pre) = q7_loader::prelink::prelink(&data[4..], base) {
        let img = pre.ucpl();
        let h = q7_loader::ucpl::UcplHeader::decode(&img).expect("our own UCPL image decodes");
        assert_eq!(h.start_sym, pre.entry);
        let _ = pre.check_size(0x1_0000, "the device buffer");
    }
});
