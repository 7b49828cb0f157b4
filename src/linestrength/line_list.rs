//! The line lists of a handle: the public calls ([`LineStrength::line_list`],
//! [`LineStrength::line_list_filtered`], [`LineStrength::line_list_stream`]) and what every line
//! list of one lower block does: the upper blocks its rules allow, the lower levels with a pair
//! inside the windows, and one batch of lower levels judged on one engine ([`LowerWork`]); the
//! batches are cut and run by [`super::schedule`].

use super::rotation::Contraction;
use super::schedule::{self, even_batches};
use super::stream::{self, LowerBatch};
use super::{
    filters, intensity, Block, ComponentRule, Engine, EngineRef, IntensityParams, Line, LineCounts, LineFilters,
    LineList, LineStrength, LowerVectors, TableKey,
};
use crate::error::{Error, Result};
use crate::memory;
use crate::progress::Tracker;
use std::sync::Arc;

/// The lower levels (indices into `energies`) with a pair inside the windows of some `active`
/// upper block (its rule in `rules`): the others are dropped without computing anything, and
/// counted in `counts`.
fn candidates(
    blocks: &[Block],
    active: &[usize],
    rules: &[filters::LineRule],
    energies: &[f64],
    counts: &mut LineCounts,
) -> Result<Vec<usize>> {
    let active_upper_states: usize = active.iter().map(|&u| blocks[u].energies.len()).sum();
    let mut candidates = Vec::new();
    for (i, &e) in energies.iter().enumerate() {
        let any = active.iter().zip(rules).any(|(&u, r)| blocks[u].energies.iter().any(|&eu| r.inside_windows(e, eu)));
        if any {
            memory::reserve("the lower states of the line list", &mut candidates, 1)?;
            candidates.push(i);
        } else {
            counts.dropped_by_windows += active_upper_states as u64;
        }
    }
    Ok(candidates)
}

/// An upper block of a lower block's line list, with what judging its pairs needs.
struct UpperPair {
    block: usize,
    key: TableKey,
    table: Arc<Contraction>,
    rule: filters::LineRule,
    /// Running number of its first state.
    first_id: i64,
}

/// The lines of one lower block: what every batch's work reads.
struct LowerWork<'a> {
    blocks: &'a [Block],
    lower: usize,
    /// Where the lower levels come from (what a batch's indices name).
    levels: Levels<'a>,
    /// The upper blocks as the caller listed them (the order of the lines).
    uppers: &'a [usize],
    /// The upper blocks the rules allow.
    pairs: &'a [UpperPair],
    thresh_coeff: f64,
}

/// The lower levels of a [`LowerWork`].
#[derive(Clone, Copy)]
enum Levels<'a> {
    /// The stored states of the lower block, named by index; their IDs run from `first_id`.
    Stored { first_id: i64 },
    /// The caller's levels of a streamed batch ([`stream::LowerBatch`]), named by their position
    /// in it.
    Given(&'a stream::LowerBatch<'a>),
}

/// The kept lines of one batch of lower states and its counts.
#[derive(Default)]
struct BatchResult {
    lines: Vec<Line>,
    counts: LineCounts,
}

impl LowerWork<'_> {
    /// Loads lower states `batch` on `engine` and judges their pairs with every upper block;
    /// `next` is the batch this engine takes next (its upload starts here when its states are
    /// held on the host). Lines come ordered by lower state, upper block, upper state.
    fn run(&self, engine: &mut EngineRef<'_>, batch: &[usize], next: Option<&[usize]>) -> Result<BatchResult> {
        let lb = &self.blocks[self.lower];
        let given;
        let (vectors, next) = match self.levels {
            Levels::Stored { .. } => (LowerVectors::Stored(batch), next),
            Levels::Given(levels) => {
                given = levels.columns(batch, lb.n_coefficients())?;
                (LowerVectors::Given { data: &given.0, ld: given.1, n: batch.len() }, None)
            }
        };
        match engine {
            EngineRef::Cpu(e) => e.load_lower(self.lower, lb, vectors, self.thresh_coeff)?,
            EngineRef::Cuda(e) => {
                e.load_lower(self.lower, lb, vectors, self.thresh_coeff)?;
                if let Some(next) = next {
                    e.prefetch_lower(self.lower, lb, next)?;
                }
            }
        }
        let (lower_energies, lower_id): (Vec<f64>, &dyn Fn(usize) -> i64) = match self.levels {
            Levels::Stored { first_id } => {
                (memory::collect("the lower energies", batch.iter().map(|&s| lb.energies[s]))?, &move |s| {
                    lb.state_id(first_id, s)
                })
            }
            Levels::Given(levels) => {
                (memory::collect("the lower energies", batch.iter().map(|&s| levels.energies[s]))?, &|s| levels.ids[s])
            }
        };
        let mut result = BatchResult::default();
        for pair in self.pairs {
            let ub = &self.blocks[pair.block];
            let rule = filters::LineRule { n_levels: batch.len() as i64, ..pair.rule };
            let level = match self.levels {
                Levels::Stored { .. } => "state",
                Levels::Given(_) => "level (of the lower batch)",
            };
            let describe = |i: usize, f: usize| {
                format!("from {level} {} of block {} to state {f} of block {}", batch[i], self.lower, pair.block)
            };
            let judged = match engine {
                EngineRef::Cpu(e) => {
                    let amplitudes = e.amplitudes(pair.block, ub, &pair.table)?;
                    filters::judge_batch(&rule, &amplitudes, &lower_energies, &ub.energies, &describe)?
                }
                EngineRef::Cuda(e) => e.judge_batch(pair.key, ub, &pair.table, &lower_energies, &rule, &describe)?,
            };
            result.counts.dropped_by_windows += judged.dropped_by_windows;
            result.counts.dropped_by_thresholds += judged.dropped_by_thresholds;
            result.counts.kept += judged.lines.len() as u64;
            memory::reserve("the line list", &mut result.lines, judged.lines.len())?;
            result.lines.extend(judged.lines.iter().map(|l| Line {
                upper_id: ub.state_id(pair.first_id, l.upper_state as usize),
                lower_id: lower_id(batch[l.level as usize]),
                upper_block: pair.block,
                upper_state: l.upper_state as usize,
                lower_block: self.lower,
                lower_state: batch[l.level as usize],
                wavenumber: l.wavenumber,
                linestrength: l.linestrength,
                einstein_a: l.einstein_a,
                intensity: l.intensity,
            }));
        }
        // Keys are unique per line, so the unstable sort (which allocates nothing) gives this order.
        let uppers = self.uppers;
        result
            .lines
            .sort_unstable_by_key(|l| (l.lower_state, uppers.iter().position(|&u| u == l.upper_block), l.upper_state));
        Ok(result)
    }
}

impl LineStrength {
    /// The line list from the stored states of block `lower` into the stored states of the
    /// blocks `uppers` (the symmetry-allowed partners, J' within 1 of J), with TROVE's windows and
    /// thresholds ([`IntensityParams`]) and no further rule: [`LineStrength::line_list_filtered`]
    /// with [`LineFilters::default`].
    pub fn line_list(&mut self, lower: usize, uppers: &[usize], params: &IntensityParams) -> Result<Vec<Line>> {
        Ok(self.line_list_filtered(lower, uppers, params, &LineFilters::default())?.lines)
    }

    /// The line list from the stored states of block `lower` into the stored states of the
    /// blocks `uppers` (J' within 1 of J), judged by TROVE's rules, windows and thresholds
    /// ([`filters`]) where the amplitudes are computed (on the GPU: on the device; only the kept
    /// lines are copied back), with the count of the pairs kept and dropped. Lines come ordered by
    /// lower state, then upper block (its position in `uppers`), then upper state. The list is
    /// computed in internal batches, so afterwards no lower batch is loaded
    /// ([`LineStrength::loaded_batch`]). A call refused for its arguments changes nothing.
    pub fn line_list_filtered(
        &mut self,
        lower: usize,
        uppers: &[usize],
        params: &IntensityParams,
        filters: &LineFilters,
    ) -> Result<LineList> {
        intensity::check_line_params(params)?;
        filters.check(&self.blocks, self.group.is_some(), params.convention)?;
        let j = self.block("lower_block", lower)?.j;
        if self.blocks[lower].energies.is_empty() {
            return Err(Error::invalid("lower_block", format!("block {lower} has no states (set_states first)")));
        }
        for (i, &u) in uppers.iter().enumerate() {
            let b = self.blocks.get(u).ok_or_else(|| {
                Error::invalid_at("upper_blocks", i, format!("must be a block index below {}", self.blocks.len()))
            })?;
            if b.j.abs_diff(j) > 1 || b.j + j == 0 {
                return Err(Error::invalid_at("upper_blocks", i, format!("J' = {} not reachable from J = {j}", b.j)));
            }
            if b.energies.is_empty() {
                return Err(Error::invalid_at("upper_blocks", i, format!("block {u} has no states")));
            }
        }
        let mut tracker = Tracker::start(c"atomgpu_linestrength_line_list");
        let total = self.blocks[lower].energies.len() as f64;
        let mut lines = Vec::new();
        let counts = self.lines_of_lower(lower, uppers, params, filters, &mut |batch, done| {
            memory::reserve("the line list", &mut lines, batch.len())?;
            lines.extend_from_slice(batch);
            tracker.update(done as f64, total)
        });
        self.end_line_list(&[]);
        let counts = counts?;
        tracker.finish(total)?;
        Ok(LineList { lines, counts })
    }

    /// The whole line list of the handle, streamed: every block with states as the lower block (in
    /// registration order), into every block with states that J' = J'' or J'' +- 1 reaches
    /// (J + J' >= 1), judged as [`LineStrength::line_list_filtered`] judges, one batch of lower
    /// states at a time: `sink` gets each batch's kept lines (ordered by lower state, upper block,
    /// upper state), so the whole list is never held anywhere. Returns the counts over the list.
    pub fn line_list_stream(
        &mut self,
        params: &IntensityParams,
        filters: &LineFilters,
        sink: &mut dyn FnMut(&[Line]) -> Result<()>,
    ) -> Result<LineCounts> {
        let mut tracker = Tracker::start(c"atomgpu_linestrength_line_list_stream");
        let counts = self.stream_tracked(params, filters, &mut tracker, sink)?;
        tracker.finish(self.stored_states() as f64)?;
        Ok(counts)
    }

    /// The number of states stored in all blocks (the `total` of a streamed list's progress).
    fn stored_states(&self) -> usize {
        self.blocks.iter().map(|b| b.energies.len()).sum()
    }

    /// [`LineStrength::line_list_stream`] reporting to `tracker` (lower states done of all stored
    /// states, after each batch) without its final report, which the caller makes when the
    /// streamed lines are where they belong ([`exomol::write_line_list`]: synced, before the
    /// files are committed).
    pub(crate) fn stream_tracked(
        &mut self,
        params: &IntensityParams,
        filters: &LineFilters,
        tracker: &mut Tracker,
        sink: &mut dyn FnMut(&[Line]) -> Result<()>,
    ) -> Result<LineCounts> {
        intensity::check_line_params(params)?;
        filters.check(&self.blocks, self.group.is_some(), params.convention)?;
        let total = self.stored_states() as f64;
        let mut counts = LineCounts::default();
        let mut before = 0.0;
        for lower in 0..self.blocks.len() {
            let (j, n_lower) = (self.blocks[lower].j, self.blocks[lower].energies.len());
            if n_lower == 0 {
                continue;
            }
            let uppers = self.reachable_uppers(j);
            self.end_line_list(&uppers);
            let block_counts = self.lines_of_lower(lower, &uppers, params, filters, &mut |batch, done| {
                sink(batch)?;
                tracker.update(before + done as f64, total)
            });
            self.end_line_list(&uppers);
            counts.add(&block_counts?);
            before += n_lower as f64;
        }
        self.end_line_list(&[]);
        Ok(counts)
    }

    /// The blocks with stored states that a lower block of J = `j` reaches (J' = J or J +- 1,
    /// J + J' >= 1), in registration order.
    fn reachable_uppers(&self, j: u32) -> Vec<usize> {
        (0..self.blocks.len())
            .filter(|&u| {
                let b = &self.blocks[u];
                b.j.abs_diff(j) <= 1 && b.j + j >= 1 && !b.energies.is_empty()
            })
            .collect()
    }

    /// After (a lower block of) a line list: no lower batch is loaded any more, and the device
    /// copies of host-held upper blocks are freed but those of `keep`.
    pub(super) fn end_line_list(&mut self, keep: &[usize]) {
        self.lower = None;
        if let Engine::Cuda(team) = &mut self.engine {
            for e in team {
                e.release_uploads(keep);
            }
        }
    }

    /// The lines from block `lower` into `uppers` (arguments checked), one batch of lower states at
    /// a time: `emit(lines, states done)` after each batch.
    fn lines_of_lower(
        &mut self,
        lower: usize,
        uppers: &[usize],
        params: &IntensityParams,
        filters: &LineFilters,
        emit: &mut dyn FnMut(&[Line], usize) -> Result<()>,
    ) -> Result<LineCounts> {
        let mut counts = LineCounts::default();
        let n_lower = self.blocks[lower].energies.len();
        let (active, rules) = self.upper_rules(lower, uppers, n_lower, params, filters, &mut counts)?;
        if active.is_empty() {
            return Ok(counts);
        }
        let candidates = candidates(&self.blocks, &active, &rules, &self.blocks[lower].energies, &mut counts)?;
        let pairs = self.upper_pairs(lower, &active, rules, params.thresh_coeff)?;
        let batches = even_batches(&candidates, params.batch, self.n_devices());
        let levels = Levels::Stored { first_id: self.first_running_id(lower) };
        let work = (lower, levels, uppers, &pairs[..], params.thresh_coeff);
        self.run_batches(work, &batches, &mut |judged, k| {
            counts.add(&judged.counts);
            emit(&judged.lines, batches[k][batches[k].len() - 1] + 1)
        })?;
        // The loaded batch is no longer the one the handle's first engine holds.
        self.lower = None;
        Ok(counts)
    }

    /// Runs `batches` of the lower levels of `work` = (lower block, where its levels come from,
    /// the upper blocks in the order of the lines, the judged pairs, THRESH_COEFF) on the handle's
    /// engines (spread over all of them when there are several): `add(result, batch index)` gets
    /// each batch's lines in batch order.
    fn run_batches(
        &mut self,
        work: (usize, Levels<'_>, &[usize], &[UpperPair], f64),
        batches: &[&[usize]],
        add: &mut dyn FnMut(&BatchResult, usize) -> Result<()>,
    ) -> Result<()> {
        let (lower, levels, uppers, pairs, thresh_coeff) = work;
        let work = LowerWork { blocks: &self.blocks, lower, levels, uppers, pairs, thresh_coeff };
        let mut engines: Vec<EngineRef<'_>> = match &mut self.engine {
            Engine::Cpu(team) => team.iter_mut().map(EngineRef::Cpu).collect(),
            Engine::Cuda(team) => team.iter_mut().map(EngineRef::Cuda).collect(),
        };
        schedule::run_batches(&mut engines, batches, &|engine, batch, next| work.run(engine, batch, next), add)
    }

    /// The blocks of `uppers` that the rules of `filters` allow for the lower block `lower`, with
    /// the line rule of each; `counts` gets the pairs of `n_lower` lower levels with every block of
    /// `uppers`, and those the rules drop.
    fn upper_rules(
        &self,
        lower: usize,
        uppers: &[usize],
        n_lower: usize,
        params: &IntensityParams,
        filters: &LineFilters,
        counts: &mut LineCounts,
    ) -> Result<(Vec<usize>, Vec<filters::LineRule>)> {
        let mut active = Vec::new();
        for &u in uppers {
            let pairs = (n_lower * self.blocks[u].energies.len()) as u64;
            counts.pairs += pairs;
            if filters.allows(&self.blocks[lower], &self.blocks[u], params.convention) {
                memory::reserve("the line rules", &mut active, 1)?;
                active.push(u);
            } else {
                counts.dropped_by_rules += pairs;
            }
        }
        let filter_group = if filters.filters_components(params.convention) { self.group.as_ref() } else { None };
        let (lb, blocks) = (&self.blocks[lower], &self.blocks);
        let rules = memory::collect(
            "the line rules",
            active.iter().map(|&u| {
                let ub = &blocks[u];
                let components = ComponentRule::new(
                    lb.ndeg,
                    lb.gamma as usize,
                    ub.ndeg,
                    ub.gamma as usize,
                    filters.reduced,
                    filter_group,
                );
                filters::LineRule::new(lb, ub, params, &components)
            }),
        )?;
        Ok((active, rules))
    }

    /// The judged pairs of the lower block `lower` with the `active` upper blocks (their `rules`),
    /// with the contraction tables, built where missing.
    fn upper_pairs(
        &mut self,
        lower: usize,
        active: &[usize],
        rules: Vec<filters::LineRule>,
        thresh_coeff: f64,
    ) -> Result<Vec<UpperPair>> {
        let mut pairs = Vec::new();
        for (&u, rule) in active.iter().zip(rules) {
            let (key, table) = self.contraction(lower, u, thresh_coeff);
            memory::reserve("the line rules", &mut pairs, 1)?;
            pairs.push(UpperPair { block: u, key, table, rule, first_id: self.first_running_id(u) });
        }
        Ok(pairs)
    }

    /// The kept lines of a checked batch (unordered between the groups of its blocks) and its
    /// counts.
    pub(super) fn batch_lines(
        &mut self,
        batch: &LowerBatch<'_>,
        params: &IntensityParams,
        filters: &LineFilters,
        tracker: &mut Tracker,
    ) -> Result<(Vec<Line>, LineCounts)> {
        let mut counts = LineCounts::default();
        let mut lines = Vec::new();
        let mut by_block = memory::collect("the lower batch's groups", 0..batch.len())?;
        by_block.sort_by_key(|&i| batch.blocks[i]);
        let (total, mut done) = (batch.len() as f64, 0.0);
        for group in by_block.chunk_by(|&a, &b| batch.blocks[a] == batch.blocks[b]) {
            let lower = batch.blocks[group[0]];
            let j = self.blocks[lower].j;
            let uppers = self.reachable_uppers(j);
            let (active, rules) = self.upper_rules(lower, &uppers, group.len(), params, filters, &mut counts)?;
            if !active.is_empty() {
                let energies = memory::collect("the lower energies", group.iter().map(|&i| batch.energies[i]))?;
                let kept = candidates(&self.blocks, &active, &rules, &energies, &mut counts)?;
                let levels = memory::collect("the lower batch's groups", kept.iter().map(|&k| group[k]))?;
                let pairs = self.upper_pairs(lower, &active, rules, params.thresh_coeff)?;
                let batches = even_batches(&levels, params.batch, self.n_devices());
                let work = (lower, Levels::Given(batch), &uppers[..], &pairs[..], params.thresh_coeff);
                let ran = self.run_batches(work, &batches, &mut |judged, k| {
                    counts.add(&judged.counts);
                    memory::reserve("the lines of the lower batch", &mut lines, judged.lines.len())?;
                    lines.extend_from_slice(&judged.lines);
                    tracker.update(done + batches[..=k].iter().map(|b| b.len()).sum::<usize>() as f64, total)
                });
                self.end_line_list(&uppers);
                ran?;
            }
            done += group.len() as f64;
            tracker.update(done, total)?;
        }
        Ok((lines, counts))
    }
}
