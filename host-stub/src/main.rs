//! `q7emu`: run, inspect and test GPSIMD custom-op kernels on an emulated Vision-Q7 cluster.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "q7emu",
    version,
    about = "Emulator and tools for Vision-Q7 (ncore2gp) GPSIMD kernels"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Disassemble the executable sections of an ELF32-Xtensa file (objdump style).
    Disasm {
        /// Core profile whose instruction set decodes the file.
        #[arg(long, value_enum, default_value_t = Profile::Ncore2gp)]
        profile: Profile,
        /// The ELF file.
        file: PathBuf,
    },
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum Profile {
    /// The Vision-Q7 POOL core.
    Ncore2gp,
    /// QEMU's dc233c core (for programs compared against QEMU).
    Dc233c,
}

impl Profile {
    fn config(self) -> &'static q7_isa::CoreConfig {
        match self {
            Profile::Ncore2gp => &q7_isa::NCORE2GP,
            Profile::Dc233c => &q7_isa::DC233C,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("q7emu: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Disasm { profile, file } => {
            let data = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let elf =
                q7_loader::ElfFile::parse(&data).map_err(|e| format!("{}: {e}", file.display()))?;
            let name = file.display().to_string();
            let text = q7_host::disasm::disassemble(&elf, &name, profile.config())
                .map_err(|e| format!("{}: {e}", file.display()))?;
            print!("{text}");
            Ok(())
        }
    }
}
