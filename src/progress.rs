//! Progress reports and cancellation of long calls: whole CR runs, line lists and ExoMol files,
//! Sturmian Hamiltonians, SCF supermatrices, runs and basis optimisations, TDSE steps and
//! relaxations (the README lists each call with the units of its `done`/`total`).
//!
//! Each thread may set, for the calls it makes:
//! - a progress callback ([`set_callback`]; C `atomgpu_set_progress`), called from that thread
//!   as `stop = callback(user_data, task, done, total)` at most every `interval_s` seconds of wall
//!   clock while a long call runs, and once when it ends; `task` names the call (e.g.
//!   `"atomgpu_cr_run_rk4"`), `done` of `total` says how far it is (steps, simulated seconds,
//!   lower states, blocks, cycles, as the call documents). A nonzero return stops the call, which
//!   then fails with [`Error::Cancelled`] (C `ATOMGPU_ERR_CANCELLED`) and writes nothing (TDSE
//!   `step` and `relax` keep the state of their last completed step, as they document);
//! - a time limit ([`set_time_limit`]; C `atomgpu_set_time_limit`): the most seconds of wall clock
//!   one long call may take; past it, the call stops with the same error.
//!
//! Both are off by default. The settings are per thread, so an OpenMP or MPI code sets them in
//! the thread that makes the calls. A long call takes a [`Tracker`] when it starts and asks it at
//! every step whether to go on.

use crate::error::{Error, Result};
use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::time::Instant;

/// The C type of a progress callback: `int32_t callback(void *user_data, const char *task,
/// double done, double total)`; nonzero stops the call.
pub type Callback = unsafe extern "C" fn(user_data: *mut c_void, task: *const c_char, done: f64, total: f64) -> i32;

#[derive(Clone, Copy)]
struct Reporting {
    callback: Callback,
    user_data: *mut c_void,
    interval_s: f64,
}

thread_local! {
    static REPORTING: Cell<Option<Reporting>> = const { Cell::new(None) };
    static TIME_LIMIT_S: Cell<f64> = const { Cell::new(0.0) };
}

/// Sets (or, with `None`, removes) the calling thread's progress callback: `callback(user_data,
/// task, done, total)` is called at most every `interval_s` seconds (>= 0, finite) during a long
/// call and once at its end.
pub fn set_callback(callback: Option<Callback>, user_data: *mut c_void, interval_s: f64) -> Result<()> {
    if !(interval_s.is_finite() && interval_s >= 0.0) {
        return Err(Error::invalid("interval_s", format!("must be finite and >= 0 s, got {interval_s}")));
    }
    REPORTING.with(|r| r.set(callback.map(|callback| Reporting { callback, user_data, interval_s })));
    Ok(())
}

/// Sets the calling thread's time limit of one long call, in seconds of wall clock (0: none).
pub fn set_time_limit(seconds: f64) -> Result<()> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(Error::invalid("seconds", format!("must be finite and >= 0 (0: no limit), got {seconds}")));
    }
    TIME_LIMIT_S.with(|t| t.set(seconds));
    Ok(())
}

/// A thread's progress settings (callback and time limit), carried to the thread that runs its
/// call when that is another one (a forked child's pool: `backend::threads`).
#[derive(Clone, Copy)]
pub struct Settings {
    reporting: Option<Reporting>,
    time_limit_s: f64,
}

/// The calling thread's settings.
pub fn current_settings() -> Settings {
    Settings { reporting: REPORTING.with(Cell::get), time_limit_s: TIME_LIMIT_S.with(Cell::get) }
}

/// Runs `work` with `settings` as the calling thread's, then restores the thread's own.
pub fn with_settings<R>(settings: Settings, work: impl FnOnce() -> R) -> R {
    struct Restore(Settings);
    impl Drop for Restore {
        fn drop(&mut self) {
            REPORTING.with(|r| r.set(self.0.reporting));
            TIME_LIMIT_S.with(|t| t.set(self.0.time_limit_s));
        }
    }
    let _restore = Restore(current_settings());
    REPORTING.with(|r| r.set(settings.reporting));
    TIME_LIMIT_S.with(|t| t.set(settings.time_limit_s));
    work()
}

/// The progress of one long call, on the thread that makes it.
pub struct Tracker {
    task: &'static CStr,
    start: Instant,
    last_report: Instant,
    reporting: Option<Reporting>,
    time_limit_s: f64,
}

impl Tracker {
    /// Starts tracking call `task` with the calling thread's settings.
    pub fn start(task: &'static CStr) -> Self {
        let now = Instant::now();
        Tracker {
            task,
            start: now,
            last_report: now,
            reporting: REPORTING.with(Cell::get),
            time_limit_s: TIME_LIMIT_S.with(Cell::get),
        }
    }

    /// True when a callback or a time limit is set: then a device path waits for its work at each
    /// step it reports, so that the limit and the callback see real progress.
    pub fn is_watched(&self) -> bool {
        self.reporting.is_some() || self.time_limit_s > 0.0
    }

    /// Reports `done` of `total` when the interval has passed; an error when the callback asks to
    /// stop or the time limit has passed.
    pub fn update(&mut self, done: f64, total: f64) -> Result<()> {
        if !self.is_watched() {
            return Ok(());
        }
        let now = Instant::now();
        if let Some(r) = self.reporting {
            if now.duration_since(self.last_report).as_secs_f64() >= r.interval_s {
                self.last_report = now;
                self.report(r, done, total)?;
            }
        }
        let elapsed = now.duration_since(self.start).as_secs_f64();
        if self.time_limit_s > 0.0 && elapsed > self.time_limit_s {
            return Err(Error::Cancelled(format!(
                "{} stopped at {done} of {total} after {elapsed:.3} s: the time limit of this thread is {} s \
                 (atomgpu_set_time_limit)",
                self.task.to_string_lossy(),
                self.time_limit_s
            )));
        }
        Ok(())
    }

    /// The final report (`done` = `total`), made whatever the interval.
    pub fn finish(&mut self, total: f64) -> Result<()> {
        match self.reporting {
            Some(r) => self.report(r, total, total),
            None => Ok(()),
        }
    }

    fn report(&self, r: Reporting, done: f64, total: f64) -> Result<()> {
        // SAFETY: the callback and its user data are the caller's, given for this purpose; the
        // task name is a NUL-terminated static string.
        let stop = unsafe { (r.callback)(r.user_data, self.task.as_ptr(), done, total) };
        if stop != 0 {
            return Err(Error::Cancelled(format!(
                "{} stopped by the progress callback (it returned {stop}) at {done} of {total}",
                self.task.to_string_lossy()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn stop_at_three(user_data: *mut c_void, _task: *const c_char, done: f64, _total: f64) -> i32 {
        let calls = &mut *(user_data as *mut u32);
        *calls += 1;
        (done >= 3.0) as i32
    }

    #[test]
    fn the_callback_sees_progress_and_can_stop() {
        let mut calls = 0u32;
        set_callback(Some(stop_at_three), &mut calls as *mut u32 as *mut c_void, 0.0).unwrap();
        let mut t = Tracker::start(c"test");
        assert!(t.update(1.0, 10.0).is_ok());
        assert!(t.update(2.0, 10.0).is_ok());
        let e = t.update(3.0, 10.0).unwrap_err();
        assert!(matches!(e, Error::Cancelled(_)), "{e}");
        assert_eq!(calls, 3);
        set_callback(None, std::ptr::null_mut(), 0.0).unwrap();
        assert!(!Tracker::start(c"test").is_watched());
    }

    #[test]
    fn the_time_limit_stops_a_call() {
        set_time_limit(1e-3).unwrap();
        let mut t = Tracker::start(c"test");
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(matches!(t.update(1.0, 2.0), Err(Error::Cancelled(_))));
        set_time_limit(0.0).unwrap();
        assert!(set_time_limit(-1.0).is_err());
    }
}
