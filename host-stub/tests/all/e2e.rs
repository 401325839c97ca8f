//! End to end (PLATFORM.md "Host flow"): a minimal library built and packaged with the toolchain is created
//! through the nrtucode-style API on all eight cores, loaded by 0x1095 records, dispatched by
//! key on eight cores (per-core results), unloaded and destroyed — plus the misuse cases.

use crate::support;

use q7_emulator::platform::{Cluster, ClusterConfig};
use q7_emulator::{ExcCause, FaultKind};
use q7_kernel_build::pack::pack;
use q7_kernel_build::toolchain::Toolchain;
use q7_loader::prelink::PrelinkError;
use q7_runtime::firmware::{Firmware, FirmwareError};
use q7_runtime::nrtucode::{coretype, libraries_from_opcodes, Context, NrtError, Source};
use q7_tests::build::{build_pic, Packaged};

const MINIMAL: &str = include_str!("../../../examples/kernels/minimal/minimal.c");
const KEY: u32 = 0x185; // spec 0x01, opcode 0x85

/// [`build_pic`], then packaged by q7emu's packager.
fn build_packed(name: &str, sources: &[(&str, &str)], flags: &[&str]) -> Option<Packaged> {
    let pic = build_pic(name, sources, flags)?;
    let tools = Toolchain::find(&q7_tests::toolchain_prefix()).expect("the toolchain is installed");
    let out = pack(&tools, &pic.so, false).expect("the image packs");
    Some(pic.packaged(out.stripped, out.packed))
}

fn context() -> Context {
    Context::new(Firmware::new(
        Cluster::new(&ClusterConfig::default()).unwrap(),
    ))
}

/// Creates `packed` for `core` under `selector` and loads it there with its one record.
fn create_and_load(ctx: &mut Context, core: u32, selector: u32, name: &str, packed: &[u8]) {
    let mut lib = ctx
        .create(
            coretype::CAYMAN,
            core,
            Some(selector),
            name,
            Source::CustomOp(packed),
        )
        .unwrap();
    let rec = ctx.load_sequence(&mut lib, None);
    ctx.device.process(core, &rec[0]).unwrap();
}

fn arg(word0: u32) -> [u8; 0x30] {
    let mut a = [0u8; 0x30];
    a[..4].copy_from_slice(&word0.to_le_bytes());
    a
}

#[q7_requires::needs(toolchain)]
#[test]
fn load_dispatch_on_eight_cores_and_unload() {
    let Some(p) = build_packed("minimal", &[("minimal.c", MINIMAL)], &[]) else {
        return;
    };
    let packed = std::fs::read(&p.packed).unwrap();
    let mut ctx = context();
    let mut libs = Vec::new();
    for core in 0..8 {
        let mut lib = ctx
            .create(
                coretype::CAYMAN,
                core,
                Some(5),
                &format!("minimal_cpu{core}"),
                Source::CustomOp(&packed),
            )
            .unwrap();
        // Three ordered memhandle writes: header, code, data, back to back.
        let parts: Vec<&str> = lib.writes.iter().map(|w| w.part).collect();
        assert_eq!(parts, ["header", "code", "data"]);
        assert_eq!(lib.writes[0].len, 0x20);
        assert_eq!(lib.writes[1].addr, lib.writes[0].addr + 0x20);
        let records = ctx.load_sequence(&mut lib, None);
        assert_eq!(records.len(), 1);
        ctx.device.process(core, &records[0]).unwrap();
        libs.push(lib);
    }
    let results = ctx.device.dispatch(KEY, 133, 0, &[arg(10)], 2).unwrap();
    assert_eq!(results.len(), 8);
    let scale = [3u32, 5, 7, 11];
    for r in &results {
        // registered (start symbol ran) * 100000 + arg * scale[prid & 3] + prid * 1000 + calls.
        let want = 100_000 + 10 * scale[(r.core & 3) as usize] + r.core * 1000 + 1;
        assert_eq!(r.response, Some(want), "core {}", r.core);
        assert!(
            r.stats.instructions > 10 && r.stats.cycles >= r.stats.instructions,
            "core {}: {:?}",
            r.core,
            r.stats
        );
    }
    // A second dispatch sees the library's state (calls = 2) — on every core.
    let again = ctx.device.dispatch(KEY, 133, 0, &[arg(1)], 8).unwrap();
    assert!(again
        .iter()
        .all(|r| r.response == Some(100_000 + scale[(r.core & 3) as usize] + r.core * 1000 + 2)));
    // Destroy before unload is refused.
    let name = libs[0].name.clone();
    let first = libs.remove(0);
    assert!(matches!(ctx.destroy(first), Err(NrtError::DestroyWhileLoaded(n)) if n == name));
    // Unload cores 1..7 and destroy their libraries (buffers freed).
    for (core, mut lib) in (1..8).zip(libs) {
        let rec = ctx.unload_sequence(&mut lib);
        assert_eq!(rec[0][0x0c], 2, "direction 2");
        ctx.device.process(core, &rec[0]).unwrap();
        ctx.destroy(lib).unwrap();
    }
    // Core 0 still holds the library: a single-core library dispatches on core 0 alone.
    let solo = ctx.device.dispatch(KEY, 133, 0, &[arg(2)], 1).unwrap();
    assert_eq!(solo.iter().map(|r| r.core).collect::<Vec<_>>(), [0]);
    // Loaded on three cores it is neither 1 nor 8: total_cpus is refused.
    for core in [3, 4] {
        create_and_load(&mut ctx, core, 5, "third", &packed);
    }
    assert!(matches!(
        ctx.device.dispatch(KEY, 133, 0, &[], 1),
        Err(FirmwareError::TotalCpus {
            selector: 5,
            cores: 3
        })
    ));
}

#[q7_requires::needs(toolchain)]
#[test]
fn misuse_gives_clear_errors() {
    let Some(p) = build_packed("minimal", &[("minimal.c", MINIMAL)], &[]) else {
        return;
    };
    let packed = std::fs::read(&p.packed).unwrap();
    let mut ctx = context();
    // Unknown core type → status 8; internal 37 only in internal mode.
    let err = ctx
        .create(99, 0, None, "x", Source::CustomOp(&packed))
        .unwrap_err();
    assert_eq!(err.code(), 8);
    assert!(matches!(
        ctx.create(coretype::INTERNAL, 0, None, "x", Source::CustomOp(&packed)),
        Err(NrtError::CoreType(37))
    ));
    ctx.internal = true;
    assert!(ctx
        .create(coretype::INTERNAL, 0, None, "x", Source::CustomOp(&packed))
        .is_ok());
    // SUNDA is host-only: no device buffer.
    let host_only = ctx
        .create(coretype::SUNDA, 0, None, "h", Source::CustomOp(&packed))
        .unwrap();
    assert_eq!(host_only.device_addr, None);
    // Dispatch of an unknown key.
    assert!(matches!(
        ctx.device.dispatch(0x999, 133, 0, &[], 1),
        Err(FirmwareError::UnknownKey { key: 0x999 })
    ));
    // Double load; unload of a selector never loaded; dispatch after unload.
    let mut lib = ctx
        .create(
            coretype::MARIANA,
            2,
            Some(7),
            "m",
            Source::CustomOp(&packed),
        )
        .unwrap();
    let rec = ctx.load_sequence(&mut lib, None);
    ctx.device.process(2, &rec[0]).unwrap();
    assert!(matches!(
        ctx.device.process(2, &rec[0]),
        Err(FirmwareError::DoubleLoad {
            core: 2,
            selector: 7
        })
    ));
    let bogus = q7_loader::load_record::LoadRecord::unload(42).encode();
    assert!(matches!(
        ctx.device.process(2, &bogus),
        Err(FirmwareError::UnknownSelector {
            core: 2,
            selector: 42
        })
    ));
    let dispatched = ctx.device.dispatch(KEY, 133, 0, &[arg(3)], 1).unwrap();
    assert_eq!(
        dispatched.len(),
        1,
        "a library on one core dispatches on that core"
    );
    let un = ctx.unload_sequence(&mut lib);
    ctx.device.process(2, &un[0]).unwrap();
    assert!(matches!(
        ctx.device.dispatch(KEY, 133, 0, &[], 1),
        Err(FirmwareError::UnknownKey { .. })
    ));
    ctx.destroy(lib).unwrap();
    // Cross-context load: eight identical records and a warning.
    let mut lib = ctx
        .create(
            coretype::CAYMAN,
            1,
            Some(8),
            "cc",
            Source::CustomOp(&packed),
        )
        .unwrap();
    let recs = ctx.load_sequence(&mut lib, Some(4));
    assert_eq!(recs.len(), 8);
    assert!(recs.iter().all(|r| *r == recs[0]));
    assert!(ctx
        .log
        .last()
        .unwrap()
        .starts_with("warning: library cc built for core 1 loaded from context 4"));
    // Resolver: SUNDA → 0, CAYMAN → 0 without the CPTC variable, unknown → status 8.
    assert_eq!(
        libraries_from_opcodes(coretype::SUNDA, &[0xf0]).unwrap(),
        [0]
    );
    assert_eq!(
        libraries_from_opcodes(coretype::CAYMAN, &[0xf0]).unwrap(),
        [0]
    );
    assert_eq!(libraries_from_opcodes(5, &[]).unwrap_err().code(), 8);
}

#[q7_requires::needs(toolchain)]
#[test]
fn extisa_libraries_are_capped_at_64_kib_with_the_seed_message() {
    // A library with 80 KiB of initialised data exceeds the EXTISA cap but fits a 2 MiB window.
    let big = format!("{MINIMAL}\nconst unsigned char blob[80 * 1024] = {{ 1 }};\n__attribute__((used)) const void *keep = blob;\n");
    let Some(p) = build_packed("big", &[("big.c", &big)], &[]) else {
        return;
    };
    let packed = std::fs::read(&p.packed).unwrap();
    let mut ctx = context();
    let err = ctx
        .create(coretype::CAYMAN, 0, Some(1), "big", Source::ExtIsa(&packed))
        .unwrap_err();
    assert!(
        matches!(err, NrtError::Prelink(PrelinkError::TooLarge { .. })),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("Prelinked library would be larger than the available buffer on device"),
        "{err}"
    );
    assert!(ctx
        .create(
            coretype::CAYMAN,
            0,
            Some(1),
            "big",
            Source::CustomOp(&packed)
        )
        .is_ok());
}

#[q7_requires::needs(toolchain)]
#[test]
fn custom_op_libraries_are_bounded_by_their_core_image_window() {
    // 3 MiB of bss: prelinked (bss materialised) it exceeds a 2 MiB per-core window (PLATFORM.md "Image size limits"),
    // less the 64-byte call trampoline.
    let big = format!(
        "{MINIMAL}\nunsigned char bss[3 << 20];\n__attribute__((used)) void *keep_bss = bss;\n"
    );
    let Some(p) = build_packed("bigbss", &[("bigbss.c", &big)], &[]) else {
        return;
    };
    let packed = std::fs::read(&p.packed).unwrap();
    let mut ctx = context();
    let err = ctx
        .create(
            coretype::CAYMAN,
            2,
            Some(1),
            "bigbss",
            Source::CustomOp(&packed),
        )
        .unwrap_err();
    match &err {
        NrtError::Prelink(PrelinkError::TooLarge {
            size,
            limit,
            limit_name,
        }) => {
            assert!(*size > 3 << 20, "{err}");
            assert_eq!(*limit, 0x20_0000 - 0x40);
            assert_eq!(*limit_name, "the image window");
        }
        other => panic!("expected TooLarge, got {other}"),
    }
    assert!(
        err.to_string()
            .starts_with("Prelinked library would be larger than the available buffer on device"),
        "{err}"
    );
}

/// Loads `misbehave.c` on all eight cores; the firmware's per-call budget is `budget` cycles.
fn misbehaving_device(budget: u64) -> Option<Context> {
    let src = include_str!("../../../tests/programs/kernels/misbehave.c");
    let p = build_packed("misbehave", &[("misbehave.c", src)], &[])?;
    let packed = std::fs::read(&p.packed).unwrap();
    let mut ctx = context();
    ctx.device.call_budget = budget;
    for core in 0..8 {
        create_and_load(&mut ctx, core, 2, "mis", &packed);
    }
    Some(ctx)
}

const MISBEHAVE_KEY: u32 = 0x285;

#[q7_requires::needs(toolchain)]
#[test]
fn a_runaway_kernel_stops_at_the_budget_naming_its_core() {
    const BUDGET: u64 = 20_000;
    let Some(mut ctx) = misbehaving_device(BUDGET) else {
        return;
    };
    // Well-behaved dispatches until every core has spent several budgets in total: the budget
    // is per call, not cumulative.
    let mut spent = 0;
    while spent < 3 * BUDGET {
        let ok = ctx
            .device
            .dispatch(MISBEHAVE_KEY, 133, 0, &[arg(0)], 2)
            .unwrap();
        assert!(ok.iter().all(|r| r.response == Some(r.core + 1)));
        spent += ok.iter().map(|r| r.stats.cycles).min().unwrap();
    }
    let err = ctx
        .device
        .dispatch(MISBEHAVE_KEY, 133, 0, &[arg(1)], 2)
        .unwrap_err();
    match &err {
        FirmwareError::Fault { core, what, report } => {
            assert_eq!((*core, *what), (3, "kernel"));
            assert_eq!(
                report.kind,
                FaultKind::BudgetExhausted { max_cycles: BUDGET }
            );
        }
        other => panic!("expected a fault, got {other}"),
    }
    assert!(
        err.to_string()
            .starts_with("core 3 faulted while running kernel:"),
        "{err}"
    );
    assert!(
        err.to_string().contains("cycle budget of 20000 exhausted"),
        "{err}"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_kernel_fault_names_the_core_and_the_address() {
    let Some(mut ctx) = misbehaving_device(1_000_000) else {
        return;
    };
    let err = ctx
        .device
        .dispatch(MISBEHAVE_KEY, 133, 0, &[arg(2)], 8)
        .unwrap_err();
    let FirmwareError::Fault { core, report, .. } = &err else {
        panic!("expected a fault, got {err}");
    };
    assert_eq!(*core, 5);
    assert!(
        matches!(
            report.kind,
            FaultKind::Exception {
                cause: ExcCause::LoadStoreError,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(report.address, Some(0x0040_0000), "{err}");
    assert_eq!(report.core, 5);
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_kernel_that_exits_instead_of_returning_is_a_named_runtime_error_not_a_success() {
    let Some(mut ctx) = misbehaving_device(1_000_000) else {
        return;
    };
    let err = ctx
        .device
        .dispatch(MISBEHAVE_KEY, 133, 0, &[arg(3)], 8)
        .unwrap_err();
    let FirmwareError::Incomplete {
        core,
        what,
        report: Some(report),
        console,
        ..
    } = &err
    else {
        panic!("expected an incomplete kernel, got {err}");
    };
    assert_eq!(
        (*core, *what, console.text.as_str()),
        (6, "kernel", "bye\n")
    );
    assert_eq!(report.kind, FaultKind::Exited { status: 3 });
    assert_eq!(report.disassembly, "simcall");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "core 6: kernel ended without returning: a semihosting exit (status 3) at pc {:#010x}, \
             before writing TPB_WRITE_RESPONSE:\ncore 6 stopped at pc {:#010x}: semihosting exit \
             with status 3 where the firmware expected a return\n",
            report.pc, report.pc
        )),
        "{text}"
    );
    assert!(text.ends_with("\ncore 6 printed:\n  | bye\n"), "{text}");
    // docs/exit-codes.md: a runtime error ends the command with 129.
    let kind = q7_conventions::exit_code::Outcome::kind(&err);
    assert_eq!(q7_conventions::exit_code::Exit::of(kind).code(), 129);
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_kernel_that_returns_without_its_response_is_a_named_runtime_error() {
    let Some(mut ctx) = misbehaving_device(1_000_000) else {
        return;
    };
    let err = ctx
        .device
        .dispatch(MISBEHAVE_KEY, 133, 0, &[arg(4)], 2)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "core 2: kernel returned without writing TPB_WRITE_RESPONSE (the runtime's \
         customop_cleanup writes it): the kernel did not complete its response\ncore 2 printed \
         nothing\n"
    );
    // The same library answers the next dispatch: nothing was left behind.
    let ok = ctx
        .device
        .dispatch(MISBEHAVE_KEY, 133, 0, &[arg(0)], 2)
        .unwrap();
    assert!(ok.iter().all(|r| r.response == Some(r.core + 1)));
}

#[q7_requires::needs(toolchain)]
#[test]
fn crafted_records_and_staged_images_are_refused_before_use() {
    use q7_loader::load_record::LoadRecord;
    let Some(p) = build_packed("minimal", &[("minimal.c", MINIMAL)], &[]) else {
        return;
    };
    let packed = std::fs::read(&p.packed).unwrap();
    let mut ctx = context();
    let lib = ctx
        .create(coretype::CAYMAN, 0, Some(1), "m", Source::CustomOp(&packed))
        .unwrap();
    let (addr, size) = (lib.device_addr.unwrap(), lib.size());

    // An image size beyond the window is refused before anything is read or allocated.
    let huge = LoadRecord::load(addr, 1, 0xffff_fff0).encode();
    assert!(matches!(
        ctx.device.process(0, &huge),
        Err(FirmwareError::TooLarge {
            core: 0,
            size: 0xffff_fff0,
            window: 0x1f_ffc0
        })
    ));
    // A staging address outside HBM.
    let nowhere = LoadRecord::load(u64::MAX - 0x100, 1, size).encode();
    assert!(matches!(
        ctx.device.process(0, &nowhere),
        Err(FirmwareError::Staging { core: 0, .. })
    ));

    // The KTAB trailer (last 12 bytes of the staged image) pointing outside the image, or with a
    // size that is not whole entries.
    let trailer = addr + u64::from(size) - 12;
    let hbm = ctx.device.cluster.hbm.clone();
    let mut original = [0u8; 12];
    hbm.read(trailer, &mut original).unwrap();
    assert_eq!(&original[..4], b"KTAB");
    let record = LoadRecord::load(addr, 1, size).encode();
    for (table_addr, len, why) in [
        (0x0008_0000u32, 8u32, "it lies outside the loaded image"),
        (0x8400_0020, 0xffff_fff8, "it lies outside the loaded image"),
        (
            0x8400_0020,
            7,
            "its size is not a multiple of the 8-byte entry",
        ),
    ] {
        let mut t = original;
        t[4..8].copy_from_slice(&table_addr.to_le_bytes());
        t[8..12].copy_from_slice(&len.to_le_bytes());
        hbm.write(trailer, &t).unwrap();
        let err = ctx.device.process(0, &record).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("core 0: .kernel_info_table at {table_addr:#x}+{len:#x}: {why}")
        );
    }
    // Restored, the same record loads and the kernel answers.
    hbm.write(trailer, &original).unwrap();
    ctx.device.process(0, &record).unwrap();
    let r = ctx.device.dispatch(KEY, 133, 0, &[arg(1)], 1).unwrap();
    assert_eq!(r[0].response, Some(100_000 + 3 + 1));
}

/// `minimal.c` whose kernel also prints, on core 0, a line with a terminal control sequence
/// (an OSC setting the window title) and the dispatch count.
const PRINTING: &str = "\
#include <q7/platform.h>
struct kentry { unsigned int key_be; void *fn; };
static unsigned int calls;
static void say(const char *s) { while (*s) Q7_CONSOLE_PUTC = (unsigned char)*s++; }
static void kernel(void)
{
\tcalls++;
\tsay(\"call \");
\tQ7_CONSOLE_PUTC = '0' + calls;
\tsay(\" \\x1b]0;pwned\\x07\\n\");
\tQ7_MBOX_RESPONSE = calls;
}
__attribute__((section(\".kernel_info_table\"), used))
const struct kentry kernel_info_table[1] = { { 0x85010000u, (void *)kernel } };
void _start(void) {}
";

#[q7_requires::needs(toolchain)]
#[test]
fn run_packed_shows_what_each_dispatch_printed_escaped_only_on_a_terminal() {
    let Some(p) = build_packed("printing", &[("printing.c", PRINTING)], &[]) else {
        return;
    };
    let run = || {
        let mut c = support::q7emu();
        c.args([
            "run-packed",
            "--cores",
            "1",
            "--key",
            "0x185",
            "--dispatches",
            "2",
        ])
        .arg(&p.packed);
        c
    };
    // Piped: the kernel's bytes exact, after the lines of the dispatch they were printed in
    // (docs/cli.md "Guest text").
    let piped = support::success(run().output().unwrap(), "run-packed");
    // The engine's line closes the report (docs/jit.md "Switch").
    let (piped, engine) = piped.trim_end().rsplit_once('\n').unwrap();
    assert!(engine.starts_with("engine tier2: "), "{engine}");
    let piped = format!("{piped}\n");
    let dispatches: Vec<&str> = piped.split("dispatch ").skip(1).collect();
    assert_eq!(dispatches.len(), 2, "{piped}");
    for (n, d) in dispatches.iter().enumerate() {
        assert!(
            d.starts_with(&format!("{n} core 0: response {0:#010x} ({0}), ", n + 1)),
            "{d}"
        );
        assert!(
            d.ends_with(&format!(
                "\nconsole of core 0:\ncall {} \x1b]0;pwned\x07\n",
                n + 1
            )),
            "dispatch {n} shows only what it printed: {d:?}"
        );
    }
    // On a terminal: the control characters shown as \xNN, acting on nothing.
    let (code, shown) = support::on_terminal(run());
    let shown = String::from_utf8(shown).unwrap();
    assert_eq!(code, Some(0), "{shown}");
    assert!(
        shown.contains("console of core 0:\ncall 2 \\x1b]0;pwned\\x07\n"),
        "{shown:?}"
    );
    assert!(!shown.contains('\x1b'), "{shown:?}");
}
