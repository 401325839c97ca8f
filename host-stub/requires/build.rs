//! Asks, for each requirement of `q7_environment::requirement`, whether it is missing on this
//! machine, and hands the macro each one's name and the reason to ignore its tests with
//! (`OUT_DIR/reasons.rs`, empty when it is there). Nothing is ignored with
//! `$Q7EMU_REQUIRE_TOOLCHAIN` on: the
//! tests run and fail naming what is missing. Cargo reruns this when a watched tool or variable
//! changes, so installing a tool brings its tests back.

use q7_environment::requirement::{rule, Requirement};

fn main() {
    let require = q7_environment::REQUIRE_TOOLCHAIN;
    for name in std::iter::once(require.name).chain(require.old_name) {
        println!("cargo:rerun-if-env-changed={name}");
    }
    let mut reasons = String::from("[\n");
    for r in Requirement::ALL {
        for name in r.variables() {
            println!("cargo:rerun-if-env-changed={name}");
        }
        for path in r.watched() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let reason = r
            .missing()
            .and_then(|missing| rule(&missing, r.remedy()).ok())
            .unwrap_or_default();
        reasons.push_str(&format!("    ({:?}, {reason:?}),\n", r.attribute()));
    }
    reasons.push(']');
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("reasons.rs"), reasons).expect("OUT_DIR is writable");
}
