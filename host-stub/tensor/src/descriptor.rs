//! The ARG_TENSOR descriptor of PLATFORM.md "ARG_TENSOR descriptor": 0x30 bytes, little-endian,
//! encoded and validated by one type. The SDK runtime's C view of it is
//! `examples/sdk/include/q7/customop_abi.h`.

use super::dtype::Dtype;

/// Descriptor size (seed: 0x30), the mailbox's slot size.
pub const SIZE: usize = q7_emulator::platform::map::ARG_TENSOR_SIZE as usize;
/// Most dims of a descriptor (8 × u16), and of a wide one (4 × u32).
pub const MAX_RANK: usize = 8;
/// Most dims with `WIDE_SHAPE`.
pub const MAX_WIDE_RANK: usize = 4;

/// Field offsets.
pub mod field {
    /// u8 location.
    pub const LOCATION: usize = 0x00;
    /// u8 dtype code.
    pub const DTYPE: usize = 0x01;
    /// u8 rank.
    pub const RANK: usize = 0x02;
    /// u8 flags.
    pub const FLAGS: usize = 0x03;
    /// u32 reserved.
    pub const RESERVED0: usize = 0x04;
    /// u64 address or scalar value.
    pub const ADDR: usize = 0x08;
    /// u64 element count.
    pub const NUM_ELEM: usize = 0x10;
    /// 16-byte shape.
    pub const SHAPE: usize = 0x18;
    /// u64 reserved.
    pub const RESERVED1: usize = 0x28;
}

/// `location` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// `addr` is an HBM address.
    Hbm = 0,
    /// `addr` is a core-local 32-bit address.
    Local = 1,
    /// `addr` holds a scalar's value.
    Scalar = 2,
}

/// `flags` bit 0: the op's pre-allocated destination.
pub const FLAG_OUTPUT: u8 = 1;
/// `flags` bit 1: `shape` is 4 × u32.
pub const FLAG_WIDE_SHAPE: u8 = 2;

/// A scalar argument's value: `dtype` FP32 (0xC) says an IEEE double's bits, INT64 (0x7) a
/// signed 64-bit integer (PLATFORM.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    /// A floating-point scalar (`Scalar`, `float` in a schema).
    Double(f64),
    /// An integer scalar (`int`).
    Int(i64),
}

/// A descriptor the host can build: a tensor (HBM or local) or a scalar.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgDescriptor {
    /// A tensor in C order.
    Tensor {
        /// Where `addr` points.
        location: Location,
        /// Element dtype.
        dtype: Dtype,
        /// Address of element 0.
        addr: u64,
        /// Dims, outermost first.
        shape: Vec<u64>,
        /// The op's destination.
        output: bool,
    },
    /// A scalar value.
    Scalar(ScalarValue),
}

/// Why a tensor cannot be described.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DescriptorError {
    /// Too many dims, or a dim too large for any shape form.
    #[error("shape {shape:?} cannot be described: at most 8 dims of <= 65535 each, or at most 4 dims of <= 4294967295 each")]
    Shape {
        /// The shape.
        shape: Vec<u64>,
    },
    /// Dims whose product does not fit `num_elem` (a u64).
    #[error("shape {shape:?} cannot be described: the product of its dims is over 2^64 - 1, more than num_elem holds")]
    Elements {
        /// The shape.
        shape: Vec<u64>,
    },
}

/// How a shape is laid out in a descriptor's `shape` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeForm {
    /// 8 × u16.
    Narrow,
    /// 4 × u32 (`WIDE_SHAPE`).
    Wide,
}

/// Whether `shape` can be described (PLATFORM.md "ARG_TENSOR descriptor": at most 8 dims of
/// at most 65535, or at most 4 dims of at most 2³² − 1, whose product fits `num_elem`), in which
/// form, and its element count.
pub fn describe_shape(shape: &[u64]) -> Result<(ShapeForm, u64), DescriptorError> {
    let narrow = shape.len() <= MAX_RANK && shape.iter().all(|&x| x <= 0xffff);
    let wide = shape.len() <= MAX_WIDE_RANK && shape.iter().all(|&x| x <= 0xffff_ffff);
    if !narrow && !wide {
        return Err(DescriptorError::Shape {
            shape: shape.to_vec(),
        });
    }
    let n = shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| DescriptorError::Elements {
            shape: shape.to_vec(),
        })?;
    let form = if narrow {
        ShapeForm::Narrow
    } else {
        ShapeForm::Wide
    };
    Ok((form, n))
}

impl ArgDescriptor {
    /// The 0x30 bytes.
    pub fn encode(&self) -> Result<[u8; SIZE], DescriptorError> {
        let mut d = [0u8; SIZE];
        match self {
            ArgDescriptor::Scalar(v) => {
                d[field::LOCATION] = Location::Scalar as u8;
                let (code, bits) = match *v {
                    ScalarValue::Double(x) => (0xC, x.to_bits()),
                    ScalarValue::Int(i) => (0x7, i as u64),
                };
                d[field::DTYPE] = code;
                d[field::ADDR..field::ADDR + 8].copy_from_slice(&bits.to_le_bytes());
                d[field::NUM_ELEM..field::NUM_ELEM + 8].copy_from_slice(&1u64.to_le_bytes());
            }
            ArgDescriptor::Tensor {
                location,
                dtype,
                addr,
                shape,
                output,
            } => {
                let (form, n) = describe_shape(shape)?;
                let narrow = form == ShapeForm::Narrow;
                d[field::LOCATION] = *location as u8;
                d[field::DTYPE] = dtype.code;
                d[field::RANK] = shape.len() as u8;
                d[field::FLAGS] = if *output { FLAG_OUTPUT } else { 0 }
                    | if narrow { 0 } else { FLAG_WIDE_SHAPE };
                d[field::ADDR..field::ADDR + 8].copy_from_slice(&addr.to_le_bytes());
                d[field::NUM_ELEM..field::NUM_ELEM + 8].copy_from_slice(&n.to_le_bytes());
                for (i, &x) in shape.iter().enumerate() {
                    if narrow {
                        let at = field::SHAPE + 2 * i;
                        d[at..at + 2].copy_from_slice(&(x as u16).to_le_bytes());
                    } else {
                        let at = field::SHAPE + 4 * i;
                        d[at..at + 4].copy_from_slice(&(x as u32).to_le_bytes());
                    }
                }
            }
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DTYPES;

    #[test]
    fn a_float_tensor_is_laid_out_as_platform_md_says() {
        let d = ArgDescriptor::Tensor {
            location: Location::Hbm,
            dtype: DTYPES[0xC],
            addr: 0x1_2000_0040,
            shape: vec![32, 4096],
            output: false,
        }
        .encode()
        .unwrap();
        let mut want = [0u8; SIZE];
        want[0x01] = 0xC; // dtype FP32
        want[0x02] = 2; // rank
        want[0x08..0x10].copy_from_slice(&0x1_2000_0040u64.to_le_bytes());
        want[0x10..0x18].copy_from_slice(&(32u64 * 4096).to_le_bytes());
        want[0x18..0x1a].copy_from_slice(&32u16.to_le_bytes());
        want[0x1a..0x1c].copy_from_slice(&4096u16.to_le_bytes());
        assert_eq!(d, want);
    }

    #[test]
    fn big_dims_take_the_wide_form_and_the_output_flag_is_bit_0() {
        let d = ArgDescriptor::Tensor {
            location: Location::Hbm,
            dtype: DTYPES[0x2],
            addr: 0,
            shape: vec![3, 100_000],
            output: true,
        }
        .encode()
        .unwrap();
        assert_eq!(d[field::FLAGS], FLAG_OUTPUT | FLAG_WIDE_SHAPE);
        assert_eq!(&d[0x18..0x20], &[3, 0, 0, 0, 0xa0, 0x86, 1, 0]);
        let too_big = ArgDescriptor::Tensor {
            location: Location::Hbm,
            dtype: DTYPES[0x2],
            addr: 0,
            shape: vec![2, 2, 2, 2, 70_000],
            output: false,
        };
        assert_eq!(
            too_big.encode().unwrap_err().to_string(),
            "shape [2, 2, 2, 2, 70000] cannot be described: at most 8 dims of <= 65535 each, or at most 4 dims of <= 4294967295 each"
        );
    }

    #[test]
    fn a_shape_whose_element_count_overflows_num_elem_is_refused() {
        // Four dims of 65536 take the wide form, but their product is 2^64: it would wrap to 0.
        let wraps = ArgDescriptor::Tensor {
            location: Location::Hbm,
            dtype: DTYPES[0xC],
            addr: 0,
            shape: vec![65536; 4],
            output: true,
        };
        assert_eq!(
            wraps.encode().unwrap_err().to_string(),
            "shape [65536, 65536, 65536, 65536] cannot be described: the product of its dims is \
             over 2^64 - 1, more than num_elem holds"
        );
        assert_eq!(
            describe_shape(&[65535, 65535, 65535, 65537]).unwrap(),
            (ShapeForm::Wide, 65535u64.pow(3) * 65537)
        );
        assert_eq!(describe_shape(&[]).unwrap(), (ShapeForm::Narrow, 1));
        assert_eq!(describe_shape(&[3, 0, 9]).unwrap(), (ShapeForm::Narrow, 0));
        assert!(matches!(
            describe_shape(&[1; 9]),
            Err(DescriptorError::Shape { .. })
        ));
    }

    #[test]
    fn scalars_carry_their_value_in_addr() {
        let d = ArgDescriptor::Scalar(ScalarValue::Double(0.5))
            .encode()
            .unwrap();
        assert_eq!((d[0], d[1]), (2, 0xC));
        assert_eq!(&d[8..16], &0.5f64.to_bits().to_le_bytes());
        let d = ArgDescriptor::Scalar(ScalarValue::Int(-3))
            .encode()
            .unwrap();
        assert_eq!((d[0], d[1]), (2, 0x7));
        assert_eq!(&d[8..16], &(-3i64).to_le_bytes());
    }
}
