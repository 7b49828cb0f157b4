//! The stored states of a handle's blocks: their eigenvectors (handed to the engines: on the GPU
//! kept in device memory, or on the host for blocks that do not fit), energies and the caller's
//! labels (state IDs and TROVE's order keys), and the IDs and order keys every line carries.

use super::{check_matrix, cpu, Engine, LineStrength, StateLabels, MAX_ENERGY_CM};
use crate::backend;
use crate::error::{require_in_range, Error, Result};
use crate::math::scalar::first_non_finite;
use crate::memory;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

impl LineStrength {
    /// Stores the eigenstates of block `id`: `energies` (cm^-1) and the vectors as the columns of
    /// `vectors` (`n_coefficients x n_states`, leading dimension `ld`). Replaces earlier states.
    /// On the GPU the vectors are kept in device memory.
    pub fn set_states(&mut self, id: usize, energies: &[f64], vectors: &[f64], ld: usize) -> Result<()> {
        self.store_states(id, energies, vectors, ld, false)
    }

    /// As [`LineStrength::set_states`], with the vectors kept in host memory (a copy held by the
    /// handle), for blocks whose states do not fit on the GPU beside the others: as the lower
    /// block of a line list they go to the device one batch at a time, each batch's upload
    /// overlapped with the previous batch's products (two page-locked staging buffers of
    /// `params.batch` vectors, a copy stream); as an upper block they are uploaded whole for the
    /// line list that needs them and freed after it. The numbers are those of `set_states`. On
    /// the CPU backend this is `set_states`.
    pub fn set_states_on_host(&mut self, id: usize, energies: &[f64], vectors: &[f64], ld: usize) -> Result<()> {
        self.store_states(id, energies, vectors, ld, true)
    }

    fn store_states(&mut self, id: usize, energies: &[f64], vectors: &[f64], ld: usize, on_host: bool) -> Result<()> {
        let rows = self.block("block", id)?.n_coefficients();
        if energies.is_empty() {
            return Err(Error::invalid("n_states", "must be >= 1"));
        }
        for (i, &e) in energies.iter().enumerate() {
            require_in_range("energies", Some(i), e, -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
        }
        let n = energies.len();
        check_matrix("vectors", vectors.len(), rows, n, ld)?;
        if let Some(at) = first_non_finite(vectors, rows, n, ld) {
            return Err(Error::invalid_at("vectors", at, "must be finite"));
        }
        let energies = memory::copy_of("the state energies", energies)?;
        let what = "the stored states";
        let packed_copy = || cpu::packed_columns(what, vectors, rows, ld, (0..n).map(|s| s * ld));
        match &mut self.engine {
            Engine::Cpu(team) => {
                let packed = packed_copy()?;
                for e in &mut team[1..] {
                    e.set_states(id, memory::copy_of(what, &packed)?);
                }
                team[0].set_states(id, packed);
            }
            Engine::Cuda(team) if on_host => {
                let packed = Arc::new(packed_copy()?);
                for e in team {
                    e.keep_states_on_host(id, &energies, &packed)?;
                }
            }
            Engine::Cuda(team) => {
                // The GPUs copy the caller's matrix itself when its columns are packed, all at once.
                let packed = cpu::packed_matrix(what, vectors, rows, n, ld)?;
                let engines: Vec<_> = team.iter_mut().collect();
                backend::fan_out(&AtomicBool::new(false), engines, |_, e, _| e.set_states(id, &energies, &packed))?;
            }
        }
        self.blocks[id].energies = energies;
        self.blocks[id].labels = None;
        Ok(())
    }

    /// Gives the stored states of block `id` the caller's IDs (written in the `.states` and
    /// `.trans` files and returned in every [`Line`](super::Line); each >= 1 and distinct within the block)
    /// and order keys (TROVE's position of each state in its energy-sorted level list: the TROVE
    /// `.trans` writer sorts lines by them). One of each per stored state; replaced by the next
    /// [`LineStrength::set_states`] of the block, which drops them. Without labels a state's ID
    /// is its running number ([`LineStrength::state_id`]) and its order key the same number.
    pub fn set_state_labels(&mut self, id: usize, ids: &[i64], order: &[i64]) -> Result<()> {
        let stored = self.block("block", id)?.energies.len();
        if stored == 0 {
            return Err(Error::invalid(
                "block",
                format!("block {id} has no stored states to label (set_states first)"),
            ));
        }
        for (name, values) in [("ids", ids), ("order", order)] {
            if values.len() != stored {
                return Err(Error::invalid(
                    name,
                    format!("must have one entry per stored state of block {id} ({stored}), got {}", values.len()),
                ));
            }
        }
        if let Some(i) = ids.iter().position(|&x| x < 1) {
            return Err(Error::invalid_at("ids", i, format!("must be >= 1 (state IDs count from 1), got {}", ids[i])));
        }
        let mut sorted = memory::collect("the state IDs", ids.iter().copied().enumerate().map(|(i, x)| (x, i)))?;
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::invalid_at(
                "ids",
                w[0].1.max(w[1].1),
                format!("must be distinct within the block: {} repeats an earlier ID", w[0].0),
            ));
        }
        let labels = StateLabels {
            ids: memory::copy_of("the state IDs", ids)?,
            order: memory::copy_of("the order keys", order)?,
        };
        self.blocks[id].labels = Some(labels);
        Ok(())
    }

    /// ID of state `state` of block `id`: the caller's ([`LineStrength::set_state_labels`]), or
    /// the ExoMol running number 1 + the states of earlier blocks + `state`.
    pub fn state_id(&self, id: usize, state: usize) -> i64 {
        self.blocks[id].state_id(self.first_running_id(id), state)
    }

    /// Order key of state `state` of block `id` ([`LineStrength::set_state_labels`]).
    pub fn state_order(&self, id: usize, state: usize) -> i64 {
        self.blocks[id].state_order(self.first_running_id(id), state)
    }

    /// [`LineStrength::state_order`] of every stored state as one lookup `(block, state) -> key`,
    /// for sorting many lines (the running numbers of the blocks' first states computed once).
    pub(crate) fn state_orders(&self) -> impl Fn(usize, usize) -> i64 + Sync + '_ {
        let first: Vec<i64> = self
            .blocks
            .iter()
            .scan(1i64, |next, b| {
                let this = *next;
                *next += b.energies.len() as i64;
                Some(this)
            })
            .collect();
        move |block, state| self.blocks[block].state_order(first[block], state)
    }

    /// The running number of the first state of block `id`: 1 + the states of earlier blocks.
    pub(super) fn first_running_id(&self, id: usize) -> i64 {
        1 + self.blocks[..id].iter().map(|b| b.energies.len() as i64).sum::<i64>()
    }
}
