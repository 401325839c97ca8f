//! PLATFORM.md "ISA dtype codes" is the dtype table of `q7_host::tensor::dtype`, row for row:
//! code, ISA name, torch dtype (or rejected), element bytes and `.npy` form.

use q7_host::tensor::dtype::DTYPES;

#[test]
fn platform_md_dtype_table_is_the_code_table() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../PLATFORM.md")).unwrap();
    let rows: Vec<Vec<String>> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| code | ISA name |"))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
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
