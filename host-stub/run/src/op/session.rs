//! A library kept loaded between calls: [`Session`] loads it on a cluster once — each image
//! created, prelinked and loaded, its kernel table checked — keeps a checkpoint of the device
//! right after the load ([`Firmware::checkpoint`]: every core's registers, memory, caches and
//! counters, the HBM the load wrote, the HBM allocator), and starts every call from it. A call
//! is then what a fresh [`super::run`] is from the dispatch on (the same outputs, counters
//! and errors: the device a call starts from is the one a fresh run dispatches on), without
//! the cluster set-up, prelink and load (docs/python.md "Calls per second").

use super::{
    dispatch, load, with_kernel_return, Handles, Library, OpRequest, OpRun, Plan, RunError,
};
use q7_emulator::platform::ConsoleSize;
use q7_runtime::firmware::FirmwareCheckpoint;
use q7_runtime::nrtucode::Context;
use q7_runtime::timing_profile::Profile;

/// A library loaded once on its own cluster, called many times.
#[derive(Debug)]
pub struct Session {
    ctx: Context,
    handles: Handles,
    checkpoint: FirmwareCheckpoint,
    timing: Profile,
    console: ConsoleSize,
}

impl Session {
    /// `lib` loaded on a cluster set up as `req` asks (timing model, console size); `req`'s
    /// op names the load's errors (an unknown op is one), its arguments are not looked at.
    pub fn open(lib: &Library, req: &OpRequest) -> Result<Session, RunError> {
        let op = lib.op(&req.op)?;
        let (ctx, handles) = load(
            lib,
            &OpRequest {
                poison: None,
                debugger: None,
                ..req.clone()
            },
            op,
            None,
        )?;
        let checkpoint = ctx.device.checkpoint();
        tracing::debug!(
            library = lib.info.library,
            hbm_bytes = checkpoint.hbm_bytes(),
            "library loaded for a session"
        );
        Ok(Session {
            ctx,
            handles,
            checkpoint,
            timing: req.timing.clone(),
            console: req.console,
        })
    }

    /// Whether a call of `req` can run in this session: it asks for the cluster the session
    /// set up (timing model, console size) and for nothing a call of a session does not do
    /// (poison, a debugger; traces, timelines and checking are not a request's but an
    /// observer's, which only [`super::run_observed`] takes).
    pub fn serves(&self, req: &OpRequest) -> bool {
        req.timing == self.timing
            && req.console == self.console
            && req.poison.is_none()
            && req.debugger.is_none()
    }

    /// Runs `req` on the session's library `lib` (the library it was opened with), from the
    /// device as it was right after the load: what [`super::run`] gives for `req`.
    ///
    /// # Panics
    /// When the session does not serve `req` ([`Session::serves`]).
    pub fn run(&mut self, lib: &Library, req: &OpRequest) -> Result<OpRun, RunError> {
        assert!(self.serves(req), "a request the session serves");
        let _span = tracing::info_span!("call", library = lib.info.library, op = req.op).entered();
        with_kernel_return(
            lib,
            req,
            |r| {
                let plan = Plan::of(lib, r)?;
                self.ctx
                    .device
                    .restore(&self.checkpoint)
                    .map_err(|source| RunError::Hbm {
                        what: "the session's cluster".into(),
                        source,
                    })?;
                self.ctx.device.call_budget = r.call_budget;
                dispatch(lib, r, plan, &mut self.ctx, self.handles.clone(), None)
            },
            |run| run,
        )
    }
}
