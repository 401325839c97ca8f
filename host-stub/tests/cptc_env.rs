//! Selector resolution with `NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE` set (PLATFORM.md "Selector resolution"). Its own
//! test binary: the variable is process-wide, so no other test may observe it.

use q7_runtime::nrtucode::{coretype, libraries_from_opcodes, resolve_selector, CPTC_ENV};

#[test]
fn the_cptc_variable_selects_library_3_unless_the_caller_names_one() {
    assert_eq!(CPTC_ENV, "NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
    assert_eq!(resolve_selector(None), 0, "unset: selector 0");
    std::env::set_var(CPTC_ENV, "1");
    assert_eq!(resolve_selector(None), 3, "set: the CPTC-decode superset");
    assert_eq!(resolve_selector(Some(1)), 1, "a caller value wins");
    assert_eq!(
        libraries_from_opcodes(coretype::CAYMAN, &[0x85]).unwrap(),
        [3]
    );
    assert_eq!(
        libraries_from_opcodes(coretype::MARIANA_PLUS, &[]).unwrap(),
        [3]
    );
    assert_eq!(
        libraries_from_opcodes(coretype::SUNDA, &[0x85]).unwrap(),
        [0],
        "SUNDA ignores the variable"
    );
    std::env::remove_var(CPTC_ENV);
    assert_eq!(resolve_selector(None), 0);
}
