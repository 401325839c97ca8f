//! Two ways to snapshot what a kernel computes whatever it costs, each holding for two timing
//! models: `Summary::outputs_only`, which drops the per-core counters, and an insta redaction
//! of the YAML form (insta's `redactions` feature), which keeps a line per core, so that a
//! change in the number of cores still shows, and masks the counts.

use q7_testing::{tensor, toolchain_installed, Kernel, Run, TestingError, TimingModel};

#[q7_requires::needs(toolchain)]
#[test]
fn affine_outputs_match_for_any_timing_model() -> Result<(), TestingError> {
    if !toolchain_installed() {
        return Ok(()); // run with --ignored where the toolchain is missing
    }
    let lib = Kernel::new("affine.cpp")
        .op("affine(Tensor x, float a, float b) -> Tensor")
        .build(concat!(env!("CARGO_TARGET_TMPDIR"), "/affine-outputs"))?;
    let x = tensor(&[6], &[-1.5f32, -0.0, 0.25, 1e30, f32::INFINITY, f32::NAN])?;
    let slow_hbm = TimingModel {
        hbm_latency: 2 * TimingModel::default().hbm_latency,
        ..TimingModel::default()
    };
    let mut cycles = Vec::new();
    for timing in [TimingModel::default(), slow_hbm] {
        let run = Run::new("affine").input(x.clone()).scalar(2).scalar(0.5);
        let summary = run.timing(timing).on(&lib)?;
        cycles.push(summary.cores.as_ref().unwrap()[0].cycles);
        q7_testing::assert_summary_snapshot!("affine-outputs", summary.clone().outputs_only());
        let _dir = q7_testing::snapshot_settings!().bind_to_scope();
        insta::assert_yaml_snapshot!("affine-redacted", summary, {
            ".cores[].instructions" => "[instructions]",
            ".cores[].cycles" => "[cycles]",
        });
    }
    assert!(cycles[1] > cycles[0], "slower HBM, more cycles: {cycles:?}");
    Ok(())
}
