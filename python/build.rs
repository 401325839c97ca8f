//! Embeds the SDK (`examples/sdk`: the headers, runtime sources and linker script every build
//! compiles against) into the extension, so that a wheel carries it wherever it is installed
//! (docs/python.md "Install"). `sdk_files()` gives the files; the package writes them out once
//! per content digest (`q7emu/_sdk.py`).

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let sdk = manifest
        .join("../examples/sdk")
        .canonicalize()
        .expect("the repository's SDK");
    println!("cargo:rerun-if-changed={}", sdk.display());
    let mut all = Vec::new();
    files(&sdk, &mut all);
    // std's SipHasher with its fixed keys: the same files give the same digest in every build.
    let mut hasher = std::hash::DefaultHasher::new();
    let mut table = String::from("/// The SDK's files: (path under the SDK, contents).\npub static SDK_FILES: &[(&str, &[u8])] = &[\n");
    for f in &all {
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f
            .strip_prefix(&sdk)
            .expect("below the SDK")
            .to_str()
            .expect("UTF-8 paths");
        rel.hash(&mut hasher);
        std::fs::read(f).expect("an SDK file").hash(&mut hasher);
        writeln!(
            table,
            "    ({rel:?}, include_bytes!({:?})),",
            f.display().to_string()
        )
        .unwrap();
    }
    table.push_str("];\n");
    writeln!(table, "/// A digest of every path and content of [`SDK_FILES`].\npub const SDK_DIGEST: &str = \"{:016x}\";", hasher.finish()).unwrap();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("sdk_files.rs");
    std::fs::write(out, table).expect("OUT_DIR is writable");
}
