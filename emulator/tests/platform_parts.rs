//! HBM allocator, SoC ↔ XT window table and console ring (PLATFORM.md).

use q7_emulator::platform::console::ConsoleRing;
use q7_emulator::platform::soc::{aperture_of, translate_soc_to_xt, SocError};
use q7_emulator::platform::{Hbm, HbmError};

#[test]
fn hbm_allocator_aligns_frees_coalesces_and_reports_out_of_memory() {
    let hbm = Hbm::new(1 << 20, 0x1000).unwrap();
    let a = hbm.alloc(100, 0).unwrap();
    assert_eq!(
        a, 0x1000,
        "first fit at the base, 64-byte default alignment"
    );
    let b = hbm.alloc(10, 4096).unwrap();
    assert_eq!(b, 0x2000);
    let c = hbm.alloc(1, 0).unwrap();
    assert_eq!(c, 0x1080, "the gap below b is reused");
    hbm.free(a).unwrap();
    hbm.free(c).unwrap();
    assert_eq!(hbm.free(c), Err(HbmError::NotAllocated { addr: c }));
    assert_eq!(
        hbm.alloc(0x1000, 0).unwrap(),
        0x1000,
        "freed neighbours coalesced"
    );
    assert_eq!(hbm.alloc(1, 3), Err(HbmError::BadAlignment { align: 3 }));
    let err = hbm.alloc(1 << 20, 0).unwrap_err();
    assert!(
        matches!(err, HbmError::OutOfMemory { len: 0x10_0000, .. }),
        "{err}"
    );
    assert_eq!(
        hbm.load(1 << 20, 4),
        Err(HbmError::OutOfRange {
            addr: 1 << 20,
            len: 4,
            size: 1 << 20
        })
    );
}

#[test]
fn hbm_bytes_and_words_agree() {
    let hbm = Hbm::new(1 << 16, 0).unwrap();
    hbm.write(0x101, &[1, 2, 3, 4, 5]).unwrap();
    assert_eq!(hbm.load(0x104, 4).unwrap(), 0x0000_0504);
    hbm.store(0x200, 2, 0xbeef).unwrap();
    let mut b = [0u8; 2];
    hbm.read(0x200, &mut b).unwrap();
    assert_eq!(b, [0xef, 0xbe]);
}

#[test]
fn soc_window_table_maps_entry_2_prid_plus_9_to_dataram() {
    // Seed: 16 entries of 64 KiB, core p at index 2p + 9.
    assert_eq!(aperture_of(0), 0xF000_0000 + 9 * 0x1_0000);
    assert_eq!(
        translate_soc_to_xt(aperture_of(3) + 0x10, 8),
        Ok((3, 0x0008_0010))
    );
    assert_eq!(
        translate_soc_to_xt(0xF000_0000, 8),
        Err(SocError::UnmappedEntry {
            addr: 0xF000_0000,
            index: 0
        })
    );
    assert_eq!(
        translate_soc_to_xt(0xF010_0000, 8),
        Err(SocError::OutsideTable { addr: 0xF010_0000 })
    );
    // Index 2·7 + 9 = 23 is past the 16-entry table: core 7 has no aperture in it.
    assert!(translate_soc_to_xt(aperture_of(7), 8).is_err());
}

#[test]
fn console_ring_sizes_are_powers_of_two_up_to_128_kib() {
    assert!(ConsoleRing::new(1 << 17).is_ok());
    assert!(ConsoleRing::new(1 << 18).is_err());
    assert!(ConsoleRing::new(3000).is_err());
    let mut r = ConsoleRing::new(4).unwrap();
    for b in b"abcdef" {
        r.push(*b);
    }
    assert_eq!(r.contents(), b"cdef");
}
