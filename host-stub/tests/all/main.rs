//! q7-host's integration tests, gathered in one test binary (one link of the CLI and its
//! crates instead of one per file): a module per area, `support` their shared helpers.
//! `cargo test -p q7-host --test all <module>::` runs one area. The one test of a process-wide
//! variable keeps a process of its own (`host-stub/tests/cptc_env.rs`).

mod support;

mod build_cli;
mod builtin;
mod calibration;
mod checked_mode;
mod diagnostics;
mod disasm_cli;
mod dtype_doc;
mod e2e;
mod examples;
mod exit_codes;
mod fault_lines;
mod gdb_server;
mod help_text;
mod hostile_inputs;
mod inspect_cli;
mod jit_tiers;
mod json_output;
mod profile_cli;
mod project_cli;
mod run_cli;
mod run_elf_bounds;
mod run_elf_cli;
mod run_packed_cli;
mod run_report;
mod testing;
mod timeline_cli;
mod trace_cli;
