//! `.npy` files ⇄ [`HostTensor`]s, through `npyz` (header parsing, typed element reading and
//! writing; `half` for float16). Every marshallable dtype of PLATFORM.md "ISA dtype codes" has a
//! `.npy` form; bfloat16 travels as `<u2` raw bits. C order only. A file is read only when it is
//! a regular file of at most [`MAX_NPY_BYTES`] (opened through [`q7_loader::input`]).

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use npyz::WriterBuilder;
use q7_loader::input::{self, InputError, InputKind};

use super::dtype::Dtype;
use super::HostTensor;

/// Largest `.npy` file read: the `.npy` row of [`q7_loader::input::LIMITS`] (1 GiB), a bound on
/// host memory far above any tensor a kernel test uses, below the emulated HBM.
pub const MAX_NPY_BYTES: u64 = InputKind::Npy.limit().bytes;

/// What is wrong with a `.npy` file, naming it.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    /// It cannot be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a regular file, or larger than [`MAX_NPY_BYTES`].
    #[error(transparent)]
    Input(#[from] InputError),
    /// The header does not parse, or the data is short.
    #[error("{path}: malformed .npy: {why}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What.
        why: String,
    },
    /// Fortran order.
    #[error("{path}: Fortran-ordered array; q7emu reads C-ordered arrays only (numpy.ascontiguousarray)")]
    FortranOrder {
        /// The file.
        path: PathBuf,
    },
    /// A dtype that no marshallable ISA dtype matches.
    #[error("{path}: dtype {descr} is not supported (supported: int8, uint8, int16, int32, int64, float16, float32, and bfloat16 as uint16 raw bits)")]
    Dtype {
        /// The file.
        path: PathBuf,
        /// The header's descr.
        descr: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> NpyError + '_ {
    move |source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

macro_rules! by_dtype {
    ($code:expr, $T:ident => $body:expr) => {
        match $code {
            0x2 => {
                type $T = i8;
                $body
            }
            0x3 => {
                type $T = u8;
                $body
            }
            0x4 => {
                type $T = i16;
                $body
            }
            0x6 => {
                type $T = i32;
                $body
            }
            0x7 => {
                type $T = i64;
                $body
            }
            0x8 => {
                type $T = half::f16;
                $body
            }
            0xA => {
                type $T = u16;
                $body
            }
            0xC => {
                type $T = f32;
                $body
            }
            other => unreachable!("dtype {other:#x} has no .npy form"),
        }
    };
}

/// Reads a `.npy` file.
pub fn read(path: &Path) -> Result<HostTensor, NpyError> {
    let (file, _) = input::open(path, InputKind::Npy)?;
    from_reader(BufReader::new(file), path)
}

/// Parses `.npy` bytes from `r`; `path` names them in errors.
pub fn from_reader(r: impl Read, path: &Path) -> Result<HostTensor, NpyError> {
    let malformed = |why: String| NpyError::Malformed {
        path: path.to_path_buf(),
        why,
    };
    let npy = npyz::NpyFile::new(r).map_err(|e| malformed(e.to_string()))?;
    if npy.order() == npyz::Order::Fortran {
        return Err(NpyError::FortranOrder {
            path: path.to_path_buf(),
        });
    }
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => other.descr(), // records and arrays: never supported
    };
    let dtype = Dtype::from_npy(&descr).ok_or_else(|| NpyError::Dtype {
        path: path.to_path_buf(),
        descr: descr.clone(),
    })?;
    let shape = npy.shape().to_vec();
    let count = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .filter(|n| n.saturating_mul(u64::from(dtype.bytes)) <= MAX_NPY_BYTES)
        .ok_or_else(|| malformed(format!("shape {shape:?} is larger than the file can hold")))?;
    let data = by_dtype!(dtype.code, T => {
        let v: Vec<T> = npy
            .into_vec()
            .map_err(|e| malformed(format!("{count} elements of {descr} expected: {e}")))?;
        v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()
    });
    Ok(HostTensor { dtype, shape, data })
}

/// Writes `t` as a `.npy` file (C order; bfloat16 as `<u2`), whole: into a temporary file
/// beside `path`, renamed over it once complete ([`crate::output::AtomicFile`]), so a failed
/// write leaves what was at `path` as it was.
pub fn write(path: &Path, t: &HostTensor) -> Result<(), NpyError> {
    write_whole(crate::output::AtomicFile::create(path)?, t)
}

/// Writes `t` in `.npy` form into `file` and renames it into place.
pub fn write_whole(mut file: crate::output::AtomicFile, t: &HostTensor) -> Result<(), NpyError> {
    let path = file.path().to_path_buf();
    to_writer(&mut file, t).map_err(io(&path))?;
    Ok(file.commit()?)
}

impl From<crate::output::WriteError> for NpyError {
    fn from(e: crate::output::WriteError) -> NpyError {
        NpyError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

/// Writes `t` in `.npy` form to `w`.
pub fn to_writer(w: impl std::io::Write, t: &HostTensor) -> std::io::Result<()> {
    let descr = t.dtype.npy.expect("a host tensor has a marshallable dtype");
    let dtype = npyz::DType::Plain(descr.parse().expect("the dtype table's descrs parse"));
    by_dtype!(t.dtype.code, T => {
        let size = std::mem::size_of::<T>();
        let mut out = npyz::WriteOptions::<T>::new()
            .dtype(dtype)
            .shape(&t.shape)
            .writer(w)
            .begin_nd()?;
        for c in t.data.chunks_exact(size) {
            out.push(&T::from_le_bytes(c.try_into().expect("chunk of the element size")))?;
        }
        out.finish()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::dtype::DTYPES;

    fn roundtrip(t: &HostTensor) -> HostTensor {
        let mut buf = Vec::new();
        to_writer(&mut buf, t).unwrap();
        from_reader(&buf[..], Path::new("mem.npy")).unwrap()
    }

    #[test]
    fn every_marshallable_dtype_round_trips_bit_for_bit() {
        for d in DTYPES.iter().filter(|d| d.marshallable()) {
            let n = 6 * usize::from(d.bytes);
            let t = HostTensor {
                dtype: *d,
                shape: vec![2, 3],
                data: (0..n).map(|i| (i * 37 + 11) as u8).collect(),
            };
            assert_eq!(roundtrip(&t), t, "{}", d.name);
        }
    }

    #[test]
    fn a_numpy_written_float32_header_reads() {
        // numpy.save of np.arange(3, dtype=np.float32): version 1.0 header, padded to 64 bytes.
        let mut f = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        let mut h = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }".to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        f[8] = h.len() as u8;
        f.extend_from_slice(h.as_bytes());
        for x in [0.0f32, 1.0, 2.0] {
            f.extend_from_slice(&x.to_le_bytes());
        }
        let t = from_reader(&f[..], Path::new("a.npy")).unwrap();
        assert_eq!((t.dtype.name, t.shape.clone()), ("FP32", vec![3]));
        assert_eq!(t.data[4..8], 1.0f32.to_le_bytes());
    }

    #[test]
    fn errors_name_the_file_and_what_is_wrong() {
        let mut buf = Vec::new();
        to_writer(
            &mut buf,
            &HostTensor {
                dtype: DTYPES[0xC],
                shape: vec![4],
                data: vec![0; 16],
            },
        )
        .unwrap();
        let short = &buf[..buf.len() - 3];
        let e = from_reader(short, Path::new("x.npy"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("x.npy: malformed .npy: 4 elements of <f4 expected"),
            "{e}"
        );
        let patch = |from: &[u8], to: &[u8]| {
            let mut b = buf.clone();
            let at = b.windows(from.len()).position(|w| w == from).unwrap();
            b[at..at + to.len()].copy_from_slice(to);
            b
        };
        let f8 = patch(b"<f4", b"<f8");
        let e = from_reader(&f8[..], Path::new("y.npy"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("y.npy: dtype <f8 is not supported"), "{e}");
        let fortran = patch(b"False", b"True ");
        let e = from_reader(&fortran[..], Path::new("z.npy")).unwrap_err();
        assert!(matches!(e, NpyError::FortranOrder { .. }), "{e}");
        let e = from_reader(&b"not numpy"[..], Path::new("w.npy"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("w.npy: malformed .npy: "), "{e}");
        let e = read(Path::new("/dev/null")).unwrap_err().to_string();
        assert_eq!(e, "/dev/null: not a regular file (a character device)");
    }
}
