//! The `q7emu profile` subcommands: reading a profile directory that `q7emu run --profile DIR`
//! wrote (docs/profiling.md).

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
            };
            // Function names come from the image: escaped on a terminal.
            print!(
                "{}",
                q7_conventions::terminal::for_stdout(&report::render(&profile, &options))
            );
            Ok(Exit::SUCCESS)
        }
    }
}
