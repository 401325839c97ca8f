//! HBM: one sparse 64-bit space shared by the host and every core, and its host allocator.
//!
//! The space is an anonymous mapping (untouched pages cost nothing). Every access goes through
//! relaxed atomics, so concurrent cores never form a data race; relaxed atomics compile to
//! plain loads and stores.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

use memmap2::MmapRaw;

/// Why an HBM access or allocation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HbmError {
    /// The range is outside HBM.
    #[error("HBM range {addr:#x}+{len:#x} is outside the {size:#x}-byte HBM")]
    OutOfRange {
        /// Start.
        addr: u64,
        /// Length.
        len: u64,
        /// HBM size.
        size: u64,
    },
    /// No free region fits.
    #[error("out of HBM: no free region of {len:#x} bytes aligned to {align:#x} ({free:#x} bytes free in total)")]
    OutOfMemory {
        /// Requested size.
        len: u64,
        /// Requested alignment.
        align: u64,
        /// Free bytes.
        free: u64,
    },
    /// `free` of an address that is not an allocation.
    #[error("free of {addr:#x}, which is not an HBM allocation")]
    NotAllocated {
        /// The address.
        addr: u64,
    },
    /// Alignment not a power of two.
    #[error("alignment {align:#x} is not a power of two")]
    BadAlignment {
        /// The alignment.
        align: u64,
    },
    /// The mapping could not be created.
    #[error("cannot reserve {size:#x} bytes of HBM address space: {why}")]
    Map {
        /// Requested size.
        size: u64,
        /// The OS error.
        why: String,
    },
}

/// The granule [`Hbm::zero`] hands back to the OS: 64 KiB, a multiple of the page size of
/// every Linux target (4, 16 or 64 KiB).
pub const ZERO_GRANULE: u64 = 64 << 10;

/// How a copy of `len` bytes at offset `off` splits: the bytes before the first 8-byte
/// boundary (at most `len`), the whole 8-byte words after them, and the bytes left after those.
fn split_at_words(off: usize, len: usize) -> (usize, usize, usize) {
    let head = (off.next_multiple_of(8) - off).min(len);
    let words = (len - head) / 8;
    (head, words, len - head - 8 * words)
}

/// The shared HBM space.
#[derive(Debug)]
pub struct Hbm {
    map: MmapRaw,
    size: u64,
    alloc: Mutex<Allocator>,
}

impl Hbm {
    /// Reserves `size` bytes (zero-filled); allocations are served from `[alloc_base, size)`.
    pub fn new(size: u64, alloc_base: u64) -> Result<Hbm, HbmError> {
        let map = memmap2::MmapOptions::new()
            .len(size as usize)
            .map_anon()
            .map(MmapRaw::from)
            .map_err(|e| HbmError::Map {
                size,
                why: e.to_string(),
            })?;
        Ok(Hbm {
            map,
            size,
            alloc: Mutex::new(Allocator::new(alloc_base, size)),
        })
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The host memory behind HBM, `size` bytes, valid while `self` lives. Whoever accesses it
    /// must do so with aligned accesses no wider than 8 bytes, as atomics (or plain machine
    /// loads and stores, which are as atomic on the hosts compiled code runs on).
    pub(crate) fn host(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    fn check(&self, addr: u64, len: u64) -> Result<usize, HbmError> {
        match addr.checked_add(len) {
            Some(end) if end <= self.size => Ok(addr as usize),
            _ => Err(HbmError::OutOfRange {
                addr,
                len,
                size: self.size,
            }),
        }
    }

    /// Loads `size` (1, 2 or 4) naturally aligned bytes.
    #[inline]
    pub fn load(&self, addr: u64, size: u32) -> Result<u32, HbmError> {
        let off = self.check(addr, u64::from(size))?;
        // SAFETY: `off + size <= self.size` (checked), the mapping is valid for `self.size`
        // bytes for the life of `self`, the address is naturally aligned for the access size
        // (the core checks alignment; the mapping is page aligned), and every access to HBM
        // goes through atomics, so no non-atomic access can race with this one.
        unsafe {
            let p = self.map.as_mut_ptr().add(off);
            Ok(match size {
                1 => u32::from((*(p as *const AtomicU8)).load(Relaxed)),
                2 => u32::from((*(p as *const AtomicU16)).load(Relaxed)),
                _ => (*(p as *const AtomicU32)).load(Relaxed),
            })
        }
    }

    /// Stores the low `size` (1, 2 or 4) bytes of `value`, naturally aligned.
    #[inline]
    pub fn store(&self, addr: u64, size: u32, value: u32) -> Result<(), HbmError> {
        let off = self.check(addr, u64::from(size))?;
        // SAFETY: as in `load`: in bounds, valid mapping, natural alignment, atomic access.
        unsafe {
            let p = self.map.as_mut_ptr().add(off);
            match size {
                1 => (*(p as *const AtomicU8)).store(value as u8, Relaxed),
                2 => (*(p as *const AtomicU16)).store(value as u16, Relaxed),
                _ => (*(p as *const AtomicU32)).store(value, Relaxed),
            }
        }
        Ok(())
    }

    /// Copies HBM `[addr, addr + out.len())` into `out` (any alignment): a byte at a time up
    /// to an 8-byte boundary, then eight at a time (an input or output tensor of megabytes was
    /// some 4 ns a byte, a byte at a time), then the bytes after the last whole word.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), HbmError> {
        let off = self.check(addr, out.len() as u64)?;
        let (head, words, tail) = split_at_words(off, out.len());
        for (i, b) in out[..head].iter_mut().enumerate() {
            *b = self.load(addr + i as u64, 1)? as u8;
        }
        // (`off + head` is a multiple of 8 and the words end inside the range checked.)
        for (k, chunk) in out[head..head + 8 * words].chunks_exact_mut(8).enumerate() {
            let w = self.word((off + head + 8 * k) as u64);
            chunk.copy_from_slice(&w.to_ne_bytes());
        }
        let from = head + 8 * words;
        for (i, b) in out[from..from + tail].iter_mut().enumerate() {
            *b = self.load(addr + (from + i) as u64, 1)? as u8;
        }
        Ok(())
    }

    /// Copies `data` to HBM at `addr` (any alignment), as [`Hbm::read`] copies: whole aligned
    /// words eight bytes at a time, the bytes before and after them one at a time.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), HbmError> {
        let off = self.check(addr, data.len() as u64)?;
        let (head, words, tail) = split_at_words(off, data.len());
        for (i, &b) in data[..head].iter().enumerate() {
            self.store(addr + i as u64, 1, u32::from(b))?;
        }
        for (k, chunk) in data[head..head + 8 * words].chunks_exact(8).enumerate() {
            let w = u64::from_ne_bytes(chunk.try_into().expect("chunks of 8 bytes"));
            self.set_word((off + head + 8 * k) as u64, w);
        }
        let from = head + 8 * words;
        for (i, &b) in data[from..from + tail].iter().enumerate() {
            self.store(addr + (from + i) as u64, 1, u32::from(b))?;
        }
        Ok(())
    }

    /// Makes `[addr, addr + len)` zero without taking memory for it: the whole
    /// [`ZERO_GRANULE`]-aligned blocks inside the range are handed back to the OS
    /// (`MADV_DONTNEED`: they read as zero again and are resident no more), the bytes at its ends
    /// outside such blocks are written. Meant for the host between runs: a core accessing the
    /// range meanwhile reads either its old bytes or zeros.
    pub fn zero(&self, addr: u64, len: u64) -> Result<(), HbmError> {
        self.check(addr, len)?;
        let end = addr + len;
        let first = addr.next_multiple_of(ZERO_GRANULE).min(end);
        let last = (end / ZERO_GRANULE * ZERO_GRANULE).max(first);
        let zeros = vec![0u8; ZERO_GRANULE as usize];
        for (from, to) in [(addr, first), (last, end)] {
            if from < to {
                self.write(from, &zeros[..(to - from) as usize])?;
            }
        }
        if first < last {
            // SAFETY: `[first, last)` is inside the mapping (checked above) and aligned to
            // ZERO_GRANULE, a multiple of the OS page size, so madvise drops exactly those pages.
            // Every access to HBM is an atomic access through a raw pointer, never a Rust
            // reference, so dropping the pages is to them a store of zeros.
            unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    first as usize,
                    (last - first) as usize,
                )
            }
            .map_err(|e| HbmError::Map {
                size: last - first,
                why: format!("MADV_DONTNEED: {e}"),
            })?;
        }
        Ok(())
    }

    /// Allocates `len` bytes aligned to `align` (a power of two; 64 when 0).
    pub fn alloc(&self, len: u64, align: u64) -> Result<u64, HbmError> {
        self.alloc
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .alloc(len, align)
    }

    /// Frees an allocation made by [`Hbm::alloc`].
    pub fn free(&self, addr: u64) -> Result<(), HbmError> {
        self.alloc
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .free(addr)
    }
}

/// The granule of an [`HbmCheckpoint`]: a checkpoint keeps the pages of this size that are not
/// all zero.
pub const CHECKPOINT_PAGE: u64 = 4096;
const PAGE_WORDS: usize = (CHECKPOINT_PAGE / 8) as usize;

/// HBM as it was at [`Hbm::checkpoint`]: the allocator's state and the contents of every
/// [`CHECKPOINT_PAGE`] of the allocated space that was not all zero (what is free is zero to
/// whoever allocates it next, so it needs no keeping).
#[derive(Debug, Clone)]
pub struct HbmCheckpoint {
    alloc: Allocator,
    pages: Vec<(u64, Box<[u64; PAGE_WORDS]>)>,
}

impl HbmCheckpoint {
    /// The bytes the checkpoint holds.
    pub fn bytes(&self) -> u64 {
        self.pages.len() as u64 * CHECKPOINT_PAGE
    }
}

impl Hbm {
    /// The 64-bit word at `addr` (8-byte aligned, in bounds: the caller's to ensure).
    fn word(&self, addr: u64) -> u64 {
        debug_assert!(addr.is_multiple_of(8) && addr + 8 <= self.size);
        // SAFETY: `addr + 8 <= self.size` and `addr` is 8-byte aligned (the callers walk
        // page-aligned ranges inside the mapping, which is page aligned, or the whole aligned
        // words of a range `read` or `write` checked); every access to HBM
        // is atomic, so this load races with no non-atomic access.
        unsafe { (*(self.map.as_mut_ptr().add(addr as usize) as *const AtomicU64)).load(Relaxed) }
    }

    /// Stores the 64-bit word `value` at `addr` (8-byte aligned, in bounds).
    fn set_word(&self, addr: u64, value: u64) {
        debug_assert!(addr.is_multiple_of(8) && addr + 8 <= self.size);
        // SAFETY: as in `word`.
        unsafe {
            (*(self.map.as_mut_ptr().add(addr as usize) as *const AtomicU64)).store(value, Relaxed)
        }
    }

    /// HBM's state now, to come back to with [`Hbm::restore`]: what the host keeps of a
    /// cluster with a library loaded, so that each call of it starts from the same HBM
    /// (docs/python.md "Calls per second"). Reads the whole allocated space once.
    pub fn checkpoint(&self) -> HbmCheckpoint {
        let alloc = self.alloc.lock().unwrap_or_else(|p| p.into_inner()).clone();
        // The allocated space: everything the free list does not hold (the space below the
        // allocator's base included).
        let mut used = Vec::new();
        let mut at = 0;
        for &(start, end) in &alloc.free {
            used.push((at, start));
            at = end;
        }
        used.push((at, self.size));
        let mut pages = Vec::new();
        for (start, end) in used {
            let mut page = start / CHECKPOINT_PAGE * CHECKPOINT_PAGE;
            while page < end {
                let last = (page + CHECKPOINT_PAGE).min(self.size);
                if (page..last).step_by(8).any(|a| self.word(a) != 0) {
                    let mut words = Box::new([0u64; PAGE_WORDS]);
                    for (i, w) in words
                        .iter_mut()
                        .enumerate()
                        .take(((last - page) / 8) as usize)
                    {
                        *w = self.word(page + 8 * i as u64);
                    }
                    pages.push((page, words));
                }
                page += CHECKPOINT_PAGE;
            }
        }
        HbmCheckpoint { alloc, pages }
    }

    /// Makes HBM what it was at `checkpoint`: every byte zero again but the checkpoint's
    /// pages, and the allocator's state then (the same later allocations at the same
    /// addresses). Meant for the host between runs, with no core running.
    pub fn restore(&self, checkpoint: &HbmCheckpoint) -> Result<(), HbmError> {
        self.zero(0, self.size)?;
        for (page, words) in &checkpoint.pages {
            let last = (page + CHECKPOINT_PAGE).min(self.size);
            for (i, &w) in words.iter().enumerate().take(((last - page) / 8) as usize) {
                if w != 0 {
                    self.set_word(page + 8 * i as u64, w);
                }
            }
        }
        *self.alloc.lock().unwrap_or_else(|p| p.into_inner()) = checkpoint.alloc.clone();
        Ok(())
    }
}

/// First-fit allocator over `[base, end)` with coalescing free.
#[derive(Debug, Clone)]
struct Allocator {
    /// Free ranges (start, end), sorted, non-adjacent.
    free: Vec<(u64, u64)>,
    /// Live allocations: start → end.
    live: std::collections::BTreeMap<u64, u64>,
}

impl Allocator {
    fn new(base: u64, end: u64) -> Self {
        Allocator {
            free: vec![(base, end)],
            live: Default::default(),
        }
    }

    fn alloc(&mut self, len: u64, align: u64) -> Result<u64, HbmError> {
        let align = if align == 0 { 64 } else { align };
        if !align.is_power_of_two() {
            return Err(HbmError::BadAlignment { align });
        }
        let len = len.max(1);
        for i in 0..self.free.len() {
            let (start, end) = self.free[i];
            let a = (start + align - 1) & !(align - 1);
            if a.checked_add(len).is_some_and(|e| e <= end) {
                let e = a + len;
                self.free.remove(i);
                if e < end {
                    self.free.insert(i, (e, end));
                }
                if start < a {
                    self.free.insert(i, (start, a));
                }
                self.live.insert(a, e);
                return Ok(a);
            }
        }
        let free = self.free.iter().map(|(s, e)| e - s).sum();
        Err(HbmError::OutOfMemory { len, align, free })
    }

    fn free(&mut self, addr: u64) -> Result<(), HbmError> {
        let end = self
            .live
            .remove(&addr)
            .ok_or(HbmError::NotAllocated { addr })?;
        let i = self.free.partition_point(|&(s, _)| s < addr);
        self.free.insert(i, (addr, end));
        // Coalesce with the neighbours.
        if i + 1 < self.free.len() && self.free[i].1 == self.free[i + 1].0 {
            self.free[i].1 = self.free[i + 1].1;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].1 == self.free[i].0 {
            self.free[i - 1].1 = self.free[i].1;
            self.free.remove(i);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restore_gives_back_the_bytes_and_allocations_of_the_checkpoint() {
        let hbm = Hbm::new(16 * ZERO_GRANULE, ZERO_GRANULE).unwrap();
        hbm.write(5, b"scratch").unwrap();
        let a = hbm.alloc(3 * CHECKPOINT_PAGE, 64).unwrap();
        hbm.write(a + CHECKPOINT_PAGE + 9, b"image").unwrap();
        let checkpoint = hbm.checkpoint();
        assert_eq!(
            checkpoint.bytes(),
            2 * CHECKPOINT_PAGE,
            "only the pages that are not zero"
        );
        // A run: stores anywhere, allocations made and one freed.
        hbm.write(a + 2, b"kernel").unwrap();
        hbm.write(a + CHECKPOINT_PAGE + 9, b"IMAGE").unwrap();
        let b = hbm.alloc(100, 64).unwrap();
        hbm.write(b, b"output").unwrap();
        hbm.write(10 * ZERO_GRANULE, b"wild").unwrap();
        hbm.free(a).unwrap();
        hbm.restore(&checkpoint).unwrap();
        let read = |addr, len| {
            let mut out = vec![0; len];
            hbm.read(addr, &mut out).unwrap();
            out
        };
        assert_eq!(read(5, 7), b"scratch");
        assert_eq!(read(a, 8), [0; 8]);
        assert_eq!(read(a + CHECKPOINT_PAGE + 9, 5), b"image");
        assert_eq!(read(b, 6), [0; 6]);
        assert_eq!(read(10 * ZERO_GRANULE, 4), [0; 4]);
        // The allocator is the checkpoint's: `a` is live, the next allocation is `b` again.
        assert_eq!(hbm.alloc(100, 64).unwrap(), b);
        hbm.free(a).unwrap();
    }

    #[test]
    fn a_copy_in_or_out_moves_exactly_its_bytes_whatever_its_alignment_and_length() {
        // `read` and `write` move whole aligned words eight bytes at a time and the bytes
        // around them one at a time: every start and length across two words, against a
        // byte-for-byte model of the space.
        let hbm = Hbm::new(ZERO_GRANULE, 0).unwrap();
        let mut model = vec![0u8; 64];
        for addr in 0..20u64 {
            for len in 0..30usize {
                let data: Vec<u8> = (0..len)
                    .map(|i| (addr as usize * 31 + i * 7 + 1) as u8)
                    .collect();
                hbm.write(addr, &data).unwrap();
                model[addr as usize..addr as usize + len].copy_from_slice(&data);
                let mut all = vec![0u8; 64];
                hbm.read(0, &mut all).unwrap();
                assert_eq!(all, model, "after write({addr}, {len})");
                let mut back = vec![0u8; len];
                hbm.read(addr, &mut back).unwrap();
                assert_eq!(back, data, "read({addr}, {len})");
            }
        }
        assert_eq!(split_at_words(3, 30), (5, 3, 1));
        assert_eq!(split_at_words(3, 4), (4, 0, 0));
        assert_eq!(split_at_words(16, 8), (0, 1, 0));
        assert!(matches!(
            hbm.write(ZERO_GRANULE - 4, &[0; 8]),
            Err(HbmError::OutOfRange { .. })
        ));
    }

    #[test]
    fn zero_clears_exactly_its_range_whatever_its_alignment() {
        let hbm = Hbm::new(4 * ZERO_GRANULE, 0).unwrap();
        let all: Vec<u8> = (0..4 * ZERO_GRANULE).map(|i| (i % 251 + 1) as u8).collect();
        for (addr, len) in [
            (3, 5),
            (ZERO_GRANULE - 7, 2 * ZERO_GRANULE + 20),
            (ZERO_GRANULE, ZERO_GRANULE),
            (0, 4 * ZERO_GRANULE),
        ] {
            hbm.write(0, &all).unwrap();
            hbm.zero(addr, len).unwrap();
            let mut back = vec![0u8; all.len()];
            hbm.read(0, &mut back).unwrap();
            for (i, (&b, &was)) in back.iter().zip(&all).enumerate() {
                let inside = (addr..addr + len).contains(&(i as u64));
                assert_eq!(
                    b,
                    if inside { 0 } else { was },
                    "byte {i} of zero({addr}, {len})"
                );
            }
        }
        assert!(matches!(
            hbm.zero(4 * ZERO_GRANULE - 1, 2),
            Err(HbmError::OutOfRange { .. })
        ));
    }
}
