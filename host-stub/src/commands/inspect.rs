//! The `q7emu inspect` subcommand: its clap [`InspectArgs`] and [`run`], which prints the
//! report's text or its JSON (docs/cli.md "Conventions").

use std::path::PathBuf;

use crate::inspect::{inspect, Options};

/// `q7emu inspect [--json | --json-file FILE] [--max-cycles N] IMAGE|BUILD_DIR`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// What it holds as one JSON document: `--json` on stdout instead of the text,
    /// `--json-file FILE` besides it.
    #[command(flatten)]
    pub report: crate::json_output::JsonOutput,
    /// Cycle budget of each start symbol run to fill the kernel table.
    #[arg(long, default_value_t = q7_runtime::firmware::CALL_BUDGET, value_parser = q7_conventions::number::parse_u64)]
    pub max_cycles: u64,
    /// An ELF image (device image, packed library, bare-metal executable) or a build
    /// directory of `q7emu build`.
    #[arg(value_name = "IMAGE|BUILD_DIR")]
    pub input: PathBuf,
}

/// Runs `q7emu inspect`: the text (or the JSON) on stdout; with `--json-file`, the JSON there.
pub fn run(args: InspectArgs) -> Result<q7_conventions::exit_code::Exit, crate::command::Failure> {
    use crate::command::Failure;
    use q7_conventions::output::{check_distinct, Named};
    use q7_kernel_build::metadata::build_dir_files;
    // The report may not replace the image or a file of the build it inspects.
    if let Some(json) = &args.report.json_file {
        let inputs = if args.input.is_dir() {
            build_dir_files("IMAGE|BUILD_DIR", &args.input)
        } else {
            vec![Named::new("IMAGE|BUILD_DIR", &args.input)]
        };
        check_distinct(&inputs, &[Named::new("--json-file", json)]).map_err(Failure::input)?;
    }
    let file = args
        .report
        .json_file
        .as_deref()
        .map(crate::json_output::AtomicFile::create)
        .transpose()
        .map_err(Failure::input)?;
    let options = Options {
        call_budget: args.max_cycles,
    };
    let report = inspect(&args.input, &options)?;
    if let Some(file) = file {
        file.write_all_and_commit(report.json().as_bytes())
            .map_err(Failure::input)?;
    }
    let text = if args.report.json {
        report.json()
    } else {
        report.text()
    };
    // Names and strings from the image: escaped on a terminal.
    print!("{}", q7_conventions::terminal::for_stdout(&text));
    Ok(q7_conventions::exit_code::Exit::SUCCESS)
}
