//! Host-side tensors: the ISA dtype table ([`dtype`]), the ARG_TENSOR descriptor
//! ([`descriptor`]) and `.npy` files ([`npy`]).

pub mod descriptor;
pub mod dtype;
pub mod npy;

use dtype::Dtype;

/// A C-ordered tensor on the host: dtype, shape and little-endian element bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTensor {
    /// Element dtype (marshallable).
    pub dtype: Dtype,
    /// Dims, outermost first.
    pub shape: Vec<u64>,
    /// `numel × dtype.bytes` bytes, little-endian elements.
    pub data: Vec<u8>,
}

impl HostTensor {
    /// Element count.
    pub fn numel(&self) -> u64 {
        self.shape.iter().product()
    }

    /// A zero-filled tensor.
    pub fn zeros(dtype: Dtype, shape: Vec<u64>) -> HostTensor {
        let n = shape.iter().product::<u64>() as usize * usize::from(dtype.bytes);
        HostTensor {
            dtype,
            shape,
            data: vec![0; n],
        }
    }
}
