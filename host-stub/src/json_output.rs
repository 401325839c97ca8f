//! The one convention for the machine-readable output of every subcommand that reports
//! (docs/cli.md "Conventions"): `--json` prints the report as one JSON document on
//! stdout instead of the text, `--json-file FILE` writes that document to FILE and leaves the
//! text on stdout. A file is written whole ([`q7_conventions::output`]): into a temporary file beside
//! it, renamed over FILE once complete, so an interrupted or failed write never leaves a half
//! document where the user's file was.

use std::path::PathBuf;

pub use q7_conventions::output::{AtomicFile, WriteError};

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
