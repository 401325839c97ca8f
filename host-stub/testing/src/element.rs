//! One output element as a summary reads and prints it: decoded by its dtype (PLATFORM.md "ISA
//! dtype codes"), compared as a number, written by [`element_text`].

use q7_tensor::HostTensor;

/// One element, decoded by its dtype.
#[derive(Debug, Clone, Copy)]
pub(super) enum Value {
    /// INT8 … INT64, UINT8 … UINT64.
    Int(i128),
    F16(half::f16),
    Bf16(half::bf16),
    F32(f32),
    /// A dtype the host has no type for (FP8_*, FP32R, INVALID): the element's bits.
    Bits(u64),
}

/// A value as a number for comparisons.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(super) enum Number {
    Int(i128),
    Float(f64),
}

/// The elements `t`'s bytes hold: its shape's count, or fewer when its bytes fall short.
pub(super) fn readable(t: &HostTensor) -> usize {
    let n = usize::try_from(t.numel()).unwrap_or(usize::MAX);
    match usize::from(t.dtype.bytes) {
        0 => n,
        b => n.min(t.data.len() / b),
    }
}

/// Element `i` of `t`, decoded by its dtype, if its bytes hold one.
pub(super) fn value(t: &HostTensor, i: usize) -> Option<Value> {
    let b = usize::from(t.dtype.bytes);
    if i >= readable(t) {
        return None;
    }
    let e = &t.data[i * b..(i + 1) * b];
    let mut le = [0u8; 8];
    le[..b.min(8)].copy_from_slice(&e[..b.min(8)]);
    let bits = u64::from_le_bytes(le);
    Some(match t.dtype.code {
        0x2 => Value::Int(i128::from(e[0] as i8)),
        0x4 => Value::Int(i128::from(bits as u16 as i16)),
        0x6 => Value::Int(i128::from(bits as u32 as i32)),
        0x7 => Value::Int(i128::from(bits as i64)),
        0x3 | 0x5 | 0xD | 0xE => Value::Int(i128::from(bits)),
        0x8 => Value::F16(half::f16::from_bits(bits as u16)),
        0xA => Value::Bf16(half::bf16::from_bits(bits as u16)),
        0xC => Value::F32(f32::from_bits(bits as u32)),
        _ => Value::Bits(bits),
    })
}

impl Value {
    pub(super) fn number(self) -> Number {
        match self {
            Value::Int(v) => Number::Int(v),
            Value::F16(v) => Number::Float(f64::from(v)),
            Value::Bf16(v) => Number::Float(f64::from(v)),
            Value::F32(v) => Number::Float(f64::from(v)),
            Value::Bits(v) => Number::Int(i128::from(v)),
        }
    }

    pub(super) fn text(self, bytes: u8) -> String {
        let nan = |bits: u32, digits: usize| format!("NaN(0x{bits:0digits$x})");
        match self {
            Value::Int(v) => v.to_string(),
            Value::F16(v) if v.is_nan() => nan(u32::from(v.to_bits()), 4),
            Value::Bf16(v) if v.is_nan() => nan(u32::from(v.to_bits()), 4),
            Value::F32(v) if v.is_nan() => nan(v.to_bits(), 8),
            Value::F16(v) => format!("{v:?}"),
            Value::Bf16(v) => format!("{v:?}"),
            Value::F32(v) => format!("{v:?}"),
            Value::Bits(_) if bytes == 0 => "0x".to_string(),
            Value::Bits(v) => format!("0x{v:0digits$x}", digits = 2 * usize::from(bytes)),
        }
    }
}

/// Element `i` of `t` as a summary writes it, if its bytes hold one: integers exactly;
/// floats in their shortest round-trip form (Rust's `{:?}`: `1.0`, `-0.0`, `1e-40`, `inf`,
/// `-inf`; float16 and bfloat16 through their exact float32 value), a NaN as `NaN(0x…)` with
/// its bits; an element of a dtype the host has no type for as its bits in hex.
pub fn element_text(t: &HostTensor, i: usize) -> Option<String> {
    value(t, i).map(|v| v.text(t.dtype.bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{tensor, Summary, Values};
    use q7_tensor::dtype::DTYPES;

    #[test]
    fn floats_print_in_shortest_round_trip_form_and_nans_with_their_bits() {
        let f = tensor(
            &[7],
            &[
                0.1f32,
                -0.0,
                1.0,
                1e-40,
                3e38,
                f32::NEG_INFINITY,
                f32::from_bits(0xffc0_1234),
            ],
        )
        .unwrap();
        let texts: Vec<String> = (0..7).map(|i| element_text(&f, i).unwrap()).collect();
        assert_eq!(
            texts,
            [
                "0.1",
                "-0.0",
                "1.0",
                "1e-40",
                "3e38",
                "-inf",
                "NaN(0xffc01234)"
            ]
        );
        for (i, t) in texts[..6].iter().enumerate() {
            let back: f32 = t.parse().unwrap();
            assert_eq!(
                back.to_bits(),
                f32::from_le_bytes(f.data[i * 4..i * 4 + 4].try_into().unwrap()).to_bits(),
                "{t} reads back"
            );
        }
        let h = tensor(
            &[3],
            &[
                half::f16::from_f32(0.1),
                half::f16::from_bits(0x7e01),
                half::f16::from_f32(-2.0),
            ],
        )
        .unwrap();
        let texts: Vec<String> = (0..3).map(|i| element_text(&h, i).unwrap()).collect();
        assert_eq!(
            texts,
            ["0.099975586", "NaN(0x7e01)", "-2.0"],
            "float16 through its exact float32 value"
        );
        let b = tensor(
            &[2],
            &[half::bf16::from_f32(1.5), half::bf16::from_bits(0x7fc0)],
        )
        .unwrap();
        assert_eq!(element_text(&b, 0).unwrap(), "1.5");
        assert_eq!(element_text(&b, 1).unwrap(), "NaN(0x7fc0)");
        let i = tensor(&[2], &[i64::MIN, -1i64]).unwrap();
        assert_eq!(element_text(&i, 0).unwrap(), "-9223372036854775808");
        let u = tensor(&[1], &[255u8]).unwrap();
        assert_eq!(element_text(&u, 0).unwrap(), "255");
        let c = tensor(&[1], &[-128i8]).unwrap();
        assert_eq!(element_text(&c, 0).unwrap(), "-128");
    }
    #[test]
    fn every_dtype_and_short_data_summarise_without_failing() {
        let raw = |code: usize, shape: Vec<u64>, data: Vec<u8>| HostTensor {
            dtype: DTYPES[code],
            shape,
            data,
        };
        let texts = |t: &HostTensor| match Summary::new("f", t, vec![]).output {
            Values::All { values } => values,
            Values::Digest(_) => panic!("few elements are listed"),
        };
        assert_eq!(
            texts(&raw(0x5, vec![3], vec![0x01, 0x00, 0xff, 0xff, 0x34, 0x12])),
            ["1", "65535", "4660"],
            "UINT16, unsigned"
        );
        assert_eq!(
            texts(&raw(0xE, vec![1], vec![0xff; 8])),
            ["18446744073709551615"],
            "UINT64, exactly"
        );
        assert_eq!(
            texts(&raw(0x1, vec![2], vec![0x3c, 0x80])),
            ["0x3c", "0x80"],
            "FP8_EXP4: the host has no type, so its bits"
        );
        let short = raw(0xC, vec![3], 1.5f32.to_le_bytes().repeat(2));
        assert_eq!(texts(&short), ["1.5", "1.5"], "what the bytes hold");
        assert_eq!(element_text(&short, 2), None);
        assert_eq!(
            Summary::new("f", &short, vec![]).elements,
            3,
            "what the shape says"
        );
        assert_eq!(
            texts(&raw(0xF, vec![2], vec![])),
            ["0x", "0x"],
            "INVALID: 0 bytes each"
        );
    }
}
