//! Arbitrary bytes as a `.npy` file: reading never panics and never allocates beyond the
//! data's bound; what reads writes back and reads to the same tensor.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use q7_tensor::npy;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = npy::from_reader(data, Path::new("fuzz.npy")) {
        assert_eq!(t.data.len() as u64, t.numel() * u64::from(t.dtype.bytes));
        let mut out = Vec::new();
        npy::to_writer(&mut out, &t).expect("writing to memory succeeds");
        let back = npy::from_reader(&out[..], Path::new("fuzz.npy")).expect("our own .npy reads");
        assert_eq!(back, t);
    }
});
