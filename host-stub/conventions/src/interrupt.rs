//! Ctrl-C: one process-wide [`StopRequest`] that every core the tools create looks at. The
//! first Ctrl-C asks every core to stop where it is, so each is reported (pc, symbol,
//! backtrace) and the command exits with its "interrupted" code; a second one ends the
//! process at once.

use std::sync::OnceLock;

use q7_emulator::StopRequest;

static STOP: OnceLock<StopRequest> = OnceLock::new();

/// The process-wide stop request (never raised unless [`install_ctrl_c`] was called and the
/// user pressed Ctrl-C).
pub fn stop_request() -> StopRequest {
    STOP.get_or_init(StopRequest::new).clone()
}

/// Exit status of a process ended by a second Ctrl-C: the interrupted run's code, 128 + SIGINT
/// as shells report it (docs/exit-codes.md).
pub const SECOND_INTERRUPT_STATUS: i32 = crate::exit_code::Kind::Interrupted.row().first as i32;

/// Routes Ctrl-C (SIGINT) to [`stop_request`]; a second Ctrl-C removes the temporary files of
/// outputs being written ([`crate::output::remove_temporaries`]) and exits with
/// [`SECOND_INTERRUPT_STATUS`].
pub fn install_ctrl_c() -> Result<(), ctrlc::Error> {
    let stop = stop_request();
    ctrlc::set_handler(move || {
        if stop.is_requested() {
            // Outputs not yet renamed into place are thrown away, not left beside the files.
            crate::output::remove_temporaries();
            std::process::exit(SECOND_INTERRUPT_STATUS);
        }
        eprintln!("q7emu: interrupted: stopping every core");
        stop.request();
    })
}
