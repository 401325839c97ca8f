//! What a kernel printed (PLATFORM.md "Console"): each core's console ring as the reports of
//! `run`, `run-packed` and the device errors show it. The text is the guest's and exact here;
//! it is escaped only where it reaches a terminal ([`q7_conventions::terminal`]).

use q7_emulator::platform::{Cluster, ConsoleRing};

/// What one core printed: the bytes its console ring holds of a stretch of the run and how
/// many more it overwrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreConsole {
    /// The core.
    pub core: u32,
    /// The bytes the ring holds, oldest first (invalid UTF-8 replaced by U+FFFD).
    pub text: String,
    /// Bytes written before those and overwritten.
    pub dropped: u64,
}

impl CoreConsole {
    /// Everything the console of `core` of `cluster` was written.
    pub fn of(cluster: &Cluster, core: u32) -> CoreConsole {
        CoreConsole::since(cluster, core, 0)
    }

    /// What the console of `core` of `cluster` was written after its first `mark` bytes
    /// ([`ConsoleRing::written`] taken before the stretch), of which the ring holds the last.
    pub fn since(cluster: &Cluster, core: u32, mark: u64) -> CoreConsole {
        CoreConsole::of_ring(&cluster.cores[core as usize].bus.console, core, mark)
    }

    /// What `ring`, the console of `core`, was written after its first `mark` bytes.
    pub fn of_ring(ring: &ConsoleRing, core: u32, mark: u64) -> CoreConsole {
        let new = ring.written().saturating_sub(mark);
        let held = ring.contents();
        let kept = held.len().min(usize::try_from(new).unwrap_or(usize::MAX));
        CoreConsole {
            core,
            text: String::from_utf8_lossy(&held[held.len() - kept..]).into_owned(),
            dropped: new - kept as u64,
        }
    }

    /// Whether the core printed anything.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.dropped == 0
    }

    /// `console of core N:`, the line marking the bytes dropped (`… N bytes dropped`) when
    /// there are, and the text, ending with a newline.
    pub fn printed(&self) -> String {
        let mut out = format!(
            "console of core {}:\n{}{}",
            self.core,
            q7_emulator::platform::console::dropped_line(self.dropped),
            self.text
        );
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(capacity: usize, text: &[u8]) -> ConsoleRing {
        let mut r = ConsoleRing::new(capacity).unwrap();
        text.iter().for_each(|&b| r.push(b));
        r
    }

    #[test]
    fn a_stretch_is_what_was_written_after_its_mark() {
        let r = ring(16, b"first\nsecond\n");
        let c = CoreConsole::of_ring(&r, 3, 6);
        assert_eq!((c.core, c.text.as_str(), c.dropped), (3, "second\n", 0));
        assert!(CoreConsole::of_ring(&r, 3, 13).is_empty());
    }

    #[test]
    fn a_stretch_longer_than_the_ring_counts_what_it_overwrote() {
        // 20 bytes after the mark into a 16-byte ring: the last 16 held, 4 dropped.
        let r = ring(16, b"xxxx0123456789abcdefghij");
        let c = CoreConsole::of_ring(&r, 0, 4);
        assert_eq!((c.text.as_str(), c.dropped), ("456789abcdefghij", 4));
        assert_eq!(
            c.printed(),
            "console of core 0:\n… 4 bytes dropped\n456789abcdefghij\n"
        );
    }
}
