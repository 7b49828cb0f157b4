//! The scheduling of a line list's lower levels: cut into batches ([`even_batches`]) and run in
//! batch order on the handle's engines ([`run_batches`]): on one engine one after another, on
//! several at once through the backend's fan-out ([`spread_batches`]).

use crate::backend::{self, FanOut};
use crate::error::Result;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Duration;

/// `states` cut, in order, into batches of at most `batch` states; for several engines their
/// number is also a multiple of `engines` (or one state each, when there are fewer states) and
/// their sizes differ by at most one, so that every engine gets the same work: 853 states in
/// batches of 64 make 14 batches, which would leave two of four GPUs idle for the last round,
/// but 16 batches of 53-54 do not.
pub fn even_batches(states: &[usize], batch: usize, engines: usize) -> Vec<&[usize]> {
    if engines <= 1 || states.is_empty() {
        return states.chunks(batch).collect();
    }
    let count = states.len().div_ceil(batch).next_multiple_of(engines).min(states.len());
    let (base, longer) = (states.len() / count, states.len() % count);
    let mut rest = states;
    (0..count)
        .map(|i| {
            let (first, tail) = rest.split_at(base + usize::from(i < longer));
            rest = tail;
            first
        })
        .collect()
}

/// Runs `batches` in batch order on the `engines`: `run(engine, batch, next batch of that engine)`
/// computes a batch, `add(result, batch index)` gets the results in batch order on the calling
/// thread. One engine runs them one after another; several run them at once
/// ([`spread_batches`]). The first error stops the run and is returned.
pub(super) fn run_batches<E: Send, R: Send>(
    engines: &mut [E],
    batches: &[&[usize]],
    run: &(impl Fn(&mut E, &[usize], Option<&[usize]>) -> Result<R> + Sync),
    add: &mut dyn FnMut(&R, usize) -> Result<()>,
) -> Result<()> {
    if let [engine] = engines {
        for k in 0..batches.len() {
            add(&run(engine, batches[k], batches.get(k + 1).copied())?, k)?;
        }
        Ok(())
    } else {
        spread_batches(engines, batches, run, add)
    }
}

/// Runs the batches on several engines at once through the backend's fan-out
/// ([`backend::fan_out_watched`]: one thread per engine, the first own error wins, a panic is an
/// internal error): engine e takes batches e, e + n, ... (`run(engine, batch, the next batch it
/// takes)`), and the calling thread hands the results to `add(result, batch index)` in batch
/// order. An engine runs at most `2 n` batches ahead of the last one handed over, so that the
/// lines waiting for their turn stay bounded. The first error (of an engine or of `add`) stops
/// every engine after its current batch and is returned.
fn spread_batches<E: Send, R: Send>(
    engines: &mut [E],
    batches: &[&[usize]],
    run: &(impl Fn(&mut E, &[usize], Option<&[usize]>) -> Result<R> + Sync),
    add: &mut dyn FnMut(&R, usize) -> Result<()>,
) -> Result<()> {
    let n = engines.len();
    // Batches handed over so far; engines wait on `turn` when too far ahead.
    let handed = Mutex::new(0usize);
    let turn = Condvar::new();
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<(usize, R)>();
    let data: Vec<(&mut E, mpsc::Sender<(usize, R)>)> = engines.iter_mut().map(|e| (e, send.clone())).collect();
    drop(send);
    let engine_work = |e: usize, (engine, send): (&mut E, mpsc::Sender<(usize, R)>), fan: &FanOut<'_>| {
        let mine: Vec<usize> = (e..batches.len()).step_by(n).collect();
        for (m, &k) in mine.iter().enumerate() {
            let mut h = handed.lock().unwrap_or_else(|p| p.into_inner());
            while !fan.stopped() && k >= *h + 2 * n {
                h = turn.wait_timeout(h, WAIT).unwrap_or_else(|p| p.into_inner()).0;
            }
            drop(h);
            if fan.stopped() {
                return Err(backend::stopped_by_another());
            }
            let next = mine.get(m + 1).map(|&k| batches[k]);
            let result = run(engine, batches[k], next)?;
            // The watcher has stopped listening only after a failure: nothing more to send.
            if send.send((k, result)).is_err() {
                return Err(backend::stopped_by_another());
            }
        }
        Ok(())
    };
    let watch = |fan: &FanOut<'_>| {
        let mut waiting = HashMap::new();
        let mut next = 0;
        for (k, result) in receive.iter() {
            waiting.insert(k, result);
            while let Some(r) = waiting.remove(&next) {
                if let Err(e) = add(&r, next) {
                    fan.fail(e);
                    break;
                }
                next += 1;
            }
            *handed.lock().unwrap_or_else(|p| p.into_inner()) = next;
            turn.notify_all();
            if fan.stopped() {
                break;
            }
        }
    };
    backend::fan_out_watched(&stop, data, engine_work, watch).map(drop)
}

/// How long an engine that is far ahead waits before it looks at the stop flag again.
const WAIT: Duration = Duration::from_millis(10);
