//! The `q7emu profile` subcommands: reading a profile directory that `q7emu run --profile DIR`
//! wrote (docs/profiling.md).

use std::io::IsTerminal;
use std::path::PathBuf;

use q7_conventions::exit_code::Exit;
use q7_observe::profile::model::Profile;
use q7_observe::profile::report::{self, Options, Order};

use crate::command::Failure;

/// `q7emu profile report|…`.
#[derive(Debug, clap::Args)]
pub struct ProfileArgs {
    #[command(subcommand)]
    pub command: ProfileCommand,
}

/// What to do with a profile.
#[derive(Debug, clap::Subcommand)]
pub enum ProfileCommand {
    /// The hottest functions of each core and of the cluster: self and inclusive cycles,
    /// their share of the total, and their split into issue cycles and stall categories.
    Report(ReportArgs),
    /// A function's source lines interleaved with its instructions, each with its cycles,
    /// share of the function and stall split (hot lines coloured on a terminal).
    Annotate(AnnotateArgs),
    /// Per function and per source line, the change in cycles and in each stall category
    /// from DIR_A to DIR_B, matched by name and by file and line (not by address).
    Diff(DiffArgs),
}

/// `q7emu profile annotate [--core N] [--source-dir DIR]... DIR FUNCTION`.
#[derive(Debug, clap::Args)]
pub struct AnnotateArgs {
    /// The core whose instructions are shown (default: the first that ran the function).
    #[arg(long, value_name = "N")]
    pub core: Option<u32>,
    /// A directory the kernel's own source files are looked for in (repeatable; default the
    /// current directory); the SDK's files (sdk/…) are looked for in the SDK the build used
    /// ($Q7EMU_SDK, else the default).
    #[arg(long = "source-dir", value_name = "DIR")]
    pub source_dirs: Vec<PathBuf>,
    /// The profile directory (`q7emu run --profile DIR`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The function: its whole demangled name, or without its parameter list
    /// (`relu_forward`).
    #[arg(value_name = "FUNCTION")]
    pub function: String,
}

/// `q7emu profile diff [--top N] [--core N] DIR_A DIR_B`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// Rows of each table.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// One core's changes alone (default: every core's together).
    #[arg(long, value_name = "N")]
    pub core: Option<u32>,
    /// The profile before.
    #[arg(value_name = "DIR_A")]
    pub a: PathBuf,
    /// The profile after.
    #[arg(value_name = "DIR_B")]
    pub b: PathBuf,
}

/// `q7emu profile report [--top N] [--inclusive] [--core N] DIR`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Rows of each table.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// Order by inclusive cycles (a function and everything it called), not self cycles;
    /// the stall columns then split the inclusive cycles.
    #[arg(long)]
    pub inclusive: bool,
    /// One core's table alone.
    #[arg(long, value_name = "N")]
    pub core: Option<u32>,
    /// Source lines (file:line and function) instead of functions; a line's inclusive cycles
    /// are those of the calls made from it too.
    #[arg(long)]
    pub lines: bool,
    /// The profile directory (`q7emu run --profile DIR`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs a `q7emu profile` subcommand.
pub fn run(args: ProfileArgs) -> Result<Exit, Failure> {
    match args.command {
        ProfileCommand::Report(a) => {
            let profile = Profile::load(&a.dir).map_err(Failure::input)?;
            if let Some(core) = a.core {
                if !profile.cores.iter().any(|c| c.core == core) {
                    let profiled: Vec<String> =
                        profile.cores.iter().map(|c| c.core.to_string()).collect();
                    return Err(Failure::input(format!(
                        "--core {core}: the profile has no core {core} (profiled: {})",
                        profiled.join(", ")
                    )));
                }
            }
            let options = Options {
                top: a.top,
                order: if a.inclusive {
                    Order::Inclusive
                } else {
                    Order::Own
                },
                core: a.core,
                lines: a.lines,
            };
            // Function names come from the image: escaped on a terminal.
            print!(
                "{}",
                q7_conventions::terminal::for_stdout(&report::render(&profile, &options))
            );
            Ok(Exit::SUCCESS)
        }
        ProfileCommand::Annotate(a) => {
            use q7_observe::profile::annotate::{find, render, Sources};
            let profile = Profile::load(&a.dir).map_err(Failure::input)?;
            let (core, name) = find(&profile, &a.function, a.core).map_err(Failure::input)?;
            let dirs = if a.source_dirs.is_empty() {
                vec![PathBuf::from(".")]
            } else {
                a.source_dirs.clone()
            };
            let sources = Sources {
                sdk: Some(q7_kernel_build::sdk::locate(None)),
                dirs,
            };
            let terminal = std::io::stdout().is_terminal();
            print!(
                "{}",
                render(core, &name, &sources, &guest_text(terminal), terminal)
            );
            Ok(Exit::SUCCESS)
        }
        ProfileCommand::Diff(a) => {
            let before = Profile::load(&a.a).map_err(Failure::input)?;
            let after = Profile::load(&a.b).map_err(Failure::input)?;
            let diff = q7_observe::profile::diff::diff(&before, &after, a.core);
            let terminal = std::io::stdout().is_terminal();
            print!(
                "{}",
                q7_observe::profile::diff::render(&diff, a.top, &guest_text(terminal))
            );
            Ok(Exit::SUCCESS)
        }
    }
}

/// How text from the image (names, disassembly, source) is shown: escaped on a terminal
/// (docs/cli.md "Guest text"), exact otherwise.
fn guest_text(terminal: bool) -> impl Fn(&str) -> String {
    move |s: &str| {
        if terminal {
            q7_conventions::terminal::escape(s).into_owned()
        } else {
            s.to_string()
        }
    }
}
