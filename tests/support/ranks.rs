//! Ranks as threads for the split-domain tests of the TDSE family: halo planes travel over
//! channels between neighbouring threads, sums are sent to everyone and added in rank order
//! (so every rank gets bit-identical sums).

use atomgpu::tdse::Communicator;
use num_complex::Complex64 as C64;
use std::sync::mpsc::{channel, Receiver, Sender};

/// One rank's ends of the channels.
pub struct ThreadComm {
    rank: usize,
    size: usize,
    to_lower: Option<Sender<Vec<C64>>>,
    to_upper: Option<Sender<Vec<C64>>>,
    from_lower: Option<Receiver<Vec<C64>>>,
    from_upper: Option<Receiver<Vec<C64>>>,
    sum_out: Vec<Sender<(usize, Vec<f64>)>>,
    sum_in: Receiver<(usize, Vec<f64>)>,
}

impl Communicator for ThreadComm {
    fn exchange(
        &mut self,
        send_lower: &[C64],
        send_upper: &[C64],
        recv_lower: &mut [C64],
        recv_upper: &mut [C64],
    ) -> atomgpu::error::Result<()> {
        if let Some(s) = &self.to_lower {
            s.send(send_lower.to_vec()).unwrap();
        }
        if let Some(s) = &self.to_upper {
            s.send(send_upper.to_vec()).unwrap();
        }
        if let Some(r) = &self.from_lower {
            recv_lower.copy_from_slice(&r.recv().unwrap());
        }
        if let Some(r) = &self.from_upper {
            recv_upper.copy_from_slice(&r.recv().unwrap());
        }
        Ok(())
    }

    fn sum(&mut self, values: &mut [f64]) -> atomgpu::error::Result<()> {
        for s in &self.sum_out {
            s.send((self.rank, values.to_vec())).unwrap();
        }
        let mut parts: Vec<(usize, Vec<f64>)> = (0..self.size).map(|_| self.sum_in.recv().unwrap()).collect();
        parts.sort_by_key(|p| p.0);
        for (i, v) in values.iter_mut().enumerate() {
            *v = parts.iter().map(|p| p.1[i]).sum();
        }
        Ok(())
    }
}

/// Both ends of one direction of a link between neighbouring ranks, taken as the ranks are made.
type Link = (Option<Sender<Vec<C64>>>, Option<Receiver<Vec<C64>>>);

pub fn thread_comms(size: usize) -> Vec<ThreadComm> {
    // Link r joins ranks r and r + 1: one channel upwards, one downwards.
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
        comms.push(ThreadComm {
            rank,
            size,
            to_lower: below.and_then(|b| down[b].0.take()),
            from_lower: below.and_then(|b| up[b].1.take()),
            to_upper: above.and_then(|a| up[a].0.take()),
            from_upper: above.and_then(|a| down[a].1.take()),
            sum_out: sum_tx.clone(),
            sum_in: sum_rx.remove(0),
        });
    }
    comms
}
