//! `.npy` files ⇄ [`HostTensor`]s: the header read by [`super::npy_header`] (bounded, every error
//! naming the byte offset), the data read raw (every accepted descr is little-endian, as the
//! tensors are); writing through `npyz` (`half` for float16). Every marshallable dtype of
//! PLATFORM.md "ISA dtype codes" has a `.npy` form; bfloat16 travels as `<u2` raw bits. C order
//! only. A file is read only when it is a regular file of at most [`MAX_NPY_BYTES`] (opened
//! through [`q7_loader::input`]) whose size is what its header says.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use npyz::WriterBuilder;
use q7_loader::input::{self, InputError, InputKind};

use super::dtype::Dtype;
use super::{npy_header, HostTensor};

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
    /// The header does not parse: where and what was expected.
    #[error("{path}: malformed .npy header at byte offset {offset}: {what}")]
    Header {
        /// The file.
        path: PathBuf,
        /// The byte offset in the file.
        offset: u64,
        /// What was expected there, and what was found (cut short).
        what: String,
    },
    /// The data is not what the header says: short, overlong or too large.
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

/// `$body` with `$T` the Rust element type of dtype `$code` (the tests' reference writer).
#[cfg(test)]
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

/// A `.npy` file whose header has been read and checked, and whose size matches it: its data,
/// [`NpyFile::data_bytes`] bytes from [`NpyFile::data_offset`], is read when it is needed —
/// whole into host memory ([`NpyFile::read`]) or in chunks ([`NpyFile::stream`], how `q7emu run`
/// places an input in HBM without a host copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyFile {
    /// The file.
    pub path: PathBuf,
    /// Its dtype.
    pub dtype: Dtype,
    /// Its shape.
    pub shape: Vec<u64>,
    /// The file offset of the first data byte.
    pub data_offset: u64,
    /// Bytes of data: elements × the dtype's size.
    pub data_bytes: u64,
    /// The file's size when it was opened.
    file_bytes: u64,
}

/// Bytes [`NpyFile::stream`] reads at a time.
pub const STREAM_CHUNK: usize = 1 << 20;

/// The header of the `.npy` read from `r`, checked: its dtype, shape and data size; `path`
/// names it in errors.
fn header(r: &mut impl Read, path: &Path) -> Result<(Dtype, Vec<u64>, u64, u64), NpyError> {
    let h = npy_header::read(r).map_err(|e| match e {
        npy_header::ReadError::Io(source) => NpyError::Io {
            path: path.to_path_buf(),
            source,
        },
        npy_header::ReadError::Header(e) => NpyError::Header {
            path: path.to_path_buf(),
            offset: e.offset,
            what: e.what,
        },
    })?;
    if h.fortran_order {
        return Err(NpyError::FortranOrder {
            path: path.to_path_buf(),
        });
    }
    let descr = match h.descr {
        npy_header::Descr::Plain(d) => d,
        npy_header::Descr::Other(text) => {
            return Err(NpyError::Dtype {
                path: path.to_path_buf(),
                descr: text,
            })
        }
    };
    let dtype = Dtype::from_npy(&descr).ok_or_else(|| NpyError::Dtype {
        path: path.to_path_buf(),
        descr: {
            // At most FRAGMENT_BYTES characters of it, control characters escaped.
            let mut cut: String = descr
                .chars()
                .take(npy_header::FRAGMENT_BYTES)
                .flat_map(|c| {
                    if c.is_control() {
                        c.escape_default().collect::<Vec<_>>()
                    } else {
                        vec![c]
                    }
                })
                .collect();
            if descr.chars().count() > npy_header::FRAGMENT_BYTES {
                cut.push('…');
            }
            cut
        },
    })?;
    let bytes = h
        .shape
        .iter()
        .try_fold(u64::from(dtype.bytes), |a, &d| a.checked_mul(d))
        .filter(|&n| n <= MAX_NPY_BYTES)
        .ok_or_else(|| NpyError::Malformed {
            path: path.to_path_buf(),
            why: format!(
                "shape {:?} of {descr} takes {} bytes of data, over the {MAX_NPY_BYTES}-byte \
                 limit for {}",
                h.shape,
                h.shape
                    .iter()
                    .try_fold(u64::from(dtype.bytes), |a, &d| a.checked_mul(d))
                    .map_or_else(|| "more than 2^64 - 1".to_string(), |n| n.to_string()),
                InputKind::Npy.limit().name
            ),
        })?;
    Ok((dtype, h.shape, h.data_offset, bytes))
}

/// The error for a file of `file_bytes` whose data of `data_bytes` from `offset` does not end
/// where the file does.
fn size_mismatch(
    path: &Path,
    dtype: Dtype,
    shape: &[u64],
    offset: u64,
    data_bytes: u64,
    file_bytes: u64,
) -> NpyError {
    let end = offset + data_bytes;
    let what = format!(
        "the data of shape {shape:?} of {} takes {data_bytes} bytes from byte offset {offset} to \
         {end}",
        dtype.npy.unwrap_or(dtype.name)
    );
    NpyError::Malformed {
        path: path.to_path_buf(),
        why: if file_bytes < end {
            format!(
                "{what}, but the file ends at byte offset {file_bytes}, {} bytes short",
                end - file_bytes
            )
        } else {
            format!(
                "{what}, but the file goes on for {} more bytes (it is {file_bytes} bytes)",
                file_bytes - end
            )
        },
    }
}

/// Opens a `.npy` file: reads and checks its header, and that its size is the header's data
/// size (so a short or overlong file is refused before any of its data is read).
pub fn open(path: &Path) -> Result<NpyFile, NpyError> {
    let (file, file_bytes) = input::open(path, InputKind::Npy)?;
    let (dtype, shape, data_offset, data_bytes) = header(&mut BufReader::new(file), path)?;
    if data_offset + data_bytes != file_bytes {
        return Err(size_mismatch(
            path,
            dtype,
            &shape,
            data_offset,
            data_bytes,
            file_bytes,
        ));
    }
    Ok(NpyFile {
        path: path.to_path_buf(),
        dtype,
        shape,
        data_offset,
        data_bytes,
        file_bytes,
    })
}

impl NpyFile {
    /// The file, opened again at its first data byte; refused when it changed size since
    /// [`open`].
    fn data(&self) -> Result<std::io::Take<std::fs::File>, NpyError> {
        let (file, size) = input::open(&self.path, InputKind::Npy)?;
        if size != self.file_bytes {
            return Err(NpyError::Malformed {
                path: self.path.clone(),
                why: format!(
                    "the file changed while it was used: it was {} bytes, it is {size}",
                    self.file_bytes
                ),
            });
        }
        let mut file = file.into_inner();
        file.seek(SeekFrom::Start(self.data_offset))
            .map_err(io(&self.path))?;
        Ok(file.take(self.data_bytes))
    }

    /// The error for data that ended `got` bytes in.
    fn short(&self, got: u64) -> NpyError {
        size_mismatch(
            &self.path,
            self.dtype,
            &self.shape,
            self.data_offset,
            self.data_bytes,
            self.data_offset + got,
        )
    }

    /// The tensor, its data read once into host memory (one buffer of [`NpyFile::data_bytes`]).
    pub fn read(&self) -> Result<HostTensor, NpyError> {
        let mut data = vec![0u8; self.data_bytes as usize];
        let got = npy_header::fill(&mut self.data()?, &mut data).map_err(io(&self.path))?;
        if got as u64 != self.data_bytes {
            return Err(self.short(got as u64));
        }
        Ok(HostTensor {
            dtype: self.dtype,
            shape: self.shape.clone(),
            data,
        })
    }

    /// Hands the data to `sink` in order, [`STREAM_CHUNK`] bytes at a time, each with its offset
    /// from the first data byte: the only host memory it takes is one chunk. The sink's error
    /// stops it.
    pub fn stream<E: From<NpyError>>(
        &self,
        mut sink: impl FnMut(u64, &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut file = self.data()?;
        let mut chunk = vec![0u8; STREAM_CHUNK.min(self.data_bytes as usize)];
        let mut done = 0u64;
        while done < self.data_bytes {
            let want = (self.data_bytes - done).min(chunk.len() as u64) as usize;
            let got = npy_header::fill(&mut file, &mut chunk[..want]).map_err(io(&self.path))?;
            if got < want {
                return Err(self.short(done + got as u64).into());
            }
            sink(done, &chunk[..want])?;
            done += want as u64;
        }
        Ok(())
    }
}

/// Reads a `.npy` file whole ([`open`], then [`NpyFile::read`]).
pub fn read(path: &Path) -> Result<HostTensor, NpyError> {
    open(path)?.read()
}

/// Parses `.npy` bytes from `r`, which must end where the data does; `path` names them in
/// errors.
pub fn from_reader(mut r: impl Read, path: &Path) -> Result<HostTensor, NpyError> {
    let (dtype, shape, offset, bytes) = header(&mut r, path)?;
    // Grown as the bytes come (a lying shape cannot make it allocate more than it reads), one
    // byte past the data to tell trailing bytes.
    let mut data = Vec::with_capacity(bytes.min(64 << 10) as usize);
    (&mut r)
        .take(bytes + 1)
        .read_to_end(&mut data)
        .map_err(io(path))?;
    if data.len() as u64 != bytes {
        let mut file_bytes = offset + data.len() as u64;
        if data.len() as u64 > bytes {
            // How far it goes on does not matter; count what is there.
            file_bytes += std::io::copy(&mut r, &mut std::io::sink()).map_err(io(path))?;
        }
        return Err(size_mismatch(
            path, dtype, &shape, offset, bytes, file_bytes,
        ));
    }
    Ok(HostTensor { dtype, shape, data })
}

/// Writes `t` as a `.npy` file (C order; bfloat16 as `<u2`), whole: into a temporary file
/// beside `path`, renamed over it once complete ([`q7_conventions::output::AtomicFile`]), so a failed
/// write leaves what was at `path` as it was.
pub fn write(path: &Path, t: &HostTensor) -> Result<(), NpyError> {
    write_whole(q7_conventions::output::AtomicFile::create(path)?, t)
}

/// Writes `t` in `.npy` form into `file` and renames it into place.
pub fn write_whole(
    mut file: q7_conventions::output::AtomicFile,
    t: &HostTensor,
) -> Result<(), NpyError> {
    let path = file.path().to_path_buf();
    to_writer(&mut file, t).map_err(io(&path))?;
    Ok(file.commit()?)
}

impl From<q7_conventions::output::WriteError> for NpyError {
    fn from(e: q7_conventions::output::WriteError) -> NpyError {
        NpyError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

/// Writes `t` in `.npy` form to `w`: the header (npyz's), then the data as it is. Every
/// marshallable dtype's descr is little-endian or a single byte (`<f4`, `|i1`, the dtype
/// table), the order a host tensor's bytes are in, so they are the file's data bytes; one
/// write, where pushing element by element took a millisecond a megabyte.
pub fn to_writer(mut w: impl std::io::Write, t: &HostTensor) -> std::io::Result<()> {
    let descr = t.dtype.npy.expect("a host tensor has a marshallable dtype");
    debug_assert!(descr.starts_with(['<', '|']), "{descr}: not little-endian");
    let dtype = npyz::DType::Plain(descr.parse().expect("the dtype table's descrs parse"));
    if t.numel().checked_mul(u64::from(t.dtype.bytes)) != Some(t.data.len() as u64) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{} bytes of {} data for shape {:?}",
                t.data.len(),
                t.dtype.numpy_name(),
                t.shape
            ),
        ));
    }
    npyz::WriteOptions::new_header_only()
        .dtype(dtype)
        .shape(&t.shape)
        .writer(&mut w)
        .write_header_only()?;
    w.write_all(&t.data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DTYPES;

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
    fn a_file_is_the_header_then_the_data_bytes_as_elements_pushed_one_by_one_make() {
        // Every marshallable descr is little-endian or one byte (the dtype table), so the
        // data section is the tensor's bytes: the same file npyz makes element by element.
        for d in DTYPES.iter().filter(|d| d.marshallable()) {
            let t = HostTensor {
                dtype: *d,
                shape: vec![3, 1, 2],
                data: (0..6 * usize::from(d.bytes))
                    .map(|i| (i * 53 + 7) as u8)
                    .collect(),
            };
            let mut pushed = Vec::new();
            let dtype = npyz::DType::Plain(d.npy.unwrap().parse().unwrap());
            by_dtype!(d.code, T => {
                let mut out = npyz::WriteOptions::<T>::new()
                    .dtype(dtype)
                    .shape(&t.shape)
                    .writer(&mut pushed)
                    .begin_nd()
                    .unwrap();
                for c in t.data.chunks_exact(std::mem::size_of::<T>()) {
                    out.push(&T::from_le_bytes(c.try_into().unwrap())).unwrap();
                }
                out.finish().unwrap();
            });
            let mut written = Vec::new();
            to_writer(&mut written, &t).unwrap();
            assert_eq!(written, pushed, "{}", d.name);
            assert_eq!(
                written[written.len() - t.data.len()..],
                t.data[..],
                "{}",
                d.name
            );
        }
    }

    #[test]
    fn a_tensor_whose_data_does_not_fill_its_shape_is_not_written() {
        let t = HostTensor {
            dtype: Dtype::from_npy("<f4").unwrap(),
            shape: vec![2, 3],
            data: vec![0; 23],
        };
        let e = to_writer(Vec::new(), &t).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(e.to_string(), "23 bytes of float32 data for shape [2, 3]");
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
        // npyz pads the header to 128 bytes: the data is bytes 128..144.
        let short = &buf[..buf.len() - 3];
        let e = from_reader(short, Path::new("x.npy"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "x.npy: malformed .npy: the data of shape [4] of <f4 takes 16 bytes from byte offset \
             128 to 144, but the file ends at byte offset 141, 3 bytes short"
        );
        let mut long = buf.clone();
        long.extend_from_slice(b"extra");
        let e = from_reader(&long[..], Path::new("x.npy"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "x.npy: malformed .npy: the data of shape [4] of <f4 takes 16 bytes from byte offset \
             128 to 144, but the file goes on for 5 more bytes (it is 149 bytes)"
        );
        let header_cut = &buf[..40];
        let e = from_reader(header_cut, Path::new("x.npy"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "x.npy: malformed .npy header at byte offset 40: the file ends inside the header: its \
             length says 118 bytes from byte offset 10, the file has 30"
        );
        let patch = |from: &[u8], to: &[u8]| {
            let mut b = buf.clone();
            let at = b.windows(from.len()).position(|w| w == from).unwrap();
            b[at..at + to.len()].copy_from_slice(to);
            b
        };
        let long = from_reader(
            &crate::npy_header::tests_support::v1(&format!(
                "{{'descr': '{}', 'fortran_order': False, 'shape': (1,)}}",
                "z".repeat(5000)
            ))[..],
            Path::new("long.npy"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            long,
            format!(
                "long.npy: dtype {}… is not supported (supported: int8, uint8, int16, int32, \
                 int64, float16, float32, and bfloat16 as uint16 raw bits)",
                "z".repeat(40)
            )
        );
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
        assert_eq!(
            e,
            "w.npy: malformed .npy header at byte offset 0: expected the magic string \
             \"\\x93NUMPY\" that starts a .npy file, found \"not nump\""
        );
        let e = read(Path::new("/dev/null")).unwrap_err().to_string();
        assert_eq!(e, "/dev/null: not a regular file (a character device)");
    }
}
