//! The host-profiler map of compiled blocks (docs/jit.md "Profiling the host code"): with
//! `Q7EMU_PERF_MAP=1` in the environment ([`q7_environment::PERF_MAP`]), every block put into
//! a code cache is named in `/tmp/perf-<pid>.map`, one line `<host start> <size> q7 0x<guest
//! pc>` in hex, the format Linux `perf report` reads to name samples in code it did not load
//! from a file.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// The map file, opened at the first block when the variable asks for it.
fn map() -> Option<&'static Mutex<std::fs::File>> {
    static MAP: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    MAP.get_or_init(|| {
        if q7_environment::PERF_MAP.get().is_none_or(|v| v != "1") {
            return None;
        }
        let path = format!("/tmp/perf-{}.map", std::process::id());
        // A file a process of the same id left names none of this one's blocks: it goes, and
        // the map is made new (never opened through a link someone left at its name, whose
        // target it would overwrite).
        let _ = std::fs::remove_file(&path);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                tracing::warn!(%path, error = %e, "Q7EMU_PERF_MAP: the map cannot be written");
                None
            }
        }
    })
    .as_ref()
}

/// Names the `bytes` of host code at `host` as the block at guest address `pc`, when the map
/// is on. One write a line, so lines of threads compiling at once stay whole.
pub(crate) fn record(host: *const u8, bytes: u64, pc: u32) {
    let Some(map) = map() else { return };
    let line = format!("{:x} {bytes:x} q7 0x{pc:08x}\n", host as usize);
    if let Ok(mut f) = map.lock() {
        // A profiling aid: a failed write loses a name, never a result.
        let _ = f.write_all(line.as_bytes());
    }
}
