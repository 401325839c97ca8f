//! What `q7emu run` prints: a human summary and the JSON run report, with the same facts per
//! core (docs/run-report.md documents every field).

use q7_emulator::platform::sdma::QueueCounters;
use serde_json::{json, Value};

use super::OpRun;
use q7_runtime::firmware::CoreResult;
use q7_tensor::HostTensor;

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

/// Instructions per cycle (a dispatch of no cycles counts as one cycle).
pub fn ipc(c: &CoreResult) -> f64 {
    c.stats.instructions as f64 / c.stats.cycles.max(1) as f64
}

/// `65536 bytes in 16 transfers, busy 4224 cycles`.
fn queue_text(q: &QueueCounters) -> String {
    format!(
        "{} bytes in {} transfers, busy {} cycles",
        q.bytes, q.transfers, q.busy_cycles
    )
}

/// One core's lines of the summary: counts, stalls by category (those with cycles), SDMA,
/// translate windows and I-cache, stack.
pub fn core_text(c: &CoreResult) -> String {
    let s = &c.stats;
    let stalls: Vec<String> = s
        .stalls
        .list()
        .iter()
        .filter(|(_, cycles)| *cycles != 0)
        .map(|(label, cycles)| format!("{label} {cycles}"))
        .collect();
    let p = &c.platform;
    format!(
        "core {}: {} instructions, {} cycles, IPC {:.3}, {} exceptions\n  \
         stalls {} cycles{}{}\n  \
         sdma M2S {}; S2M {}\n  \
         windows {} HBM and {} SRAM data accesses (hits), {} maps (misses); i-cache {} lookups, \
         {} misses\n  \
         stack {} of {} bytes (lowest SP {:#010x})\n",
        c.core,
        s.instructions,
        s.cycles,
        ipc(c),
        s.exceptions,
        s.stalls.total(),
        if stalls.is_empty() { "" } else { ": " },
        stalls.join(", "),
        queue_text(&p.sdma_m2s),
        queue_text(&p.sdma_s2m),
        p.windows.hbm_accesses,
        p.windows.sram_accesses,
        p.windows.maps,
        p.icache.lookups,
        p.icache.misses,
        c.stack.bytes,
        c.stack.limit,
        c.stack.lowest_sp,
    )
}

/// One core's JSON report (without its console).
pub fn core_json(c: &CoreResult) -> Value {
    let p = &c.platform;
    json!({
        "core": c.core,
        "response": c.response,
        "instructions": c.stats.instructions,
        "cycles": c.stats.cycles,
        "ipc": ipc(c),
        "stall_cycles": c.stats.stalls.total(),
        "exceptions": c.stats.exceptions,
        "stats": c.stats,
        "sdma": { "m2s": p.sdma_m2s, "s2m": p.sdma_s2m },
        "windows": p.windows,
        "icache": p.icache,
        "stack": c.stack,
    })
}

impl OpRun {
    /// Total guest instructions over every core.
    pub fn instructions(&self) -> u64 {
        self.cores.iter().map(|c| c.stats.instructions).sum()
    }

    /// All cores' instructions over the dispatch's wall time, in millions per second.
    pub fn mips(&self) -> f64 {
        self.instructions() as f64 / self.wall.as_secs_f64().max(1e-9) / 1e6
    }

    /// The human summary: the output, then each core's lines ([`core_text`]), the wall time
    /// and aggregate MIPS, the timing profile, then the console of core 0 (as hardware prints
    /// in multicore mode) when it printed anything, after a line marking the bytes its ring
    /// overwrote (`… N bytes dropped`).
    pub fn text(&self) -> String {
        self.text_with_consoles(false)
    }

    /// [`OpRun::text`], with the console of every core that printed anything when `all_cores`
    /// (`q7emu run --console-all-cores`), each under its `console of core N:` line.
    pub fn text_with_consoles(&self, all_cores: bool) -> String {
        let o = &self.output;
        let mut out = format!(
            "{}: output {} {:?}, {} elements\n  {}\n",
            self.op.schema,
            o.dtype.numpy_name(),
            o.shape,
            o.numel(),
            preview(o)
        );
        if self.output_from == super::OutputFrom::KernelReturn {
            out.push_str(
                "  (the output the kernel returned: the op was dispatched a second time with it; \
                 the counters are the second dispatch's)\n",
            );
        }
        for c in &self.cores {
            out.push_str(&core_text(c));
        }
        // The engine shares the wall time's line: both are the host's, not the guest's.
        out.push_str(&format!(
            "wall {:.3} s, {:.1} MIPS aggregate; {}\n",
            self.wall.as_secs_f64(),
            self.mips(),
            q7_emulator::jit::describe(self.engine, &self.jit)
        ));
        out.push_str(&self.timing.summary());
        out.push('\n');

        let shown = if all_cores { self.console.len() } else { 1 };
        for c in self.console.iter().take(shown).filter(|c| !c.is_empty()) {
            out.push_str(&c.printed());
        }
        out
    }

    /// The JSON run report: op, output (dtype, shape, preview, where the dtype and shape came
    /// from: [`super::OutputFrom::name`] and the shape function or null), per-core counters
    /// ([`core_json`]) and console (`console`, the bytes the ring holds, and `console_dropped`,
    /// the bytes it overwrote), wall time, aggregate MIPS and the timing profile.
    pub fn json(&self) -> Value {
        json!({
            "op": self.op.name,
            "schema": self.op.schema,
            "key": self.op.key,
            "output": {
                "dtype": self.output.dtype.numpy_name(),
                "shape": self.output.shape,
                "preview": preview(&self.output),
                "from": self.output_from.name(),
                "shape_function": self.output_from.shape_function(),
            },
            "cores": self.cores.iter().map(|c| {
                let mut j = core_json(c);
                let console = self.console.iter().find(|k| k.core == c.core);
                j["console"] = json!(console.map_or("", |k| k.text.as_str()));
                j["console_dropped"] = json!(console.map_or(0, |k| k.dropped));
                j
            }).collect::<Vec<_>>(),
            "instructions": self.instructions(),
            "wall_seconds": self.wall.as_secs_f64(),
            "mips": self.mips(),
            "timing": self.timing.json(),
            "engine": self.engine,
            "jit": self.jit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_tensor::dtype::DTYPES;

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
