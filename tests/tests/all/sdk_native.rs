//! The SDK's device-independent pieces, built with the host C++ compiler and run natively: the
//! printf engine against the host C library, the allocator, the translate TLB, the ARG_TENSOR
//! rules, and the pure C++ headers (type traits, limits, algorithms, ArrayRef, Half, BFloat16,
//! Scalar, the bit-level math functions). Each program checks exact values and prints
//! `N checks, 0 failed` (or its mismatches).

use crate::sdk_support;

use sdk_support::{host_cxx, programs, run_native, sdk};

/// `-I` flags for a runtime-internal header test: the SDK headers and rt/customop.
fn rt_includes() -> [String; 2] {
    [
        format!("-I{}", sdk().join("include").display()),
        format!("-I{}", sdk().join("rt/customop").display()),
    ]
}

fn native_program(name: &str) -> std::path::PathBuf {
    programs().join("native").join(name)
}

#[q7_requires::needs(host_cxx)]
#[test]
fn printf_engine_matches_the_host_c_library() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let engine_flags = ["-ffreestanding", inc[1].as_str()];
    let harness_flags = ["-Wno-format"];
    let out = run_native(
        &cxx,
        "sdk-format",
        &[
            (sdk().join("rt/customop/format.cpp"), &engine_flags),
            (native_program("format_test.cpp"), &harness_flags),
        ],
        &[],
    );
    assert!(out.ends_with("135016 checks, 0 mismatches\n"), "{out}");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn allocator_splits_coalesces_and_refuses_foreign_pointers() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let flags = [inc[0].as_str(), inc[1].as_str()];
    let out = run_native(
        &cxx,
        "sdk-heap",
        &[(native_program("heap_test.cpp"), &flags)],
        &[],
    );
    assert_eq!(out, "49 checks, 0 failed\n");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn tcm_pool_hands_out_all_16_kib_in_64_byte_granules() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let flags = [inc[0].as_str(), inc[1].as_str()];
    let out = run_native(
        &cxx,
        "sdk-tcm-pool",
        &[(native_program("tcm_pool_test.cpp"), &flags)],
        &[],
    );
    assert_eq!(out, "40 checks, 0 failed\n");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn coherence_rules_allow_read_streams_and_element_accessors_together_and_nothing_else() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let flags = [inc[0].as_str(), inc[1].as_str()];
    let out = run_native(
        &cxx,
        "sdk-coherence",
        &[(native_program("coherence_test.cpp"), &flags)],
        &[],
    );
    assert_eq!(out, "20 checks, 0 failed\n");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn tlb_maps_pinned_windows_and_programs_dynamic_ones_round_robin() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let flags = [inc[0].as_str(), inc[1].as_str()];
    let out = run_native(
        &cxx,
        "sdk-tlb",
        &[(native_program("tlb_test.cpp"), &flags)],
        &[],
    );
    assert_eq!(out, "28 checks, 0 failed\n");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn descriptor_rules_name_the_field_each_broken_descriptor_breaks() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let flags = [inc[0].as_str(), inc[1].as_str()];
    let out = run_native(
        &cxx,
        "sdk-descriptor",
        &[(native_program("descriptor_test.cpp"), &flags)],
        &[],
    );
    assert_eq!(out, "40 checks, 0 failed\n");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn pure_cxx_headers_behave_like_the_standard_library() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let math_flags = ["-ffreestanding", "-nostdinc++", inc[0].as_str()];
    let test_flags = ["-nostdinc++", inc[0].as_str()];
    let out = run_native(
        &cxx,
        "sdk-headers",
        &[
            (sdk().join("rt/customop/math.cpp"), &math_flags),
            (native_program("headers_test.cpp"), &test_flags),
        ],
        &[],
    );
    assert_eq!(out, "169 checks, 0 failed\n");
}

#[q7_requires::needs(host_cxx)]
#[test]
fn elementwise_chunk_conversions_and_loops_match_host_arithmetic() {
    let Some(cxx) = host_cxx() else { return };
    let inc = rt_includes();
    let ops = format!("-I{}", sdk().join("rt/ops").display());
    let flags = ["-nostdinc++", inc[0].as_str(), ops.as_str()];
    let out = run_native(
        &cxx,
        "sdk-elementwise",
        &[(native_program("elementwise_test.cpp"), &flags)],
        &[],
    );
    assert_eq!(out, "49 checks, 0 failed\n");
}
