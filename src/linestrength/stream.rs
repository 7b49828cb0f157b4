//! Streamed line lists: the upper states stay stored in the handle
//! ([`LineStrength::set_states`]), the lower levels come from the caller one batch at a time
//! (read from its own eigenvector files), so no block's lower vectors are ever held whole, and
//! the lines of each batch go to a sink (or to the handle's pending buffer), so no count pass is
//! needed.
//!
//! A batch ([`LowerBatch`]) holds n levels, possibly of several blocks: level i has its block,
//! its vector (column i of a matrix of leading dimension `ld` >= the largest coefficient count of
//! the batch's blocks), its energy E'' (cm^-1), the caller's ID (written as the line's
//! `lower_id`) and its order key. The levels are grouped by block; each group runs through the
//! engines of the stored line lists (eq. 14's products `Y = M^T X`, the contraction, the
//! completion GEMM of eq. 15 and the judge of [`super::filters`]) in internal batches of at most
//! `params.batch` levels, into every block with stored states that the J rule (|J' - J''| <= 1,
//! J' + J'' >= 1) and the [`LineFilters`] allow. The values are those of the stored line list
//! for the same vectors (on the CPU to the last bit: every product is computed column by
//! column). The lines of one call are delivered in (lower order, upper order) order, the lines
//! of one lower level at a time; the upper order key is the upper state's
//! ([`LineStrength::set_state_labels`]).
//!
//! Memory of the handle during a streamed call (bytes; N = Nvib, R'' the lower block's rotational
//! slots (2J''+1 for a full block), b = min(params.batch, levels of the group), C'' / ndeg'' the
//! lower block's coefficient count / components, P' / C' / S' / ndeg' an upper block's primitive
//! functions / coefficients / stored states / components):
//!
//! ```text
//!   dipole matrix                    3 N^2 8
//! + stored upper states              sum over blocks with states of C' S' 8
//! + per internal batch:
//!     the batch's vectors, packed    C'' b 8   (none when the group's levels are consecutive columns)
//!     their primitive components     P'' ndeg'' b 8  (only with an unfolding)
//!     X                              N R'' ndeg'' b 8
//!     Y = M^T X                      3 N R'' ndeg'' b 8
//!     per upper block, in turn:      half-linestrengths P' ndeg'' b 8, their projection
//!                                    ndeg' C' ndeg'' b 8, amplitudes S' ndeg'' b ndeg' 8
//! + the call's kept lines            80 per line (sorted before delivery)
//! ```
//! besides the caller's own batch (`ld n 8` B of vectors, 8 n per energy, ID, order). On the GPU
//! X, Y, the staging copy of the vectors (`ld (b-1) + C''` values) and the kept lines of one
//! pair of blocks (`S' ndeg'' b 48` B reserved) are device memory; host-held upper blocks
//! ([`LineStrength::set_states_on_host`]) are uploaded whole while a group of a lower block
//! reaching them runs. The buffered variant ([`LineStrength::lines_of_lower_batch_buffered`])
//! adds the pending lines, 80 B each, until [`LineStrength::take_lines`] takes them.

use super::{
    check_matrix, cpu, intensity, IntensityParams, Line, LineCounts, LineFilters, LineStrength, MAX_ENERGY_CM,
};
use crate::error::{require_in_range, Error, Memory, Result};
use crate::memory;
use crate::progress::Tracker;
use std::borrow::Cow;

/// One batch of lower levels supplied by the caller (module documentation). Every slice has one
/// entry per level, `vectors` one column of `ld` values (the first `n_coefficients(block)` used).
#[derive(Clone, Copy, Debug)]
pub struct LowerBatch<'a> {
    /// Block of each level (0-based).
    pub blocks: &'a [usize],
    /// The levels' vectors as columns, leading dimension `ld`, finite.
    pub vectors: &'a [f64],
    /// Leading dimension of `vectors`: >= the largest coefficient count of the batch's blocks.
    pub ld: usize,
    /// Energies E'' in cm^-1 (absolute, |E| <= 1e8).
    pub energies: &'a [f64],
    /// The caller's ID of each level (the lines' `lower_id`).
    pub ids: &'a [i64],
    /// The order key of each level: lines come by lower order, then upper order.
    pub order: &'a [i64],
}

impl LowerBatch<'_> {
    /// Number of levels.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// True for a batch without levels (refused by the line calls).
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The vectors of the levels `levels` (positions, increasing), `rows` values each, and their
    /// leading dimension: the caller's matrix itself when they are consecutive columns, else a
    /// packed copy.
    pub(crate) fn columns(&self, levels: &[usize], rows: usize) -> Result<(Cow<'_, [f64]>, usize)> {
        let first = levels[0];
        if levels.iter().enumerate().all(|(k, &l)| l == first + k) {
            return Ok((Cow::Borrowed(&self.vectors[first * self.ld..]), self.ld));
        }
        let packed =
            cpu::packed_columns("the lower batch", self.vectors, rows, self.ld, levels.iter().map(|&l| l * self.ld))?;
        Ok((Cow::Owned(packed), rows))
    }
}

impl LineStrength {
    /// The lines of one batch of lower levels given by the caller ([`LowerBatch`], module
    /// documentation) into every block with stored states that the J rule and `filters` allow,
    /// judged by `params` and `filters` as [`LineStrength::line_list_filtered`] judges:
    /// `sink` gets them in (lower order, upper order) order, the lines of one lower level per
    /// call; an error from `sink` (e.g. [`Error::Cancelled`]) stops the call at once, the lines
    /// delivered until then being a prefix of the list. Lines name the lower end by the level's
    /// block, its position in the batch (`lower_state`) and the caller's ID (`lower_id`).
    /// Returns the counts of the batch's pairs. Progress: levels done of the batch's, task
    /// "atomgpu_linestrength_lines_of_lower_batch". A call refused for its arguments delivers
    /// nothing.
    pub fn lines_of_lower_batch(
        &mut self,
        batch: &LowerBatch<'_>,
        params: &IntensityParams,
        filters: &LineFilters,
        sink: &mut dyn FnMut(&[Line]) -> Result<()>,
    ) -> Result<LineCounts> {
        self.check_batch(batch)?;
        intensity::check_line_params(params)?;
        filters.check(&self.blocks, self.group.is_some(), params.convention)?;
        let mut tracker = Tracker::start(c"atomgpu_linestrength_lines_of_lower_batch");
        let computed = self.batch_lines(batch, params, filters, &mut tracker);
        self.end_line_list(&[]);
        let (mut lines, counts) = computed?;
        let upper_order = self.state_orders();
        lines.sort_unstable_by_key(|l| {
            (
                batch.order[l.lower_state],
                l.lower_state,
                upper_order(l.upper_block, l.upper_state),
                l.upper_block,
                l.upper_state,
            )
        });
        for level in lines.chunk_by(|a, b| a.lower_state == b.lower_state) {
            sink(level)?;
        }
        tracker.finish(batch.len() as f64)?;
        Ok(counts)
    }

    /// As [`LineStrength::lines_of_lower_batch`], with the lines appended to the handle's pending
    /// buffer ([`LineStrength::take_lines`]) when the call succeeds (a failed call appends
    /// nothing).
    pub fn lines_of_lower_batch_buffered(
        &mut self,
        batch: &LowerBatch<'_>,
        params: &IntensityParams,
        filters: &LineFilters,
    ) -> Result<LineCounts> {
        let mut lines = Vec::new();
        let counts = self.lines_of_lower_batch(batch, params, filters, &mut |level| {
            memory::reserve("the pending lines", &mut lines, level.len())?;
            lines.extend_from_slice(level);
            Ok(())
        })?;
        let bytes = Some(((self.pending.len() + lines.len()) * std::mem::size_of::<Line>()) as u128);
        self.pending.try_reserve(lines.len()).map_err(|_| Error::OutOfMemory {
            memory: Memory::Host,
            what: "the pending lines".into(),
            bytes,
        })?;
        self.pending.extend(lines);
        Ok(counts)
    }

    /// Number of lines in the pending buffer.
    pub fn lines_pending(&self) -> usize {
        self.pending.len()
    }

    /// Takes the first `max` lines (all, when fewer) out of the pending buffer, in the order they
    /// were appended.
    pub fn take_lines(&mut self, max: usize) -> Vec<Line> {
        let n = max.min(self.pending.len());
        self.pending.drain(..n).collect()
    }

    /// Checks a batch against the handle's blocks.
    fn check_batch(&self, batch: &LowerBatch<'_>) -> Result<()> {
        let n = batch.len();
        if n == 0 {
            return Err(Error::invalid("n", "must be >= 1 (levels in the batch)"));
        }
        for (name, len) in [("energies", batch.energies.len()), ("ids", batch.ids.len()), ("order", batch.order.len())]
        {
            if len != n {
                return Err(Error::invalid(name, format!("must have one entry per level ({n}), got {len}")));
            }
        }
        let mut rows = 0;
        for (i, &b) in batch.blocks.iter().enumerate() {
            let block = self.blocks.get(b).ok_or_else(|| {
                Error::invalid_at("block", i, format!("must be a block index below {}, got {b}", self.blocks.len()))
            })?;
            rows = rows.max(block.n_coefficients());
        }
        if batch.ld < rows {
            return Err(Error::invalid(
                "ld",
                format!("must be >= {rows}, the largest coefficient count of the batch's blocks, got {}", batch.ld),
            ));
        }
        check_matrix("vectors", batch.vectors.len(), rows, n, batch.ld)?;
        for (i, &b) in batch.blocks.iter().enumerate() {
            let column = &batch.vectors[i * batch.ld..i * batch.ld + self.blocks[b].n_coefficients()];
            if let Some(r) = column.iter().position(|x| !x.is_finite()) {
                return Err(Error::invalid_at(
                    "vectors",
                    r + batch.ld * i,
                    format!("must be finite, got {}", column[r]),
                ));
            }
            require_in_range("energies", Some(i), batch.energies[i], -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
        }
        Ok(())
    }
}
