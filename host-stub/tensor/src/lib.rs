//! # q7-tensor — an op's arguments on the host
//!
//! Host-side tensors and scalars: the ISA dtype table ([`dtype`]), the ARG_TENSOR descriptor
//! ([`descriptor`]), `.npy` files ([`npy`], their headers [`npy_header`]), the kinds of
//! argument a schema declares ([`arg_kind`]), the grammar of scalar arguments ([`scalar`]) and
//! the tensor arguments of a run ([`TensorInput`]).

pub mod arg_kind;
pub mod descriptor;
pub mod dtype;
pub mod npy;
pub mod npy_header;
pub mod scalar;

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
    /// Element count (`u64::MAX` for a shape whose product overflows, which no run accepts).
    pub fn numel(&self) -> u64 {
        self.shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .unwrap_or(u64::MAX)
    }
}

/// A tensor argument of a run: a tensor in host memory, or a `.npy` file whose header has been
/// checked and whose data goes straight from the file into HBM, in chunks (`q7emu run --input`:
/// no host copy of the tensor is made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensorInput {
    /// In host memory.
    Host(HostTensor),
    /// A `.npy` file.
    Npy(npy::NpyFile),
}

impl TensorInput {
    /// The dtype.
    pub fn dtype(&self) -> Dtype {
        match self {
            TensorInput::Host(t) => t.dtype,
            TensorInput::Npy(f) => f.dtype,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[u64] {
        match self {
            TensorInput::Host(t) => &t.shape,
            TensorInput::Npy(f) => &f.shape,
        }
    }
}

impl From<HostTensor> for TensorInput {
    fn from(t: HostTensor) -> TensorInput {
        TensorInput::Host(t)
    }
}

impl From<npy::NpyFile> for TensorInput {
    fn from(f: npy::NpyFile) -> TensorInput {
        TensorInput::Npy(f)
    }
}
