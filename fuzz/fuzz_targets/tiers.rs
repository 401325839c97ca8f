//! Arbitrary bytes as a bare-metal program, run by the interpreter alone and with tier 2
//! compiling from an address's first or second arrival: the stop, the PC, every register,
//! every counter of the run report and the memory around the program are the same
//! (docs/jit.md "Oracle"). The first byte picks the profile (bit 0), the arrivals (bit 1) and
//! the cycle budget (bits 2..7, so budgets that end inside a block are tried); the rest is the
//! program, loaded at 0x1000 with the boot ROM's window handlers at the reset VECBASE.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_emulator::baremetal::{self, LoadSegment};
use q7_emulator::trace::NoTrace;
use q7_emulator::Bus;
use q7_isa::{DC233C, NCORE2GP};

/// Where the program is loaded and starts.
const AT: u32 = 0x1000;
/// Bytes of memory compared from 0 (the program, the boot ROM, low stores).
const COMPARED: u32 = 0x1_0000;

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, program)) = data.split_first() else {
        return;
    };
    if program.is_empty() || program.len() > 4096 {
        return;
    }
    let config = if knobs & 1 == 0 { &DC233C } else { &NCORE2GP };
    let arrivals = 1 + u16::from(knobs >> 1 & 1);
    let budget = 1_000 + u64::from(knobs >> 2) * 997;
    let run = |jit: bool| {
        let segment = LoadSegment {
            addr: AT,
            data: program,
            memsz: 0x1000,
            exec: true,
        };
        let mut core = baremetal::load(config, &[segment], AT).expect("one segment loads");
        core.set_jit(jit);
        core.set_jit_tier_up(arrivals);
        let stop = core.run(budget, &mut NoTrace);
        let memory: Vec<Option<u32>> = (0..COMPARED / 4).map(|w| core.bus.peek(w * 4)).collect();
        (
            format!("{stop:?}"),
            core.state.pc,
            core.state.ar,
            core.stats.clone(),
            memory,
        )
    };
    let compiled = run(true);
    let interpreted = run(false);
    assert!(compiled == interpreted, "tier 2 and the interpreter differ");
});
