//! # q7-runtime — the device runtime model
//!
//! What runs a library on the emulated cluster, as the host stub and the device firmware do
//! (PLATFORM.md "Host flow", "Device load, bind and dispatch"), one concern a module:
//!
//! | module | what |
//! |---|---|
//! | [`nrtucode`] | the nrtucode-style host API: create, stage, load and unload sequences, destroy |
//! | [`firmware`] | the device firmware model: load records, kernel tables, dispatch |
//! | [`console`] | what each core printed: its console ring, as reports and failures show it |
//! | [`timing_profile`] | `--timing` profiles over the cycle model (docs/timing.md) |
//! | [`progress`] | the progress line of long dispatches |
//! | [`observer`] | the seam its observers plug into (traces, timelines, checked mode: q7-observe) |
//! | [`debugger`] | the seam its debugger plugs into (the GDB server: q7-gdb) |
//!
//! The firmware takes `dyn Observer` and `dyn Debugger`: it never names what implements
//! them, and the crates that do sit above this one (ARCHITECTURE.md "Layering").

pub mod console;
pub mod debugger;
pub mod firmware;
pub mod nrtucode;
pub mod observer;
pub mod progress;
pub mod timing_profile;
