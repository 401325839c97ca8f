//! The core's view of memory: a [`Bus`] answers loads, stores and instruction fetches, or says
//! why it cannot, and reports each access's extra latency for the cycle model.
//!
//! [`FlatMemory`] is the bare-metal bus: one sparse 4 GiB space (an anonymous mapping, so
//! untouched pages cost nothing), every address mapped, uniform latency.

use memmap2::MmapMut;

/// Why an access failed; the core turns it into an exception with the address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BusFault {
    /// Nothing is mapped at the address.
    #[error("unmapped address {addr:#010x}")]
    Unmapped {
        /// The address.
        addr: u32,
    },
    /// The region does not allow this kind of access (e.g. a store to ROM).
    #[error("{kind} not allowed at {addr:#010x}")]
    Prohibited {
        /// The address.
        addr: u32,
        /// "load", "store" or "fetch".
        kind: &'static str,
    },
    /// A device refused the access (e.g. an SDMA error), saying why.
    #[error("{message}")]
    Device {
        /// The register address.
        addr: u32,
        /// What is wrong, naming the queue/descriptor/register.
        message: String,
    },
}

/// Memory as a core sees it. Accesses are naturally aligned (the core checks alignment). `now`
/// is the core's cycle count, for devices whose state depends on time.
pub trait Bus {
    /// Whether [`Bus::fetch_cycles`] models instruction-fetch time (so the core calls it).
    const FETCH_TIMING: bool = false;
    /// Loads `size` (1, 2 or 4) bytes, little-endian, zero-extended.
    fn load(&mut self, addr: u32, size: u32, now: u64) -> Result<u32, BusFault>;
    /// Stores the low `size` (1, 2 or 4) bytes of `value`, little-endian. Returns the cycles
    /// the core must wait (a device wait, e.g. SDMA_WAIT), normally 0.
    fn store(&mut self, addr: u32, size: u32, value: u32, now: u64) -> Result<u64, BusFault>;
    /// Extra cycles fetching the instruction at `pc` costs (I-cache model). Only called when
    /// [`Bus::FETCH_TIMING`] is true.
    fn fetch_cycles(&mut self, pc: u32) -> u32 {
        let _ = pc;
        0
    }
    /// Copies instruction bytes at `addr` into `buf`; returns how many could be fetched (an
    /// instruction may end at the edge of a region).
    fn fetch(&mut self, addr: u32, buf: &mut [u8]) -> Result<usize, BusFault>;
    /// Extra cycles a data access to `addr` costs beyond the pipeline's base (0 for local RAM).
    fn data_latency(&self, addr: u32) -> u32 {
        let _ = addr;
        0
    }
    /// Reads an aligned word without side effects (for reports); `None` if unreadable.
    fn peek(&self, addr: u32) -> Option<u32> {
        let _ = addr;
        None
    }
    /// Whether `addr` holds memory that instruction fetch may have cached (stores there must
    /// invalidate decoded instructions). Conservative default: everything.
    fn may_hold_code(&self, addr: u32) -> bool {
        let _ = addr;
        true
    }
    /// When no loaded image occupies `addr`, the region it lies in, said for a report (e.g.
    /// "bare-metal memory no image occupies (images at 0x00001000..0x00001040)"); `None` when
    /// an image occupies it or the bus does not know. Only fault reports call it.
    fn vacant(&self, addr: u32) -> Option<String> {
        let _ = addr;
        None
    }
}

/// A flat, sparse, fully mapped 4 GiB little-endian memory.
#[derive(Debug)]
pub struct FlatMemory {
    map: MmapMut,
    /// Address ranges loaded images occupy (for [`Bus::vacant`]).
    images: Vec<std::ops::Range<u64>>,
}

const SPACE: usize = 1 << 32;

impl FlatMemory {
    /// Reserves the 4 GiB space (zero-filled; pages are allocated on first write).
    pub fn new() -> std::io::Result<Self> {
        Ok(FlatMemory {
            map: MmapMut::map_anon(SPACE)?,
            images: Vec::new(),
        })
    }

    /// Records that an image occupies `len` bytes at `addr` (reports name the rest vacant).
    pub fn occupy(&mut self, addr: u32, len: u64) {
        self.images.push(u64::from(addr)..u64::from(addr) + len);
        self.images.sort_by_key(|r| r.start);
    }

    /// Copies `bytes` to `addr` (wrapping at 4 GiB is an error: the slice must fit).
    pub fn write_bytes(&mut self, addr: u32, bytes: &[u8]) -> Result<(), BusFault> {
        let start = addr as usize;
        let end = start
            .checked_add(bytes.len())
            .filter(|&e| e <= SPACE)
            .ok_or(BusFault::Unmapped {
                addr: addr.wrapping_add(bytes.len() as u32),
            })?;
        self.map[start..end].copy_from_slice(bytes);
        Ok(())
    }

    /// Reads `len` bytes at `addr`.
    pub fn read_bytes(&self, addr: u32, len: usize) -> Result<&[u8], BusFault> {
        let start = addr as usize;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= SPACE)
            .ok_or(BusFault::Unmapped {
                addr: addr.wrapping_add(len as u32),
            })?;
        Ok(&self.map[start..end])
    }
}

impl Bus for FlatMemory {
    #[inline]
    fn load(&mut self, addr: u32, size: u32, _now: u64) -> Result<u32, BusFault> {
        let a = addr as usize;
        let bytes = self.map.get(a..a + size as usize);
        Ok(match (size, bytes) {
            (1, Some(&[b])) => u32::from(b),
            (2, Some(&[b0, b1])) => u32::from(u16::from_le_bytes([b0, b1])),
            (4, Some(&[b0, b1, b2, b3])) => u32::from_le_bytes([b0, b1, b2, b3]),
            _ => return Err(BusFault::Unmapped { addr }),
        })
    }

    #[inline]
    fn store(&mut self, addr: u32, size: u32, value: u32, _now: u64) -> Result<u64, BusFault> {
        let a = addr as usize;
        let le = value.to_le_bytes();
        let src = match size {
            1 => &le[..1],
            2 => &le[..2],
            4 => &le[..],
            _ => return Err(BusFault::Unmapped { addr }),
        };
        match self.map.get_mut(a..a + src.len()) {
            Some(bytes) => bytes.copy_from_slice(src),
            None => return Err(BusFault::Unmapped { addr }),
        }
        Ok(0)
    }

    fn peek(&self, addr: u32) -> Option<u32> {
        let b = self.read_bytes(addr, 4).ok()?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn fetch(&mut self, addr: u32, buf: &mut [u8]) -> Result<usize, BusFault> {
        let a = addr as usize;
        let n = buf.len().min(SPACE - a);
        buf[..n].copy_from_slice(&self.map[a..a + n]);
        Ok(n)
    }

    #[cold]
    fn vacant(&self, addr: u32) -> Option<String> {
        let a = u64::from(addr);
        if self.images.iter().any(|r| r.contains(&a)) {
            return None;
        }
        /// Ranges named in full; more are counted.
        const SHOWN: usize = 4;
        let mut at: Vec<String> = self
            .images
            .iter()
            .take(SHOWN)
            .map(|r| format!("{:#010x}..{:#010x}", r.start, r.end))
            .collect();
        if self.images.len() > SHOWN {
            at.push(format!("{} more", self.images.len() - SHOWN));
        }
        Some(format!(
            "bare-metal memory no image occupies (images at {})",
            if at.is_empty() {
                "none".to_string()
            } else {
                at.join(", ")
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vacant_names_memory_no_image_occupies_with_the_loaded_ranges() {
        let mut mem = FlatMemory::new().unwrap();
        assert_eq!(
            mem.vacant(0).unwrap(),
            "bare-metal memory no image occupies (images at none)"
        );
        mem.occupy(0x1000, 0x40);
        mem.occupy(0, 0x180);
        assert_eq!(mem.vacant(0x103f), None);
        assert_eq!(
            mem.vacant(0x1040).unwrap(),
            "bare-metal memory no image occupies \
             (images at 0x00000000..0x00000180, 0x00001000..0x00001040)"
        );
        for n in 0..4 {
            mem.occupy(0x10_0000 + n * 0x100, 0x10);
        }
        assert!(mem.vacant(0x8000).unwrap().ends_with(", 2 more)"));
    }
}
