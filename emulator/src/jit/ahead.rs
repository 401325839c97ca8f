//! Compiling ahead (docs/jit.md "Compiling ahead"): a block, made by its core when its start
//! has been arrived at [`super::AHEAD`] times, is translated to IR and compiled on a host
//! thread of its own while the core goes on interpreting. The core puts the host code in at the
//! [`super::TIER_UP`]-th arrival, waiting for it there if it is not done yet, so a block is
//! built from the same state and first entered at the same arrival in every run, whatever the
//! host's speed; only the host time a run takes depends on how much compiling the thread
//! could do alongside.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::TargetIsa;

use super::translate::{self, OwnedSpec, Workspace};
use super::HostCode;

/// A request's answer: the host code, the host time its translating and compiling took (µs)
/// and the block's bound (`translate::build`), or `None` when the translator or Cranelift
/// refused it or the code names an address outside itself (the block is then compiled where
/// it is put in, as without compiling ahead).
pub(crate) type Done = Option<(HostCode, u64, u64)>;

/// One request: the block, where its answer goes, and whether the core still wants it.
struct Job {
    spec: OwnedSpec,
    reply: Sender<Done>,
    wanted: Weak<()>,
}

/// Where a request's answer comes; dropping it withdraws the request.
#[derive(Debug)]
pub(crate) struct Answer {
    answer: Receiver<Done>,
    _wanted: Arc<()>,
    /// The process that asked: a child forked after the request has no compiling thread.
    pid: u32,
}

impl Answer {
    /// The answer, waited for (`None` in a process forked after the request, whose copy of
    /// the compiling thread's queue nobody serves: the block is compiled where it is put in).
    pub(crate) fn wait(self) -> Done {
        if self.pid != std::process::id() {
            return None;
        }
        self.answer.recv().ok().flatten()
    }
}

/// The compiling thread's queue and the process it serves, made at the process's first
/// request (a child forked from a process that had one has none of its own until it asks);
/// no queue when the thread could not be started: blocks are then compiled where they are put in.
static QUEUE: Mutex<Option<(u32, Option<Sender<Job>>)>> = Mutex::new(None);

/// Sends `spec` (a block, copied from the core's) to the compiling thread: where its answer
/// will come, or `None` when there is no thread.
pub(crate) fn request(spec: OwnedSpec) -> Option<Answer> {
    let pid = std::process::id();
    let mut queue = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
    if queue.as_ref().is_none_or(|(owner, _)| *owner != pid) {
        // A forked child's copy of its parent's queue is left alone, never dropped: the
        // channel's state may be mid-change from a thread the child does not have.
        if let Some(inherited) = queue.replace((pid, start())) {
            std::mem::forget(inherited);
        }
    }
    let queue = queue.as_ref()?.1.as_ref()?;
    let (reply, answer) = mpsc::channel();
    let wanted = Arc::new(());
    queue
        .send(Job {
            spec,
            reply,
            wanted: Arc::downgrade(&wanted),
        })
        .ok()?;
    Some(Answer {
        answer,
        _wanted: wanted,
        pid,
    })
}

/// Starts the compiling thread: one for the process, taking requests in the order they come,
/// with the same Cranelift settings as the cores' modules ([`super::new_isa`]), so that its
/// IR and host code are what a core would have made from the same block.
fn start() -> Option<Sender<Job>> {
    let isa = super::new_isa()?;
    let (queue, jobs) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("q7-jit".into())
        .spawn(move || {
            let mut ctrl = ControlPlane::default();
            let mut work = Workspace::default();
            for job in jobs {
                if job.wanted.strong_count() == 0 {
                    continue;
                }
                let started = Instant::now();
                // A panic (a translator or Cranelift bug) is caught where the build unwinds:
                // no answer, so the core compiles the block where it is put in (and catches
                // the panic there, `Jit::compile`), and the thread goes on.
                let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    compile(&*isa, &mut work, &job.spec, &mut ctrl)
                }))
                .unwrap_or_else(|_| {
                    work = Workspace::default();
                    None
                })
                .map(|(code, bound)| (code, super::duration_us(started.elapsed()), bound));
                // A core that dropped the request (its code changed) no longer listens.
                let _ = job.reply.send(code);
            }
        })
        .ok()?;
    Some(queue)
}

/// Host code of `spec`'s block with its bound, when the translator and Cranelift take it and
/// the code has no relocations (every block's has none: helpers are called through constants).
fn compile(
    isa: &dyn TargetIsa,
    work: &mut Workspace,
    spec: &OwnedSpec,
    ctrl: &mut ControlPlane,
) -> Option<(HostCode, u64)> {
    let bound = translate::build(isa, work, &spec.spec())?;
    let code = HostCode::of(work.context()?.compile(isa, ctrl).ok()?)?;
    Some((code, bound))
}
