//! `q7emu run … --gdb PORT` and `q7emu run-elf … --gdb PORT` (docs/gdb.md): scripted sessions
//! of the tests' own protocol client (`q7_tests::rsp`) against the server — threads, a
//! breakpoint at the kernel, a step, registers (GDB's view and `monitor regs`), memory, a
//! watchpoint, the run to its end with the output a plain run gives, and a fault's signal; and
//! `--profile` alongside, whose files are the plain run's whatever stops the cores.

use crate::support;

use std::process::{Child, Command, Stdio};

use q7_tests::rsp::{Rsp, StopReply};
use q7_tests::TempDir;
use support::{example, q7emu};

/// Where GDB's `g` packet has each register (docs/gdb.md "Registers").
mod g {
    pub const PC: usize = 0;
    /// ar0..ar31 are 1..=32; GDB's a0..a15 are ar(4·windowbase + i).
    pub const AR0: usize = 1;
    pub const WINDOWBASE: usize = 38;
    pub const WINDOWSTART: usize = 39;
    pub const PS: usize = 42;
    pub const COUNT: usize = 45;
}

/// GDB's a`i`: the view's ar(4·windowbase + i).
fn a(regs: &[u32], i: usize) -> u32 {
    regs[g::AR0 + 4 * regs[g::WINDOWBASE] as usize + i]
}

/// Starts `cmd` with `--gdb 0` and connects, acknowledgements on: the client and the thread
/// gathering the rest of stderr.
fn spawn(cmd: Command) -> (Child, Rsp, std::thread::JoinHandle<String>) {
    let (child, addr, stderr) = serve(cmd);
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    (child, Rsp::connect(&addr), stderr)
}

/// Starts `cmd` with `--gdb 0`: the child, the server's address and the thread gathering the
/// rest of stderr.
fn serve(mut cmd: Command) -> (Child, String, std::thread::JoinHandle<String>) {
    let mut child = cmd
        .args(["--gdb", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (addr, stderr) = q7_tests::rsp::server_address(&mut child);
    (child, addr, stderr)
}

/// Starts `cmd` with `--gdb 0` and connects: the client, the opening stop reply and the
/// thread gathering the rest of stderr.
fn start(cmd: Command) -> (Child, Rsp, StopReply, std::thread::JoinHandle<String>) {
    let (child, mut rsp, stderr) = spawn(cmd);
    let first = StopReply::parse(&rsp.handshake());
    (child, rsp, first, stderr)
}

/// The first float32 of a `.npy` file (version 1 header).
fn first_f32(npy: &[u8]) -> f32 {
    let header = u16::from_le_bytes([npy[8], npy[9]]) as usize;
    let at = 10 + header;
    f32::from_le_bytes(npy[at..at + 4].try_into().unwrap())
}

/// The committed 8-core ReLU under the debugger: every core is a thread, stopped at the
/// firmware's call trampoline (PLATFORM.md "Host flow": the last 64 bytes of the core's image
/// window, `callx8 a8` with a8 the kernel); a breakpoint at core 0's kernel stops thread 1
/// there before its first instruction (ENTRY), one step executes it; a watchpoint on the TCM
/// pool's first word (PLATFORM.md "Runtime memory": the `tcm_malloc` pool at DataRAM
/// 0x82000) stops after the kernel's first store of a ReLU value; then the run ends (`W00`)
/// and the output is the plain run's.
#[test]
fn a_session_on_the_eight_core_relu_breaks_steps_watches_and_ends_with_the_plain_output() {
    let dir = TempDir::new("gdb-relu");
    let out = dir.join("out.npy");
    let k = example("relu_multicore");
    let mut cmd = support::relu_multicore(&["--output"]);
    cmd.arg(&out);
    let (child, mut rsp, first, stderr) = start(cmd);
    assert_eq!((first.kind, first.code), ('T', 5), "{first:?}");

    assert_eq!(rsp.threads(), (1..=8).collect::<Vec<u32>>());
    for t in 1..=8u32 {
        rsp.select(t);
        let r = rsp.registers();
        assert_eq!(r.len(), g::COUNT);
        let window = 0x8400_0000 + (t - 1) * 0x20_0000;
        assert_eq!(
            r[g::PC],
            window + 0x20_0000 - 64,
            "thread {t} at its trampoline"
        );
        assert_eq!(a(&r, 1), q7_runtime::firmware::CALL_SP, "thread {t}'s a1");
        assert_eq!(r[g::PS], 1 << 18, "PS.WOE alone");
        assert_eq!((r[g::WINDOWBASE], r[g::WINDOWSTART]), (4, 1 << 4));
        let kernel = a(&r, 8);
        assert!(
            (window..window + 0x20_0000).contains(&kernel),
            "thread {t}'s kernel {kernel:#x} in its window"
        );
    }

    rsp.select(1);
    let kernel = a(&rsp.registers(), 8);
    assert_eq!(rsp.ask(&format!("Z0,{kernel:x},3")), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 5, Some(1)),
        "{stop:?}"
    );
    let r = rsp.registers();
    assert_eq!(r[g::PC], kernel);
    let code = rsp.memory(kernel, 3).unwrap();
    let entry = q7_isa::decode(&code, kernel, &q7_isa::NCORE2GP).unwrap();
    assert_eq!(
        entry.to_string().split_whitespace().next(),
        Some("entry"),
        "{entry}"
    );
    // Before ENTRY the window is still the caller's: CALLX8 left the return address in a8
    // with the call size (0b10) in its top bits, and PS.CALLINC = 2 (isa/ISA.md §3).
    assert_eq!(a(&r, 8) >> 30, 2);
    assert_eq!(r[g::PS] >> 16 & 3, 2);
    assert_eq!(a(&r, 1), q7_runtime::firmware::CALL_SP);

    assert_eq!(rsp.ask(&format!("z0,{kernel:x},3")), "OK");
    let step = StopReply::parse(&rsp.ask("vCont;s:1"));
    assert_eq!(
        (step.kind, step.code, step.thread()),
        ('T', 5, Some(1)),
        "{step:?}"
    );
    let r = rsp.registers();
    assert_eq!(r[g::PC], kernel + 3, "past the 3-byte ENTRY");
    assert!(
        a(&r, 1) < q7_runtime::firmware::CALL_SP,
        "ENTRY made the kernel's frame"
    );
    assert_eq!(a(&r, 0) >> 30, 2, "the return address is the callee's a0");
    assert_eq!(
        r[g::WINDOWSTART],
        1 << 2 | 1 << 4,
        "ENTRY rotated the window by the call8's two groups: the caller's frame is two below"
    );
    let regs = rsp.monitor("regs");
    assert!(regs.starts_with("core 0: pc "), "{regs}");
    assert!(regs.contains("windowbase 2 windowstart 0x0005"), "{regs}");
    assert!(
        regs.contains("ar63 "),
        "the physical file of 64 ARs: {regs}"
    );
    assert!(regs.contains(&format!("a1  {:#010x}", a(&r, 1))), "{regs}");

    // Unmapped memory is an error reply, never a fault of the server.
    assert!(rsp.memory(0x7000_0000, 4).unwrap_err().starts_with('E'));

    assert_eq!(rsp.ask("Z2,82000,4"), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!((stop.kind, stop.thread()), ('T', Some(1)), "{stop:?}");
    let watched = stop.get("watch").map(|w| u32::from_str_radix(w, 16));
    assert_eq!(watched, Some(Ok(0x82000)), "{stop:?}");
    let input = std::fs::read(k.join("input.npy")).unwrap();
    let relu = first_f32(&input).max(0.0);
    assert_eq!(
        rsp.memory(0x82000, 4).unwrap(),
        relu.to_le_bytes(),
        "the ReLU of core 0's first element"
    );
    assert_eq!(
        rsp.monitor("mem 0x82000"),
        format!("0x00082000: {:#010x}\n", relu.to_bits()),
        "monitor mem shows the word as the core reads it"
    );
    assert_eq!(rsp.ask("z2,82000,4"), "OK");

    assert_eq!(rsp.ask("vCont;c"), "W00");
    let debugged = child.wait_with_output().unwrap();
    let stderr = stderr.join().unwrap();
    assert!(debugged.status.success(), "{}: {stderr}", debugged.status);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(k.join("expected.npy")).unwrap(),
        "the debugged run's output is the plain run's"
    );
    let plain = support::ok(support::relu_multicore(&[]));
    let counters = support::core_counters(&String::from_utf8_lossy(&plain.stdout));
    assert_eq!(counters.len(), 8);
    assert_eq!(
        support::core_counters(&String::from_utf8_lossy(&debugged.stdout)),
        counters,
        "every core's instructions and cycles are the plain run's"
    );
}

/// A fault under the debugger stops with its signal: the kernel's first instruction
/// overwritten with `ill` (0x000000, isa/ISA.md) through the core's memory map is an illegal
/// instruction, SIGILL (4) on thread 1; continuing as GDB does (`C04` for thread 1, the signal
/// passed back) ends the session with `X04` and the run with the fault's exit code and report.
#[test]
fn a_fault_stops_the_session_with_its_signal() {
    let (child, mut rsp, _, stderr) = start(support::relu_multicore(&[]));
    rsp.select(1);
    let kernel = a(&rsp.registers(), 8);
    assert_eq!(rsp.write_memory(kernel, &[0, 0, 0]), "OK");
    assert_eq!(rsp.memory(kernel, 3).unwrap(), [0, 0, 0]);
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 4, Some(1)),
        "{stop:?}"
    );
    assert_eq!(
        rsp.registers()[g::PC],
        kernel,
        "stopped at the illegal instruction"
    );
    // As GDB continues after a SIGILL: passing the signal to thread 1, which q7emu's cores
    // take none of (docs/gdb.md "Threads and stopping").
    assert_eq!(rsp.ask("vCont;C04:p1.1;c:p1.-1"), "X04");
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(129), "a fault's exit code: {stderr}");
    assert!(stderr.contains("IllegalInstructionCause"), "{stderr}");
}

/// Ctrl-C from the debugger (the 0x03 byte) stops the running cores with SIGINT, within one
/// round of quanta (`q7_gdb::QUANTUM` instructions per core, far shorter than the run);
/// `k` then kills the run, which ends as interrupted (exit code 130, docs/exit-codes.md).
#[test]
fn ctrl_c_from_the_debugger_stops_the_cores() {
    let (child, mut rsp, _, stderr) = start(support::relu_multicore(&[]));
    rsp.send("vCont;c");
    rsp.interrupt();
    let stop = StopReply::parse(&rsp.recv());
    assert_eq!((stop.kind, stop.code), ('T', 2), "{stop:?}");
    rsp.send("k");
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("debugger killed the run"), "{stderr}");
}

/// A bare-metal program whose function's arguments and stores the session can predict.
const SCALE: &str = r#"
int out[4];
__attribute__((noinline, noipa)) int scale(const int *in, int k)
{
	int s = 0;
	for (int i = 0; i < 4; i++) {
		out[i] = in[i] * k;
		s += out[i];
	}
	return s;
}
int main(void)
{
	static const int in[4] = {1, 2, 3, 4};
	return scale(in, 3);
}
"#;

/// `run-elf --gdb`: the one core is thread 1, stopped before the program's first instruction
/// (the ELF's entry: the runtime has no code at the ncore2gp reset vector); a breakpoint at `scale` (its address from the ELF's
/// symbol table) stops before its ENTRY with the arguments in the caller's a10, a11 (a CALL8,
/// isa/ISA.md §3), which the step through ENTRY makes the callee's a2, a3; the argument array
/// is read through memory; a read watchpoint on `in[0]` stops after its load, before anything
/// is stored to `out`; a write watchpoint on `out[2]` stops after the store of 3·3; the run ends with `W1e`, the program's status 30, which is the process's exit code.
#[q7_requires::needs(toolchain)]
#[test]
fn a_session_on_a_bare_metal_program_sees_its_arguments_and_its_stores() {
    let Some(prog) = q7_tests::build::build_sim("gdb-scale", &[("scale.c", SCALE)], &[]) else {
        return;
    };
    let data = std::fs::read(&prog.elf).unwrap();
    let elf = q7_loader::ElfFile::parse(&data).unwrap();
    let scale = elf
        .global_symbol("scale")
        .expect("scale in the symbol table");
    let out = elf.global_symbol("out").expect("out in the symbol table");
    let mut cmd = q7emu();
    cmd.arg("run-elf").arg(&prog.elf);
    let (child, mut rsp, first, stderr) = start(cmd);
    assert_eq!((first.kind, first.code), ('T', 5), "{first:?}");
    assert_eq!(rsp.threads(), [1]);
    rsp.select(1);
    assert_eq!(rsp.registers()[g::PC], elf.entry, "the ELF's entry");

    assert_eq!(rsp.ask(&format!("Z1,{scale:x},3")), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 5, Some(1)),
        "{stop:?}"
    );
    let r = rsp.registers();
    assert_eq!((r[g::PC], a(&r, 11)), (scale, 3));
    let words: Vec<u32> = rsp
        .memory(a(&r, 10), 16)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [1, 2, 3, 4]);
    assert_eq!(rsp.ask(&format!("z1,{scale:x},3")), "OK");

    let step = StopReply::parse(&rsp.ask("vCont;s:1"));
    assert_eq!((step.kind, step.thread()), ('T', Some(1)), "{step:?}");
    let after = rsp.registers();
    assert_eq!(after[g::PC], scale + 3, "past the 3-byte ENTRY");
    assert_eq!((a(&after, 2), a(&after, 3)), (a(&r, 10), 3));

    // A read watchpoint on in[0]: its load comes before any store to out.
    let first = a(&r, 10);
    assert_eq!(rsp.ask(&format!("Z3,{first:x},4")), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    let watched = stop.get("rwatch").map(|w| u32::from_str_radix(w, 16));
    assert_eq!(watched, Some(Ok(first)), "{stop:?}");
    assert_eq!(
        rsp.memory(out, 4).unwrap(),
        [0, 0, 0, 0],
        "out[0] not yet stored"
    );
    assert_eq!(rsp.ask(&format!("z3,{first:x},4")), "OK");

    assert_eq!(rsp.ask(&format!("Z2,{:x},4", out + 8)), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    let watched = stop.get("watch").map(|w| u32::from_str_radix(w, 16));
    assert_eq!(watched, Some(Ok(out + 8)), "{stop:?}");
    assert_eq!(
        rsp.memory(out, 12).unwrap(),
        [3, 0, 0, 0, 6, 0, 0, 0, 9, 0, 0, 0]
    );
    assert_eq!(rsp.ask(&format!("z2,{:x},4", out + 8)), "OK");

    assert_eq!(rsp.ask("vCont;c"), "W1e");
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(30), "{stderr}");
}

/// The hex value GDB printed for `$N = 0x…`.
fn printed(out: &str, n: u32) -> u32 {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix(&format!("${n} = 0x")))
        .unwrap_or_else(|| panic!("no ${n} in:\n{out}"));
    u32::from_str_radix(line.trim(), 16).unwrap()
}

/// The worked session of docs/gdb.md "A worked session", as written there, with the real GDB
/// (`xtensa-elf-gdb`, installed by scripts/setup-toolchain.sh): its `q7emu run` (port 1234 made
/// 0) and its GDB commands (`localhost:1234` made the printed address) in batch mode. GDB lists
/// the eight cores as threads, shows the trampoline's PC and the kernel address in a8, stops at
/// the kernel's ENTRY (disassembled little-endian), steps over it, prints `monitor regs`,
/// stops at the watchpoint on the TCM pool's first word with the ReLU of that core's first
/// element there, and sees the run exit; the output is the plain run's.
#[q7_requires::needs(toolchain)]
#[test]
fn the_real_gdb_runs_the_worked_session() {
    let Some(gdb) = q7_tests::tool("gdb") else {
        return;
    };
    let doc = q7_tests::doc::read("docs/gdb.md");
    let section = q7_tests::doc::section(&doc, "## A worked session");
    let commands = q7_tests::doc::q7emu_commands(section, "run");
    assert_eq!(commands.len(), 1, "one q7emu run in \"A worked session\"");
    let args: Vec<String> = commands[0]
        .iter()
        .map(|w| {
            if w == "1234" {
                "0".to_string()
            } else {
                w.clone()
            }
        })
        .collect();
    let dir = TempDir::new("gdb-real");
    let root = dir.join("");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::os::unix::fs::symlink(repo.join("examples"), root.join("examples")).unwrap();
    let out = root.join("relu.npy");
    let k = example("relu_multicore");
    let mut cmd = q7emu();
    cmd.current_dir(&root).args(&args);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (addr, stderr) = q7_tests::rsp::server_address(&mut child);
    let script = dir.join("session.gdb");
    let session = q7_tests::doc::first_fenced(section, "gdb");
    assert!(
        session.contains("target remote localhost:1234"),
        "{session}"
    );
    std::fs::write(&script, session.replace("localhost:1234", &addr)).unwrap();
    let run = Command::new(gdb)
        .arg("-batch")
        .arg("-x")
        .arg(&script)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{status}: {stderr}\nGDB:\n{text}");

    for t in 1..=8 {
        assert!(
            text.contains(&format!("Thread 1.{t} (core {} (live))", t - 1)),
            "thread {t}:\n{text}"
        );
    }
    assert_eq!(
        printed(&text, 1),
        0x841f_ffc0,
        "core 0's trampoline:\n{text}"
    );
    let kernel = printed(&text, 2);
    assert!(
        text.contains(&format!("Thread 1 hit Breakpoint 1, {kernel:#x} in ?? ()")),
        "{text}"
    );
    assert!(
        text.contains(&format!("=> {kernel:#x}:\tentry\ta1, ")),
        "the kernel's ENTRY, decoded little-endian:\n{text}"
    );
    assert_eq!(printed(&text, 3), kernel + 3, "{text}");
    assert!(
        text.contains("core 0: pc ") && text.contains("ar63 "),
        "{text}"
    );

    let hit = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("Thread ")?
                .strip_suffix(" hit Hardware watchpoint 2: *(int *)0x82000")
        })
        .unwrap_or_else(|| panic!("no watchpoint stop:\n{text}"));
    let core: usize = hit.parse::<usize>().unwrap() - 1;
    let input = std::fs::read(k.join("input.npy")).unwrap();
    let header = u16::from_le_bytes([input[8], input[9]]) as usize;
    // Core c's slice starts at element c · 131072 / 8 (the kernel's split, its README).
    let at = 10 + header + 4 * core * (131072 / 8);
    let relu = f32::from_le_bytes(input[at..at + 4].try_into().unwrap()).max(0.0);
    assert!(
        text.contains(&format!("0x00082000: {:#010x}", relu.to_bits())),
        "core {core}'s first ReLU value:\n{text}"
    );
    assert!(
        text.contains("[Inferior 1 (process 1) exited normally]"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(k.join("expected.npy")).unwrap()
    );
}

/// Runs the real GDB in batch mode against `cmd` started with `--gdb 0`: the set-up every
/// session here needs (no paging or confirmations, the architecture, `file image`, `target
/// remote` at the server), then `commands`, written to `script`. GDB's output, once q7emu has
/// exited successfully.
fn real_gdb_batch(
    gdb: &std::path::Path,
    cmd: Command,
    image: &std::path::Path,
    commands: &str,
    script: &std::path::Path,
) -> String {
    let (child, addr, stderr) = serve(cmd);
    std::fs::write(
        script,
        format!(
            "set pagination off\nset confirm off\nset architecture xtensa\nset endian little\n\
             file {}\ntarget remote {addr}\n{commands}",
            image.display()
        ),
    )
    .unwrap();
    let out = Command::new(gdb)
        .arg("-batch")
        .arg("-x")
        .arg(script)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let status = child.wait_with_output().unwrap().status;
    assert!(status.success(), "{}\nGDB:\n{text}", stderr.join().unwrap());
    text
}

/// The address of function `name` (its mangled symbol) in the unstripped image
/// `so` (examples/sdk/BUILD.md "Debugging": linked where it runs, so symbols are device
/// addresses).
fn function_address(so: &std::path::Path, name: &str) -> u32 {
    let data = std::fs::read(so).unwrap();
    let elf = q7_loader::ElfFile::parse(&data).unwrap();
    let found: Vec<u32> = elf
        .symbols
        .iter()
        .filter(|s| s.kind == 2 && s.name == name)
        .map(|s| s.value)
        .collect();
    assert_eq!(found.len(), 1, "one function {name} in {}", so.display());
    found[0]
}

/// `relu_forward(const at::Tensor &)`, mangled.
const RELU_FORWARD: &str = "_Z12relu_forwardRKN2at6TensorE";

/// Breakpoints at a kernel function by its symbol (toolchain): the 8-core ReLU built from its
/// project keeps its unstripped images (examples/sdk/BUILD.md "Debugging"); `relu_forward`
/// of core 1's image stops thread 2 before its first instruction, that of core 0's thread 1.
/// The real GDB, given core 0's image with `file`, breaks at `relu_forward` by name and shows
/// its source line.
#[q7_requires::needs(toolchain)]
#[test]
fn breakpoints_at_the_kernel_function_from_the_unstripped_images() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("gdb-symbols");
    let project = dir.join("relu_multicore");
    std::fs::create_dir(&project).unwrap();
    let k = example("relu_multicore");
    for f in ["build.py", "relu_multicore.cpp", "shape.cpp"] {
        std::fs::copy(k.join(f), project.join(f)).unwrap();
    }
    let built = q7emu()
        .args(["build", "--toolchain"])
        .arg(q7_tests::toolchain_prefix())
        .arg("--project")
        .arg(&project)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let build = project.join("build");
    let so = |core: u32| build.join(format!("relu_multicore_cpu{core}.so"));
    let run = || {
        let mut cmd = q7emu();
        cmd.arg("run")
            .arg(&build)
            .args(["--op", "relu_forward", "--input"])
            .arg(k.join("input.npy"));
        cmd
    };

    let (core0, core1) = (
        function_address(&so(0), RELU_FORWARD),
        function_address(&so(1), RELU_FORWARD),
    );
    assert_eq!(
        core1,
        core0 + 0x20_0000,
        "each core's image is linked at its own window"
    );
    let (child, mut rsp, _, stderr) = start(run());
    assert_eq!(rsp.ask(&format!("Z0,{core1:x},3")), "OK");
    assert_eq!(rsp.ask(&format!("Z0,{core0:x},3")), "OK");
    let first = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(first.thread(), Some(1), "{first:?}");
    rsp.select(1);
    assert_eq!(rsp.registers()[g::PC], core0);
    assert_eq!(rsp.ask(&format!("z0,{core0:x},3")), "OK");
    let second = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(second.thread(), Some(2), "{second:?}");
    rsp.select(2);
    assert_eq!(rsp.registers()[g::PC], core1);
    assert_eq!(rsp.ask(&format!("z0,{core1:x},3")), "OK");
    assert_eq!(rsp.ask("vCont;c"), "W00");
    let status = child.wait_with_output().unwrap().status;
    assert!(status.success(), "{}", stderr.join().unwrap());

    let Some(gdb) = q7_tests::tool("gdb") else {
        return;
    };
    let text = real_gdb_batch(
        &gdb,
        run(),
        &so(0),
        "break relu_forward\ncontinue\np/x $pc\ndelete\ncontinue\n",
        &dir.join("symbols.gdb"),
    );
    assert!(
        text.contains(
            "Thread 1 hit Breakpoint 1, relu_forward (t_in=...) at ./relu_multicore.cpp:"
        ),
        "{text}"
    );
    assert_eq!(printed(&text, 1), core0, "at the symbol's address:\n{text}");
    assert!(
        text.contains("[Inferior 1 (process 1) exited normally]"),
        "{text}"
    );
}

/// GDB detaching (`D`) lets the cores run on to their end undebugged: the run succeeds with
/// the plain run's output.
#[test]
fn a_detached_run_goes_on_to_the_plain_output() {
    let dir = TempDir::new("gdb-detach");
    let out = dir.join("out.npy");
    let mut cmd = support::relu_multicore(&["--output"]);
    cmd.arg(&out);
    let (child, mut rsp, _, stderr) = start(cmd);
    assert_eq!(rsp.ask("D"), "OK");
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert!(
        stderr.contains("debugger detached; the cores run on"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(example("relu_multicore").join("expected.npy")).unwrap()
    );
}

/// Ctrl-C while the server waits for a debugger ends the wait: the run ends as interrupted
/// (exit code 130, docs/exit-codes.md), for `run` and for `run-elf`.
#[test]
fn ctrl_c_while_waiting_for_a_debugger_ends_the_run_as_interrupted() {
    let tour =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/isa-tour/tour.elf");
    let mut elf = q7emu();
    elf.arg("run-elf").arg(tour);
    for mut cmd in [support::relu_multicore(&[]), elf] {
        let mut child = cmd
            .args(["--gdb", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Once the load is done and the server waits (Ctrl-C during the load is the load's).
        let (_, stderr) = q7_tests::rsp::stderr_until(&mut child, "q7emu: waiting for a debugger");
        let out = support::interrupt_after(child, std::time::Duration::from_millis(200));
        let stderr = stderr.join().unwrap();
        assert_eq!(out.status.code(), Some(130), "{stderr}");
        assert!(
            stderr.contains("interrupted (Ctrl-C) while waiting for a debugger on 127.0.0.1:"),
            "{stderr}"
        );
    }
}

/// docs/gdb.md "Checked mode": with `--check`, a core stops in the debugger at the first error
/// a check finds — here `examples/check/index_3d`'s first read past its `{5,5,5}` input, as
/// SIGSEGV on thread 1 — and at each new one after it; the run then ends with the findings
/// and the `check-failed` exit code (needs the toolchain to build the example).
#[q7_requires::needs(toolchain)]
#[test]
fn checked_mode_stops_the_debugger_at_the_first_out_of_bounds_access() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("gdb-check");
    let build = support::build_check_example(&dir, "index_3d");
    let x = dir.join("x.npy");
    let npy = q7_tests::npy("<f4", &[5, 5, 5], &[0; 125 * 4]);
    std::fs::write(&x, npy).unwrap();
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(&build)
        .args(["--op", "scale3d", "--input"])
        .arg(&x)
        .arg("--check");
    let (child, mut rsp, _, stderr) = start(cmd);
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 11, Some(1)),
        "SIGSEGV on core 0: {stop:?}"
    );
    // The other new errors stop it too; then the kernel ends.
    let mut stops = 1;
    loop {
        let reply = rsp.ask("vCont;c");
        if reply.starts_with('W') {
            break;
        }
        assert_eq!(StopReply::parse(&reply).code, 11, "{reply}");
        stops += 1;
        assert!(stops < 10, "a stop per new finding, not per access");
    }
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(132), "check-failed: {stderr}");
    assert!(
        stderr.contains(
            "q7emu: core 0 stopped: checked mode: error[out-of-bounds]: read bytes 500..504 \
             (element [5][0][0]) past the end of `t_in`, a [5, 5, 5] tensor\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("q7emu: check: 2 error(s), 0 warning(s)"),
        "{stderr}"
    );
}

/// Core 0's PC at the start: the firmware's call trampoline, the last 64 bytes of its image
/// window (PLATFORM.md "Host flow").
const TRAMPOLINE_0: u32 = 0x841f_ffc0;

/// Thread `t`'s PC at the start (each core's image window is 2 MiB above the one before).
fn trampoline(t: u32) -> u32 {
    TRAMPOLINE_0 + (t - 1) * 0x20_0000
}

/// The run ended with success and the plain run's output in `out`.
fn finished_normally(child: Child, stderr: std::thread::JoinHandle<String>, out: &std::path::Path) {
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert_eq!(
        std::fs::read(out).unwrap(),
        std::fs::read(example("relu_multicore").join("expected.npy")).unwrap(),
        "the plain run's output"
    );
}

/// The 8-core ReLU under the server, writing its output to a file of `dir`.
fn relu_to(dir: &TempDir) -> (Command, std::path::PathBuf) {
    let out = dir.join("out.npy");
    let mut cmd = support::relu_multicore(&["--output"]);
    cmd.arg(&out);
    (cmd, out)
}

/// docs/gdb.md "Packets and errors": a packet whose checksum is wrong gets `-`, the protocol's
/// "send it again", and the session goes on — the packet sent again is answered. In no-ack mode
/// the receiver may ignore the checksum (the protocol's words): the packet is taken as sent.
#[test]
fn a_bad_checksum_gets_a_resend_request_and_the_session_goes_on() {
    let dir = TempDir::new("gdb-checksum");
    let (cmd, out) = relu_to(&dir);
    let (child, mut rsp, stderr) = spawn(cmd);
    // `g` sums to 0x67.
    rsp.send_raw(b"$g#00");
    assert_eq!(
        rsp.next_byte(),
        b'-',
        "a wrong checksum asks for the packet again"
    );
    let r = rsp.registers();
    assert_eq!(
        (r.len(), r[g::PC]),
        (g::COUNT, TRAMPOLINE_0),
        "the packet sent again"
    );

    rsp.handshake();
    rsp.send_raw(format!("$m{TRAMPOLINE_0:x},4#00").as_bytes());
    let taken = rsp.recv();
    assert_eq!(taken.len(), 8, "four bytes of memory: {taken:?}");
    assert_eq!(
        Ok(q7_tests::rsp::unhex(&taken)),
        rsp.memory(TRAMPOLINE_0, 4)
    );

    assert_eq!(rsp.ask("vCont;c"), "W00");
    finished_normally(child, stderr, &out);
}

/// docs/gdb.md "Error replies": a malformed `M` (2 data bytes for a length of 4), a short `G`
/// (2 bytes of the 180), an address over 32 bits, a thread the session does not have, a packet
/// longer than PacketSize (0x4000) and an action the server does not take each get their error
/// reply, said on stderr, and change nothing; a packet the server does not know gets the empty
/// reply. The session goes on: registers and memory still answer and the run ends normally.
#[test]
fn malformed_packets_get_error_replies_and_the_session_goes_on() {
    let dir = TempDir::new("gdb-malformed");
    let (cmd, out) = relu_to(&dir);
    let (child, mut rsp, _, stderr) = start(cmd);
    rsp.select(1);
    let before = rsp.memory(0x82000, 4).unwrap();
    let long = format!("m{}", "0".repeat(0x4000));
    for (packet, reply) in [
        ("M82000,4:0102", "E01"),
        ("G0102", "E01"),
        ("m123456789,4", "E01"),
        ("Z0,1ffffffff,3", "E01"),
        ("P0=01", "E01"),
        ("p2d", "E01"),
        ("Hg9", "E02"),
        (long.as_str(), "E04"),
        ("vCont;r84000000,84000010:1", "E07"),
        ("qQ7NoSuchPacket", ""),
    ] {
        assert_eq!(rsp.ask(packet), reply, "{packet:.40}");
        assert_eq!(
            rsp.registers()[g::PC],
            TRAMPOLINE_0,
            "after {packet:.40}: g still answers, thread 1 still selected"
        );
    }
    assert_eq!(
        rsp.memory(0x82000, 4).unwrap(),
        before,
        "the refused M wrote nothing"
    );
    assert_eq!(rsp.ask("vCont;c"), "W00");
    let text = {
        let status = child.wait_with_output().unwrap().status;
        let text = stderr.join().unwrap();
        assert!(status.success(), "{status}: {text}");
        text
    };
    for said in [
        "q7emu: debugger packet \"M82000,4:0102\": malformed packet: M: 2 data bytes for a \
         length of 4 (replied E01)",
        "q7emu: debugger packet \"G0102\": malformed packet: G: 2 bytes of register data, \
         not the 180 of the 45 registers (replied E01)",
        "q7emu: debugger packet \"m123456789,4\": malformed packet: address \"123456789\" \
         does not fit 32 bits (replied E01)",
        "q7emu: debugger packet \"Hg9\": no thread 0x9 (the threads are 1..=8) (replied E02)",
        "q7emu: debugger packet: a packet of 16385 bytes, longer than the 16384 the server \
         takes (its PacketSize) (replied E04)",
    ] {
        assert!(text.contains(said), "{said}\n{text}");
    }
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(example("relu_multicore").join("expected.npy")).unwrap()
    );
}

/// docs/gdb.md "Threads and stopping": GDB's `set scheduler-locking on` with `continue` on
/// thread 1 sends `Hc1` and `c`. Only core 0 runs; its kernel returns while the other cores
/// are still stopped at their trampolines, so the continue ends in `T00` naming thread 1
/// (GDB: `Thread 1 stopped.`). Continuing thread 1 again is refused with `E05`, since nothing
/// of it is left to run; `Hc-1` and `c` run the others to the end, and the run finishes
/// with the plain output.
#[test]
fn continuing_one_thread_ends_in_a_stop_when_its_core_ends() {
    let dir = TempDir::new("gdb-hc1");
    let (cmd, out) = relu_to(&dir);
    let (child, mut rsp, _, stderr) = start(cmd);
    assert_eq!(rsp.ask("Hc1"), "OK");
    let stop = StopReply::parse(&rsp.ask("c"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 0, Some(1)),
        "{stop:?}"
    );
    for t in 2..=8 {
        rsp.select(t);
        assert_eq!(
            rsp.registers()[g::PC],
            trampoline(t),
            "thread {t} stayed stopped"
        );
    }
    let info = rsp.ask("qThreadExtraInfo,1");
    assert_eq!(
        String::from_utf8(q7_tests::rsp::unhex(&info)).unwrap(),
        "core 0 (exited 0)"
    );
    assert_eq!(rsp.ask("c"), "E05", "thread 1 has nothing left to run");
    assert_eq!(rsp.ask("Hc-1"), "OK");
    assert_eq!(rsp.ask("c"), "W00");
    finished_normally(child, stderr, &out);
}

/// The same through `vCont` (docs/gdb.md "Threads and stopping"): `vCont;c:2` runs core 1
/// alone and ends in `T00` naming thread 2 when its kernel returns; a step or a continue of
/// thread 2 after that gets `E05` at once; `vCont;c:3;t` (core 2 continues, every other thread
/// stays) ends in `T00` naming thread 3; `vCont;c` runs the rest to the end.
#[test]
fn a_vcont_of_one_thread_ends_in_a_stop_when_its_core_ends() {
    let dir = TempDir::new("gdb-vcont1");
    let (cmd, out) = relu_to(&dir);
    let (child, mut rsp, _, stderr) = start(cmd);
    let stop = StopReply::parse(&rsp.ask("vCont;c:2"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 0, Some(2)),
        "{stop:?}"
    );
    rsp.select(1);
    assert_eq!(
        rsp.registers()[g::PC],
        TRAMPOLINE_0,
        "thread 1 stayed stopped"
    );
    assert_eq!(rsp.ask("vCont;s:2"), "E05");
    assert_eq!(rsp.ask("vCont;c:p1.2"), "E05");
    let stop = StopReply::parse(&rsp.ask("vCont;c:3;t"));
    assert_eq!(
        (stop.kind, stop.code, stop.thread()),
        ('T', 0, Some(3)),
        "{stop:?}"
    );
    assert_eq!(rsp.ask("vCont;c"), "W00");
    let stderr_text = {
        let status = child.wait_with_output().unwrap().status;
        let text = stderr.join().unwrap();
        assert!(status.success(), "{status}: {text}");
        text
    };
    assert!(
        stderr_text.contains(
            "q7emu: core 1 exited 0: the cores the debugger resumed have all ended; the others \
             stay stopped (GDB: set scheduler-locking off, then continue)"
        ),
        "{stderr_text}"
    );
    assert!(
        stderr_text.contains(
            "q7emu: debugger packet \"vCont;s:2\": nothing to resume: every core it names has \
             ended (core 1 exited 0); the others stay stopped (replied E05)"
        ),
        "{stderr_text}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(example("relu_multicore").join("expected.npy")).unwrap()
    );
}

/// Waits for `child` at most `limit` (a generous bound that turns a hang into a failure),
/// killing it if it is still running: its exit status.
fn exit_within(mut child: Child, limit: std::time::Duration) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("q7emu still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A debugger that goes away mid-run without `D` or `k` ends the session: the unfinished
/// cores stop as interrupted and the run ends so (exit code 130, docs/exit-codes.md).
#[test]
fn a_lost_connection_ends_the_run_as_interrupted() {
    let (child, mut rsp, _, stderr) = start(support::relu_multicore(&[]));
    rsp.send("vCont;c");
    rsp.close();
    let status = exit_within(child, std::time::Duration::from_secs(120));
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("q7emu: lost the debugger (the debugger closed the connection)"),
        "{stderr}"
    );
}

/// Ctrl-C in q7emu's own terminal while the debugger holds the cores stopped ends the session
/// (a silent debugger cannot keep q7emu waiting): the run ends as interrupted (exit code 130).
#[test]
fn ctrl_c_in_q7emus_terminal_ends_a_stopped_session() {
    let (child, mut rsp, _, stderr) = start(support::relu_multicore(&[]));
    rsp.select(1);
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = exit_within(child, std::time::Duration::from_secs(120));
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("q7emu: interrupted (Ctrl-C) during the debug session"),
        "{stderr}"
    );
}

/// A debugger that sends packets but reads no reply cannot keep q7emu blocked once the
/// connection's buffers are full: Ctrl-C in q7emu's terminal still ends the run as
/// interrupted (exit code 130). 4096 reads of 0x2000 bytes (docs/gdb.md "Packets and
/// errors": the most one `m` answers) are 64 MiB of replies, past what the connection buffers.
#[test]
fn a_debugger_that_reads_no_reply_cannot_keep_q7emu_blocked() {
    let (child, mut rsp, _, stderr) = start(support::relu_multicore(&[]));
    let read = q7_tests::rsp::frame("m84000000,2000");
    rsp.send_raw(&read.repeat(4096));
    // The replies stop flowing once the buffers are full; the server is then writing.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = exit_within(child, std::time::Duration::from_secs(120));
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("q7emu: interrupted (Ctrl-C) during the debug session"),
        "{stderr}"
    );
}

/// Every file of the profile directory `debugged` is that of `plain`, byte for byte, and
/// `profile.json` among them.
fn assert_same_profile(debugged: &std::path::Path, plain: &std::path::Path) {
    let (d, p) = (profile_files(debugged), profile_files(plain));
    assert!(d.contains_key("profile.json"), "{:?}", d.keys());
    assert_eq!(
        d.keys().collect::<Vec<_>>(),
        p.keys().collect::<Vec<_>>(),
        "the plain run's files"
    );
    for (name, bytes) in &d {
        assert!(
            *bytes == p[name],
            "{name} of the debugged run's profile is not the plain run's"
        );
    }
}

/// Every file of the profile directory `dir` (docs/profiling.md "Files"), by name.
fn profile_files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The profile in `dir` adds up, per core, to the counts of the run report `report` (a
/// `--json-file`): cycles, instructions and exceptions.
fn assert_totals_are_the_reports(dir: &std::path::Path, report: &std::path::Path) {
    let profile = q7_observe::profile::model::Profile::load(dir).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let cores = report["cores"].as_array().unwrap();
    assert_eq!(profile.cores.len(), cores.len(), "a profile per core run");
    for (p, r) in profile.cores.iter().zip(cores) {
        assert_eq!(u64::from(p.core), r["core"].as_u64().unwrap());
        for (what, profiled) in [
            ("cycles", p.total.cycles),
            ("instructions", p.total.instructions),
            ("exceptions", p.total.exceptions),
        ] {
            assert_eq!(
                profiled,
                r[what].as_u64().unwrap(),
                "core {}: {what}",
                p.core
            );
        }
    }
}

/// docs/profiling.md "Attribution": a dispatch served to the debugger with `--profile` is
/// profiled as the plain run is. The 8-core ReLU stops at core 0's kernel, steps twice, stops
/// twice at core 0's hottest instruction (its loop's branch, found in the plain run's
/// profile), at the boot ROM's window-overflow handler (ARCHITECTURE.md "Exceptions and
/// windows": the lowest address the plain profile names) and steps in it, steps another core,
/// stops at a watchpoint, and runs to its end: every file of the profile is the plain run's,
/// byte for byte, and each core's total is its report's.
#[test]
fn a_debugged_dispatchs_profile_is_the_plain_runs_whatever_stops_it() {
    let dir = TempDir::new("gdb-profile");
    let (plain, debugged) = (dir.join("plain"), dir.join("debugged"));
    let (plain_report, debugged_report) = (dir.join("plain.json"), dir.join("debugged.json"));
    let profiled = |profile: &std::path::Path, report: &std::path::Path| {
        let mut cmd = support::relu_multicore(&["--profile"]);
        cmd.arg(profile).arg("--json-file").arg(report);
        cmd
    };
    support::ok(profiled(&plain, &plain_report));
    let model = q7_observe::profile::model::Profile::load(&plain).unwrap();
    let core0 = &model.cores[0];
    let hot = core0
        .instructions
        .iter()
        .max_by_key(|i| i.own.cycles)
        .unwrap();
    assert!(hot.own.instructions > 2, "{hot:?}");
    let handler = &core0.instructions[0];
    assert!(
        handler.pc < 0x180 && handler.text.starts_with("s32e"),
        "the window-overflow handler's first instruction: {handler:?}"
    );
    assert!(core0.total.exceptions > 0, "windows overflow: {core0:?}");

    let (child, mut rsp, _, stderr) = start(profiled(&debugged, &debugged_report));
    rsp.select(1);
    let kernel = a(&rsp.registers(), 8);
    assert_eq!(rsp.ask(&format!("Z0,{kernel:x},3")), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!((stop.code, stop.thread()), (5, Some(1)), "{stop:?}");
    assert_eq!(rsp.ask(&format!("z0,{kernel:x},3")), "OK");
    for _ in 0..2 {
        let step = StopReply::parse(&rsp.ask("vCont;s:1"));
        assert_eq!((step.code, step.thread()), (5, Some(1)), "{step:?}");
    }
    assert_eq!(rsp.ask(&format!("Z0,{:x},3", hot.pc)), "OK");
    for _ in 0..2 {
        let stop = StopReply::parse(&rsp.ask("vCont;c"));
        assert_eq!(stop.thread(), Some(1), "{stop:?}");
        assert_eq!(rsp.registers()[g::PC], hot.pc);
    }
    assert_eq!(rsp.ask(&format!("z0,{:x},3", hot.pc)), "OK");
    assert_eq!(rsp.ask(&format!("Z0,{:x},3", handler.pc)), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    let t = stop.thread().unwrap();
    rsp.select(t);
    assert_eq!(rsp.registers()[g::PC], handler.pc, "{stop:?}");
    assert_eq!(rsp.ask(&format!("z0,{:x},3", handler.pc)), "OK");
    for _ in 0..2 {
        let step = StopReply::parse(&rsp.ask(&format!("vCont;s:{t:x}")));
        assert_eq!(step.thread(), Some(t), "{step:?}");
    }
    let other = t % 8 + 1;
    let step = StopReply::parse(&rsp.ask(&format!("vCont;s:{other:x}")));
    assert_eq!(step.thread(), Some(other), "{step:?}");
    assert_eq!(rsp.ask("Z2,82000,4"), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert!(stop.get("watch").is_some(), "{stop:?}");
    assert_eq!(rsp.ask("z2,82000,4"), "OK");
    assert_eq!(rsp.ask("vCont;c"), "W00");
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{status}: {stderr}");

    assert_same_profile(&debugged, &plain);
    assert_totals_are_the_reports(&debugged, &debugged_report);
    assert_totals_are_the_reports(&plain, &debugged_report);
}

/// The real GDB on the TCM ReLU built from its project (toolchain; its unstripped image gives
/// GDB and the profile the kernel's functions and lines): `break relu_forward`, `continue`,
/// two `stepi`, a `next`, `continue` to the end. The profile is the plain run's, byte for
/// byte, file for file, and its total is the report's.
#[q7_requires::needs(toolchain)]
#[test]
fn the_real_gdb_breaking_at_the_kernel_leaves_the_profile_as_the_plain_runs() {
    let Some(gdb) = q7_tests::tool("gdb") else {
        return;
    };
    let dir = TempDir::new("gdb-profile-real");
    let build = dir.join("build");
    let mut cmd = q7emu();
    cmd.args(["build", "--toolchain"])
        .arg(q7_tests::toolchain_prefix())
        .arg("--project")
        .arg(example("relu_tcm"))
        .arg("-o")
        .arg(&build);
    support::ok(cmd);
    let run = |profile: &std::path::Path, report: &std::path::Path| {
        let mut cmd = q7emu();
        cmd.arg("run")
            .arg(&build)
            .args(["--op", "relu_forward", "--input"])
            .arg(example("relu_multicore").join("input.npy"))
            .arg("--profile")
            .arg(profile)
            .arg("--json-file")
            .arg(report);
        cmd
    };
    let (plain, debugged) = (dir.join("plain"), dir.join("debugged"));
    let (plain_report, debugged_report) = (dir.join("plain.json"), dir.join("debugged.json"));
    support::ok(run(&plain, &plain_report));

    let text = real_gdb_batch(
        &gdb,
        run(&debugged, &debugged_report),
        &build.join("relu_tcm.so"),
        "break relu_forward\ncontinue\nstepi\nstepi\nnext\ndelete\ncontinue\n",
        &dir.join("profile.gdb"),
    );
    assert!(
        text.contains("\nBreakpoint 1, relu_forward (t_in=...) at ./relu_tcm.cpp:"),
        "{text}"
    );
    assert!(
        text.contains("[Inferior 1 (process 1) exited normally]"),
        "{text}"
    );

    let profile = q7_observe::profile::model::Profile::load(&debugged).unwrap();
    assert!(
        profile.cores[0]
            .functions
            .iter()
            .any(|f| f.name == "relu_forward(at::Tensor const&)"),
        "the kernel's functions by name"
    );
    assert_same_profile(&debugged, &plain);
    assert_totals_are_the_reports(&debugged, &debugged_report);
    assert_totals_are_the_reports(&plain, &debugged_report);
}

/// With checked mode and a profile, GDB detaching at the kernel lets the cores run on with
/// both still following them (docs/gdb.md "Stop reasons"): the profile is the plain run's,
/// file for file, and the check finds nothing.
#[test]
fn a_detached_checked_runs_profile_is_the_plain_runs() {
    let dir = TempDir::new("gdb-profile-detach");
    let (plain, debugged) = (dir.join("plain"), dir.join("debugged"));
    let mut cmd = support::relu_multicore(&["--profile"]);
    cmd.arg(&plain);
    support::ok(cmd);
    let mut cmd = support::relu_multicore(&["--check", "--profile"]);
    cmd.arg(&debugged);
    let (child, mut rsp, _, stderr) = start(cmd);
    rsp.select(1);
    let kernel = a(&rsp.registers(), 8);
    assert_eq!(rsp.ask(&format!("Z0,{kernel:x},3")), "OK");
    let stop = StopReply::parse(&rsp.ask("vCont;c"));
    assert_eq!(stop.thread(), Some(1), "{stop:?}");
    assert_eq!(rsp.ask("D"), "OK");
    let status = child.wait_with_output().unwrap().status;
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert!(
        stderr.contains("q7emu: check: 0 error(s), 0 warning(s)"),
        "{stderr}"
    );
    assert_same_profile(&debugged, &plain);
}
