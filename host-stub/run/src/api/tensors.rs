//! The inputs of a run: [`tensor`] makes one from a slice and a shape, its dtype following the
//! element type ([`Element`]); [`tensor_from_bytes`] takes any marshallable dtype (PLATFORM.md
//! "ISA dtype codes") and raw little-endian bytes.

use super::ApiError;
use q7_tensor::dtype::{Dtype, DTYPES};
use q7_tensor::HostTensor;

mod sealed {
    pub trait Sealed {}
}

/// An element type with a marshallable dtype: `i8`, `u8`, `i16`, `i32`, `i64`, `f32`,
/// `half::f16`, `half::bf16`.
pub trait Element: Copy + sealed::Sealed {
    /// Its ISA dtype code.
    const CODE: u8;
    /// Appends its little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! elements {
    ($($t:ty => $code:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const CODE: u8 = $code;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

elements!(i8 => 0x2, u8 => 0x3, i16 => 0x4, i32 => 0x6, i64 => 0x7, half::f16 => 0x8,
          half::bf16 => 0xA, f32 => 0xC);

/// The element count of `shape`, when it fits a `usize`.
fn numel(shape: &[u64]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
}

/// A C-ordered tensor of `shape` holding `values`, of `T`'s dtype.
pub fn tensor<T: Element>(shape: &[u64], values: &[T]) -> Result<HostTensor, ApiError> {
    if numel(shape) != Some(values.len()) {
        return Err(ApiError::Shape {
            shape: shape.to_vec(),
            want: numel(shape).map_or(format!("more than {}", usize::MAX), |n| n.to_string()),
            got: values.len(),
        });
    }
    let dtype = DTYPES[usize::from(T::CODE)];
    let mut data = Vec::with_capacity(values.len() * usize::from(dtype.bytes));
    for v in values {
        v.put(&mut data);
    }
    Ok(HostTensor {
        dtype,
        shape: shape.to_vec(),
        data,
    })
}

/// A C-ordered tensor of `shape` and `dtype` whose little-endian element bytes are `data`.
pub fn tensor_from_bytes(
    dtype: Dtype,
    shape: &[u64],
    data: Vec<u8>,
) -> Result<HostTensor, ApiError> {
    if !dtype.marshallable() {
        return Err(ApiError::Dtype(dtype));
    }
    let want = numel(shape).and_then(|n| n.checked_mul(usize::from(dtype.bytes)));
    if want != Some(data.len()) {
        return Err(ApiError::Bytes {
            shape: shape.to_vec(),
            dtype,
            want: want.map_or(format!("more than {}", usize::MAX), |n| n.to_string()),
            got: data.len(),
        });
    }
    Ok(HostTensor {
        dtype,
        shape: shape.to_vec(),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensors_must_fill_their_shape() {
        assert_eq!(
            tensor(&[2, 3], &[1.0f32; 5]).unwrap_err().to_string(),
            "shape [2, 3] holds 6 elements, 5 given"
        );
        assert_eq!(
            tensor(&[u64::MAX, 2], &[1u8]).unwrap_err().to_string(),
            "shape [18446744073709551615, 2] holds more than 18446744073709551615 elements, 1 given"
        );
        let f32_ = Dtype::from_name("float32").unwrap();
        assert_eq!(
            tensor_from_bytes(f32_, &[2], vec![0; 7])
                .unwrap_err()
                .to_string(),
            "shape [2] of FP32 (code 0xc) takes 8 bytes, 7 given"
        );
        assert_eq!(
            tensor_from_bytes(DTYPES[0xB], &[1], vec![0; 4])
                .unwrap_err()
                .to_string(),
            "FP32R (code 0xb) is not a dtype the runtime marshals (PLATFORM.md \"ISA dtype codes\")"
        );
        let t = tensor(&[2], &[1.5f32, 2.0]).unwrap();
        assert_eq!(tensor_from_bytes(f32_, &[2], t.data.clone()).unwrap(), t);
    }
}
