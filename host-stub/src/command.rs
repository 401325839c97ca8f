//! The shape every `q7emu` subcommand has: a module with its arguments (`<Name>Args`, clap
//! derive) and `run(args) -> Result<Exit, Failure>`; `main.rs` only parses and dispatches.
//! What the subcommands share lives here: how a failure is reported ([`Failure`]: the message
//! after `q7emu: error: ` and the exit code of docs/exit-codes.md), the core-profile
//! parser and the `--timing` loader.

use std::path::Path;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use q7_isa::CoreConfig;

use q7_conventions::exit_code::{Exit, Kind};
use q7_runtime::timing_profile::Profile;

/// Why a command failed: the message after `q7emu: error: ` and the exit code.
#[derive(Debug)]
pub struct Failure {
    /// The process exit.
    pub exit: Exit,
    /// What went wrong, naming what and where.
    pub message: String,
}

impl Failure {
    /// A failure with `exit`.
    pub fn new(exit: Exit, message: impl std::fmt::Display) -> Failure {
        Failure {
            exit,
            message: message.to_string(),
        }
    }

    /// A failure on bad input (exit code 1).
    pub fn input(message: impl std::fmt::Display) -> Failure {
        Failure::new(Exit::of(Kind::BadInput), message)
    }
}

impl<E: q7_conventions::exit_code::Outcome> From<E> for Failure {
    /// The error's message and the exit code of its outcome.
    fn from(e: E) -> Failure {
        Failure::new(e.exit(), e)
    }
}

/// The built-in profiles of `q7_isa`, by name, for `--profile`.
pub fn profile_parser() -> impl TypedValueParser<Value = &'static CoreConfig> {
    let names = q7_isa::PROFILES
        .iter()
        .map(|c| PossibleValue::new(c.name).help(c.summary));
    PossibleValuesParser::new(names).map(|name| {
        CoreConfig::by_name(&name).expect("the parser accepts only built-in profile names")
    })
}

/// The timing profile of `--timing`, or the defaults.
pub fn load_timing(path: Option<&Path>) -> Result<Profile, Failure> {
    path.map_or_else(|| Ok(Profile::default()), Profile::load)
        .map_err(Failure::input)
}

/// `--jit on|off`: whether plain runs use tier 2, compiled code (docs/jit.md "Switch"). Off
/// runs the interpreter alone; results are the same either way. Without the flag,
/// `Q7EMU_JIT=off` in the environment turns it off.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct JitArg {
    /// Compile hot code (`on`, the default) or interpret every instruction (`off`); outputs
    /// and counters are the same either way (docs/jit.md).
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    pub jit: Option<bool>,
}

/// `on` / `off`.
fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected `on` or `off`, not `{s}`")),
    }
}
