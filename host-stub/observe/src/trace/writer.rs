//! The writer thread of instruction traces: core threads hand it chunks of formatted lines over
//! one bounded channel, blocking while it is full, so no event is ever dropped and memory stays
//! bounded however fast the cores run. Each core's chunks arrive in the order that core sent
//! them and go to that core's two files, so every file's bytes depend only on its core's events,
//! never on which host thread ran the core or how the cores interleaved.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::TraceError;

/// Chunks in flight between the core threads and the writer (each at most about
/// [`CHUNK_BYTES`] of text and as much JSON).
pub const CHANNEL_CHUNKS: usize = 32;
/// A core's formatted lines are sent once they pass this many bytes.
pub const CHUNK_BYTES: usize = 64 << 10;

/// Formatted lines of one core.
#[derive(Debug, Default)]
pub struct Chunk {
    /// The core.
    pub core: u32,
    /// Lines of `core<N>.trace`.
    pub text: String,
    /// Lines of `core<N>.jsonl`.
    pub json: String,
}

/// The files of one core and the bytes written to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreFiles {
    /// The core.
    pub core: u32,
    /// `DIR/core<N>.trace` and its size in bytes.
    pub text: (PathBuf, u64),
    /// `DIR/core<N>.jsonl` and its size in bytes.
    pub json: (PathBuf, u64),
}

/// One core's open files.
struct Open {
    files: CoreFiles,
    text: BufWriter<File>,
    json: BufWriter<File>,
}

/// The writer thread and the sending side of its channel.
#[derive(Debug)]
pub struct Writer {
    tx: Sender<Chunk>,
    thread: JoinHandle<Result<Vec<CoreFiles>, TraceError>>,
}

/// `dir/core<N>.<ext>`.
pub fn path(dir: &Path, core: u32, ext: &str) -> PathBuf {
    dir.join(format!("core{core}.{ext}"))
}

impl Writer {
    /// Creates `dir` (and its parents) and the two files of each of `cores`, truncating
    /// existing ones, and starts the writer thread.
    pub fn start(dir: &Path, cores: &[u32]) -> Result<Writer, TraceError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TraceError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut open = Vec::new();
        for &core in cores {
            let (t, j) = (path(dir, core, "trace"), path(dir, core, "jsonl"));
            let text = BufWriter::new(File::create(&t).map_err(io(&t))?);
            let json = BufWriter::new(File::create(&j).map_err(io(&j))?);
            open.push(Open {
                files: CoreFiles {
                    core,
                    text: (t, 0),
                    json: (j, 0),
                },
                text,
                json,
            });
        }
        let (tx, rx) = bounded(CHANNEL_CHUNKS);
        let thread = std::thread::Builder::new()
            .name("q7-trace-writer".into())
            .spawn(move || write_all(rx, open))
            .map_err(|source| TraceError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        Ok(Writer { tx, thread })
    }

    /// A sender for a core thread.
    pub fn sender(&self) -> Sender<Chunk> {
        self.tx.clone()
    }

    /// Waits for every chunk sent (every other sender must be gone) to be written; the files
    /// and their sizes, or the first write error.
    pub fn finish(self) -> Result<Vec<CoreFiles>, TraceError> {
        drop(self.tx);
        match self.thread.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The writer thread: every chunk to its core's files until every sender is gone. After a
/// write error it goes on receiving (and discarding), so that no core thread blocks for ever.
fn write_all(rx: Receiver<Chunk>, mut open: Vec<Open>) -> Result<Vec<CoreFiles>, TraceError> {
    let mut error = None;
    for chunk in rx {
        if error.is_some() {
            continue;
        }
        let Some(o) = open.iter_mut().find(|o| o.files.core == chunk.core) else {
            continue;
        };
        let wrote = o
            .text
            .write_all(chunk.text.as_bytes())
            .map_err(|e| (o.files.text.0.clone(), e))
            .and_then(|()| {
                o.json
                    .write_all(chunk.json.as_bytes())
                    .map_err(|e| (o.files.json.0.clone(), e))
            });
        match wrote {
            Ok(()) => {
                o.files.text.1 += chunk.text.len() as u64;
                o.files.json.1 += chunk.json.len() as u64;
            }
            Err((path, source)) => error = Some(TraceError::Io { path, source }),
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    let mut files = Vec::new();
    for mut o in open {
        for (w, path) in [
            (&mut o.text, &o.files.text.0),
            (&mut o.json, &o.files.json.0),
        ] {
            w.flush().map_err(|source| TraceError::Io {
                path: path.clone(),
                source,
            })?;
        }
        files.push(o.files);
    }
    Ok(files)
}
