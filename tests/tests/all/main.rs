//! The workspace-level tests, gathered in one test binary (one link instead of one per file):
//! a module per area; `support`, `sdk_support` and `math_support` their shared helpers.
//! `cargo test -p q7-tests --test all <module>::` runs one area.

mod math_support;
mod sdk_support;
mod support;

mod bench_programs;
mod changelog;
mod doc_commands;
mod doc_paths;
mod environment;
mod fault_reports;
mod layering;
mod lockstep_asm;
mod lockstep_c;
mod lockstep_random;
mod malformed_images;
mod ncore2gp;
mod objdump_oracle;
mod platform;
mod platform_doc;
mod prebuilt_examples;
mod prelink;
mod sdk_abi;
mod sdk_compile;
mod sdk_console;
mod sdk_device;
mod sdk_headers;
mod sdk_helpers;
mod sdk_math;
mod sdk_native;
mod sdk_ops;
mod sdk_streams;
