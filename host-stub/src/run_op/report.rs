//! What `q7emu run` prints: a short human summary and the JSON run report.

use serde_json::{json, Value};

use super::OpRun;
use crate::tensor::HostTensor;

/// Elements shown from each end of the output in the summary.
const SHOWN: usize = 6;

/// Element `i` of `t` as text: integers exactly, floats in their shortest round-trip form
/// (float16 and bfloat16 through their exact float32 value).
pub fn element(t: &HostTensor, i: usize) -> String {
    let b = usize::from(t.dtype.bytes);
    let e = &t.data[i * b..(i + 1) * b];
    match t.dtype.code {
        0x2 => (e[0] as i8).to_string(),
        0x3 => e[0].to_string(),
        0x4 => i16::from_le_bytes([e[0], e[1]]).to_string(),
        0x6 => i32::from_le_bytes(e.try_into().expect("4 bytes")).to_string(),
        0x7 => i64::from_le_bytes(e.try_into().expect("8 bytes")).to_string(),
        0x8 => half::f16::from_le_bytes([e[0], e[1]]).to_f32().to_string(),
        0xA => half::bf16::from_le_bytes([e[0], e[1]]).to_f32().to_string(),
        _ => f32::from_le_bytes(e.try_into().expect("4 bytes")).to_string(),
    }
}

/// The first and last `SHOWN` elements of `t` (all of them when there are few).
pub fn preview(t: &HostTensor) -> String {
    let n = t.numel() as usize;
    let show = |r: std::ops::Range<usize>| r.map(|i| element(t, i)).collect::<Vec<_>>().join(", ");
    if n <= 2 * SHOWN {
        format!("[{}]", show(0..n))
    } else {
        format!("[{}, …, {}]", show(0..SHOWN), show(n - SHOWN..n))
    }
}

impl OpRun {
    /// Total guest instructions over every core.
    pub fn instructions(&self) -> u64 {
        self.cores.iter().map(|c| c.stats.instructions).sum()
    }

    /// The human summary: the output, then one line per core, then the console of core 0
    /// (as hardware prints in multicore mode) when it printed anything.
    pub fn text(&self) -> String {
        let o = &self.output;
        let mut out = format!(
            "{}: output {} {:?}, {} elements\n  {}\n",
            self.op.schema,
            o.dtype.numpy_name(),
            o.shape,
            o.numel(),
            preview(o)
        );
        for c in &self.cores {
            out.push_str(&format!(
                "core {}: {} instructions, {} cycles\n",
                c.core, c.stats.instructions, c.stats.cycles
            ));
        }
        let secs = self.wall.as_secs_f64();
        out.push_str(&format!(
            "wall {:.3} s, {:.1} MIPS aggregate\n",
            secs,
            self.instructions() as f64 / secs.max(1e-9) / 1e6
        ));
        if let Some((core, text)) = self.console.first().filter(|(_, t)| !t.is_empty()) {
            out.push_str(&format!("console of core {core}:\n{text}"));
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    /// The JSON run report: op, output (dtype, shape, preview), per-core counters and console,
    /// wall time.
    pub fn json(&self) -> Value {
        json!({
            "op": self.op.name,
            "schema": self.op.schema,
            "key": self.op.key,
            "output": {
                "dtype": self.output.dtype.numpy_name(),
                "shape": self.output.shape,
                "preview": preview(&self.output),
            },
            "cores": self.cores.iter().map(|c| json!({
                "core": c.core,
                "instructions": c.stats.instructions,
                "cycles": c.stats.cycles,
                "stats": c.stats,
                "console": self.console.iter().find(|(k, _)| *k == c.core).map(|(_, t)| t.as_str()),
            })).collect::<Vec<_>>(),
            "instructions": self.instructions(),
            "wall_seconds": self.wall.as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::dtype::DTYPES;

    #[test]
    fn elements_print_exactly_and_previews_elide_the_middle() {
        let t = HostTensor {
            dtype: DTYPES[0xC],
            shape: vec![20],
            data: (0..20)
                .flat_map(|i| (i as f32 / 4.0 + 0.1).to_le_bytes())
                .collect(),
        };
        assert_eq!(
            element(&t, 3),
            "0.85",
            "shortest text that reads back as the f32"
        );
        assert_eq!(
            preview(&t),
            "[0.1, 0.35, 0.6, 0.85, 1.1, 1.35, …, 3.6, 3.85, 4.1, 4.35, 4.6, 4.85]"
        );
        let b = HostTensor {
            dtype: DTYPES[0xA],
            shape: vec![2],
            data: vec![0x80, 0x3f, 0x00, 0xc0], // bfloat16 1.0, -2.0
        };
        assert_eq!(preview(&b), "[1, -2]");
        let i = HostTensor {
            dtype: DTYPES[0x2],
            shape: vec![2],
            data: vec![0xff, 0x7f],
        };
        assert_eq!(preview(&i), "[-1, 127]");
    }
}
