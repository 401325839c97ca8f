//! The one convention for the machine-readable output of every subcommand that reports
//! (docs/cli.md "Conventions"): `--json` prints the report as one JSON document on
//! stdout instead of the text, `--json-file FILE` writes that document to FILE and leaves the
//! text on stdout. A file is written whole: into a temporary file beside it, renamed over FILE
//! once complete, so an interrupted or failed write never leaves a half document where the
//! user's file was.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `--json` and `--json-file FILE`, for `clap(flatten)`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JsonOutput {
    /// Print the report as JSON on stdout instead of the text (and draw no progress line).
    #[arg(long, conflicts_with = "json_file")]
    pub json: bool,
    /// Also write the report as JSON to FILE (replaced only once the document is complete);
    /// the text still goes to stdout.
    #[arg(long, value_name = "FILE")]
    pub json_file: Option<PathBuf>,
}

/// `--json-file FILE` alone, for a subcommand whose stdout is not its report (`run-elf`: the
/// program's own output).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JsonFile {
    /// Also write the report as JSON to FILE (replaced only once the document is complete).
    #[arg(long, value_name = "FILE", alias = "stats-json")]
    pub json_file: Option<PathBuf>,
}

impl JsonOutput {
    /// Whether anything JSON is asked for (no progress line is drawn then).
    pub fn any(&self) -> bool {
        self.json || self.json_file.is_some()
    }
}

/// Why a JSON document could not be written: the file and the cause.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file asked for.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

/// A file being written whole: bytes go to a temporary file beside `path`, which
/// [`AtomicFile::commit`] renames over `path`; dropped uncommitted, the temporary file is
/// removed and `path` is untouched.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<AtomicFile, WriteError> {
        let name = path
            .file_name()
            .map_or_else(|| "json".into(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = std::fs::File::create(&tmp).map_err(|source| WriteError {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: Some(std::io::BufWriter::new(file)),
        })
    }

    /// Flushes the bytes and renames the temporary file over the path.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let fail = |source| WriteError {
            path: self.path.clone(),
            source,
        };
        let file = self.file.take().expect("an uncommitted file is open");
        let file = file.into_inner().map_err(|e| fail(e.into_error()))?;
        file.sync_all().map_err(fail)?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(fail)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("open until committed").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("open until committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

impl AtomicFile {
    /// Writes `bytes`, then [`AtomicFile::commit`]s.
    pub fn write_all_and_commit(mut self, bytes: &[u8]) -> Result<(), WriteError> {
        if let Err(source) = self.write_all(bytes) {
            return Err(WriteError {
                path: self.path.clone(),
                source,
            });
        }
        self.commit()
    }
}

#[cfg(test)]
fn write_file(path: &Path, text: &str) -> Result<(), WriteError> {
    AtomicFile::create(path)?.write_all_and_commit(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("q7-json-output-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_committed_file_replaces_the_old_one_and_leaves_no_temporary_file() {
        let d = dir("commit");
        let path = d.join("r.json");
        std::fs::write(&path, "old").unwrap();
        write_file(&path, "{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["r.json"]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_uncommitted_file_leaves_the_users_file_as_it_was() {
        let d = dir("drop");
        let path = d.join("r.json");
        std::fs::write(&path, "old").unwrap();
        {
            let mut f = AtomicFile::create(&path).unwrap();
            f.write_all(b"{\"half\": ").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "the temporary file is gone"
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_file_in_a_missing_directory_is_an_error_naming_it() {
        let e = write_file(Path::new("/nonexistent-q7/r.json"), "{}").unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent-q7/r.json: "), "{e}");
    }
}
