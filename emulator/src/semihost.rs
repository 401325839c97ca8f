//! SIMCALL semihosting with QEMU's numbering: exit = 1, read = 3, write = 4; every other call
//! fails with ENOSYS. The ABI (call in a2, arguments a3..a5, result in a2 and errno in a3) is
//! the core's; what a call does to the host goes through the small [`Host`] trait, which
//! [`Console`] implements with two streams.

use std::io::Write;

/// Exit.
pub const SYS_EXIT: u32 = 1;
/// Read (reads nothing: programs get end of file).
pub const SYS_READ: u32 = 3;
/// Write to fd 1 or 2.
pub const SYS_WRITE: u32 = 4;

/// Most bytes of a `write` held at once: longer writes are streamed in chunks of this size.
pub const WRITE_CHUNK: u32 = 64 * 1024;

/// errno: bad file descriptor.
pub const EBADF: u32 = 9;
/// errno: bad address.
pub const EFAULT: u32 = 14;
/// errno: no such call.
pub const ENOSYS: u32 = 38;

/// What semihosting calls may do on the host.
pub trait Host {
    /// Writes `bytes` to file descriptor `fd` (1 = stdout, 2 = stderr; others fail).
    fn write(&mut self, fd: u32, bytes: &[u8]) -> std::io::Result<()>;
}

/// How a SIMCALL ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The program exits with this status.
    Exit(i32),
    /// The call returns `value` (a2) and `errno` (a3).
    Return {
        /// The result.
        value: u32,
        /// 0, or why the call failed.
        errno: u32,
    },
}

/// Semihosting call `call` with arguments `args` (a3, a4, a5); guest bytes come from
/// `read_byte` (`None` where unreadable). A `write` takes at most `room` bytes (what the cycle
/// budget still pays for) and returns how many it wrote, as a short write does.
pub fn simcall(
    call: u32,
    args: [u32; 3],
    room: u32,
    mut read_byte: impl FnMut(u32) -> Option<u8>,
    host: &mut impl Host,
) -> Outcome {
    let [a, b, c] = args;
    let failed = |errno| Outcome::Return {
        value: u32::MAX,
        errno,
    };
    match call {
        SYS_EXIT => Outcome::Exit(a as i32),
        SYS_READ => Outcome::Return { value: 0, errno: 0 },
        SYS_WRITE => {
            // A buffer running past the end of the 32-bit space cannot exist; every byte of the
            // rest must be readable before any is written (nothing half-written on EFAULT).
            if u64::from(b) + u64::from(c) > 1 << 32 {
                return failed(EFAULT);
            }
            let c = c.min(room);
            if (0..c).any(|k| read_byte(b + k).is_none()) {
                return failed(EFAULT);
            }
            let mut chunk = Vec::with_capacity(c.min(WRITE_CHUNK) as usize);
            let mut at = 0;
            while at < c {
                let n = (c - at).min(WRITE_CHUNK);
                chunk.clear();
                chunk.extend((0..n).map(|k| read_byte(b + at + k).unwrap_or(0)));
                if host.write(a, &chunk).is_err() {
                    return failed(EBADF);
                }
                at += n;
            }
            Outcome::Return { value: c, errno: 0 }
        }
        _ => failed(ENOSYS),
    }
}

/// Where semihosting output goes.
pub struct Console {
    /// File descriptor 1.
    pub stdout: Box<dyn Write + Send>,
    /// File descriptor 2.
    pub stderr: Box<dyn Write + Send>,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Console")
    }
}

impl Default for Console {
    fn default() -> Self {
        Console {
            stdout: Box::new(std::io::stdout()),
            stderr: Box::new(std::io::stderr()),
        }
    }
}

impl Host for Console {
    fn write(&mut self, fd: u32, bytes: &[u8]) -> std::io::Result<()> {
        let stream = match fd {
            1 => &mut self.stdout,
            2 => &mut self.stderr,
            _ => return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput)),
        };
        stream.write_all(bytes).and_then(|()| stream.flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Recorder(Vec<(u32, Vec<u8>)>);

    impl Host for Recorder {
        fn write(&mut self, fd: u32, bytes: &[u8]) -> std::io::Result<()> {
            if fd == 7 {
                return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
            }
            self.0.push((fd, bytes.to_vec()));
            Ok(())
        }
    }

    fn memory(addr: u32) -> Option<u8> {
        b"hello".get(addr.wrapping_sub(0x100) as usize).copied()
    }

    #[test]
    fn write_copies_guest_bytes_to_the_descriptor_and_returns_the_count() {
        let mut host = Recorder::default();
        let out = simcall(SYS_WRITE, [2, 0x100, 5], u32::MAX, memory, &mut host);
        assert_eq!(out, Outcome::Return { value: 5, errno: 0 });
        assert_eq!(host.0, [(2, b"hello".to_vec())]);
    }

    #[test]
    fn failures_return_all_ones_with_an_errno() {
        let mut host = Recorder::default();
        let fail = |errno| Outcome::Return {
            value: u32::MAX,
            errno,
        };
        assert_eq!(
            simcall(SYS_WRITE, [1, 0x100, 6], u32::MAX, memory, &mut host),
            fail(EFAULT)
        );
        assert_eq!(
            simcall(SYS_WRITE, [7, 0x100, 1], u32::MAX, memory, &mut host),
            fail(EBADF)
        );
        assert_eq!(
            simcall(99, [0; 3], u32::MAX, memory, &mut host),
            fail(ENOSYS)
        );
        assert!(host.0.is_empty(), "nothing written");
    }

    #[test]
    fn a_long_write_is_streamed_in_bounded_chunks_and_an_impossible_one_refused() {
        let mut host = Recorder::default();
        let len = 3 * WRITE_CHUNK + 5;
        let zeros = |_| Some(0);
        let out = simcall(SYS_WRITE, [1, 0, len], u32::MAX, zeros, &mut host);
        assert_eq!(
            out,
            Outcome::Return {
                value: len,
                errno: 0
            }
        );
        let sizes: Vec<usize> = host.0.iter().map(|(_, b)| b.len()).collect();
        let chunk = WRITE_CHUNK as usize;
        assert_eq!(sizes, [chunk, chunk, chunk, 5]);
        // 4 GiB - 1 bytes from 0x1000 would run past the end of the address space.
        let mut host = Recorder::default();
        let out = simcall(SYS_WRITE, [1, 0x1000, u32::MAX], u32::MAX, zeros, &mut host);
        assert_eq!(
            out,
            Outcome::Return {
                value: u32::MAX,
                errno: EFAULT
            }
        );
        assert!(host.0.is_empty(), "nothing written");
    }

    #[test]
    fn a_write_takes_no_more_bytes_than_the_budget_pays_for() {
        let mut host = Recorder::default();
        let out = simcall(SYS_WRITE, [1, 0x100, 5], 3, memory, &mut host);
        assert_eq!(out, Outcome::Return { value: 3, errno: 0 });
        assert_eq!(host.0, [(1, b"hel".to_vec())]);
        let out = simcall(SYS_WRITE, [1, 0x100, 5], 0, memory, &mut host);
        assert_eq!(out, Outcome::Return { value: 0, errno: 0 });
    }

    #[test]
    fn exit_carries_the_status_and_read_reads_nothing() {
        let mut host = Recorder::default();
        assert_eq!(
            simcall(SYS_EXIT, [u32::MAX, 0, 0], u32::MAX, memory, &mut host),
            Outcome::Exit(-1)
        );
        assert_eq!(
            simcall(SYS_READ, [0, 0x100, 5], u32::MAX, memory, &mut host),
            Outcome::Return { value: 0, errno: 0 }
        );
    }

    #[test]
    fn the_console_writes_fd_1_and_2_and_refuses_others() {
        let mut console = Console {
            stdout: Box::new(std::io::sink()),
            stderr: Box::new(std::io::sink()),
        };
        assert!(console.write(1, b"x").is_ok());
        assert!(console.write(2, b"x").is_ok());
        assert!(console.write(3, b"x").is_err());
    }
}
