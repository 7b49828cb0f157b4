//! The blocks of a handle: what the caller describes ([`BlockSpec`], [`Unfolding`]), how it is
//! checked (labels, vibrational indices, species, the sparse unfolding) and what the handle keeps
//! of it ([`Block`], with the unfolding and its stacked transposes as [`Csr`] matrices, and the
//! caller's labels of its stored states, [`StateLabels`]).

use super::rotation::{check_j, Slots};
use super::symmetry::MAX_DEGENERACY;
use super::LineStrength;
use crate::error::{require_finite, Error, Result};
use crate::memory;

/// The primitive basis of one (J, Gamma) block: per function, the vibrational index `v`
/// (0-based, < Nvib), `k` in [0, J] and `tau` in {0, 1}. No two functions may share (v, K, tau).
#[derive(Clone, Copy, Debug)]
pub struct BlockSpec<'a> {
    /// Rotational quantum number J of the block.
    pub j: u32,
    /// Symmetry species of the block: its 0-based index in the handle's group
    /// ([`LineStrength::set_group`]; TROVE's `igamma - 1`), or a free label when the handle has no
    /// group (used only by the symmetry-pair rule of [`LineFilters`](super::LineFilters)).
    pub gamma: u32,
    /// Nuclear-spin statistical weight g_ns of the block's symmetry (TROVE's GNS), >= 0.
    pub gns: f64,
    pub v: &'a [i64],
    pub k: &'a [i32],
    pub tau: &'a [i32],
    /// Symmetrised-to-primitive unfolding; `None` when vectors are given in the primitive basis.
    pub unfolding: Option<Unfolding<'a>>,
}

/// Sparse unfolding matrices T_d (`n_primitive x n_sym` each, one per degenerate component d =
/// 0..ndeg-1), stacked into one CSR matrix of `ndeg n_primitive` rows: row `d n_primitive + p` lists
/// the symmetrised coefficients that build primitive function p of component d. The primitive
/// coefficients of component d of a level with symmetrised vector c are `T_d c` (TROVE's
/// `repres(isroot, ideg, ib)` contraction, ideg = d + 1).
#[derive(Clone, Copy, Debug)]
pub struct Unfolding<'a> {
    /// Degenerate components ndeg (1 for A/B species, 2 for E, 3 for F), in [1, 3].
    pub ndeg: usize,
    pub n_sym: usize,
    /// `row_start[r]..row_start[r + 1]` are row r's entries; length ndeg n_primitive + 1, from 0.
    pub row_start: &'a [i64],
    pub col: &'a [i64],
    pub value: &'a [f64],
}

/// A compressed-sparse-row matrix, validated.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Csr {
    pub rows: usize,
    pub cols: usize,
    pub start: Vec<i64>,
    pub col: Vec<i64>,
    pub value: Vec<f64>,
}

impl Csr {
    /// The stacked transposes of a stacked matrix of `ndeg` components (`ndeg R x C`, component d
    /// in rows `d R ..`): `ndeg C x R`, row `d C + c` holding column c of component d, in CSR form
    /// with the entries of each row in increasing column order. With `ndeg` = 1, the transpose.
    pub fn component_transposes(&self, ndeg: usize) -> Result<Csr> {
        let what = "the transposed unfolding";
        let rows_per_component = self.rows / ndeg;
        let out_row = |row: usize, e: usize| (row / rows_per_component) * self.cols + self.col[e] as usize;
        let out_rows = ndeg * self.cols;
        let mut count = memory::filled(what, out_rows + 1, 0i64)?;
        for row in 0..self.rows {
            for e in self.start[row] as usize..self.start[row + 1] as usize {
                count[out_row(row, e) + 1] += 1;
            }
        }
        for i in 0..out_rows {
            count[i + 1] += count[i];
        }
        let start = memory::copy_of(what, &count)?;
        let mut next = count;
        let mut col = memory::filled(what, self.col.len(), 0i64)?;
        let mut value = memory::filled(what, self.value.len(), 0.0)?;
        for row in 0..self.rows {
            for e in self.start[row] as usize..self.start[row + 1] as usize {
                let dst = &mut next[out_row(row, e)];
                col[*dst as usize] = (row % rows_per_component) as i64;
                value[*dst as usize] = self.value[e];
                *dst += 1;
            }
        }
        Ok(Csr { rows: out_rows, cols: rows_per_component, start, col, value })
    }
}

/// A registered block.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub j: u32,
    pub gamma: u32,
    /// Degenerate components of every level (1 without an unfolding).
    pub ndeg: usize,
    pub gns: f64,
    /// Vibrational index of each primitive function.
    pub v: Vec<u32>,
    pub slots: Slots,
    /// When the block has an unfolding: the stacked T (`ndeg n_primitive x n_sym`, rows of component
    /// d from `d n_primitive`) and the stacked transposes P (`ndeg n_sym x n_primitive`, rows
    /// `d n_sym + s` = column s of T_d).
    pub unfolding: Option<(Csr, Csr)>,
    /// Energies (cm^-1) of the states set by [`LineStrength::set_states`].
    pub energies: Vec<f64>,
    /// The caller's labels of the stored states ([`LineStrength::set_state_labels`]), if given.
    pub labels: Option<StateLabels>,
}

/// The caller's labels of a block's stored states: the ID each state has in the files written
/// (ExoMol's and TROVE's state IDs) and the key that orders TROVE's `.trans` file.
#[derive(Clone, Debug, PartialEq)]
pub struct StateLabels {
    /// State IDs (>= 1), one per stored state.
    pub ids: Vec<i64>,
    /// Order keys, one per stored state: lines of a TROVE `.trans` come sorted by the lower
    /// state's key, then the upper state's (TROVE's position in its energy-sorted level list).
    pub order: Vec<i64>,
}

impl Block {
    /// Number of primitive functions.
    pub fn n_primitive(&self) -> usize {
        self.v.len()
    }

    /// ID of stored state `state`: the caller's label, or `first_id + state` (the running number
    /// whose first state is `first_id`) when the block has no labels.
    pub fn state_id(&self, first_id: i64, state: usize) -> i64 {
        self.labels.as_ref().map_or(first_id + state as i64, |l| l.ids[state])
    }

    /// Order key of stored state `state`: the caller's key, or [`Block::state_id`] without labels.
    pub fn state_order(&self, first_id: i64, state: usize) -> i64 {
        self.labels.as_ref().map_or(first_id + state as i64, |l| l.order[state])
    }

    /// Length of an eigenvector: symmetrised size with an unfolding, primitive size without.
    pub fn n_coefficients(&self) -> usize {
        self.unfolding.as_ref().map_or(self.v.len(), |(t, _)| t.cols)
    }

    /// Columns of a batch of `n` levels of this block once unfolded: one per component.
    pub fn columns(&self, n: usize) -> usize {
        self.ndeg * n
    }
}

impl LineStrength {
    pub(super) fn validate_block(&self, spec: &BlockSpec<'_>) -> Result<Block> {
        check_j(spec.j)?;
        self.refuse_mixed_routes(false)?;
        let n = spec.v.len();
        if n == 0 {
            return Err(Error::invalid("n_primitive", "must be >= 1"));
        }
        if spec.k.len() != n || spec.tau.len() != n {
            return Err(Error::invalid("k", "v, k and tau must have one entry per primitive function"));
        }
        let mut k = memory::with_capacity("the block's labels", n)?;
        let mut tau = memory::with_capacity("the block's labels", n)?;
        for p in 0..n {
            if spec.k[p] < 0 || spec.k[p] as u32 > spec.j {
                return Err(Error::invalid_at("k", p, format!("must be in [0, J = {}], got {}", spec.j, spec.k[p])));
            }
            if !(spec.tau[p] == 0 || spec.tau[p] == 1) {
                return Err(Error::invalid_at("tau", p, format!("must be 0 or 1, got {}", spec.tau[p])));
            }
            if spec.k[p] == 0 && spec.tau[p] as u32 != spec.j % 2 {
                return Err(Error::invalid_at(
                    "tau",
                    p,
                    format!(
                        "must be J mod 2 = {} for K = 0 (the one Wang function with K = 0 has tau = J mod 2), got {}",
                        spec.j % 2,
                        spec.tau[p]
                    ),
                ));
            }
            k.push(spec.k[p] as u32);
            tau.push(spec.tau[p] as u8);
        }
        let slots = Slots::new(&k, &tau)?;
        self.finish_block(spec.j, spec.gamma, spec.gns, spec.v, slots, spec.unfolding.as_ref())
    }

    /// The checks every block kind shares, and the block: vibrational indices in range, no two
    /// functions with the same vibrational index and rotational label ((K, tau), or (level, deg)
    /// on the rotsym route), g_ns, the species and the unfolding.
    pub(super) fn finish_block(
        &self,
        j: u32,
        gamma: u32,
        gns: f64,
        spec_v: &[i64],
        slots: Slots,
        unfolding: Option<&Unfolding<'_>>,
    ) -> Result<Block> {
        let labels = if slots.basis.is_some() { "(v, level, deg)" } else { "(v, K, tau)" };
        let n = spec_v.len();
        if !(gns.is_finite() && gns >= 0.0) {
            return Err(Error::invalid("gns", format!("must be finite and >= 0, got {gns}")));
        }
        let mut v = memory::with_capacity("the block's labels", n)?;
        for (p, &vp) in spec_v.iter().enumerate() {
            if vp < 0 || vp as usize >= self.n_vib {
                return Err(Error::invalid_at("v", p, format!("must be in [0, {}), got {vp}", self.n_vib)));
            }
            v.push(vp as u32);
        }
        // No two functions with the same (v, rotational label): sort and look at neighbours.
        let mut keys = memory::collect(
            "the block's labels",
            (0..n).map(|p| ((slots.of_function[p] as u64) << 32 | v[p] as u64, p)),
        )?;
        keys.sort_unstable();
        if let Some(pair) = keys.windows(2).find(|w| w[0].0 == w[1].0) {
            let later = pair[0].1.max(pair[1].1);
            return Err(Error::invalid_at("v", later, format!("{labels} repeats an earlier primitive function")));
        }
        let ndeg = unfolding.map_or(1, |u| u.ndeg);
        if let Some(group) = &self.group {
            let gamma = gamma as usize;
            let Some(&species_ndeg) = group.degeneracy.get(gamma) else {
                return Err(Error::invalid(
                    "gamma",
                    format!("must be a species of {} in [0, {}), got {gamma}", group.name, group.n_species()),
                ));
            };
            if species_ndeg != ndeg {
                let label = group.labels[gamma];
                return Err(match unfolding {
                    None => Error::invalid(
                        "n_sym",
                        format!(
                            "must be >= 1: a block of the degenerate species {label} of {} needs an unfolding \
                             with all its {species_ndeg} components",
                            group.name
                        ),
                    ),
                    Some(_) => Error::invalid(
                        "ndeg",
                        format!(
                            "must be {species_ndeg}, the degeneracy of species {label} of {}, got {ndeg}",
                            group.name
                        ),
                    ),
                });
            }
        }
        let unfolding = unfolding.map(|u| validate_unfolding(u, n)).transpose()?;
        Ok(Block { j, gamma, ndeg, gns, v, slots, unfolding, energies: Vec::new(), labels: None })
    }
}

fn validate_unfolding(u: &Unfolding<'_>, n_primitive: usize) -> Result<(Csr, Csr)> {
    if !(1..=MAX_DEGENERACY).contains(&u.ndeg) {
        return Err(Error::invalid("ndeg", format!("must be 1, 2 or 3 (components of a level), got {}", u.ndeg)));
    }
    if u.n_sym == 0 || u.n_sym > n_primitive {
        return Err(Error::invalid(
            "n_sym",
            format!(
                "must be in [1, n_primitive = {n_primitive}] (a symmetrised basis has no more functions than the \
                 primitive one it is built from), got {}",
                u.n_sym
            ),
        ));
    }
    let rows = u.ndeg * n_primitive;
    if u.row_start.len() != rows + 1 || u.row_start[0] != 0 {
        return Err(Error::invalid(
            "row_start",
            format!(
                "must have ndeg n_primitive + 1 = {} entries starting at 0 (one row per primitive function and \
                 component), got {} entries",
                rows + 1,
                u.row_start.len()
            ),
        ));
    }
    for r in 0..rows {
        let entries = u.row_start[r + 1].checked_sub(u.row_start[r]).unwrap_or(-1);
        if !(0..=u.n_sym as i64).contains(&entries) {
            return Err(Error::invalid_at(
                "row_start",
                r + 1,
                format!("row {r} must have 0 to n_sym = {} entries", u.n_sym),
            ));
        }
    }
    for d in 0..u.ndeg {
        if u.ndeg > 1 && u.row_start[(d + 1) * n_primitive] == u.row_start[d * n_primitive] {
            return Err(Error::invalid_at(
                "row_start",
                (d + 1) * n_primitive,
                format!(
                    "component {d} (rows {}..{}) has no entry: a level of a degenerate species needs all its {} \
                     components",
                    d * n_primitive,
                    (d + 1) * n_primitive,
                    u.ndeg
                ),
            ));
        }
    }
    let nnz = u.row_start[rows] as usize;
    if u.col.len() < nnz || u.value.len() < nnz {
        return Err(Error::invalid(
            "col",
            format!("col and value must hold row_start[ndeg n_primitive] = {nnz} entries"),
        ));
    }
    for e in 0..nnz {
        if u.col[e] < 0 || u.col[e] as usize >= u.n_sym {
            return Err(Error::invalid_at("col", e, format!("must be in [0, n_sym = {}), got {}", u.n_sym, u.col[e])));
        }
        require_finite("value", Some(e), u.value[e])?;
    }
    let t = Csr {
        rows,
        cols: u.n_sym,
        start: memory::copy_of("the unfolding", u.row_start)?,
        col: memory::copy_of("the unfolding", &u.col[..nnz])?,
        value: memory::copy_of("the unfolding", &u.value[..nnz])?,
    };
    let projection = t.component_transposes(u.ndeg)?;
    Ok((t, projection))
}
