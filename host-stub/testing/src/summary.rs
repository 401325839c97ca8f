//! What a run computed, in a stable, readable form for snapshots: [`Summary`] lists every value
//! of a small output, or gives a larger one's [`DIGEST`], samples and statistics, and each
//! core's counters on lines of their own (docs/testing.md).

use std::fmt;

use serde::Serialize;

use super::element::{element_text, readable, value, Number, Value};
use q7_run::op::OpRun;
use q7_tensor::HostTensor;

/// Outputs of at most this many elements are listed whole; larger ones are summarised.
pub const LISTED_ELEMENTS: usize = 64;
/// Elements shown from each end of a summarised output.
pub const HEAD_TAIL: usize = 8;
/// Values per line of a listed output (the text form).
pub const VALUES_PER_LINE: usize = 8;
/// The digest of a summarised output: SHA-256 of its little-endian element bytes (C order),
/// written `sha256:<64 lowercase hex digits>`.
pub const DIGEST: &str = "sha256";

/// One core's counters of the dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CoreCounts {
    /// The core.
    pub core: u32,
    /// Instructions it executed.
    pub instructions: u64,
    /// Cycles it took.
    pub cycles: u64,
}

/// The output's values: all of them, or a digest with samples and statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Values {
    /// At most [`LISTED_ELEMENTS`] elements: each, in C order.
    All {
        /// The elements, as [`element_text`] writes them.
        values: Vec<String>,
    },
    /// More elements.
    Digest(Digest),
}

/// A larger output: [`DIGEST`] of its bytes, samples from each end, statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Digest {
    /// `sha256:` and the hex digest of the output's bytes.
    pub digest: String,
    /// The first [`HEAD_TAIL`] elements.
    pub head: Vec<String>,
    /// The last [`HEAD_TAIL`] elements.
    pub tail: Vec<String>,
    /// The least element (NaNs left out; the first of equal ones); `None` when all are NaN.
    pub min: Option<String>,
    /// The greatest element, likewise.
    pub max: Option<String>,
    /// The mean of the non-NaN elements, summed in C order in f64, in its shortest
    /// round-trip form; `None` when all are NaN.
    pub mean: Option<String>,
    /// NaN elements.
    pub nan: u64,
    /// Infinite elements (either sign).
    pub inf: u64,
    /// Zero elements (either sign).
    pub zero: u64,
}

/// What a run computed, in a stable, readable form for snapshots: `Display` is the text
/// form, `Serialize` the YAML/JSON form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The op's name.
    pub op: String,
    /// The output's dtype, by its numpy name (`float32`, `bfloat16`, …).
    pub dtype: String,
    /// The output's shape.
    pub shape: Vec<u64>,
    /// Its element count.
    pub elements: u64,
    /// Its values.
    pub output: Values,
    /// Per core, in core order; `None` after [`Summary::outputs_only`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cores: Option<Vec<CoreCounts>>,
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    format!("{DIGEST}:{}", q7_kernel_build::metadata::sha256_hex(bytes))
}

impl Digest {
    fn of(t: &HostTensor) -> Digest {
        let n = readable(t);
        let text =
            |r: std::ops::Range<usize>| r.filter_map(|i| element_text(t, i)).collect::<Vec<_>>();
        let (mut min, mut max) = (None::<(Value, Number)>, None::<(Value, Number)>);
        let (mut sum, mut counted) = (0f64, 0u64);
        let (mut nan, mut inf, mut zero) = (0, 0, 0);
        for v in (0..n).filter_map(|i| value(t, i)) {
            let num = v.number();
            let x = match num {
                Number::Int(i) => i as f64,
                Number::Float(f) => f,
            };
            if x.is_nan() {
                nan += 1;
                continue;
            }
            inf += u64::from(x.is_infinite());
            zero += u64::from(x == 0.0);
            sum += x;
            counted += 1;
            if !matches!(min, Some((_, m)) if m <= num) {
                min = Some((v, num));
            }
            if !matches!(max, Some((_, m)) if m >= num) {
                max = Some((v, num));
            }
        }
        let bytes = t.dtype.bytes;
        Digest {
            digest: digest(&t.data),
            head: text(0..HEAD_TAIL.min(n)),
            tail: text(n.saturating_sub(HEAD_TAIL)..n),
            min: min.map(|(v, _)| v.text(bytes)),
            max: max.map(|(v, _)| v.text(bytes)),
            mean: (counted > 0).then(|| format!("{:?}", sum / counted as f64)),
            nan,
            inf,
            zero,
        }
    }
}

impl Summary {
    /// The summary of op `op`'s `output`, with the per-core `cores` counters.
    /// (A tensor whose bytes fall short of its shape is summarised over the elements they
    /// hold; the runner's outputs always fill theirs.)
    pub fn new(op: impl Into<String>, output: &HostTensor, cores: Vec<CoreCounts>) -> Summary {
        let n = readable(output);
        let values = if n <= LISTED_ELEMENTS {
            Values::All {
                values: (0..n).filter_map(|i| element_text(output, i)).collect(),
            }
        } else {
            Values::Digest(Digest::of(output))
        };
        Summary {
            op: op.into(),
            dtype: output.dtype.numpy_name().to_string(),
            shape: output.shape.clone(),
            elements: output.numel(),
            output: values,
            cores: Some(cores),
        }
    }

    /// The summary of a run.
    pub fn of(run: &OpRun) -> Summary {
        let cores = run
            .cores
            .iter()
            .map(|c| CoreCounts {
                core: c.core,
                instructions: c.stats.instructions,
                cycles: c.stats.cycles,
            })
            .collect();
        Summary::new(run.op.name.clone(), &run.output, cores)
    }

    /// The same summary without the per-core counters: for a snapshot of what the kernel
    /// computes, whatever it costs.
    pub fn outputs_only(mut self) -> Summary {
        self.cores = None;
        self
    }

    /// The text form (what `Display` writes).
    pub fn text(&self) -> String {
        self.to_string()
    }
}

impl From<&OpRun> for Summary {
    fn from(run: &OpRun) -> Summary {
        Summary::of(run)
    }
}

fn or_none(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("none")
}

impl fmt::Display for Summary {
    /// One fact per line:
    ///
    /// ```text
    /// op: affine
    /// output: float32 [4], 4 elements
    /// values:
    ///   [0..4] -2.5, 0.5, 1.0, 6.5
    /// core 0 instructions: 1234
    /// core 0 cycles: 5678
    /// ```
    ///
    /// A larger output has `digest:`, `head:`, `tail:`, `min:`, `max:`, `mean:`, `nan:`,
    /// `inf:` and `zero:` lines instead of `values:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "op: {}", self.op)?;
        writeln!(
            f,
            "output: {} {:?}, {} elements",
            self.dtype, self.shape, self.elements
        )?;
        match &self.output {
            Values::All { values } => {
                writeln!(f, "values:")?;
                for (k, line) in values.chunks(VALUES_PER_LINE).enumerate() {
                    let start = k * VALUES_PER_LINE;
                    writeln!(f, "  [{start}..{}] {}", start + line.len(), line.join(", "))?;
                }
            }
            Values::Digest(d) => {
                writeln!(f, "digest: {}", d.digest)?;
                writeln!(f, "head: {}", d.head.join(", "))?;
                writeln!(f, "tail: {}", d.tail.join(", "))?;
                writeln!(f, "min: {}", or_none(&d.min))?;
                writeln!(f, "max: {}", or_none(&d.max))?;
                writeln!(f, "mean: {}", or_none(&d.mean))?;
                writeln!(f, "nan: {}", d.nan)?;
                writeln!(f, "inf: {}", d.inf)?;
                writeln!(f, "zero: {}", d.zero)?;
            }
        }
        for c in self.cores.iter().flatten() {
            writeln!(f, "core {} instructions: {}", c.core, c.instructions)?;
            writeln!(f, "core {} cycles: {}", c.core, c.cycles)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor;

    fn counts() -> Vec<CoreCounts> {
        vec![CoreCounts {
            core: 0,
            instructions: 1234,
            cycles: 5678,
        }]
    }
    #[test]
    fn small_outputs_list_every_value_eight_to_a_line_then_the_cores() {
        let t = tensor(&[2, 5], &[-3i32, -2, -1, 0, 1, 2, 3, 4, 5, 2147483647]).unwrap();
        let s = Summary::new("f", &t, counts());
        assert_eq!(
            s.text(),
            "op: f\n\
             output: int32 [2, 5], 10 elements\n\
             values:\n  \
             [0..8] -3, -2, -1, 0, 1, 2, 3, 4\n  \
             [8..10] 5, 2147483647\n\
             core 0 instructions: 1234\n\
             core 0 cycles: 5678\n"
        );
        assert_eq!(
            s.clone().outputs_only().text(),
            "op: f\noutput: int32 [2, 5], 10 elements\nvalues:\n  \
             [0..8] -3, -2, -1, 0, 1, 2, 3, 4\n  [8..10] 5, 2147483647\n",
            "outputs only: no core lines"
        );
    }
    #[test]
    fn the_listing_limit_is_64_elements() {
        let at = tensor(&[64], &[0u8; 64]).unwrap();
        let over = tensor(&[65], &[0u8; 65]).unwrap();
        assert!(matches!(
            Summary::new("f", &at, vec![]).output,
            Values::All { values } if values.len() == 64
        ));
        assert!(matches!(
            Summary::new("f", &over, vec![]).output,
            Values::Digest(_)
        ));
    }
    #[test]
    fn large_outputs_give_a_sha256_digest_head_tail_and_statistics() {
        // (i - 50) / 4 for i < 100: -12.5 ... 12.25, one zero, mean -0.125; the digest is
        // SHA-256 of the 400 little-endian bytes (computed independently).
        let v: Vec<f32> = (0..100).map(|i| (i - 50) as f32 * 0.25).collect();
        let t = tensor(&[10, 10], &v).unwrap();
        let s = Summary::new("ramp", &t, counts());
        assert_eq!(
            s.text(),
            "op: ramp\n\
             output: float32 [10, 10], 100 elements\n\
             digest: sha256:810a95cd4a59e78dbdd8429e75cd08a7b24c32c266b2232feba83d0655db6ea0\n\
             head: -12.5, -12.25, -12.0, -11.75, -11.5, -11.25, -11.0, -10.75\n\
             tail: 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25\n\
             min: -12.5\n\
             max: 12.25\n\
             mean: -0.125\n\
             nan: 0\n\
             inf: 0\n\
             zero: 1\n\
             core 0 instructions: 1234\n\
             core 0 cycles: 5678\n"
        );
    }
    #[test]
    fn statistics_leave_nans_out_and_say_none_when_nothing_is_left() {
        let nans = tensor(&[65], &[f32::from_bits(0x7fc0_0000); 65]).unwrap();
        let Values::Digest(d) = Summary::new("f", &nans, vec![]).output else {
            panic!("65 elements are summarised");
        };
        assert_eq!(
            d.digest,
            "sha256:c73131523b0b2866bf3d2be64db5721472f73d33384f06d1a2628657c80a54c3"
        );
        assert_eq!((d.min, d.max, d.mean), (None, None, None));
        assert_eq!((d.nan, d.inf, d.zero), (65, 0, 0));
        // int16: the extremes exactly; mean (-32768 + 1 + … + 63 + 32767) / 65 = 31.
        let mut v: Vec<i16> = (0..65).collect();
        v[0] = i16::MIN;
        v[64] = i16::MAX;
        let Values::Digest(d) = Summary::new("f", &tensor(&[65], &v).unwrap(), vec![]).output
        else {
            panic!("65 elements are summarised");
        };
        assert_eq!(d.min.as_deref(), Some("-32768"));
        assert_eq!(d.max.as_deref(), Some("32767"));
        assert_eq!(d.mean.as_deref(), Some("31.0"));
        assert_eq!((d.nan, d.inf, d.zero), (0, 0, 0));
        // Both infinities: counted, the extremes, and a NaN mean.
        let mut v = vec![1.0f32; 70];
        v[3] = f32::INFINITY;
        v[4] = f32::NEG_INFINITY;
        v[5] = 0.0;
        v[6] = -0.0;
        let Values::Digest(d) = Summary::new("f", &tensor(&[70], &v).unwrap(), vec![]).output
        else {
            panic!("70 elements are summarised");
        };
        assert_eq!(
            (d.min.as_deref(), d.max.as_deref()),
            (Some("-inf"), Some("inf"))
        );
        assert_eq!(d.mean.as_deref(), Some("NaN"));
        assert_eq!((d.nan, d.inf, d.zero), (0, 2, 2));
    }
    #[test]
    fn the_serialised_form_has_the_same_facts_and_drops_cores_when_outputs_only() {
        let t = tensor(&[2], &[0.5f32, -1.0]).unwrap();
        let s = Summary::new("f", &t, counts());
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({
                "op": "f",
                "dtype": "float32",
                "shape": [2],
                "elements": 2,
                "output": { "values": ["0.5", "-1.0"] },
                "cores": [{ "core": 0, "instructions": 1234, "cycles": 5678 }],
            })
        );
        let json = serde_json::to_value(s.outputs_only()).unwrap();
        assert_eq!(json.get("cores"), None);
        let big = tensor(&[65], &[0u8; 65]).unwrap();
        let json = serde_json::to_value(Summary::new("g", &big, vec![])).unwrap();
        let keys: Vec<&String> = json["output"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["digest", "head", "inf", "max", "mean", "min", "nan", "tail", "zero"],
            "the digest form's fields (serde_json sorts them)"
        );
    }
    #[test]
    fn digests_are_sha256_of_the_bytes() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
