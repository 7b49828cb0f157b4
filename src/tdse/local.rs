//! Ranks inside one process: the [`Communicator`] of a [`super::Tdse`]'s members (one thread per
//! member, one member per GPU). Halo planes travel over channels between neighbouring members;
//! sums are sent to every member and added in member order, so every member gets bit-identical
//! sums.
//!
//! A member that fails (a device error) raises the team's shared flag; the others, waiting for
//! its planes, see the flag within [`POLL`] and stop with an error instead of waiting for ever.

use super::Communicator;
use crate::error::{Error, Result};
use num_complex::Complex64 as C64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

/// How often a waiting member looks at the failure flag.
const POLL: Duration = Duration::from_millis(50);

/// Both ends of one direction of a link between neighbouring members.
type Link = (Option<Sender<Vec<C64>>>, Option<Receiver<Vec<C64>>>);

/// One member's ends of the channels.
pub struct LocalComm {
    rank: usize,
    size: usize,
    to_lower: Option<Sender<Vec<C64>>>,
    to_upper: Option<Sender<Vec<C64>>>,
    from_lower: Option<Receiver<Vec<C64>>>,
    from_upper: Option<Receiver<Vec<C64>>>,
    sum_out: Vec<Sender<(usize, Vec<f64>)>>,
    sum_in: Receiver<(usize, Vec<f64>)>,
    failed: Arc<AtomicBool>,
}

/// The communicators of `size` members in x order, and the flag a failing member raises.
pub fn communicators(size: usize) -> (Vec<LocalComm>, Arc<AtomicBool>) {
    let failed = Arc::new(AtomicBool::new(false));
    // Link r joins members r and r + 1: one channel upwards, one downwards.
    let mut up: Vec<Link> = Vec::new();
    let mut down: Vec<Link> = Vec::new();
    for _ in 1..size {
        let (s, r) = channel();
        up.push((Some(s), Some(r)));
        let (s, r) = channel();
        down.push((Some(s), Some(r)));
    }
    let (sum_tx, mut sum_rx): (Vec<_>, Vec<_>) = (0..size).map(|_| channel::<(usize, Vec<f64>)>()).unzip();
    let mut comms = Vec::new();
    for rank in 0..size {
        let below = rank.checked_sub(1);
        let above = (rank + 1 < size).then_some(rank);
        comms.push(LocalComm {
            rank,
            size,
            to_lower: below.and_then(|b| down[b].0.take()),
            from_lower: below.and_then(|b| up[b].1.take()),
            to_upper: above.and_then(|a| up[a].0.take()),
            from_upper: above.and_then(|a| down[a].1.take()),
            sum_out: sum_tx.clone(),
            sum_in: sum_rx.remove(0),
            failed: failed.clone(),
        });
    }
    (comms, failed)
}

/// The error of a member that stops because another failed.
pub fn stopped() -> Error {
    crate::backend::stopped_by_another()
}

/// Copies a received plane (members share one grid, so the sizes agree).
fn copy_plane(received: &[C64], into: &mut [C64]) -> Result<()> {
    if received.len() != into.len() {
        return Err(Error::Internal(format!("a member sent {} values for a plane of {}", received.len(), into.len())));
    }
    into.copy_from_slice(received);
    Ok(())
}

impl LocalComm {
    fn send<T>(&self, to: &Sender<T>, value: T) -> Result<()> {
        to.send(value).map_err(|_| stopped())
    }

    /// The next message on `from`, unless the team's flag is raised first.
    fn receive<T>(&self, from: &Receiver<T>) -> Result<T> {
        loop {
            match from.recv_timeout(POLL) {
                Ok(value) => return Ok(value),
                Err(RecvTimeoutError::Timeout) if !self.failed.load(Ordering::Acquire) => continue,
                Err(_) => return Err(stopped()),
            }
        }
    }
}

impl Communicator for LocalComm {
    fn exchange(
        &mut self,
        send_lower: &[C64],
        send_upper: &[C64],
        recv_lower: &mut [C64],
        recv_upper: &mut [C64],
    ) -> Result<()> {
        if let Some(s) = &self.to_lower {
            self.send(s, crate::memory::copy_of("a halo plane", send_lower)?)?;
        }
        if let Some(s) = &self.to_upper {
            self.send(s, crate::memory::copy_of("a halo plane", send_upper)?)?;
        }
        if let Some(r) = &self.from_lower {
            copy_plane(&self.receive(r)?, recv_lower)?;
        }
        if let Some(r) = &self.from_upper {
            copy_plane(&self.receive(r)?, recv_upper)?;
        }
        Ok(())
    }

    fn sum(&mut self, values: &mut [f64]) -> Result<()> {
        for s in &self.sum_out {
            self.send(s, (self.rank, values.to_vec()))?;
        }
        let mut parts = Vec::with_capacity(self.size);
        for _ in 0..self.size {
            parts.push(self.receive(&self.sum_in)?);
        }
        parts.sort_by_key(|p| p.0);
        for (i, v) in values.iter_mut().enumerate() {
            *v = parts.iter().map(|p| p.1[i]).sum();
        }
        Ok(())
    }
}
