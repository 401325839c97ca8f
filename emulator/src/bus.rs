//! The core's view of memory: a [`Bus`] answers loads, stores and instruction fetches, or says
//! why it cannot, and reports each access's extra latency for the cycle model.
//!
//! [`FlatMemory`] is the bare-metal bus: one sparse 4 GiB space (an anonymous mapping, so
//! untouched pages cost nothing), every address mapped, uniform latency. The memory a program
//! writes is counted in [`TOUCH_GRANULE`]s and may be capped, so a runaway cannot fill the
//! host's memory.

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
    /// The store would take the memory a bare-metal program has touched past its limit
    /// ([`FlatMemory::set_memory_limit`]).
    #[error("store to {addr:#010x} would take the memory touched past the limit of {limit} bytes")]
    MemoryLimit {
        /// The address.
        addr: u32,
        /// The limit in bytes.
        limit: u64,
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

/// The memory class of a data access and its extra cycles, each class with its own stall
/// category ([`crate::Stalls`]) and [`crate::TimingModel`] parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataLatency {
    /// Nothing to charge: core-local memory (IRAM, DATARAM, the firmware band, MMIO), or a
    /// class whose latency is 0.
    Free,
    /// The image windows' SRAM: `sram_latency` cycles.
    Sram(u32),
    /// HBM through a dynamic translate window: `hbm_latency` cycles.
    Hbm(u32),
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
    /// What a data access to `addr` costs beyond the pipeline's base, by memory class
    /// ([`DataLatency::Free`] for local RAM and for a bus without latencies).
    fn data_latency(&self, addr: u32) -> DataLatency {
        let _ = addr;
        DataLatency::Free
    }
    /// The most cycles [`Bus::data_latency`] or [`Bus::fetch_cycles`] can charge one access:
    /// what a compiled block's cycle bound allows for each (docs/jit.md "Exact stops").
    fn most_access_cycles(&self) -> u32 {
        0
    }
    /// The address in shared memory (HBM) behind core address `addr`, when it is reached
    /// through a translate window; `None` for local memory, devices and a bus without shared
    /// memory. Only the data accesses kept for an enabled tracer ask it ([`crate::trace::Access`]).
    fn shared_address(&self, addr: u32) -> Option<u64> {
        let _ = addr;
        None
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
    /// Compiled code's load of ordinary memory (docs/jit.md "Memory"): the `size` bytes at the
    /// naturally aligned `addr` when it is memory whose access has no effect beyond the memory
    /// (no device) and succeeds; `None`, with nothing changed, otherwise, and the interpreter
    /// then executes the instruction. The default hands every access to the interpreter.
    fn plain_load(&mut self, addr: u32, size: u32) -> Option<u32> {
        let _ = (addr, size);
        None
    }
    /// Compiled code's store to ordinary memory, as [`Bus::plain_load`]: `true` when done,
    /// `false`, with nothing changed, when the interpreter must execute the instruction.
    fn plain_store(&mut self, addr: u32, size: u32, value: u32) -> bool {
        let _ = (addr, size, value);
        false
    }
    /// The memory compiled code may load from directly, without calling the bus: free of
    /// latency, of devices and of side effects (and stored to directly when
    /// [`Direct::stores`]: no code can live there and nothing counts its stores). The pointer
    /// stays valid while the bus lives and is not moved.
    fn direct(&mut self) -> Option<Direct> {
        None
    }
    /// A second memory compiled code loads from directly, as [`Bus::direct`]'s, that may
    /// hold code: compiled code stores there itself (when [`Direct::stores`]) only into a
    /// granule the decode cache holds no instruction of, and leaves every other store to
    /// [`Bus::plain_store`], which forgets the code. Loads and stores there have no latency,
    /// no device and no side effect, and nothing counts them.
    fn direct_code(&mut self) -> Option<Direct> {
        None
    }
    /// The I-cache's state as compiled code looks up a hit itself (docs/jit.md "Cycles"),
    /// `None` when fetch is untimed or the bus keeps no such state. The pointers stay valid
    /// while the bus lives and is not moved.
    fn fetch_view(&mut self) -> Option<FetchView> {
        None
    }
    /// The translate windows as compiled code loads through them itself (docs/jit.md
    /// "Memory"), `None` when the bus has none. The pointers stay valid while the bus lives
    /// and is not moved.
    fn window_view(&mut self) -> Option<WindowView> {
        None
    }
    /// When no loaded image occupies `addr`, the region it lies in, said for a report (e.g.
    /// "bare-metal memory no image occupies (images at 0x00001000..0x00001040)"); `None` when
    /// an image occupies it or the bus does not know. Only fault reports call it.
    fn vacant(&self, addr: u32) -> Option<String> {
        let _ = addr;
        None
    }
}

/// Memory compiled code reaches without calling the bus ([`Bus::direct`]): `len` bytes of
/// host memory at `ptr` holding core addresses `base..base + len`.
#[derive(Debug, Clone, Copy)]
pub struct Direct {
    /// The first core address.
    pub base: u32,
    /// Bytes (up to 2^32).
    pub len: u64,
    /// Host memory of `base`.
    pub ptr: *mut u8,
    /// Whether stores may go there directly too.
    pub stores: bool,
    /// Null, or (memory that may hold code, whose stores are counted per [`TOUCH_GRANULE`],
    /// with `stores` false) one bit per granule, set once a store has touched it: compiled
    /// code stores there itself only into a touched granule (nothing left to count or
    /// refuse) whose 64 bytes hold no decoded instruction (`DecodeCache::code_bits`), and
    /// leaves every other store to [`Bus::plain_store`] (docs/jit.md "Memory"). The bitmap
    /// stays where it is while the bus lives.
    pub touched: *const u64,
}

impl Direct {
    /// Loads and stores straight into `mem`, the host memory of the core addresses
    /// `region` (its first address and size in bytes).
    pub fn writable((base, len): (u32, u32), mem: &mut [u8]) -> Direct {
        debug_assert_eq!(mem.len() as u64, u64::from(len));
        Direct {
            base,
            len: u64::from(len),
            ptr: mem.as_mut_ptr(),
            stores: true,
            touched: std::ptr::null(),
        }
    }
}

/// The I-cache as compiled code sees it ([`Bus::fetch_view`]). A fetch at `pc` outside
/// `timed` costs nothing and looks nothing up. Inside, with `line = pc >> line_shift`: when
/// `line` is `*last_line`, nothing happens; when it is one of the tags of set `line % sets`
/// (and not `u32::MAX`), at way `i`, the set's first `i` tags move one way on, `line` becomes
/// its first (most recently used), `*last_line` becomes `line` and `*lookups` grows by one, at
/// no cost; otherwise (a miss) [`Bus::fetch_cycles`] decides. Exactly what `fetch_cycles`
/// does in those cases.
#[derive(Debug, Clone, Copy)]
pub struct FetchView {
    /// Core addresses `timed.0..timed.0 + timed.1`: where fetch is timed.
    pub timed: (u32, u32),
    /// Log2 of the line size.
    pub line_shift: u32,
    /// Sets.
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
    /// The tags, `ways` words per set, most recently used first.
    pub tags: *mut u32,
    /// The line of the last fetch.
    pub last_line: *mut u32,
    /// The lookup counter.
    pub lookups: *mut u64,
}

/// The translate windows as compiled code sees them ([`Bus::window_view`]). A load of `size`
/// bytes at `addr` with `off = addr - xlate.0 < xlate.1` goes through window `off >> shift`,
/// whose registers are the `stride` bytes at `windows + (off >> shift) × stride`. When its
/// byte at `enabled_at` is non-zero and `h = (its u64 at base_at) + off % (1 << shift)` has
/// `h + size <= hbm_size`, the load reads `hbm + h` (a plain aligned load: every other access
/// to HBM is atomic) and, with `class` 0 for `off < pinned` and 1 otherwise, adds one to
/// `*counted[class]` and charges `latency[class]` cycles to stall category `class` (SRAM,
/// HBM). Exactly what [`Bus::plain_load`] and [`Bus::data_latency`] do there; anything else is
/// theirs.
#[derive(Debug, Clone, Copy)]
pub struct WindowView {
    /// Core addresses `xlate.0..xlate.0 + xlate.1`: the windows.
    pub xlate: (u32, u32),
    /// Log2 of a window's size.
    pub shift: u32,
    /// Window offsets below this are SRAM accesses, the rest HBM.
    pub pinned: u32,
    /// Cycles of an SRAM and of an HBM access.
    pub latency: [u32; 2],
    /// The window registers.
    pub windows: *const u8,
    /// Bytes between two windows' registers.
    pub stride: u32,
    /// Offset of a window's HBM base (u64).
    pub base_at: u32,
    /// Offset of a window's enable byte.
    pub enabled_at: u32,
    /// Host memory of HBM.
    pub hbm: *mut u8,
    /// Bytes of HBM.
    pub hbm_size: u64,
    /// The SRAM and HBM access counters.
    pub counted: [*mut u64; 2],
}

impl WindowView {
    /// Whether core address `addr` is in the windows (`xlate`).
    pub fn covers(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.xlate.0) < self.xlate.1
    }
}

/// The address ranges loaded images occupy, so that a fetch from anywhere else can be
/// reported as a jump into nothing ([`Bus::vacant`]).
#[derive(Debug, Clone, Default)]
pub struct Images(Vec<std::ops::Range<u64>>);

impl Images {
    /// Records that an image occupies `len` bytes at `addr`.
    pub fn occupy(&mut self, addr: u32, len: u64) {
        self.0.push(u64::from(addr)..u64::from(addr) + len);
        self.0.sort_by_key(|r| r.start);
    }

    /// Forgets the image that starts at `addr` (unloaded).
    pub fn release(&mut self, addr: u32) {
        self.0.retain(|r| r.start != u64::from(addr));
    }

    /// Whether an image occupies `addr`.
    pub fn holds(&self, addr: u32) -> bool {
        let a = u64::from(addr);
        self.0.iter().any(|r| r.contains(&a))
    }

    /// `images at 0x…..0x…, …` (the first few, then a count), or `images at none`.
    #[cold]
    pub fn list(&self) -> String {
        /// Ranges named in full; more are counted.
        const SHOWN: usize = 4;
        let mut at: Vec<String> = self
            .0
            .iter()
            .take(SHOWN)
            .map(|r| format!("{:#010x}..{:#010x}", r.start, r.end))
            .collect();
        if self.0.len() > SHOWN {
            at.push(format!("{} more", self.0.len() - SHOWN));
        }
        if at.is_empty() {
            at.push("none".to_string());
        }
        format!("images at {}", at.join(", "))
    }
}

/// A flat, sparse, fully mapped 4 GiB little-endian memory.
#[derive(Debug)]
pub struct FlatMemory {
    map: MmapMut,
    /// Address ranges loaded images occupy (for [`Bus::vacant`]).
    images: Images,
    /// One bit per [`TOUCH_GRANULE`]: written at least once.
    touched: Vec<u64>,
    /// Granules written.
    touched_granules: u64,
    /// Most granules stores may touch.
    limit_granules: u64,
}

const SPACE: usize = 1 << 32;

/// The unit in which written memory is counted: 64 KiB. A store into a granule nothing has
/// written yet counts the whole granule.
pub const TOUCH_GRANULE: u32 = 1 << TOUCH_SHIFT;
const TOUCH_SHIFT: u32 = 16;
const GRANULES: u64 = (SPACE as u64) >> TOUCH_SHIFT;

impl FlatMemory {
    /// Reserves the 4 GiB space (zero-filled; pages are allocated on first write), with no
    /// limit on how much of it stores may touch.
    pub fn new() -> std::io::Result<Self> {
        Ok(FlatMemory {
            map: MmapMut::map_anon(SPACE)?,
            images: Images::default(),
            touched: vec![0; (GRANULES / 64) as usize],
            touched_granules: 0,
            limit_granules: GRANULES,
        })
    }

    /// Bytes written so far, in whole [`TOUCH_GRANULE`]s (loaded images included).
    pub fn touched_bytes(&self) -> u64 {
        self.touched_granules << TOUCH_SHIFT
    }

    /// Caps the memory stores may touch at `limit` bytes (rounded down to whole granules):
    /// a store into a new granule beyond it fails with [`BusFault::MemoryLimit`]. Fails, with
    /// the bytes already touched, when they exceed the limit.
    pub fn set_memory_limit(&mut self, limit: u64) -> Result<(), u64> {
        let granules = (limit >> TOUCH_SHIFT).min(GRANULES);
        if self.touched_granules > granules {
            return Err(self.touched_bytes());
        }
        self.limit_granules = granules;
        Ok(())
    }

    /// The limit [`FlatMemory::set_memory_limit`] set, in bytes.
    pub fn memory_limit(&self) -> u64 {
        self.limit_granules << TOUCH_SHIFT
    }

    /// Counts the granules of `start..end` (byte offsets) as touched, regardless of the limit.
    fn touch_range(&mut self, start: usize, end: usize) {
        if start < end {
            let (first, last) = (start >> TOUCH_SHIFT, (end - 1) >> TOUCH_SHIFT);
            for g in first..=last {
                self.mark(g);
            }
        }
    }

    fn mark(&mut self, g: usize) {
        let (word, bit) = (g >> 6, 1u64 << (g & 63));
        if self.touched[word] & bit == 0 {
            self.touched[word] |= bit;
            self.touched_granules += 1;
        }
    }

    /// A store's first write into granule `g`: counted, or refused at the limit.
    #[cold]
    #[inline(never)]
    fn first_touch(&mut self, addr: u32) -> Result<(), BusFault> {
        if self.touched_granules >= self.limit_granules {
            return Err(BusFault::MemoryLimit {
                addr,
                limit: self.memory_limit(),
            });
        }
        self.mark((addr >> TOUCH_SHIFT) as usize);
        Ok(())
    }

    /// Records that an image occupies `len` bytes at `addr` (reports name the rest vacant).
    pub fn occupy(&mut self, addr: u32, len: u64) {
        self.images.occupy(addr, len);
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
        self.touch_range(start, end);
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
        // Stores are naturally aligned, so one never spans two granules.
        let g = a >> TOUCH_SHIFT;
        if self.touched[g >> 6] & (1 << (g & 63)) == 0 {
            self.first_touch(addr)?;
        }
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

    fn plain_load(&mut self, addr: u32, size: u32) -> Option<u32> {
        self.load(addr, size, 0).ok()
    }

    fn plain_store(&mut self, addr: u32, size: u32, value: u32) -> bool {
        // A refused store (the memory limit) writes nothing.
        self.store(addr, size, value, 0).is_ok()
    }

    fn direct(&mut self) -> Option<Direct> {
        // Loads; a store only into a granule already touched (a new one is counted, maybe
        // refused) and holding no code.
        Some(Direct {
            base: 0,
            len: SPACE as u64,
            ptr: self.map.as_mut_ptr(),
            stores: false,
            touched: self.touched.as_ptr(),
        })
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
        (!self.images.holds(addr)).then(|| {
            format!(
                "bare-metal memory no image occupies ({})",
                self.images.list()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_are_counted_per_64k_granule_and_stopped_at_the_limit() {
        let mut mem = FlatMemory::new().unwrap();
        mem.write_bytes(0x1_0000, &[1; 0x1_0001]).unwrap();
        assert_eq!(
            mem.touched_bytes(),
            2 * 0x1_0000,
            "0x10000..0x20001 spans two granules"
        );
        assert_eq!(
            mem.set_memory_limit(0x1_ffff),
            Err(0x2_0000),
            "below what is touched"
        );
        mem.set_memory_limit(3 * 0x1_0000 + 5).unwrap();
        assert_eq!(mem.memory_limit(), 3 * 0x1_0000);
        mem.store(0x1_fffc, 4, 7, 0).unwrap();
        mem.store(0xffff_fffc, 4, 7, 0).unwrap();
        assert_eq!(mem.touched_bytes(), 3 * 0x1_0000);
        assert_eq!(
            mem.store(0x8000_0000, 1, 7, 0),
            Err(BusFault::MemoryLimit {
                addr: 0x8000_0000,
                limit: 3 * 0x1_0000
            })
        );
        mem.store(0xffff_0000, 2, 9, 0).unwrap();
        assert_eq!(
            mem.load(0x8000_0000, 1, 0),
            Ok(0),
            "the refused store wrote nothing"
        );
    }

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
