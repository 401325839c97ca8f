//! q7-isa's integration tests, one test binary: a module per area.
//! `cargo test -p q7-isa --test all <module>::` runs one area.

mod exhaustive;
mod table_invariants;
mod worked_encodings;
