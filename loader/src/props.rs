//! Xtensa property tables (`.xt.prop`, isa/ISA.md §8.4): 12-byte records
//! `{u32 addr, u32 size, u32 flags}` that tell literals from instructions.

use crate::elf::{ElfError, ElfFile};

bitflags::bitflags! {
    /// `.xt.prop` flag bits (§8.4).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct PropFlags: u32 {
        /// Range holds literals.
        const LITERAL = 0x1;
        /// Range holds instructions.
        const INSN = 0x2;
        /// Range holds data.
        const DATA = 0x4;
        /// Code after an unconditional jump.
        const UNREACHABLE = 0x8;
        /// Assembler/linker must not transform.
        const NO_TRANSFORM = 0x100;
        const _ = !0;
    }
}

/// One property record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PropEntry {
    /// Start address.
    pub addr: u32,
    /// Size in bytes.
    pub size: u32,
    /// Flags.
    pub flags: PropFlags,
}

impl ElfFile<'_> {
    /// The records of `.xt.prop` (linked executables keep one table for all sections), sorted
    /// by address. Empty when the file has none.
    pub fn property_table(&self) -> Result<Vec<PropEntry>, ElfError> {
        let Some(sec) = self.section(".xt.prop") else {
            return Ok(Vec::new());
        };
        if sec.data.len() % 12 != 0 {
            return Err(ElfError::Malformed {
                what: format!(
                    "section .xt.prop is {} bytes, not a multiple of its 12-byte records",
                    sec.data.len()
                ),
            });
        }
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let mut v: Vec<PropEntry> = sec
            .data
            .chunks_exact(12)
            .map(|r| PropEntry {
                addr: word(&r[0..4]),
                size: word(&r[4..8]),
                flags: PropFlags::from_bits_retain(word(&r[8..12])),
            })
            .collect();
        v.sort_by_key(|p| p.addr);
        Ok(v)
    }
}

/// Property blocks of one section as a disassembler uses them (binutils `xtensa-dis.c`):
/// the section's records sorted, and adjacent records merged when they differ only in the
/// DATA/NO_TRANSFORM bits (counting alignment fill after unreachable code as adjacent).
#[derive(Debug, Clone, Default)]
pub struct PropBlocks {
    blocks: Vec<PropEntry>,
    /// `reach[i]`: the highest end (`addr + size`, unwrapped) of the non-empty blocks `0..=i`.
    reach: Vec<u64>,
    /// `next[i]`: the index of the first non-empty block at or after `i` (`blocks.len()` if none).
    next: Vec<usize>,
}

const ALIGN: u32 = 0x800;

fn fill_after(e: &PropEntry) -> u32 {
    if !e.flags.contains(PropFlags::UNREACHABLE) {
        return 0;
    }
    let mut fill = e.size;
    if e.flags.bits() & ALIGN != 0 {
        let nsm = (1u32 << ((e.flags.bits() >> 12) & 0x1f)) - 1;
        let end = e.addr.wrapping_add(e.size);
        fill = fill.wrapping_add(nsm - (end.wrapping_add(nsm) & nsm));
    }
    fill
}

impl PropBlocks {
    /// Blocks of the records in `table` that start inside `[start, start + size)`.
    pub fn for_section(table: &[PropEntry], start: u32, size: u32) -> Self {
        let mut v: Vec<PropEntry> = table
            .iter()
            .filter(|p| p.addr.wrapping_sub(start) < size)
            .copied()
            .collect();
        v.sort_by(|a, b| {
            a.addr
                .cmp(&b.addr)
                .then(a.size.cmp(&b.size))
                .then((b.flags.bits() & ALIGN).cmp(&(a.flags.bits() & ALIGN)))
                .then(a.flags.bits().cmp(&b.flags.bits()))
        });
        let mask = !(PropFlags::DATA | PropFlags::NO_TRANSFORM).bits();
        let mut blocks: Vec<PropEntry> = Vec::with_capacity(v.len());
        let mut j = 0;
        while j < v.len() {
            let mut entry = v[j];
            j += 1;
            while j < v.len() {
                let next = v[j];
                if entry
                    .addr
                    .wrapping_add(entry.size)
                    .wrapping_add(fill_after(&entry))
                    == next.addr
                    && entry.flags.bits() & mask == next.flags.bits() & mask
                {
                    entry.size = (next.addr - entry.addr).wrapping_add(next.size);
                    j += 1;
                } else {
                    break;
                }
            }
            blocks.push(entry);
        }
        let end = |b: &PropEntry| {
            if b.size == 0 {
                0
            } else {
                u64::from(b.addr) + u64::from(b.size)
            }
        };
        let reach = blocks
            .iter()
            .scan(0u64, |max, b| {
                *max = (*max).max(end(b));
                Some(*max)
            })
            .collect();
        let mut next = vec![blocks.len(); blocks.len()];
        for i in (0..blocks.len()).rev() {
            next[i] = if blocks[i].size != 0 {
                i
            } else {
                next.get(i + 1).copied().unwrap_or(blocks.len())
            };
        }
        PropBlocks {
            blocks,
            reach,
            next,
        }
    }

    /// The first block (in address order) that contains `addr` or lies after it, non-empty
    /// blocks only. Logarithmic in the number of blocks: the first block whose running reach
    /// (highest end so far) passes `addr` is the first that contains it, and the first block
    /// after `addr` follows every block at or below it.
    pub fn find(&self, addr: u32) -> Option<&PropEntry> {
        let at_or_below = self.blocks.partition_point(|b| b.addr <= addr);
        let first_reaching = self.reach.partition_point(|&r| r <= u64::from(addr));
        let i = if first_reaching < at_or_below {
            first_reaching
        } else {
            *self.next.get(at_or_below)?
        };
        self.blocks.get(i)
    }

    /// Whether an instruction of `len` bytes at `addr` stays within its block.
    pub fn fits(&self, addr: u32, len: u32) -> bool {
        match self.find(addr) {
            None => true,
            Some(b) if b.addr > addr => len <= b.addr - addr,
            Some(b) => len <= b.size - (addr - b.addr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition `find` implements: a scan of the blocks in order.
    fn find_by_scan(p: &PropBlocks, addr: u32) -> Option<&PropEntry> {
        p.blocks
            .iter()
            .find(|b| b.size != 0 && (addr < b.addr || addr - b.addr < b.size))
    }

    #[test]
    fn find_is_the_first_block_containing_or_after_the_address() {
        // Overlapping, empty and wrapping records from a fixed pseudo-random sequence.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % u64::from(m)) as u32
        };
        for _ in 0..200 {
            let table: Vec<PropEntry> = (0..next(12))
                .map(|_| PropEntry {
                    addr: 0xffff_ff00u32.wrapping_add(next(0x300)),
                    size: [0, 4, 0x40, 0x200][next(4) as usize],
                    flags: PropFlags::from_bits_retain([1, 2, 4, 8][next(4) as usize]),
                })
                .collect();
            let p = PropBlocks::for_section(&table, 0xffff_ff00, 0x400);
            for addr in (0xffff_fe00u32..=0xffff_ffff).chain(0..0x300) {
                assert_eq!(
                    p.find(addr),
                    find_by_scan(&p, addr),
                    "{addr:#x} in {:?}",
                    p.blocks
                );
            }
        }
    }
}
