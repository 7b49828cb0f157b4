//! The CPU backend's worker threads (rayon), and `fork()`.
//!
//! The CPU paths run their parallel loops on rayon's global pool, which atomgpu starts on its
//! first call ([`start_pool`]; when the host program built that pool first, the host's is used).
//! `fork()` copies only the thread that calls it, so in a child forked after the pool started the
//! pool's workers do not exist, and a parallel loop would wait for them for ever (Python's
//! `multiprocessing` with the `fork` start method, a Fortran code that forks helpers). atomgpu
//! notices the fork (the process id is no longer the one that started the pool) and runs such a
//! child's calls on a pool of the child's own, started at its first call ([`run`]; the threads a
//! call starts for several devices run on pools of their own, [`run_in`]): the calls work and give
//! the parent's numbers; the host's threads call one at a time there. The calling thread's
//! progress callback and time limit ([`crate::progress`]) go with the call. Limits, as for any
//! library with locks: a child forked while another thread of the parent was inside an atomgpu
//! call may inherit a held lock (fork between calls); CUDA does not survive fork (see
//! [`super::cuda_forked_message`]).

use crate::error::{Error, Result};
use crate::progress;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, Once};

/// The process that started rayon's global pool (0: not started by an atomgpu call yet).
static POOL_PROCESS: AtomicU32 = AtomicU32::new(0);
static START: Once = Once::new();

/// The pools of a forked child, with the process they were started in: one for the calls of the
/// host's threads (slot 0) and one for each thread a call starts for itself (slot k >= 1, as
/// [`run_in`] numbers them).
static CHILD_POOLS: Mutex<Option<(u32, Vec<&'static rayon::ThreadPool>)>> = Mutex::new(None);

/// Serialises the host threads' calls in a forked child: two calls on one pool could otherwise nest
/// (a waiting worker takes up the other call) and wait for each other's locks.
static CHILD_CALLS: Mutex<()> = Mutex::new(());

thread_local! {
    /// The process whose pool this thread is a worker of (0: not a worker of an atomgpu pool).
    static WORKER_OF: Cell<u32> = const { Cell::new(0) };
}

fn mark_worker(_index: usize) {
    WORKER_OF.with(|w| w.set(std::process::id()));
}

/// Starts rayon's global pool (once per process), its workers marked as atomgpu's.
pub fn start_pool() {
    START.call_once(|| {
        // Fails only when the host built the global pool first: its workers then stay unmarked.
        let _ = rayon::ThreadPoolBuilder::new().start_handler(mark_worker).build_global();
        POOL_PROCESS.store(std::process::id(), Ordering::SeqCst);
    });
}

/// True on the worker threads of a pool atomgpu started in this process (a panic there is
/// atomgpu's own: see `ffi::common`).
pub fn is_library_worker() -> bool {
    WORKER_OF.with(Cell::get) == std::process::id()
}

/// The process id of the parent whose threads did not survive, when this process was forked
/// after the global pool started; `None` otherwise.
pub fn forked_from() -> Option<u32> {
    let started_in = POOL_PROCESS.load(Ordering::SeqCst);
    (started_in != 0 && started_in != std::process::id()).then_some(started_in)
}

/// A closure that may be moved to another thread because the thread that owns what it borrows
/// (raw pointers of a C caller, the progress callback's user data) waits for it to finish.
struct WaitedFor<F>(F);
// SAFETY: `run` blocks its calling thread until the closure has returned, so everything the
// closure refers to outlives its use, and the calling thread touches none of it meanwhile.
unsafe impl<F> Send for WaitedFor<F> {}

/// Runs the call `work` of a host thread where rayon has live workers: directly, unless this is a
/// child forked after the pool started and the calling thread is not a worker of the child's own
/// pools; then on the child's pool for calls (started on first use), one call at a time, with the
/// calling thread's progress settings, while the caller waits.
pub fn run<R>(work: impl FnOnce() -> R) -> Result<R> {
    if forked_from().is_none() || is_library_worker() {
        return Ok(work());
    }
    let _one_at_a_time = CHILD_CALLS.lock().unwrap_or_else(|p| p.into_inner());
    let settings = progress::current_settings();
    on_child_pool(0, move || progress::with_settings(settings, work))
}

/// Runs `work` of the `k`-th thread (k >= 1) that a call started for itself (one per device of a
/// team or a spread), where rayon has live workers: directly, unless in a forked child; then on
/// a pool of that thread's own, so that threads that wait for each other (halo exchanges) never
/// wait behind each other on one pool.
pub fn run_in<R>(k: usize, work: impl FnOnce() -> R) -> Result<R> {
    if forked_from().is_none() || is_library_worker() {
        return Ok(work());
    }
    on_child_pool(k, work)
}

fn on_child_pool<R>(slot: usize, work: impl FnOnce() -> R) -> Result<R> {
    let pool = child_pool(slot)?;
    let job = WaitedFor(work);
    let outcome = pool.install(move || {
        let job = job;
        WaitedFor((job.0)())
    });
    Ok(outcome.0)
}

/// Pool `slot` of this (forked) process, started on first use with as many threads as rayon's
/// default (RAYON_NUM_THREADS, else the CPUs).
fn child_pool(slot: usize) -> Result<&'static rayon::ThreadPool> {
    let pid = std::process::id();
    let mut pools = CHILD_POOLS.lock().unwrap_or_else(|p| p.into_inner());
    if !matches!(*pools, Some((owner, _)) if owner == pid) {
        *pools = Some((pid, Vec::new()));
    }
    let (_, started) = pools.as_mut().expect("set above");
    while started.len() <= slot {
        let pool = rayon::ThreadPoolBuilder::new().start_handler(mark_worker).build().map_err(|e| {
            Error::Internal(format!(
                "this process was forked from process {}, and its own worker threads could not be started: {e}",
                forked_from().unwrap_or(0)
            ))
        })?;
        // The pools of a forked process live as long as it does.
        started.push(Box::leak(Box::new(pool)));
    }
    Ok(started[slot])
}
