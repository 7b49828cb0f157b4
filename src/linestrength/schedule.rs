//! The scheduling of a line list's lower levels: cut into batches ([`even_batches`]) and run in
//! batch order on the handle's engines ([`run_batches`]): on one engine one after another, on
//! several through the thread executor [`spread_batches`], which is the only code here that
//! knows about threads (the one piece to swap for a shared fan-out over devices).

use crate::backend::threads;
use crate::error::Result;
use std::collections::HashMap;
use std::sync::{mpsc, Condvar, Mutex};

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

// ---- The thread executor: everything below knows about threads, nothing above does. ----

/// Runs the batches on several engines at once, one thread each (engine e takes batches e, e + n,
/// ...: `run(engine, batch, the next batch it takes)`), and hands the results to
/// `add(result, batch index)` in batch order on the calling thread. An engine runs at most `2 n`
/// batches ahead of the last one handed over, so that the lines waiting for their turn stay
/// bounded. The first error (of an engine or of `add`) stops every engine after its current batch
/// and is returned.
fn spread_batches<E: Send, R: Send>(
    engines: &mut [E],
    batches: &[&[usize]],
    run: &(impl Fn(&mut E, &[usize], Option<&[usize]>) -> Result<R> + Sync),
    add: &mut dyn FnMut(&R, usize) -> Result<()>,
) -> Result<()> {
    let n = engines.len();
    // (batches handed over, stop) behind one lock; engines wait on `turn` when too far ahead.
    let state = Mutex::new((0usize, false));
    let turn = Condvar::new();
    std::thread::scope(|scope| {
        let (send, receive) = mpsc::channel::<(usize, Result<R>)>();
        for (e, engine) in engines.iter_mut().enumerate() {
            let (send, state, turn) = (send.clone(), &state, &turn);
            scope.spawn(move || {
                let mine: Vec<usize> = (e..batches.len()).step_by(n).collect();
                for (m, &k) in mine.iter().enumerate() {
                    {
                        let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
                        while !s.1 && k >= s.0 + 2 * n {
                            s = turn.wait(s).unwrap_or_else(|p| p.into_inner());
                        }
                        if s.1 {
                            return;
                        }
                    }
                    let next = mine.get(m + 1).map(|&k| batches[k]);
                    // The engine's own pool in a forked child (backend::threads::run_in).
                    let result = threads::run_in(e + 1, || run(engine, batches[k], next)).and_then(|r| r);
                    let failed = result.is_err();
                    if send.send((k, result)).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut waiting = HashMap::new();
        let mut outcome = Ok(());
        for (k, result) in receive.iter() {
            match result {
                Ok(r) => {
                    waiting.insert(k, r);
                }
                Err(e) => outcome = Err(e),
            }
            let mut handed = state.lock().unwrap_or_else(|p| p.into_inner()).0;
            while outcome.is_ok() {
                let Some(r) = waiting.remove(&handed) else { break };
                outcome = add(&r, handed);
                handed += 1;
            }
            let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
            (s.0, s.1) = (handed, outcome.is_err());
            turn.notify_all();
            if outcome.is_err() {
                break;
            }
        }
        outcome
    })
}
