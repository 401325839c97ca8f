//! Decode once, execute many: a direct-mapped cache of decoded instructions keyed by PC, with
//! the per-instruction facts execution needs (window-check group and privilege, source
//! registers, MAC16 variant) worked out once. Facts of the opcode alone — its family and latency
//! class, columns of the opcode table — need no entry: the core's dispatch has one arm per
//! opcode, in which they are constants. Stores into memory that holds decoded code invalidate
//! the affected entries.

use std::mem::MaybeUninit;

use q7_isa::sreg::SPECIAL_REGISTERS;
use q7_isa::{decode, CoreConfig, DecodeError, Decoded, Insn, Opcode, OperandKind};

/// Why the bytes at a PC are not an executable instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecodable {
    /// Not an instruction of the profile: the word and its length (0 when the first byte
    /// starts no format at all).
    Illegal {
        /// The instruction word (or first byte).
        word: u32,
        /// Its length in bytes, 0 for "no format".
        len: u8,
    },
    /// A Vision-Q7 FLIX bundle of this length.
    Bundle(u8),
    /// The instruction runs past the end of fetchable memory.
    Fetch,
}

/// A decoded instruction plus the facts about it that execution needs, worked out once here
/// rather than on every execution.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    /// The instruction (operands in table order).
    pub insn: Insn,
    /// The window-overflow group and privilege of the instruction.
    pub gate: Gate,
    /// Logical address registers the instruction reads (bit r = a_r).
    pub src_mask: u16,
    /// What a MAC16 instruction does (`None` for every other instruction).
    pub mac16: Option<Mac16>,
    /// Set when the bytes are not an executable instruction.
    pub bad: Option<Undecodable>,
    /// What the instruction does to the call stack, once it completes (observers' shadow
    /// stacks: the profile's call paths, the timeline's function spans).
    pub frame: Frame,
}

/// What an instruction does to the call stack (isa/ISA.md §3): a call (CALL0/4/8/12,
/// CALLX0/4/8/12) opens a frame for its target, a return (RET, RET.N, RETW, RETW.N) closes the
/// innermost one; every other instruction, and bytes that do not decode, leave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// Leaves the call stack as it is.
    Keep,
    /// A call: a frame opens for the target.
    Call,
    /// A return: the innermost frame closes.
    Return,
}

impl Frame {
    /// The frame effect of `opcode`.
    pub const fn of(opcode: Opcode) -> Frame {
        use Opcode::*;
        match opcode {
            Call0 | Call4 | Call8 | Call12 | Callx0 | Callx4 | Callx8 | Callx12 => Frame::Call,
            Ret | RetN | Retw | RetwN => Frame::Return,
            _ => Frame::Keep,
        }
    }
}

/// What must hold before an instruction may run: the highest address-register group
/// (register >> 2) the window-overflow check must see — the AR operands, and a4/a8/a12 for
/// CALL4/8/12 — and whether it needs ring 0. The eight possible gates are numbered
/// [`Gate::index`]; the op keeps its gate as a one-hot [`Gate::bit`] so that the core, which
/// keeps the bits of the gates that must trap now, checks every instruction with one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate(u8);

impl Gate {
    /// Number of distinct gates (the range of [`Gate::index`]).
    pub const COUNT: u32 = 8;

    /// The gate of an instruction naming groups up to `group` (0..=3).
    pub fn new(group: u8, privileged: bool) -> Gate {
        debug_assert!(group <= 3);
        Gate::from_index(u32::from(group) | u32::from(privileged) << 2)
    }

    /// Gate number `index` (0..[`Gate::COUNT`]).
    pub fn from_index(index: u32) -> Gate {
        Gate(1 << (index & 7))
    }

    /// 0..[`Gate::COUNT`]: bits 1:0 the group, bit 2 the privilege.
    #[inline]
    pub fn index(self) -> u32 {
        self.0.trailing_zeros()
    }

    /// The highest register group the instruction names.
    #[inline]
    pub fn group(self) -> u8 {
        (self.index() & 3) as u8
    }

    /// Whether the instruction needs ring 0 (CRING = 0).
    #[inline]
    pub fn privileged(self) -> bool {
        self.index() & 4 != 0
    }

    /// `1 << index`.
    #[inline(always)]
    pub fn bit(self) -> u8 {
        self.0
    }
}

/// The multiply a MAC16 instruction does into the 40-bit accumulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacOp {
    /// `mul`: ACC = the signed product.
    Mul,
    /// `umul`: ACC = the unsigned product.
    Umul,
    /// `mula`: ACC += the signed product.
    Mula,
    /// `muls`: ACC -= the signed product.
    Muls,
}

/// What a MAC16 instruction does, from its mnemonic `op.xy.hh[.ldinc|.lddec]` or
/// `ldinc`/`lddec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mac16 {
    /// The multiply, `None` for LDINC/LDDEC alone.
    pub multiply: Option<MacOp>,
    /// Whether the first factor is a MAC16 register (m0..m3) rather than an AR.
    pub x_is_m: bool,
    /// Whether the second factor is a MAC16 register rather than an AR.
    pub y_is_m: bool,
    /// Whether the first factor is its high half.
    pub x_high: bool,
    /// Whether the second factor is its high half.
    pub y_high: bool,
    /// The address step of the load into a MAC16 register: +4, −4, or 0 for none.
    pub load_step: i8,
}

impl Mac16 {
    /// The variant of `opcode`, `None` unless it is a MAC16 instruction.
    pub fn of(opcode: Opcode) -> Option<Mac16> {
        if opcode.family() != q7_isa::Family::Mac16 {
            return None;
        }
        let mnemonic = opcode.mnemonic();
        let mut parts = mnemonic.split('.');
        let kind = parts.next().unwrap_or("");
        let load_step = if mnemonic.ends_with("ldinc") {
            4
        } else if mnemonic.ends_with("lddec") {
            -4
        } else {
            0
        };
        let multiply = match kind {
            "mul" => Some(MacOp::Mul),
            "umul" => Some(MacOp::Umul),
            "mula" => Some(MacOp::Mula),
            "muls" => Some(MacOp::Muls),
            _ => None,
        };
        let sources = parts.next().unwrap_or("aa").as_bytes();
        let halves = parts.next().unwrap_or("ll").as_bytes();
        Some(Mac16 {
            multiply,
            x_is_m: sources[0] != b'a',
            y_is_m: sources[1] != b'a',
            x_high: halves[0] == b'h',
            y_high: halves[1] == b'h',
            load_step,
        })
    }
}

impl Undecodable {
    /// The decoder's error for these bytes at `pc` on `config`.
    pub fn describe(&self, pc: u32, config: &CoreConfig) -> String {
        match *self {
            Undecodable::Illegal { word, len: 0 } => DecodeError::NoFormat {
                pc,
                byte: word as u8,
                op0: word as u8 & 0xf,
                profile: config.name,
            }
            .to_string(),
            Undecodable::Illegal { word, len } => DecodeError::Illegal {
                pc,
                word,
                len,
                profile: config.name,
            }
            .to_string(),
            Undecodable::Bundle(len) => format!("{len}-byte Vision-Q7 bundle"),
            Undecodable::Fetch => "instruction bytes not fetchable".to_string(),
        }
    }
}

/// Whether `insn` needs ring 0: the privileged instructions, and RSR/WSR/XSR of a privileged
/// special register.
fn privileged(insn: &Insn) -> bool {
    use Opcode::*;
    match insn.opcode {
        Rsr | Wsr | Xsr => SPECIAL_REGISTERS
            .get(insn.operands[1] as usize)
            .is_some_and(|r| r.privileged),
        L32e | S32e | Rotw | Rfe | Rfde | Rfwo | Rfwu | Rfi | Rsil | Waiti | Rer | Wer | Iii
        | Ipfl | Ihu | Iiu | Lict | Licw | Sict | Sicw | Diwb | Diwbi | Dhi | Dii | Dpfl | Dhu
        | Diu | Sdct | Ldct | Idtlb | Pdtlb | Rdtlb0 | Rdtlb1 | Wdtlb | Iitlb | Pitlb | Ritlb0
        | Ritlb1 | Witlb | Ldpte | Hwwitlba | Hwwdtlba => true,
        _ => false,
    }
}

impl Op {
    /// The op of a decoded instruction, with its facts worked out.
    pub fn from_insn(insn: Insn) -> Op {
        let info = insn.info();
        let mut group = 0u8;
        let mut src_mask = 0u16;
        for (i, (kind, &v)) in info.operands.iter().zip(&insn.operands).enumerate() {
            if matches!(kind, OperandKind::ArR | OperandKind::ArS | OperandKind::ArT) {
                group = group.max((v >> 2) as u8);
                if info.reads >> i & 1 != 0 {
                    src_mask |= 1 << v;
                }
            }
        }
        group = group.max(match insn.opcode {
            Opcode::Call4 | Opcode::Callx4 => 1,
            Opcode::Call8 | Opcode::Callx8 => 2,
            Opcode::Call12 | Opcode::Callx12 => 3,
            _ => 0,
        });
        // ENTRY does its own check against PS.CALLINC.
        if insn.opcode == Opcode::Entry {
            group = 0;
        }
        Op {
            insn,
            gate: Gate::new(group, privileged(&insn)),
            src_mask,
            mac16: Mac16::of(insn.opcode),
            bad: None,
            frame: Frame::of(insn.opcode),
        }
    }

    /// The op standing for bytes that are not an executable instruction.
    pub(crate) fn bad(why: Undecodable) -> Op {
        Op {
            insn: Insn::new(Opcode::Ill, &[]),
            gate: Gate::new(0, false),
            src_mask: 0,
            mac16: None,
            bad: Some(why),
            frame: Frame::Keep,
        }
    }

    /// Decodes `bytes` (fetched at `pc`) for `config`.
    pub fn decode(bytes: &[u8], pc: u32, config: &CoreConfig) -> Op {
        match decode(bytes, pc, config) {
            Ok(Decoded::Insn(insn)) => Op::from_insn(insn),
            Ok(Decoded::Bundle { len }) => Op::bad(Undecodable::Bundle(len)),
            Err(DecodeError::Truncated { .. }) => Op::bad(Undecodable::Fetch),
            Err(DecodeError::Illegal { word, len, .. }) => {
                Op::bad(Undecodable::Illegal { word, len })
            }
            Err(DecodeError::NoFormat { byte, .. }) => Op::bad(Undecodable::Illegal {
                word: u32::from(byte),
                len: 0,
            }),
        }
    }
}

const SLOTS: usize = 1 << 16;
const GRANULE_SHIFT: u32 = 6;

/// The slot a PC maps to.
#[inline(always)]
fn slot_of(pc: u32) -> usize {
    pc as usize & (SLOTS - 1)
}

/// The tag of an empty slot: a value no PC mapping to `slot` has (its low bits differ), so
/// even PC 0xffffffff never matches a forgotten entry.
fn vacant(slot: usize) -> u32 {
    slot as u32 ^ 1
}

/// The decoded instructions of a [`DecodeCache`], one per slot. Kept apart from the tags so
/// the core can execute an entry in place (no copy) while its own stores invalidate tags; an
/// entry is only meaningful while its slot's tag names its PC.
///
/// The slots are allocated and never filled: only the pages of the slots written are touched,
/// so a core costs what its code occupies, not 2.6 MB written at start (a cluster builds
/// eight). A slot never written reads as undecodable bytes, `Op::bad(Undecodable::Fetch)`.
#[derive(Debug)]
pub struct DecodedOps {
    /// Each slot's op, initialised once its bit in `written` is set.
    slots: Box<[MaybeUninit<Op>]>,
    /// One bit per slot: set once the slot has been written.
    written: Box<[u64; SLOTS / 64]>,
    /// What a slot never written holds.
    unwritten: Op,
}

/// A boxed array of `fill` (built on the heap: it is too large for the stack).
fn boxed_array<T: Clone, const N: usize>(fill: T) -> Box<[T; N]> {
    match vec![fill; N].into_boxed_slice().try_into() {
        Ok(array) => array,
        Err(_) => unreachable!("a vector of N elements converts to [T; N]"),
    }
}

impl DecodedOps {
    /// Storage for every slot, none written.
    pub fn new() -> Self {
        DecodedOps {
            slots: Box::new_uninit_slice(SLOTS),
            written: boxed_array(0),
            unwritten: Op::bad(Undecodable::Fetch),
        }
    }

    /// The entry in `slot` (from [`DecodeCache::slot`]).
    #[inline(always)]
    pub fn get(&self, slot: usize) -> &Op {
        if self.written[slot / 64] >> (slot % 64) & 1 == 0 {
            return &self.unwritten;
        }
        // SAFETY: the slot's bit in `written` is set only by `DecodedOps::set`, after it
        // wrote an `Op` into the slot, and no slot is ever de-initialised (a later `set`
        // overwrites one `Op` with another).
        unsafe { self.slots[slot].assume_init_ref() }
    }

    /// Writes `op` into `slot`.
    fn set(&mut self, slot: usize, op: Op) {
        self.slots[slot].write(op);
        self.written[slot / 64] |= 1 << (slot % 64);
    }
}

/// Direct-mapped decoded-instruction cache (index = PC mod 65,536): which PC each slot holds
/// and how long that instruction is. The decoded entries themselves live in [`DecodedOps`].
#[derive(Debug)]
pub struct DecodeCache {
    /// The PC whose decoding each slot holds ([`vacant`] when none).
    tags: Box<[u32; SLOTS]>,
    /// The byte length of each slot's instruction (16 when undecodable, so any overlapping
    /// store forgets it).
    lens: Box<[u8; SLOTS]>,
    /// One bit per 64-byte granule of the address space that holds cached code (allocated
    /// zeroed, so untouched parts of the 8 MiB bitmap cost nothing).
    code: Box<[u64]>,
    /// The words of `code` that are not zero: [`DecodeCache::clear`] zeroes only these, so a
    /// clear costs what was cached, not 8 MiB (a cluster clears each core's cache several
    /// times while it loads a library).
    code_words: Vec<u32>,
    /// One bit per 64-byte granule, as `code`: set ([`DecodeCache::mark_store_ok`]) once a
    /// store there went into a memory that counts the granules stores touch and found no
    /// cached code, cleared when code is cached there; compiled code stores into such a
    /// granule itself after one test of this bitmap (docs/jit.md "Memory").
    store_ok: Box<[u64]>,
    /// The words of `store_ok` that are not zero ([`DecodeCache::forget_store_ok`]).
    store_ok_words: Vec<u32>,
}

impl DecodeCache {
    /// An empty cache. Its tables are allocated zeroed, so a page of them costs memory only
    /// once a slot in it is used: a tag of 0 is vacant in every slot but slot 0 (no PC other
    /// than 0 maps there), whose tag `new` sets to 1. A cluster makes one cache per core.
    pub fn new() -> Self {
        let mut tags: Box<[u32; SLOTS]> = boxed_array(0);
        tags[0] = vacant(0);
        DecodeCache {
            tags,
            lens: boxed_array(0),
            code: vec![0u64; (1usize << (32 - GRANULE_SHIFT)) / 64].into_boxed_slice(),
            code_words: Vec::new(),
            store_ok: vec![0u64; (1usize << (32 - GRANULE_SHIFT)) / 64].into_boxed_slice(),
            store_ok_words: Vec::new(),
        }
    }

    /// The slot holding the decoding of `pc`, if any.
    #[inline(always)]
    pub fn slot(&self, pc: u32) -> Option<usize> {
        let s = slot_of(pc);
        (self.tags[s] == pc).then_some(s)
    }

    /// The cached op at `pc`, if any.
    pub fn get<'a>(&self, ops: &'a DecodedOps, pc: u32) -> Option<&'a Op> {
        self.slot(pc).map(|s| ops.get(s))
    }

    /// Caches `op` decoded at `pc`; returns its slot.
    pub fn insert(&mut self, ops: &mut DecodedOps, pc: u32, op: Op) -> usize {
        let s = slot_of(pc);
        let len = match op.bad {
            None => u32::from(op.insn.len),
            Some(_) => 16,
        };
        ops.set(s, op);
        self.tags[s] = pc;
        self.lens[s] = len as u8;
        self.mark_code(pc);
        self.mark_code(pc.wrapping_add(len.max(1) - 1));
        s
    }

    /// Marks `addr`'s 64-byte granule as holding code: a store there is a store into code
    /// ([`DecodeCache::store`] answers `true`, compiled code calls the store helper). Caching
    /// an instruction marks its granules; compiled code that holds a word of memory as a
    /// constant (an L32R's literal, docs/jit.md "Literals") marks the word's.
    pub fn mark_code(&mut self, addr: u32) {
        let g = addr >> GRANULE_SHIFT;
        let word = &mut self.code[(g / 64) as usize];
        if *word == 0 {
            self.code_words.push(g / 64);
        }
        *word |= 1 << (g % 64);
        self.store_ok[(g / 64) as usize] &= !(1 << (g % 64));
    }

    /// Notes that a store at `addr` went into a memory that counts the granules stores touch
    /// (so `addr`'s is touched now): its 64-byte granule becomes one compiled code may store
    /// into directly unless it holds cached code ([`DecodeCache::store_ok_bits`]).
    pub fn mark_store_ok(&mut self, addr: u32) {
        let g = addr >> GRANULE_SHIFT;
        let (w, bit) = ((g / 64) as usize, 1u64 << (g % 64));
        if self.code[w] & bit == 0 {
            if self.store_ok[w] == 0 {
                self.store_ok_words.push(g / 64);
            }
            self.store_ok[w] |= bit;
        }
    }

    /// Whether `addr`'s 64-byte granule is marked ([`DecodeCache::mark_store_ok`]).
    pub fn store_ok(&self, addr: u32) -> bool {
        let g = addr >> GRANULE_SHIFT;
        self.store_ok[(g / 64) as usize] >> (g % 64) & 1 != 0
    }

    /// Forgets every granule [`DecodeCache::mark_store_ok`] marked (the memory they were
    /// touched in was put back to an earlier state).
    pub fn forget_store_ok(&mut self) {
        for w in self.store_ok_words.drain(..) {
            self.store_ok[w as usize] = 0;
        }
    }

    /// The bitmap of [`DecodeCache::mark_store_ok`]'s granules, laid out as
    /// [`DecodeCache::code_bits`]'s. It stays where it is while the cache lives.
    pub fn store_ok_bits(&self) -> *const u64 {
        self.store_ok.as_ptr()
    }

    /// The bitmap of granules holding cached code, one bit per 64-byte granule of the address
    /// space (bit `g % 64` of word `g / 64` for granule `g = addr >> 6`), as compiled code
    /// reads it before a store it does itself (docs/jit.md "Memory"). It stays where it is
    /// while the cache lives.
    pub fn code_bits(&self) -> *const u64 {
        self.code.as_ptr()
    }

    /// Forgets decoded instructions overlapping `[addr, addr + size)` (a store happened there).
    #[inline(always)]
    pub fn store(&mut self, addr: u32, size: u32) -> bool {
        let g = addr >> GRANULE_SHIFT;
        let g2 = addr.wrapping_add(size - 1) >> GRANULE_SHIFT;
        let hit = |g: u32| self.code[(g / 64) as usize] >> (g % 64) & 1 != 0;
        if hit(g) || hit(g2) {
            self.forget(addr, size);
            return true;
        }
        false
    }

    #[cold]
    #[inline(never)]
    fn forget(&mut self, addr: u32, size: u32) {
        // An instruction is at most 16 bytes: any start in [addr - 15, addr + size) may overlap.
        for i in 0..15 + size {
            let pc = addr.wrapping_sub(15).wrapping_add(i);
            let s = slot_of(pc);
            // pc < addr + size holds by construction; check the instruction reaches addr.
            if self.tags[s] == pc && u64::from(pc) + u64::from(self.lens[s]) > u64::from(addr) {
                self.tags[s] = vacant(s);
            }
        }
    }

    /// The first address of every 64-byte granule that holds cached code, each once.
    pub fn granules(&self) -> impl Iterator<Item = u32> + '_ {
        self.code_words.iter().flat_map(move |&w| {
            let bits = self.code[w as usize];
            (0..64u32)
                .filter(move |b| bits >> b & 1 != 0)
                .map(move |b| (w * 64 + b) << GRANULE_SHIFT)
        })
    }

    /// Forgets everything. Every cached instruction starts in a granule marked as holding
    /// code ([`DecodeCache::insert`]), so only the slots of the marked granules' addresses can
    /// hold a tag: a clear costs what was cached, not the whole table.
    pub fn clear(&mut self) {
        let granules: Vec<u32> = self.granules().collect();
        for first in granules {
            for pc in first..=first | ((1 << GRANULE_SHIFT) - 1) {
                let s = slot_of(pc);
                self.tags[s] = vacant(s);
            }
        }
        for w in self.code_words.drain(..) {
            self.code[w as usize] = 0;
        }
    }
}

impl Default for DecodedOps {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for DecodeCache {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_isa::DC233C;

    /// A 3-byte `movi a2, 7` decoded at `pc` into a fresh cache.
    fn cache_with_movi_at(pc: u32) -> (DecodeCache, DecodedOps) {
        let bytes = Opcode::Movi.encode(&[2, 7], pc).unwrap();
        let op = Op::decode(bytes.as_bytes(), pc, &DC233C);
        assert_eq!(op.insn.len, 3);
        let (mut cache, mut ops) = (DecodeCache::new(), DecodedOps::new());
        cache.insert(&mut ops, pc, op);
        (cache, ops)
    }

    #[test]
    fn a_slot_reads_as_undecodable_bytes_until_an_op_is_written_into_it() {
        // The slots are allocated, not filled: a slot never written holds what the filled
        // array held, `Op::bad(Undecodable::Fetch)`; a written one the op written, also after
        // another op overwrote it.
        let (cache, mut ops) = cache_with_movi_at(0x1000);
        let s = cache.slot(0x1000).unwrap();
        assert_eq!(ops.get(s).insn.opcode, Opcode::Movi);
        assert_eq!(ops.get(s).insn.operands[..2], [2, 7]);
        for never in [0, s - 1, s + 1, SLOTS - 1] {
            assert_eq!(ops.get(never).bad, Some(Undecodable::Fetch));
            assert_eq!(ops.get(never).insn.opcode, Opcode::Ill);
        }
        ops.set(s, Op::bad(Undecodable::Bundle(8)));
        assert_eq!(ops.get(s).bad, Some(Undecodable::Bundle(8)));
    }

    #[test]
    fn granules_marked_for_compiled_stores_lose_the_mark_when_code_is_cached_there() {
        // docs/jit.md "Memory": compiled code stores into bare-metal memory itself only in 64
        // bytes a store through the helper marked (touched, no decoded code there).
        let (mut cache, mut ops) = cache_with_movi_at(0x2000);
        cache.mark_store_ok(0x2000); // holds the movi: not marked
        cache.mark_store_ok(0x2044);
        cache.mark_store_ok(0x2080);
        assert!(!cache.store_ok(0x2000));
        assert!(cache.store_ok(0x2040) && cache.store_ok(0x207c));
        assert!(cache.store_ok(0x2080));
        assert!(!cache.store_ok(0x20c0));
        // A 3-byte instruction at 0x207f lies in both 0x2040 and 0x2080's granules.
        let bytes = Opcode::Movi.encode(&[2, 7], 0x207f).unwrap();
        cache.insert(
            &mut ops,
            0x207f,
            Op::decode(bytes.as_bytes(), 0x207f, &DC233C),
        );
        assert!(!cache.store_ok(0x2040) && !cache.store_ok(0x2080));
        cache.mark_store_ok(0x3000);
        cache.forget_store_ok();
        assert!(!cache.store_ok(0x3000));
    }

    #[test]
    fn a_clear_forgets_every_instruction_and_every_code_bit() {
        let (mut cache, mut ops) = cache_with_movi_at(0x1000);
        let op = *ops.get(cache.slot(0x1000).unwrap());
        // Two granules (an instruction across a 64-byte boundary) and a far-away address.
        cache.insert(&mut ops, 0x203e, op);
        cache.insert(&mut ops, 0xfff0_0000, op);
        assert_eq!(cache.code_words.len(), 3);
        cache.clear();
        for pc in [0x1000, 0x203e, 0xfff0_0000] {
            assert_eq!(cache.slot(pc), None);
        }
        assert!(cache.code.iter().all(|w| *w == 0));
        assert!(cache.code_words.is_empty());
    }

    #[test]
    fn decode_works_out_gate_sources_and_mac16_variant_once() {
        let op = |opcode: Opcode, operands: &[u32]| Op::from_insn(Insn::new(opcode, operands));
        let add = op(Opcode::Add, &[2, 13, 5]);
        assert_eq!((add.gate.group(), add.gate.privileged()), (3, false));
        assert_eq!(add.src_mask, 1 << 13 | 1 << 5);
        assert_eq!(add.mac16, None);
        let call8 = op(Opcode::Callx8, &[3]);
        assert_eq!(call8.gate.group(), 2, "a8 of the callee's frame");
        assert_eq!(
            op(Opcode::Entry, &[1, 32]).gate.group(),
            0,
            "ENTRY checks CALLINC"
        );
        assert!(op(Opcode::S32e, &[2, 5, 0]).gate.privileged());
        assert!(op(Opcode::Rfe, &[]).gate.privileged());
        let row = |name: &str| {
            q7_isa::sreg::SPECIAL_REGISTERS
                .iter()
                .position(|r| r.name == name)
                .unwrap() as u32
        };
        assert!(!op(Opcode::Rsr, &[2, row("sar")]).gate.privileged(), "SR 3");
        assert!(op(Opcode::Xsr, &[2, row("ps")]).gate.privileged(), "SR 230");
        assert!(op(Opcode::MulaDdLlLddec, &[0, 1, 2, 3]).mac16.is_some());
    }

    #[test]
    fn gates_number_group_and_privilege_one_bit_each() {
        for index in 0..Gate::COUNT {
            let g = Gate::from_index(index);
            assert_eq!(g.index(), index);
            assert_eq!(g, Gate::new(g.group(), g.privileged()));
            assert_eq!(g.bit(), 1 << index);
        }
        assert_eq!(Gate::new(2, true).index(), 6);
    }

    #[test]
    fn a_store_forgets_exactly_the_instructions_it_overlaps() {
        let pc = 0x1003;
        for (addr, size, forgotten) in [
            (0x1002, 1, false), // the byte before
            (0x1006, 1, false), // the byte after
            (0x1000, 2, false), // ends just before
            (0x1003, 1, true),  // first byte
            (0x1005, 1, true),  // last byte
            (0x1000, 4, true),  // a word covering the first byte
            (0x1004, 4, true),  // a word covering the last two bytes
            (0x1002, 2, true),  // a halfword straddling the start
        ] {
            let (mut cache, ops) = cache_with_movi_at(pc);
            cache.store(addr, size);
            assert_eq!(
                cache.get(&ops, pc).is_none(),
                forgotten,
                "{size}-byte store at {addr:#x} vs instruction at {pc:#x}..{:#x}",
                pc + 3
            );
        }
    }

    #[test]
    fn stores_far_from_code_keep_the_cache_and_clear_forgets_all() {
        let (mut cache, ops) = cache_with_movi_at(0x2000);
        cache.store(0x2000 + 64 * 4, 4);
        cache.store(0x1f00, 4);
        assert_eq!(
            cache.get(&ops, 0x2000).map(|op| op.insn.operands[1]),
            Some(7)
        );
        // An alias of the slot (same PC mod 65,536) is not a hit.
        assert!(cache.get(&ops, 0x2000 + (1 << 16)).is_none());
        cache.clear();
        assert!(cache.get(&ops, 0x2000).is_none());
    }

    #[test]
    fn a_new_cache_matches_no_pc_though_its_tags_start_zeroed() {
        // The tags are allocated zeroed: 0 is vacant in every slot but slot 0, whose tag
        // `new` sets, so neither PC 0 nor any other matches before an insert.
        let cache = DecodeCache::new();
        assert_eq!(cache.slot(0), None);
        assert!((0..=u32::from(u16::MAX))
            .chain([0x1_0000, 0xffff_0000, u32::MAX])
            .all(|pc| cache.slot(pc).is_none()));
        // Cached at PC 0 and cleared, slot 0 is vacant again.
        let (mut cache, _ops) = cache_with_movi_at(0);
        assert_eq!(cache.slot(0), Some(0));
        cache.clear();
        assert_eq!(cache.slot(0), None);
    }

    #[test]
    fn no_pc_matches_an_empty_or_forgotten_slot() {
        let top = u32::MAX;
        let (mut cache, ops) = cache_with_movi_at(top - 0x10000);
        assert!(DecodeCache::new().get(&ops, top).is_none());
        assert!(cache.get(&ops, top).is_none(), "same slot, other PC");
        cache.store(top - 0x10000, 1);
        assert!(cache.get(&ops, top).is_none(), "forgotten entry");
        assert!(cache.get(&ops, top - 0x10000).is_none());
        cache.clear();
        assert!((0..=u16::MAX).all(|low| cache.get(&ops, 0xffff_0000 | u32::from(low)).is_none()));
    }
}
