//! The files q7emu writes (docs/cli.md "Conventions", "Output files"): every output of `run`,
//! `run-packed`, `run-elf` and `inspect` — `--output`, `--json-file`, `--timeline` — is
//! written whole through an [`AtomicFile`]: into a temporary file beside it, renamed over it
//! once complete, so a failed or interrupted write never leaves half a file where the user's
//! was; and no output may name the file of an input or of another output
//! ([`check_distinct`]), refused before anything runs.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Why an output file could not be written: the file and the cause.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file asked for.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

/// Temporary files being written, removed by [`remove_temporaries`] when the process ends at
/// once (a second Ctrl-C).
static TEMPORARIES: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
/// Tells apart the temporary files of one process.
static SERIAL: AtomicU64 = AtomicU64::new(0);

fn temporaries() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Temporary directories in use (a build's work directory), removed with what they hold by
/// [`remove_temporaries`] when the process ends at once.
static TEMPORARY_DIRS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn temporary_dirs() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    TEMPORARY_DIRS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes every temporary file not yet renamed into place and every [`TemporaryDir`] in use
/// (the process is about to end without unwinding).
pub fn remove_temporaries() {
    remove_each(std::mem::take(&mut *temporaries()));
    for dir in std::mem::take(&mut *temporary_dirs()) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A private directory created in `dir` as `<prefix>XXXXXX`, removed with everything in it
/// when dropped, or by [`remove_temporaries`] when the process ends at once (a second
/// Ctrl-C): nothing of it is left behind either way.
#[derive(Debug)]
pub struct TemporaryDir {
    dir: tempfile::TempDir,
}

impl TemporaryDir {
    /// Creates it in `dir`.
    pub fn new_in(dir: &Path, prefix: &str) -> std::io::Result<TemporaryDir> {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(dir)?;
        temporary_dirs().insert(dir.path().to_path_buf());
        Ok(TemporaryDir { dir })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TemporaryDir {
    fn drop(&mut self) {
        // Forgotten first: the TempDir removes it next.
        temporary_dirs().remove(self.dir.path());
    }
}

fn remove_each(files: BTreeSet<PathBuf>) {
    for tmp in files {
        let _ = std::fs::remove_file(tmp);
    }
}

/// How an [`AtomicFile`] reaches its path.
#[derive(Debug)]
enum Target {
    /// A temporary file beside the path, renamed over it on commit.
    Rename {
        tmp: PathBuf,
        /// The file renamed over (the path with its symbolic links resolved).
        dest: PathBuf,
        /// The permissions of the file replaced, given to the new one.
        permissions: Option<std::fs::Permissions>,
    },
    /// The path itself, an existing file that is not a regular file (`/dev/null`, a FIFO, a
    /// terminal): written in place, never replaced.
    InPlace,
}

/// A file being written whole: bytes go to a temporary file beside `path`, which
/// [`AtomicFile::commit`] renames over `path`; dropped uncommitted (a failed run, a failed
/// write), the temporary file is removed and `path` is untouched. A path that is a symbolic
/// link keeps the link: the file it points to is replaced. A path that exists and is not a
/// regular file (`/dev/null`, a FIFO) is written in place.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    target: Target,
    file: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    /// Starts writing `path`: refuses a directory and a path whose directory cannot take a
    /// new file, so that an output that cannot be written is refused before a run.
    pub fn create(path: &Path) -> Result<AtomicFile, WriteError> {
        let fail = |source| WriteError {
            path: path.to_path_buf(),
            source,
        };
        if path.as_os_str().is_empty() {
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "an empty path names no file",
            )));
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(fail(std::io::Error::new(
                    std::io::ErrorKind::IsADirectory,
                    "is a directory",
                )))
            }
            Ok(m) if !m.is_file() => {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(fail)?;
                return Ok(AtomicFile {
                    path: path.to_path_buf(),
                    target: Target::InPlace,
                    file: Some(std::io::BufWriter::new(file)),
                });
            }
            _ => {}
        }
        let (dest, permissions) = match std::fs::canonicalize(path) {
            Ok(real) => {
                let permissions = std::fs::metadata(&real).ok().map(|m| m.permissions());
                (real, permissions)
            }
            Err(_) => (path.to_path_buf(), None),
        };
        let name = dest
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        let tmp = dest.with_file_name(format!(
            ".{name}.{}-{}.tmp",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        // A new file only: never one someone else put there under the temporary name.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(fail)?;
        temporaries().insert(tmp.clone());
        Ok(AtomicFile {
            path: path.to_path_buf(),
            target: Target::Rename {
                tmp,
                dest,
                permissions,
            },
            file: Some(std::io::BufWriter::new(file)),
        })
    }

    /// The path asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the bytes, syncs them to disk and renames the temporary file over the path.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let fail = |source| WriteError {
            path: self.path.clone(),
            source,
        };
        let file = self.file.take().expect("an uncommitted file is open");
        let file = file.into_inner().map_err(|e| fail(e.into_error()));
        let Target::Rename {
            tmp,
            dest,
            permissions,
        } = &self.target
        else {
            return file.map(drop);
        };
        let renamed = file.and_then(|file| {
            file.sync_all().map_err(fail)?;
            if let Some(p) = permissions {
                file.set_permissions(p.clone()).map_err(fail)?;
            }
            drop(file);
            std::fs::rename(tmp, dest).map_err(fail)
        });
        if renamed.is_err() {
            let _ = std::fs::remove_file(tmp);
        }
        temporaries().remove(tmp);
        renamed
    }

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
        if let (Some(file), Target::Rename { tmp, .. }) = (self.file.take(), &self.target) {
            // The bytes are thrown away: no flush of the buffer into a file about to go.
            let (file, _) = file.into_parts();
            drop(file);
            let _ = std::fs::remove_file(tmp);
            temporaries().remove(tmp);
        }
    }
}

/// What a file is, for telling whether two paths name the same one.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// An existing regular file: its device and inode (hard and symbolic links included).
    File(u64, u64),
    /// A file not there yet: its absolute path ([`resolve`]).
    New(PathBuf),
    /// Something no output replaces (a device such as `/dev/null`, a FIFO, a directory) or a
    /// path that cannot be resolved: never the same as anything.
    Other,
}

fn identity(path: &Path) -> Identity {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Identity::File(m.dev(), m.ino()),
        Ok(_) => Identity::Other,
        Err(_) => match resolve(path) {
            Some(p) => Identity::New(p),
            None => Identity::Other,
        },
    }
}

/// `path` made absolute with the links of its deepest existing directory resolved and the
/// rest (directories not there yet, `.` and `..`) applied as written: the path a file not
/// created yet will have, however it is named (`t/core0.trace`, `./t/x/../core0.trace`). None
/// for an empty path, or when no part of it resolves.
pub fn resolve(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    if path.as_os_str().is_empty() {
        return None;
    }
    let abs = std::path::absolute(path).ok()?;
    let parts: Vec<Component> = abs.components().collect();
    (1..=parts.len()).rev().find_map(|n| {
        let mut real = std::fs::canonicalize(parts[..n].iter().collect::<PathBuf>()).ok()?;
        for c in &parts[n..] {
            match c {
                Component::Normal(name) => real.push(name),
                Component::ParentDir => {
                    real.pop();
                }
                _ => {}
            }
        }
        Some(real)
    })
}

/// One file of a command line: the flag (or argument) that names it and its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The flag or argument as `--help` shows it (`--input`, `--timeline`, `BUILD_DIR`).
    pub flag: String,
    /// The path.
    pub path: PathBuf,
}

impl Named {
    /// `path` named by `flag`.
    pub fn new(flag: impl Into<String>, path: impl Into<PathBuf>) -> Named {
        Named {
            flag: flag.into(),
            path: path.into(),
        }
    }
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.flag, self.path.display())
    }
}

/// An output that names the file of an input or of another output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathClash {
    /// The output would replace an input before it is read or after: refused.
    #[error("{output} is the same file as {input}: an output must not replace an input; write it elsewhere")]
    Input {
        /// The output.
        output: Named,
        /// The input.
        input: Named,
    },
    /// Two outputs would write one file, one replacing the other.
    #[error("{first} and {second} are the same file: each output needs a file of its own")]
    Output {
        /// The output named first.
        first: Named,
        /// The output named second.
        second: Named,
    },
    /// An output file would take the place of a directory another output writes files in (the
    /// trace directory), or of a directory above it.
    #[error("{output} is {dir}, or a directory above it: a file cannot take the place of the directory the other writes in; write it elsewhere")]
    Directory {
        /// The output file.
        output: Named,
        /// The directory.
        dir: Named,
    },
}

/// Refuses an output that is the same file as an input or as another output: the same regular
/// file (by device and inode, so links and `./` do not hide it), or the same new file (by
/// the absolute path of its directory). Devices, FIFOs and paths that do not resolve clash
/// with nothing (`/dev/null` may take several outputs).
pub fn check_distinct(inputs: &[Named], outputs: &[Named]) -> Result<(), PathClash> {
    let ids: Vec<Identity> = inputs.iter().map(|n| identity(&n.path)).collect();
    let out_ids: Vec<Identity> = outputs.iter().map(|n| identity(&n.path)).collect();
    for (i, (output, id)) in outputs.iter().zip(&out_ids).enumerate() {
        if *id == Identity::Other {
            continue;
        }
        if let Some(input) = inputs.iter().zip(&ids).find(|(_, x)| *x == id) {
            return Err(PathClash::Input {
                output: output.clone(),
                input: input.0.clone(),
            });
        }
        if let Some((first, _)) = outputs[..i].iter().zip(&out_ids).find(|(_, x)| *x == id) {
            return Err(PathClash::Output {
                first: first.clone(),
                second: output.clone(),
            });
        }
    }
    Ok(())
}

/// Refuses an output file (of `outputs`) that is directory `dir` or a directory above it,
/// by their [`resolve`]d paths; devices and FIFOs clash with nothing.
pub fn check_not_dir(dir: &Named, outputs: &[Named]) -> Result<(), PathClash> {
    let Some(d) = resolve(&dir.path) else {
        return Ok(());
    };
    for output in outputs {
        if identity(&output.path) == Identity::Other && !output.path.is_dir() {
            continue;
        }
        if resolve(&output.path).is_some_and(|o| d.starts_with(o)) {
            return Err(PathClash::Directory {
                output: output.clone(),
                dir: dir.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("q7-output-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    fn write_file(path: &Path, text: &str) -> Result<(), WriteError> {
        AtomicFile::create(path)?.write_all_and_commit(text.as_bytes())
    }

    #[test]
    fn a_committed_file_replaces_the_old_one_and_leaves_no_temporary_file() {
        let d = dir("commit");
        let path = d.join("r.json");
        std::fs::write(&path, "old").unwrap();
        write_file(&path, "{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        assert_eq!(names(&d), ["r.json"]);
        assert!(temporaries().iter().all(|t| !t.starts_with(&d)));
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
            assert_eq!(names(&d).len(), 2, "the temporary file is beside it");
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(&d), ["r.json"], "the temporary file is gone");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_file_in_a_missing_directory_or_a_directory_is_an_error_naming_it() {
        let e = write_file(Path::new("/nonexistent-q7/r.json"), "{}").unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent-q7/r.json: "), "{e}");
        let d = dir("isdir");
        let e = write_file(&d, "{}").unwrap_err();
        assert_eq!(e.to_string(), format!("{}: is a directory", d.display()));
        let e = write_file(Path::new(""), "{}").unwrap_err();
        assert_eq!(e.to_string(), ": an empty path names no file");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_symbolic_link_is_kept_and_its_target_replaced_and_dev_null_written_in_place() {
        let d = dir("link");
        let (target, link) = (d.join("real.npy"), d.join("link.npy"));
        std::fs::write(&target, "old").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_file(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&d), ["link.npy", "real.npy"]);
        write_file(Path::new("/dev/null"), "discarded").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn the_permissions_of_the_file_replaced_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("mode");
        let path = d.join("out.npy");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_file(&path, "new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn the_temporary_files_in_flight_are_known_and_removed_on_a_sudden_end() {
        let d = dir("temps");
        let f = AtomicFile::create(&d.join("x.json")).unwrap();
        assert_eq!(names(&d).len(), 1);
        // What remove_temporaries does, for this test's files only (other tests' files are
        // in flight in this process).
        let mine: BTreeSet<PathBuf> = temporaries()
            .iter()
            .filter(|t| t.starts_with(&d))
            .cloned()
            .collect();
        assert_eq!(mine.len(), 1);
        remove_each(mine);
        assert!(names(&d).is_empty());
        drop(f);
        assert!(temporaries().iter().all(|t| !t.starts_with(&d)));
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_output_on_an_input_or_on_another_output_is_refused_naming_both_flags() {
        let d = dir("clash");
        let input = d.join("in.npy");
        std::fs::write(&input, "x").unwrap();
        std::fs::hard_link(&input, d.join("hard.npy")).unwrap();
        std::os::unix::fs::symlink(&input, d.join("soft.npy")).unwrap();
        let inputs = [Named::new("--input", &input)];
        for alias in ["in.npy", "hard.npy", "soft.npy", "./sub/../in.npy"] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
            let out = Named::new("--timeline", d.join(alias));
            assert_eq!(
                check_distinct(&inputs, std::slice::from_ref(&out)),
                Err(PathClash::Input {
                    output: out.clone(),
                    input: inputs[0].clone()
                }),
                "{alias}"
            );
        }
        let e = check_distinct(&inputs, &[Named::new("--timeline", &input)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--timeline {0} is the same file as --input {0}: an output must not replace an input; write it elsewhere",
                input.display()
            )
        );
        // Two outputs, neither there yet, one named through `..`.
        let (a, b) = (d.join("out.npy"), d.join("sub/../out.npy"));
        let outputs = [Named::new("--timeline", &a), Named::new("--output", &b)];
        let e = check_distinct(&inputs, &outputs).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--timeline {} and --output {} are the same file: each output needs a file of its own",
                a.display(),
                b.display()
            )
        );
        // Distinct files, and /dev/null twice, are fine.
        let fine = [
            Named::new("--output", d.join("o.npy")),
            Named::new("--timeline", d.join("t.json")),
            Named::new("--json-file", "/dev/null"),
            Named::new("--timeline", "/dev/null"),
        ];
        assert_eq!(check_distinct(&inputs, &fine), Ok(()));
        std::fs::remove_dir_all(d).unwrap();
    }
}
