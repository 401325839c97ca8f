//! PLATFORM.md "ISA dtype codes" is the dtype table of `q7_tensor::dtype`, row for row:
//! code, ISA name, torch dtype (or rejected), element bytes and `.npy` form.

use q7_tensor::dtype::DTYPES;

#[test]
fn platform_md_dtype_table_is_the_code_table() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../PLATFORM.md")).unwrap();
    let rows = q7_tests::doc::table_after(&doc, "| code | ISA name |");
    let code: Vec<Vec<String>> = DTYPES
        .iter()
        .map(|d| {
            vec![
                format!("0x{:X}", d.code),
                d.name.to_string(),
                d.torch.map_or("— (rejected)".into(), str::to_string),
                d.bytes.to_string(),
                match (d.npy, d.code) {
                    (Some(n), 0xA) => format!("`{n}` (raw bfloat16 bits)"),
                    (Some(n), _) => format!("`{}`", n.trim_start_matches('|')),
                    (None, _) => "—".into(),
                },
            ]
        })
        .collect();
    assert_eq!(rows, code);
}
