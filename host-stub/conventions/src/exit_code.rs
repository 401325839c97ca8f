//! The process exit codes of `q7emu`, for every subcommand: one table, [`CODES`]. The command
//! line (`main.rs`) exits with what the subcommand's outcome or error maps to here
//! ([`Exit`]); docs/exit-codes.md is this table, checked row for row by
//! `host-stub/tests/all/exit_codes.rs`. A new outcome is a new [`Kind`] and a new row.

use std::process::ExitCode;

/// An outcome the exit code tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The command did what it was asked.
    Success,
    /// `run-elf`: the program's own exit status, passed through.
    GuestStatus,
    /// What the command was given cannot be used.
    BadInput,
    /// The command line does not parse.
    Usage,
    /// A build step failed.
    BuildFailed,
    /// `run-elf`: the program's exit status does not fit the pass-through range.
    StatusDoesNotFit,
    /// A core faulted or the kernel stopped with a runtime error.
    Fault,
    /// The cycle budget ran out.
    Runaway,
    /// Ctrl-C stopped the run.
    Interrupted,
    /// `run --check` made an error-class finding.
    CheckFailed,
}

/// One row of the table: the outcome, its code (or range of codes), its name, the subcommands
/// that can end with it, and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    /// The outcome.
    pub kind: Kind,
    /// The code, or the first of its range.
    pub first: u8,
    /// The last code of its range (`first` for one code).
    pub last: u8,
    /// Its name.
    pub name: &'static str,
    /// The subcommands that can exit with it.
    pub commands: &'static str,
    /// What it means (docs/exit-codes.md's wording).
    pub meaning: &'static str,
}

/// Every exit code of `q7emu`, in the order of docs/exit-codes.md.
pub const CODES: [Code; 10] = [
    Code {
        kind: Kind::Success,
        first: 0,
        last: 0,
        name: "success",
        commands: "all",
        meaning: "the command did what it was asked",
    },
    Code {
        kind: Kind::GuestStatus,
        first: 0,
        last: 127,
        name: "guest-status",
        commands: "`run-elf`",
        meaning: "the program exited with this status (1 and 2 are also q7emu's own codes \
                  below, whose stderr starts `q7emu: error:` or `error:`)",
    },
    Code {
        kind: Kind::BadInput,
        first: 1,
        last: 1,
        name: "bad-input",
        commands: "all",
        meaning: "q7emu could not use what it was given: a file missing, unreadable, not a \
                  regular file, over its size limit or malformed, a flag value wrong for the \
                  files (an unknown op or key, more or fewer tensors than the op's schema takes, \
                  a `.npy` dtype q7emu does not read), an output it could not write or that \
                  names the file of an input or of another output; stderr: `q7emu: error: …`",
    },
    Code {
        kind: Kind::Usage,
        first: 2,
        last: 2,
        name: "usage",
        commands: "all",
        meaning: "the command line does not parse: an unknown subcommand or flag, a missing \
                  or malformed value; stderr says which (`--help` and `--version` exit 0)",
    },
    Code {
        kind: Kind::BuildFailed,
        first: 3,
        last: 3,
        name: "build-failed",
        commands: "`build`",
        meaning: "a build step failed: a tool of the toolchain is missing or does not start, \
                  or compiling, archiving, linking or packing failed; stderr names the step",
    },
    Code {
        kind: Kind::StatusDoesNotFit,
        first: 128,
        last: 128,
        name: "status-does-not-fit",
        commands: "`run-elf`",
        meaning: "the program exited with a status outside 0..=127 (negative or larger); \
                  stderr names it",
    },
    Code {
        kind: Kind::Fault,
        first: 129,
        last: 129,
        name: "fault",
        commands: "`run-elf`, `run-packed`, `run`",
        meaning: "a core faulted, or the kernel stopped with a runtime error (PLATFORM.md \
                  \"Runtime errors\": a descriptor or dtype the runtime refuses, a failed \
                  `assert`, `abort`), or ended without completing its response (a semihosting \
                  exit instead of a return, no TPB_WRITE_RESPONSE), or a project's shape \
                  function crashed or did not answer within 5 s (`run`, examples/sdk/BUILD.md \
                  \"Projects\"); stderr holds the report",
    },
    Code {
        kind: Kind::Interrupted,
        first: 130,
        last: 130,
        name: "interrupted",
        commands: "`build`, `run-elf`, `run-packed`, `run`",
        meaning: "Ctrl-C stopped the run (130 = 128 + SIGINT, as shells report an interrupted \
                  command); stderr holds the report of where each core was (a second Ctrl-C \
                  ends the process at once, with the same code); a build stops and installs \
                  nothing",
    },
    Code {
        kind: Kind::Runaway,
        first: 131,
        last: 131,
        name: "runaway",
        commands: "`run-elf`, `run-packed`, `run`",
        meaning: "the cycle budget (`--max-cycles`) ran out; stderr holds the report",
    },
    Code {
        kind: Kind::CheckFailed,
        first: 132,
        last: 132,
        name: "check-failed",
        commands: "`run`",
        meaning: "the run completed, and `--check` found at least one error-class bug \
                  (docs/checked-mode.md); stderr lists the findings, the output is written",
    },
];

/// An error of a subcommand that names the outcome it ends the command with: the one mapping
/// from error types to exit codes (each error says which [`Kind`] it is; [`CODES`] gives the
/// code). `q7_host::command::Failure` converts any of them with `?`.
pub trait Outcome: std::fmt::Display {
    /// The outcome this error is.
    fn kind(&self) -> Kind;

    /// Its exit code.
    fn exit(&self) -> Exit {
        Exit::of(self.kind())
    }
}

impl Kind {
    /// This outcome's row of [`CODES`].
    pub const fn row(self) -> &'static Code {
        let mut i = 0;
        while i < CODES.len() {
            if CODES[i].kind as u8 == self as u8 {
                return &CODES[i];
            }
            i += 1;
        }
        panic!("every outcome has a row in CODES")
    }
}

impl Kind {
    /// The outcome of a core that stopped on `fault`: a runaway, an interrupt, or a fault. A
    /// stack overflow found when the budget ran out or Ctrl-C came ends as that.
    pub fn of_fault(fault: &q7_emulator::FaultKind) -> Kind {
        use q7_emulator::FaultKind as F;
        match fault {
            F::BudgetExhausted { .. } => Kind::Runaway,
            F::Interrupted => Kind::Interrupted,
            F::StackOverflow {
                then: Some(then), ..
            } if matches!(**then, F::BudgetExhausted { .. } | F::Interrupted) => {
                Kind::of_fault(then)
            }
            _ => Kind::Fault,
        }
    }
}

impl Code {
    /// The code as docs/exit-codes.md writes it: `129`, or `0..=127` for a range.
    pub fn text(&self) -> String {
        if self.first == self.last {
            self.first.to_string()
        } else {
            format!("{}..={}", self.first, self.last)
        }
    }
}

/// The largest guest exit status `run-elf` passes through.
pub const STATUS_MAX: u8 = Kind::GuestStatus.row().last;

/// An exit: its outcome and code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    kind: Kind,
    code: u8,
}

impl Exit {
    /// The exit of a one-code outcome: its row's code (for [`Kind::GuestStatus`], whose codes
    /// are the program's, use [`Exit::guest`]).
    pub const fn of(kind: Kind) -> Exit {
        Exit {
            kind,
            code: kind.row().first,
        }
    }

    /// Success.
    pub const SUCCESS: Exit = Exit::of(Kind::Success);

    /// The exit of a program that exited with `status`: the status itself when it fits
    /// 0..=[`STATUS_MAX`], else [`Kind::StatusDoesNotFit`].
    pub fn guest(status: i32) -> Exit {
        match u8::try_from(status) {
            Ok(code) if code <= STATUS_MAX => Exit {
                kind: Kind::GuestStatus,
                code,
            },
            _ => Exit::of(Kind::StatusDoesNotFit),
        }
    }

    /// The outcome.
    pub fn kind(self) -> Kind {
        self.kind
    }

    /// The process exit code.
    pub fn code(self) -> u8 {
        self.code
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code)
    }
}

/// docs/exit-codes.md: the table of [`CODES`] as markdown, one row per code.
pub fn markdown() -> String {
    let mut out = String::from("| code | name | commands | meaning |\n|---|---|---|---|\n");
    for c in &CODES {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            c.text(),
            c.name,
            c.commands,
            c.meaning
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_the_documented_numbers() {
        let codes: Vec<(Kind, u8)> = [
            Kind::Success,
            Kind::BadInput,
            Kind::Usage,
            Kind::BuildFailed,
            Kind::StatusDoesNotFit,
            Kind::Fault,
            Kind::Interrupted,
            Kind::Runaway,
        ]
        .iter()
        .map(|&k| (k, Exit::of(k).code()))
        .collect();
        assert_eq!(
            codes,
            [
                (Kind::Success, 0),
                (Kind::BadInput, 1),
                (Kind::Usage, 2),
                (Kind::BuildFailed, 3),
                (Kind::StatusDoesNotFit, 128),
                (Kind::Fault, 129),
                (Kind::Interrupted, 130),
                (Kind::Runaway, 131),
            ]
        );
        assert_eq!(STATUS_MAX, 127);
    }

    #[test]
    fn every_outcome_has_one_row_and_only_the_guest_status_shares_codes() {
        for (i, c) in CODES.iter().enumerate() {
            assert_eq!(c.kind.row(), c, "{} has one row", c.name);
            for d in &CODES[i + 1..] {
                assert_ne!(c.name, d.name);
                let overlap = c.first <= d.last && d.first <= c.last;
                let guest = c.kind == Kind::GuestStatus || d.kind == Kind::GuestStatus;
                assert!(!overlap || guest, "{} and {} share a code", c.name, d.name);
            }
        }
    }

    #[test]
    fn a_guest_status_passes_through_when_it_fits() {
        let code = |s| (Exit::guest(s).kind(), Exit::guest(s).code());
        assert_eq!(code(0), (Kind::GuestStatus, 0));
        assert_eq!(code(42), (Kind::GuestStatus, 42));
        assert_eq!(code(127), (Kind::GuestStatus, 127));
        assert_eq!(code(128), (Kind::StatusDoesNotFit, 128));
        assert_eq!(code(256), (Kind::StatusDoesNotFit, 128));
        assert_eq!(code(-1), (Kind::StatusDoesNotFit, 128));
    }

    #[test]
    fn the_markdown_has_a_row_per_code_with_ranges_written_out() {
        let md = markdown();
        assert_eq!(md.lines().count(), 2 + CODES.len());
        assert!(md.contains("\n| 0..=127 | guest-status | `run-elf` | the program exited"));
        assert!(md.contains("\n| 129 | fault | `run-elf`, `run-packed`, `run` | a core faulted"));
    }
}
