//! The key a cluster's cores find each other's compiled blocks by before any IR is built
//! (docs/jit.md "Code shared by cores").
//!
//! A block's IR is a function of its [`Spec`]. Where the cores of a cluster share code
//! ([`Spec::relative`]), the translator turns every code address into the block's start plus a
//! distance, and a literal that points into the block's own image window likewise; so two
//! cores' specs that differ only by where their images lie give the same IR. The key writes a
//! spec so that exactly those differences vanish: every code address (the instructions', their
//! PC-relative operands, the followed calls', LEND, the literals' addresses) as its offset from
//! the start's image window, a literal's value the same way when the translator makes it
//! relative, and everything else as it is. The register values a spec carries are replaced by
//! what the translator derives from them (which registers are known, and the memory each
//! load or store is compiled for), and every fact the translator derives from a code address
//! against a fixed range (the I-cache's timed range and set, a literal's memory and latency
//! class, the top bits a return address keeps) is written out, as decided for that address.
//! Equal keys, equal IR: a core whose key finds a block copies its host code without building
//! the IR, which took most of a copy's time. In builds with debug assertions every such copy
//! also builds the IR and asserts that it is the one compiled.

use q7_isa::sreg::litbase::literal_address;
use q7_isa::Opcode;

use super::image_base;
use super::translate::Spec;

/// The key of `spec`'s block, or `None` when it is not compiled relative to its start (a
/// core alone keeps its addresses as constants, and shares nothing).
pub(crate) fn of(spec: &Spec<'_>) -> Option<Vec<u8>> {
    if !spec.relative {
        return None;
    }
    let base = image_base(spec.start);
    let mut w = Writer {
        out: Vec::with_capacity(64 + 40 * spec.ops.len()),
        base,
    };
    let known = spec.known();
    w.code(spec.start);
    w.u32(spec.ops.len() as u32);
    for (i, (pc, op)) in spec.ops.iter().enumerate() {
        let insn = op.insn;
        w.code(*pc);
        w.u32(u32::from(insn.opcode as u16));
        w.u8(insn.len);
        for (k, &v) in insn.info().operands.iter().zip(insn.operands.iter()) {
            if k.is_pc_relative() {
                w.code(v);
            } else {
                w.u32(v);
            }
        }
        w.u8(op.gate.index() as u8);
        w.u32(u32::from(op.src_mask));
        w.u8(u8::from(op.bad.is_some()));
        if let Some(m) = op.mac16 {
            w.out.extend_from_slice(format!("{m:?}").as_bytes());
        }
        w.u16(spec.frames[i]);
        // The address's top bits, which a followed callee's RETW keeps in its return address.
        w.u8((pc >> 30) as u8);
        if let Some(view) = spec.icache {
            let timed = pc.wrapping_sub(view.timed.0) < view.timed.1;
            let line = pc >> view.line_shift;
            w.u8(u8::from(timed) | u8::from(line == u32::MAX) << 1);
            w.u32(line % view.sets.max(1));
        }
        if let Some((site, settled, store)) = spec.access_of(&known, i) {
            w.u8(site as u8 | u8::from(settled) << 4 | u8::from(store) << 5);
        }
        if insn.opcode == Opcode::L32r {
            let at = literal_address(spec.litbase, *pc, insn.operands[1]);
            w.code(at);
            w.literal_class(spec, at);
        }
    }
    w.u32(spec.calls.len() as u32);
    for c in spec.calls {
        w.code(c.call);
        w.code(c.entry);
        w.code(c.ret);
        w.u32(c.inc);
    }
    w.opt(spec.entered);
    w.u32(spec.groups);
    w.u8(u8::from(spec.stack_limit));
    // The register values count only through which are known and the sites above.
    let mut known_mask = 0u64;
    for (r, k) in known.iter().enumerate() {
        known_mask |= u64::from(k.is_some()) << r;
    }
    w.u64(known_mask);
    for slot in spec.key.pending {
        match slot {
            Some((mask, waits)) => {
                w.u8(1 + waits as u8);
                w.u32(u32::from(mask));
            }
            None => w.u8(0),
        }
    }
    match spec.key.lend {
        Some(lend) => {
            w.u8(1);
            w.code(lend);
        }
        None => w.u8(0),
    }
    // Every field of the cycle model, as its Debug form writes them.
    w.out
        .extend_from_slice(format!("{:?}", spec.timing).as_bytes());
    w.opt(spec.fetch_line);
    match spec.icache {
        Some(v) => {
            w.u8(1);
            for x in [v.timed.0, v.timed.1, v.line_shift, v.sets, v.ways] {
                w.u32(x);
            }
        }
        None => w.u8(0),
    }
    match spec.windows {
        Some(v) => {
            w.u8(1);
            for x in [
                v.xlate.0,
                v.xlate.1,
                v.shift,
                v.pinned,
                v.latency[0],
                v.latency[1],
                v.stride,
                v.base_at,
                v.enabled_at,
            ] {
                w.u32(x);
            }
            w.u64(v.hbm_size);
        }
        None => w.u8(0),
    }
    for range in [spec.direct, spec.direct_code] {
        match range {
            Some((first, len, stores)) => {
                w.u8(1 + u8::from(stores));
                w.u32(first);
                w.u64(len);
            }
            None => w.u8(0),
        }
    }
    w.u8(u8::from(spec.guarded_stores));
    w.u64(spec.access_cycles);
    w.u32(spec.litbase);
    let h = &spec.helpers;
    for f in [
        h.load, h.store, h.fetch, h.entry, h.retw, h.overflow, h.rfw, h.frames,
    ] {
        w.u64(f as u64);
    }
    w.u32(spec.literals.len() as u32);
    for &(at, value) in spec.literals {
        w.code(at);
        w.literal_class(spec, at);
        // Made from the start, as code addresses are, when it points into the start's image
        // window (`Tr::literal`).
        if image_base(value) == base {
            w.u8(1);
            w.code(value);
        } else {
            w.u8(0);
            w.u32(value);
        }
    }
    Some(w.out)
}

/// The key's bytes, and the image window its code addresses are written from.
struct Writer {
    out: Vec<u8>,
    base: u32,
}

impl Writer {
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn opt(&mut self, v: Option<u32>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.u32(v);
            }
            None => self.u8(0),
        }
    }

    /// A code address, as its offset from the image window of the block's start.
    fn code(&mut self, addr: u32) {
        self.u32(addr.wrapping_sub(self.base));
    }

    /// What the translator decides of the literal at `at` from its address: whether a
    /// translate window holds it, and whether that is its SRAM or its HBM part (the class
    /// whose counters and latency a literal's load adds to).
    fn literal_class(&mut self, spec: &Spec<'_>, at: u32) {
        if let Some(view) = spec.windows {
            let hbm = at.wrapping_sub(view.xlate.0) >= view.pinned;
            self.u8(u8::from(view.covers(at)) | u8::from(hbm) << 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use q7_isa::{Insn, Opcode, MAX_OPERANDS};

    use super::of;
    use crate::jit::translate::{Helpers, Spec};
    use crate::jit::Key;
    use crate::predecode::Op;
    use crate::timing::TimingModel;

    /// Where a block starts in core 0's copy of a library, and in core 1's: the same place
    /// in image windows 2 MiB apart (`IMAGE_WINDOW_SIZE`, PLATFORM.md).
    const CORE0: u32 = 0x8400_0100;
    const CORE1: u32 = 0x8420_0100;

    /// `code` laid out from `start`, its code-address operands given as distances from it.
    fn ops_at(start: u32, code: &[(Opcode, Vec<i32>)]) -> Vec<(u32, Op)> {
        let mut pc = start;
        code.iter()
            .map(|(opcode, o)| {
                let info = opcode.info();
                let mut operands = [0u32; MAX_OPERANDS];
                for (i, (kind, &v)) in info.operands.iter().zip(o).enumerate() {
                    operands[i] = if kind.is_pc_relative() {
                        start.wrapping_add(v as u32)
                    } else {
                        v as u32
                    };
                }
                let insn = Insn {
                    opcode: *opcode,
                    len: info.len,
                    operands,
                };
                let at = pc;
                pc += u32::from(info.len);
                (at, Op::from_insn(insn))
            })
            .collect()
    }

    /// An L32R of a literal 16 bytes before the start, a load at a2 (which the block does
    /// not write), and a loop back to the start.
    fn code(imm: i32) -> Vec<(Opcode, Vec<i32>)> {
        vec![
            (Opcode::L32r, vec![8, -16]),
            (Opcode::Addi, vec![9, 8, imm]),
            (Opcode::L32i, vec![10, 2, 0]),
            (Opcode::Bnez, vec![9, 0]),
        ]
    }

    /// A block of `ops` compiled relative to its start, its literal holding `literal`, with
    /// register values `values` and directly reachable memory `direct`.
    fn spec<'a>(
        ops: &'a [(u32, Op)],
        frames: &'a [u16],
        literals: &'a [(u32, u32)],
        values: [u32; 16],
        direct: Option<(u32, u64, bool)>,
        timing: &'a TimingModel,
    ) -> Spec<'a> {
        Spec {
            ops,
            start: ops[0].0,
            frames,
            calls: &[],
            entered: None,
            groups: 16,
            stack_limit: false,
            values,
            key: Key {
                pending: [None, None],
                lend: None,
            },
            timing,
            fetch_line: None,
            icache: None,
            windows: None,
            direct,
            direct_code: None,
            guarded_stores: false,
            access_cycles: 126,
            litbase: 0,
            helpers: Helpers::default(),
            relative: true,
            literals,
        }
    }

    #[test]
    fn the_same_code_in_two_cores_image_windows_has_one_key() {
        // docs/jit.md "Code shared by cores": code addresses, and a literal pointing into the
        // block's own image window, are written from that window; register values count only
        // through the memory each access is compiled for (here, with no directly reachable
        // memory, the helper's whatever a2 holds).
        let timing = TimingModel::default();
        let frames = [1u16; 4];
        let (ops0, ops1) = (ops_at(CORE0, &code(1)), ops_at(CORE1, &code(1)));
        let lit0 = [(CORE0 - 16, CORE0 + 0x40)];
        let lit1 = [(CORE1 - 16, CORE1 + 0x40)];
        let mut values1 = [7u32; 16];
        values1[2] = 0x1234_5678;
        let a = of(&spec(&ops0, &frames, &lit0, [0; 16], None, &timing));
        let b = of(&spec(&ops1, &frames, &lit1, values1, None, &timing));
        assert!(a.is_some());
        assert_eq!(a, b);
    }

    #[test]
    fn a_key_tells_apart_specs_that_make_other_ir() {
        let timing = TimingModel::default();
        let frames = [1u16; 4];
        let ops0 = ops_at(CORE0, &code(1));
        let ops1 = ops_at(CORE1, &code(1));
        let lit0 = [(CORE0 - 16, CORE0 + 0x40)];
        let lit1 = [(CORE1 - 16, CORE1 + 0x40)];
        let key0 = of(&spec(&ops0, &frames, &lit0, [0; 16], None, &timing));
        let differs = |other: Option<Vec<u8>>| assert_ne!(key0, other);
        // Another immediate.
        let other = ops_at(CORE1, &code(2));
        differs(of(&spec(&other, &frames, &lit1, [0; 16], None, &timing)));
        // A literal compiled in as a constant (outside the image window) that differs, and
        // core 1's literal pointing into core 0's image rather than its own.
        let far0 = [(CORE0 - 16, 0x1000)];
        let far1 = [(CORE1 - 16, 0x2000)];
        assert_ne!(
            of(&spec(&ops0, &frames, &far0, [0; 16], None, &timing)),
            of(&spec(&ops1, &frames, &far1, [0; 16], None, &timing))
        );
        differs(of(&spec(
            &ops1,
            &frames,
            &[(CORE1 - 16, CORE0 + 0x40)],
            [0; 16],
            None,
            &timing,
        )));
        // a2 in directly reachable memory on one core only: its load is compiled for that
        // memory there, for the helper elsewhere.
        let direct = Some((0x1000_0000, 0x1000, true));
        let mut inside = [0u32; 16];
        inside[2] = 0x1000_0010;
        let mut outside = [0u32; 16];
        outside[2] = 0x2000_0000;
        assert_ne!(
            of(&spec(&ops0, &frames, &lit0, inside, direct, &timing)),
            of(&spec(&ops1, &frames, &lit1, outside, direct, &timing))
        );
        // Another cycle model.
        let slower = TimingModel {
            taken_branch: timing.taken_branch + 1,
            ..timing.clone()
        };
        differs(of(&spec(&ops1, &frames, &lit1, [0; 16], None, &slower)));
        // A core alone keeps its addresses as constants: no key.
        let mut alone = spec(&ops0, &frames, &lit0, [0; 16], None, &timing);
        alone.relative = false;
        assert_eq!(of(&alone), None);
    }
}
