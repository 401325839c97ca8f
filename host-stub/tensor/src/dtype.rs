//! The sixteen ISA dtype codes of PLATFORM.md "ISA dtype codes": one row per code drives the
//! marshalling gate, element sizes, the `.npy` mapping and the names errors print.

/// One ISA dtype code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dtype {
    /// The 8-bit code in ARG_TENSOR `dtype`.
    pub code: u8,
    /// ISA name (PLATFORM.md).
    pub name: &'static str,
    /// The torch dtype constant it marshals to, or `None` when the gate rejects it.
    pub torch: Option<&'static str>,
    /// Bytes per element.
    pub bytes: u8,
    /// The `.npy` descr it is read from and written as (little-endian), if any.
    pub npy: Option<&'static str>,
}

const fn row(
    code: u8,
    name: &'static str,
    torch: Option<&'static str>,
    bytes: u8,
    npy: Option<&'static str>,
) -> Dtype {
    Dtype {
        code,
        name,
        torch,
        bytes,
        npy,
    }
}

/// Every code, by code. The gate accepts exactly the rows with a torch dtype:
/// {2, 3, 4, 6, 7, 8, 10, 12} (seed); FP32R (0xB) and the rest are rejected.
pub const DTYPES: [Dtype; 16] = [
    row(0x0, "FP8_EXP3", None, 1, None),
    row(0x1, "FP8_EXP4", None, 1, None),
    row(0x2, "INT8", Some("kChar"), 1, Some("|i1")),
    row(0x3, "UINT8", Some("kByte"), 1, Some("|u1")),
    row(0x4, "INT16", Some("kShort"), 2, Some("<i2")),
    row(0x5, "UINT16", None, 2, None),
    row(0x6, "INT32", Some("kInt"), 4, Some("<i4")),
    row(0x7, "INT64", Some("kLong"), 8, Some("<i8")),
    row(0x8, "FP16", Some("kHalf"), 2, Some("<f2")),
    row(0x9, "FP8_EXP5", None, 1, None),
    row(0xA, "BFLOAT16", Some("kBFloat16"), 2, Some("<u2")),
    row(0xB, "FP32R", None, 4, None),
    row(0xC, "FP32", Some("kFloat"), 4, Some("<f4")),
    row(0xD, "UINT32", None, 4, None),
    row(0xE, "UINT64", None, 8, None),
    row(0xF, "INVALID", None, 0, None),
];

impl Dtype {
    /// The row of `code`, if it is one of the sixteen.
    pub fn from_code(code: u8) -> Option<Dtype> {
        DTYPES.get(usize::from(code)).copied()
    }

    /// Whether the marshalling gate accepts it.
    pub fn marshallable(&self) -> bool {
        self.torch.is_some()
    }

    /// The marshallable dtype a `.npy` descr maps to (`|i1` and `i1` alike; `<u2` is bfloat16's
    /// raw bits).
    pub fn from_npy(descr: &str) -> Option<Dtype> {
        let want = descr.replace('=', "<");
        DTYPES.iter().copied().find(|d| {
            d.npy
                .is_some_and(|n| n == want || (n.starts_with('|') && n[1..] == want))
        })
    }

    /// The accepted dtype named by a numpy name (`float32`, `int8`, `bfloat16`, …) or an ISA or
    /// torch name (`FP32`, `kFloat`), as `--out-dtype` takes it.
    pub fn from_name(name: &str) -> Option<Dtype> {
        let numpy = [
            ("int8", 0x2),
            ("uint8", 0x3),
            ("int16", 0x4),
            ("int32", 0x6),
            ("int64", 0x7),
            ("float16", 0x8),
            ("bfloat16", 0xA),
            ("float32", 0xC),
        ];
        numpy
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, c)| DTYPES[c])
            .or_else(|| {
                DTYPES
                    .iter()
                    .copied()
                    .find(|d| d.marshallable() && (d.name == name || d.torch == Some(name)))
            })
    }

    /// The numpy name of an accepted dtype (`float32`, …; `bfloat16` for BFLOAT16).
    pub fn numpy_name(&self) -> &'static str {
        match self.code {
            0x2 => "int8",
            0x3 => "uint8",
            0x4 => "int16",
            0x6 => "int32",
            0x7 => "int64",
            0x8 => "float16",
            0xA => "bfloat16",
            0xC => "float32",
            _ => self.name,
        }
    }
}

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {:#x})", self.name, self.code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_accepts_exactly_the_seed_codes() {
        let accepted: Vec<u8> = DTYPES
            .iter()
            .filter(|d| d.marshallable())
            .map(|d| d.code)
            .collect();
        assert_eq!(
            accepted,
            [2, 3, 4, 6, 7, 8, 10, 12],
            "seed: {{2,3,4,6,7,8,10,12}}"
        );
        assert!(
            !Dtype::from_code(0xB).unwrap().marshallable(),
            "seed: FP32R rejected"
        );
        assert!(DTYPES
            .iter()
            .enumerate()
            .all(|(i, d)| usize::from(d.code) == i));
        assert_eq!(Dtype::from_code(16), None);
    }

    #[test]
    fn npy_and_numpy_names_map_both_ways() {
        assert_eq!(Dtype::from_npy("<f4").unwrap().name, "FP32");
        assert_eq!(Dtype::from_npy("|i1").unwrap().name, "INT8");
        assert_eq!(Dtype::from_npy("i1").unwrap().name, "INT8");
        assert_eq!(Dtype::from_npy("<u2").unwrap().name, "BFLOAT16");
        assert_eq!(Dtype::from_npy(">f4"), None, "big-endian is not read");
        assert_eq!(
            Dtype::from_npy("<f8"),
            None,
            "float64 is not a marshallable dtype"
        );
        for d in DTYPES.iter().filter(|d| d.marshallable()) {
            assert_eq!(Dtype::from_name(d.numpy_name()), Some(*d));
            assert_eq!(Dtype::from_name(d.torch.unwrap()), Some(*d));
        }
        assert_eq!(Dtype::from_name("uint16"), None);
    }
}
