//! The one way a call runs work on every engine of a [`super::DeviceSet`] at once.
//!
//! [`fan_out_watched`] starts one thread per engine (in a forked child, each on a pool of its own:
//! [`super::threads::run_in`]), and runs a watcher on the calling thread meanwhile (it reports
//! progress, honours the calling thread's progress callback and time limit, hands results on).
//! Its policy, the same for every family:
//!
//! - **first error wins**: the first error any engine or the watcher reports ([`FanOut::fail`]) is
//!   what the call returns; it raises the stop flag, which every engine checks between its pieces
//!   of work ([`FanOut::stopped`]) and stops on, with [`stopped_by_another`]; such an error never
//!   hides an engine's own error, whenever that one arrives, and errors after the first are dropped;
//! - **one panic policy**: a panic on an engine's thread is caught there and becomes
//!   [`Error::Internal`] naming the engine (the process and the other engines go on, and stop);
//! - **cancellation** goes through the same flag: the watcher calls `tracker.update(..)` and passes
//!   its `ATOMGPU_ERR_CANCELLED` to [`FanOut::fail`];
//! - the call returns only after every engine's thread has returned.

use super::threads;
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// The shared state of one fan-out: the stop flag, the first error, the engines still running.
pub struct FanOut<'a> {
    stop: &'a AtomicBool,
    first_error: Mutex<Option<Error>>,
    running: AtomicUsize,
    news: (Mutex<u64>, Condvar),
}

impl FanOut<'_> {
    /// True once an engine or the watcher has failed (or the caller's flag was raised).
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Records `error` if it is the first (of its own: [`stopped_by_another`] gives way to any
    /// other), and raises the stop flag.
    pub fn fail(&self, error: Error) {
        {
            let mut first = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
            if first.as_ref().is_none_or(|e| is_stopped_by_another(e) && !is_stopped_by_another(&error)) {
                *first = Some(error);
            }
        }
        self.stop.store(true, Ordering::Release);
        self.notify();
    }

    /// Number of engines whose work has not returned yet.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }

    /// Wakes the watcher ([`FanOut::wait`]): an engine has news (a piece done).
    pub fn notify(&self) {
        *self.news.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.news.1.notify_all();
    }

    /// Waits until an engine notifies or finishes, or `timeout` passes; true while engines still run.
    pub fn wait(&self, timeout: Duration) -> bool {
        let seen = self.news.0.lock().unwrap_or_else(|p| p.into_inner());
        if self.running() == 0 {
            return false;
        }
        let start = *seen;
        let _ = self.news.1.wait_timeout_while(seen, timeout, |n| *n == start);
        self.running() > 0
    }
}

const STOPPED: &str = "another engine (another GPU) of this call stopped with an error";

/// The error of an engine that stops because another engine (or the watcher) failed: never what a
/// fan-out returns while another error is known.
pub fn stopped_by_another() -> Error {
    Error::Internal(STOPPED.into())
}

fn is_stopped_by_another(error: &Error) -> bool {
    matches!(error, Error::Internal(m) if m == STOPPED)
}

/// Runs `work(k, datum)` for every datum (engine k's own data) on one thread each, and `watch` on
/// the calling thread meanwhile; returns the results in engine order, or the first error (module
/// docs). `stop` is the stop flag, shared with whatever else the engines wait on (a team's halo
/// exchanges); it is lowered at the start.
pub fn fan_out_watched<D: Send, T: Send>(
    stop: &AtomicBool,
    data: Vec<D>,
    work: impl Fn(usize, D, &FanOut<'_>) -> Result<T> + Sync,
    watch: impl FnOnce(&FanOut<'_>),
) -> Result<Vec<T>> {
    run(stop, data, work, Some(watch))
}

/// [`fan_out_watched`] without a watcher: one datum runs on the calling thread.
pub fn fan_out<D: Send, T: Send>(
    stop: &AtomicBool,
    data: Vec<D>,
    work: impl Fn(usize, D, &FanOut<'_>) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    run(stop, data, work, None::<fn(&FanOut<'_>)>)
}

fn run<D: Send, T: Send>(
    stop: &AtomicBool,
    data: Vec<D>,
    work: impl Fn(usize, D, &FanOut<'_>) -> Result<T> + Sync,
    watch: Option<impl FnOnce(&FanOut<'_>)>,
) -> Result<Vec<T>> {
    stop.store(false, Ordering::Release);
    let fan = FanOut {
        stop,
        first_error: Mutex::new(None),
        running: AtomicUsize::new(data.len()),
        news: (Mutex::new(0), Condvar::new()),
    };
    let run_one = |k: usize, datum: D, fan: &FanOut<'_>| -> Option<T> {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            threads::run_in(k + 1, || work(k, datum, fan)).and_then(|r| r)
        }))
        .unwrap_or_else(|_| Err(Error::Internal(format!("the thread of engine {k} panicked"))));
        fan.running.fetch_sub(1, Ordering::AcqRel);
        match outcome {
            Ok(value) => {
                fan.notify();
                Some(value)
            }
            Err(e) => {
                fan.fail(e);
                None
            }
        }
    };
    let results: Vec<Option<T>> = match watch {
        None if data.len() == 1 => {
            let datum = data.into_iter().next().expect("one datum");
            vec![run_one(0, datum, &fan)]
        }
        watch => std::thread::scope(|scope| {
            let (fan, run_one) = (&fan, &run_one);
            let threads: Vec<_> =
                data.into_iter().enumerate().map(|(k, d)| scope.spawn(move || run_one(k, d, fan))).collect();
            if let Some(watch) = watch {
                watch(fan);
            }
            // A thread's own panic is caught inside it; a join error is impossible but handled.
            threads.into_iter().map(|t| t.join().unwrap_or(None)).collect()
        }),
    };
    if let Some(e) = fan.first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    results
        .into_iter()
        .collect::<Option<Vec<T>>>()
        .ok_or_else(|| Error::Internal("an engine returned neither a result nor an error".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_come_in_engine_order() {
        let stop = AtomicBool::new(true);
        let out = fan_out(&stop, vec![3, 1, 2], |k, d, _| Ok(10 * k + d)).unwrap();
        assert_eq!(out, vec![3, 11, 22]);
        assert_eq!(fan_out(&stop, vec![5], |k, d, _| Ok(k + d)).unwrap(), vec![5]);
        assert!(!stop.load(Ordering::Acquire));
    }

    #[test]
    fn the_first_error_wins_and_stops_the_others() {
        let stop = AtomicBool::new(false);
        let pieces = AtomicUsize::new(0);
        let result: Result<Vec<()>> = fan_out(&stop, vec![0, 1, 2, 3], |k, _, fan| {
            if k == 2 {
                return Err(Error::invalid("engine", "two fails"));
            }
            // The others work until stopped (bounded, so a broken stop fails the test).
            for _ in 0..100_000 {
                if fan.stopped() {
                    return Err(stopped_by_another());
                }
                pieces.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_micros(50));
            }
            Ok(())
        });
        let e = result.unwrap_err();
        assert!(e.to_string().contains("two fails"), "{e}");
        assert!(pieces.load(Ordering::Relaxed) < 3 * 100_000);
    }

    #[test]
    fn an_own_error_wins_over_an_earlier_stop() {
        let stop = AtomicBool::new(false);
        let result: Result<Vec<()>> = fan_out(&stop, vec![0, 1], |k, _, fan| {
            if k == 0 {
                fan.fail(stopped_by_another());
                Err(stopped_by_another())
            } else {
                while !fan.stopped() {
                    std::thread::yield_now();
                }
                Err(Error::invalid("engine", "one's own failure"))
            }
        });
        assert!(result.unwrap_err().to_string().contains("one's own failure"));
    }

    #[test]
    fn a_panic_is_an_internal_error_and_the_others_finish() {
        let stop = AtomicBool::new(false);
        let finished = AtomicUsize::new(0);
        let result: Result<Vec<()>> = fan_out(&stop, vec![(); 3], |k, _, _| {
            if k == 1 {
                panic!("engine one breaks");
            }
            finished.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        assert!(matches!(result, Err(Error::Internal(m)) if m.contains("engine 1")));
        assert_eq!(finished.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn the_watcher_can_cancel_and_sees_the_engines_finish() {
        let stop = AtomicBool::new(false);
        // One engine too: the watcher runs beside it, not after it.
        let result: Result<Vec<()>> = fan_out_watched(
            &stop,
            vec![()],
            |_, _, fan| {
                while !fan.stopped() {
                    fan.notify();
                    std::thread::sleep(Duration::from_millis(1));
                }
                Ok(())
            },
            |fan| {
                assert!(fan.wait(Duration::from_secs(5)));
                fan.fail(Error::Cancelled("the time limit".into()));
                while fan.wait(Duration::from_millis(5)) {}
                assert_eq!(fan.running(), 0);
            },
        );
        assert!(matches!(result, Err(Error::Cancelled(_))));
    }
}
