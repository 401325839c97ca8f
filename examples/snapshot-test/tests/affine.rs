use q7_testing::{tensor, toolchain_installed, Kernel, Run, TestingError};

#[q7_requires::needs(toolchain)]
#[test]
fn affine_matches_its_snapshot() -> Result<(), TestingError> {
    if !toolchain_installed() {
        return Ok(()); // run with --ignored where the toolchain is missing
    }
    let lib = Kernel::new("affine.cpp")
        .op("affine(Tensor x, float a, float b) -> Tensor")
        .build(concat!(env!("CARGO_TARGET_TMPDIR"), "/affine"))?;
    let x = tensor(&[6], &[-1.5f32, -0.0, 0.25, 1e30, f32::INFINITY, f32::NAN])?;
    let summary = Run::new("affine").input(x).scalar(2).scalar(0.5).on(&lib)?;
    q7_testing::assert_summary_snapshot!("affine", summary);
    Ok(())
}
