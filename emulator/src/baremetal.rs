//! The bare-metal runner: PT_LOAD segments of an ELF executable loaded at their addresses into a
//! flat 4 GiB memory, QEMU's reset state, semihosting for output and exit. Programs built for
//! QEMU's `-M sim` machine run unchanged. (ELF parsing is the loader's; this takes segments.)

use std::ops::Range;

use q7_isa::{CoreConfig, Options};

use crate::bootrom;
use crate::bus::FlatMemory;
use crate::core::{Core, StackRegion};
use crate::fault::Stop;
use crate::trace::Tracer;

/// One loadable segment.
#[derive(Debug, Clone, Copy)]
pub struct LoadSegment<'a> {
    /// Load address.
    pub addr: u32,
    /// File bytes.
    pub data: &'a [u8],
    /// Size in memory (the rest after `data` is zero).
    pub memsz: u32,
    /// Executable (PF_X).
    pub exec: bool,
}

/// Why a program cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The 4 GiB space could not be reserved.
    #[error("cannot reserve the 4 GiB bare-metal address space: {0}")]
    Memory(#[from] std::io::Error),
    /// A segment does not fit below 4 GiB.
    #[error("segment at {addr:#010x} with {memsz:#x} bytes runs past the end of the 32-bit address space")]
    SegmentOutOfRange {
        /// Load address.
        addr: u32,
        /// Size in memory.
        memsz: u32,
    },
    /// The segments alone take more memory than the program may touch.
    #[error("the segments take {touched} bytes of memory (counted in 64 KiB granules), more than the limit of {limit}")]
    MemoryLimit {
        /// Bytes the segments touch.
        touched: u64,
        /// The limit.
        limit: u64,
    },
    /// Two segments overlap.
    #[error("segments at {a:#010x} and {b:#010x} overlap")]
    Overlap {
        /// First segment.
        a: u32,
        /// Second segment.
        b: u32,
    },
}

/// Reset vector of a profile: QEMU dc233c 0xFE000000; ncore2gp 0x00000000 (isa/ISA.md §5.2).
pub fn reset_vector(config: &CoreConfig) -> u32 {
    if config.has(Options::MMU) {
        0xfe00_0000
    } else {
        0
    }
}

/// VECBASE at reset: QEMU dc233c 0x2000; ncore2gp 0 (isa/ISA.md §5.2).
pub fn reset_vecbase(config: &CoreConfig) -> u32 {
    if config.has(Options::MMU) {
        0x2000
    } else {
        0
    }
}

/// Most memory a bare-metal program may touch by default: 128 MiB, the RAM QEMU's `-M sim`
/// machine has unless told otherwise (examples/bare-metal/rt/link.ld).
pub const DEFAULT_MEMORY_LIMIT: u64 = 128 << 20;

/// Cycle budget of a bare-metal run unless told otherwise (`q7emu run-elf --max-cycles`):
/// 10^10 cycles, about 7 s of the 1.4 GHz core; a runaway program stops there with a report.
pub const DEFAULT_MAX_CYCLES: u64 = 10_000_000_000;

/// Link symbols naming the top of a program's stack (the initial SP), first found wins:
/// `_stack_top` (the project's bare-metal link script), `__stack` (newlib's).
pub const STACK_TOP_SYMBOLS: [&str; 2] = ["_stack_top", "__stack"];
/// Link symbols naming the lowest address the stack may reach (the end of `.bss`).
pub const STACK_BOTTOM_SYMBOLS: [&str; 2] = ["_end", "end"];

/// The stack region a program's link symbols give ([`STACK_TOP_SYMBOLS`],
/// [`STACK_BOTTOM_SYMBOLS`]), if they give one with its top above its bottom; `symbol` looks a
/// global symbol's value up by name. This is the region `q7emu run-elf` checks by default
/// ([`Core::stack_region`]).
pub fn stack_region(symbol: impl Fn(&str) -> Option<u32>) -> Option<StackRegion> {
    let find = |names: &[&str]| names.iter().find_map(|n| symbol(n));
    let (top, bottom) = (find(&STACK_TOP_SYMBOLS)?, find(&STACK_BOTTOM_SYMBOLS)?);
    (bottom < top).then_some(StackRegion { bottom, top })
}

/// [`load_limited`] with [`DEFAULT_MEMORY_LIMIT`].
pub fn load(
    config: &'static CoreConfig,
    segments: &[LoadSegment<'_>],
    entry: u32,
) -> Result<Core<FlatMemory>, SetupError> {
    load_limited(config, segments, entry, DEFAULT_MEMORY_LIMIT)
}

/// Loads `segments` and returns a core in reset state: it starts at the reset vector when a
/// segment has code there, else at `entry`. The boot ROM's window handlers are placed at the
/// reset VECBASE unless the program occupies that range. Stores may touch at most
/// `memory_limit` bytes (counted in [`crate::bus::TOUCH_GRANULE`]s, the segments included).
pub fn load_limited(
    config: &'static CoreConfig,
    segments: &[LoadSegment<'_>],
    entry: u32,
    memory_limit: u64,
) -> Result<Core<FlatMemory>, SetupError> {
    let mut mem = FlatMemory::new()?;
    let mut ranges: Vec<Range<u64>> = Vec::new();
    let mut code: Vec<Range<u32>> = Vec::new();
    for seg in segments {
        let end = u64::from(seg.addr) + u64::from(seg.memsz.max(seg.data.len() as u32));
        if end > 1 << 32 {
            return Err(SetupError::SegmentOutOfRange {
                addr: seg.addr,
                memsz: seg.memsz,
            });
        }
        let r = u64::from(seg.addr)..end;
        if let Some(other) = ranges.iter().find(|o| o.start < r.end && r.start < o.end) {
            return Err(SetupError::Overlap {
                a: other.start as u32,
                b: seg.addr,
            });
        }
        mem.write_bytes(seg.addr, seg.data)
            .map_err(|_| SetupError::SegmentOutOfRange {
                addr: seg.addr,
                memsz: seg.memsz,
            })?;
        mem.occupy(seg.addr, r.end - r.start);
        if seg.exec {
            code.push(seg.addr..(end.min(u64::from(u32::MAX)) as u32));
        }
        ranges.push(r);
    }
    let reset = reset_vector(config);
    let starts_at_reset = segments
        .iter()
        .any(|s| s.exec && reset.wrapping_sub(s.addr) < s.data.len() as u32);
    let pc = if starts_at_reset { reset } else { entry };
    let vecbase = reset_vecbase(config);
    let rom = u64::from(vecbase)..u64::from(vecbase) + u64::from(bootrom::SIZE);
    if !ranges
        .iter()
        .any(|o| o.start < rom.end && rom.start < o.end)
    {
        mem.write_bytes(vecbase, &bootrom::image(vecbase))
            .map_err(|_| SetupError::SegmentOutOfRange {
                addr: vecbase,
                memsz: bootrom::SIZE,
            })?;
        mem.occupy(vecbase, u64::from(bootrom::SIZE));
        code.push(vecbase..vecbase + bootrom::SIZE);
    }
    mem.set_memory_limit(memory_limit)
        .map_err(|touched| SetupError::MemoryLimit {
            touched,
            limit: memory_limit,
        })?;
    let mut core = Core::new(config, mem, 0, pc, vecbase);
    core.handler_code = code;
    Ok(core)
}

/// Runs a loaded core to exit, fault or `max_cycles`.
pub fn run<T: Tracer>(core: &mut Core<FlatMemory>, max_cycles: u64, tracer: &mut T) -> Stop {
    core.run(max_cycles, tracer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::NoTrace;
    use q7_isa::Opcode::*;
    use q7_isa::DC233C;

    /// Where the test program is loaded and starts.
    const CODE: u32 = 0x1000;

    #[test]
    fn compiled_stores_into_bare_metal_memory_count_each_new_granule_as_the_interpreters_do() {
        // A loop storing once into each of 40 successive 64 KiB granules of the bare-metal
        // memory, then into the same ones again, under a memory limit of 24 granules: a store
        // into a granule no store touched yet is counted and, at the limit, refused (a fault at
        // that store). Compiled code stores directly only into a touched granule holding no
        // code (docs/jit.md "Memory") and leaves every other store to the bus, so the run
        // faults at the same store and cycle in both tiers.
        let code = [
            (Movi, vec![5, 1]),
            (Slli, vec![5, 5, 16]),
            (Movi, vec![6, 2]),
            (Movi, vec![2, 0x20]),
            (Slli, vec![2, 2, 16]),
            (Movi, vec![4, 40]),
            (S32i, vec![4, 2, 0]),
            (Add, vec![2, 2, 5]),
            (Addi, vec![4, 4, (-1i32) as u32]),
            (Bnez, vec![4, CODE + 18]),
            (Addi, vec![6, 6, (-1i32) as u32]),
            (Movi, vec![2, 0x20]),
            (Slli, vec![2, 2, 16]),
            (Movi, vec![4, 40]),
            (Bnez, vec![6, CODE + 18]),
            (Or, vec![3, 4, 4]),
            (Movi, vec![2, 1]),
            (Simcall, vec![]),
        ];
        let mut bytes = Vec::new();
        let mut pc = CODE;
        for (opcode, operands) in &code {
            let e = opcode
                .encode(operands, pc)
                .expect("a valid test instruction");
            bytes.extend_from_slice(e.as_bytes());
            pc += e.as_bytes().len() as u32;
        }
        let run = |jit: bool, granules: u64| {
            let segment = LoadSegment {
                addr: CODE,
                data: &bytes,
                memsz: bytes.len() as u32,
                exec: true,
            };
            let limit = granules * u64::from(crate::bus::TOUCH_GRANULE);
            let mut core =
                load_limited(&DC233C, &[segment], CODE, limit).expect("the program loads");
            core.set_jit(jit);
            core.set_jit_tier_up(2);
            let stop = core.run(1 << 20, &mut NoTrace);
            (stop, core.stats.clone(), core.jit_stats().executed)
        };
        let (stop, stats, executed) = run(true, 24);
        let (stop1, stats1, _) = run(false, 24);
        assert_eq!((&stop, &stats), (&stop1, &stats1));
        assert!(
            matches!(
                &stop,
                Stop::Fault(r) if matches!(r.kind, crate::fault::FaultKind::MemoryLimit { .. })
            ),
            "the store into a new granule past the limit is refused: {stop:?}"
        );
        assert!(executed > 20, "the loop ran compiled: {executed}");
        // With room for all 40, both passes run to the exit; the second stores compiled.
        let (stop, stats, executed) = run(true, 64);
        assert_eq!((&stop, &stats), (&run(false, 64).0, &run(false, 64).1));
        assert!(matches!(stop, Stop::Exited(40)), "{stop:?}");
        assert!(executed > 300, "both passes ran compiled: {executed}");
    }
}
