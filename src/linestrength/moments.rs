//! Transition moments between J = 0 states: TROVE's TM action (dipole.f90:
//! `do_1st_half_tm_symmvec` and the TM branch of `dm_intensity_symmvec`).
//!
//! For a lower (initial) level I of a J = 0 block with ndeg_I components and an upper (final)
//! level F of a J = 0 block with ndeg_F components, with the primitive coefficients
//! `u^I_(d_I) = T_(d_I) c^I` and `u^F_(d_F) = T_(d_F) c^F` of their components ([`super::Unfolding`];
//! TROVE's `vec` and `dtemp0`), the vibrational transition moment of dipole component m
//! (x, y, z) is
//!
//! ```text
//!   tm(m, d_I, d_F) = sum_q u^F_(d_F)(q) sum_p u^I_(d_I)(p) dipole(v_p, v_q, m)        Debye
//!   |TM|            = sqrt( sum_(m, d_I, d_F) tm(m, d_I, d_F)^2 )                        Debye
//!   A_vib           = A_coef |TM|^2 |nu|^3                                               s^-1
//!   I               = |TM|^2 I_coef |nu| e^(-c2 (E_I - ZPE)/T) (1 - e^(-c2 |nu|/T)) / Q   cm/molecule
//! ```
//! with nu = E_F - E_I and A_coef, I_coef, c2 those of [`IntensityParams::convention`]
//! ([`super::intensity`]). As TROVE does for TM: every species pair is computed (TROVE sets
//! `isym_pairs` and `isym_groups` to 1), g_ns is 1 (no nuclear-spin or (2J+1) factor), no
//! THRESH_COEFF screening of the lower coefficients and no THRESH_LINE; a pair is kept when
//! E_I - ZPE lies in `lower_energy`, E_F - ZPE in `upper_energy`, nu in `freq_window`,
//! nu >= -small_ (so the diagonal pairs I = F, the permanent moments, are included) and
//! **|TM| >= THRESH_INTES**: TROVE compares the transition moment itself, in Debye, with the
//! intensity threshold (`if (linestr>=intensity%threshold%intensity)` with linestr = |TM|). These
//! rules are TROVE's in both conventions; the convention picks the constants.
//!
//! The products are those of the line lists: the lower batch's `Y = M^T X` (eq. 14's first
//! product, one column per component), then per dipole component m a contraction table with the
//! single entry (m, factor 1) in place of the rotational factors, and the upper projection and
//! completion GEMM of eq. 15, on the CPU or the GPU.

use super::filters::{LineCounts, SMALL};
use super::intensity::{beta, boltzmann_factor, Action};
use super::rotation::{Contraction, COMPONENTS};
use super::symmetry::MAX_DEGENERACY;
use super::{Engine, IntensityParams, LineStrength, LowerVectors, TableKey};
use crate::error::{Error, Result};
use crate::memory;
use crate::progress::Tracker;
use std::sync::Arc;

/// Entries of [`TransitionMoment::components`]: 3 x 3 x 3.
pub const TM_COMPONENTS: usize = COMPONENTS * MAX_DEGENERACY * MAX_DEGENERACY;

/// The transition moment of one pair of J = 0 levels (module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransitionMoment {
    /// ExoMol IDs of the final (upper) and initial (lower) states.
    pub upper_id: i64,
    pub lower_id: i64,
    /// Block and state (0-based) of each end.
    pub upper_block: usize,
    pub upper_state: usize,
    pub lower_block: usize,
    pub lower_state: usize,
    /// nu = E_F - E_I in cm^-1 (>= -small_).
    pub wavenumber: f64,
    /// |TM| in Debye.
    pub moment: f64,
    /// A_vib in s^-1.
    pub einstein_a: f64,
    /// Absorption intensity in cm/molecule.
    pub intensity: f64,
    /// Components of the two levels.
    pub ndeg_lower: usize,
    pub ndeg_upper: usize,
    /// tm(m, d_I, d_F) in Debye at `m + 3 (d_I + 3 d_F)` (TROVE's `tm_deg(imu, idegI, idegF)`),
    /// zero for d_I >= ndeg_lower or d_F >= ndeg_upper.
    pub components: [f64; TM_COMPONENTS],
}

/// The transition moments of a lower block and their counts (`dropped_by_rules` is 0: TM
/// computes every species pair).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MomentList {
    pub moments: Vec<TransitionMoment>,
    pub counts: LineCounts,
}

/// The contraction table key of dipole component m between `lower` and `upper`: the thresholds'
/// place holds `u64::MAX - m`, a NaN's bits, which no THRESH_COEFF (finite, >= 0) has.
fn component_key(lower: usize, upper: usize, m: usize) -> TableKey {
    (lower, upper, u64::MAX - m as u64)
}

/// The table that picks dipole component m with factor 1 between two J = 0 blocks (one slot each).
fn component_table(m: usize) -> Contraction {
    Contraction { start: vec![0, 1], lower_slot: vec![0], component: vec![m as u32], factor: vec![1.0] }
}

impl LineStrength {
    /// The transition moments (TROVE's TM action, module documentation) from the stored states of
    /// the J = 0 block `lower` into the stored states of the J = 0 blocks `uppers`, ordered by
    /// lower state, then upper block (its position in `uppers`), then upper state. `params.action`
    /// must be [`Action::Tm`]; `thresh_line`, `thresh_coeff` are not used. Computed in batches of
    /// `params.batch` lower states (progress: lower states done, task
    /// "atomgpu_linestrength_transition_moments"); afterwards no lower batch is loaded.
    pub fn transition_moments(
        &mut self,
        lower: usize,
        uppers: &[usize],
        params: &IntensityParams,
    ) -> Result<MomentList> {
        super::intensity::check_params(params)?;
        if params.action != Action::Tm {
            return Err(Error::invalid(
                "action",
                format!(
                    "must be TM for transition moments, got {:?} (line lists give absorption and emission)",
                    params.action
                ),
            ));
        }
        let lb = self.block("lower_block", lower)?;
        if lb.j != 0 || lb.energies.is_empty() {
            return Err(Error::invalid(
                "lower_block",
                format!("must be a J = 0 block with states (TROVE's TM is for J = 0 only), block {lower} has J = {} and {} states", lb.j, lb.energies.len()),
            ));
        }
        for (i, &u) in uppers.iter().enumerate() {
            let b = self.blocks.get(u).ok_or_else(|| {
                Error::invalid_at("upper_blocks", i, format!("must be a block index below {}", self.blocks.len()))
            })?;
            if b.j != 0 || b.energies.is_empty() {
                return Err(Error::invalid_at(
                    "upper_blocks",
                    i,
                    format!(
                        "must be a J = 0 block with states (TM is for J = 0 only), block {u} has J = {} and {} states",
                        b.j,
                        b.energies.len()
                    ),
                ));
            }
        }
        let mut tracker = Tracker::start(c"atomgpu_linestrength_transition_moments");
        let n_lower = self.blocks[lower].energies.len();
        let result = self.moments_of_lower(lower, uppers, params, &mut tracker);
        self.end_line_list(&[]);
        let list = result?;
        tracker.finish(n_lower as f64)?;
        Ok(list)
    }

    fn moments_of_lower(
        &mut self,
        lower: usize,
        uppers: &[usize],
        params: &IntensityParams,
        tracker: &mut Tracker,
    ) -> Result<MomentList> {
        let constants = params.convention.constants();
        let beta = beta(&constants, params.temperature);
        let inside = |w: [f64; 2], x: f64| x >= w[0] && x <= w[1];
        let n_lower = self.blocks[lower].energies.len();
        let states: Vec<usize> = memory::collect("the lower states", 0..n_lower)?;
        let tables: Vec<Arc<Contraction>> = (0..COMPONENTS).map(|m| Arc::new(component_table(m))).collect();
        let mut list = MomentList::default();
        for batch in states.chunks(params.batch) {
            self.lower = None;
            let lb = &self.blocks[lower];
            match &mut self.engine {
                Engine::Cpu(team) => team[0].load_lower(lower, lb, LowerVectors::Stored(batch), 0.0)?,
                Engine::Cuda(team) => team[0].load_lower(lower, lb, LowerVectors::Stored(batch), 0.0)?,
            }
            let (n, ndeg_i) = (batch.len(), lb.ndeg);
            for &u in uppers {
                let ub = &self.blocks[u];
                let mut amplitudes = Vec::new();
                for (m, table) in tables.iter().enumerate() {
                    let a = match &mut self.engine {
                        Engine::Cpu(team) => team[0].amplitudes(u, ub, table)?,
                        Engine::Cuda(team) => team[0].amplitudes(component_key(lower, u, m), ub, table)?,
                    };
                    memory::reserve("the transition moments", &mut amplitudes, 1)?;
                    amplitudes.push(a);
                }
                let (n_upper, ndeg_f) = (ub.energies.len(), ub.ndeg);
                for (i, &s) in batch.iter().enumerate() {
                    let e_i = lb.energies[s];
                    for (f, &e_f) in ub.energies.iter().enumerate() {
                        list.counts.pairs += 1;
                        let nu = e_f - e_i;
                        if !(nu >= -SMALL
                            && inside(params.freq_window, nu)
                            && inside(params.lower_energy, e_i - params.zpe)
                            && inside(params.upper_energy, e_f - params.zpe))
                        {
                            list.counts.dropped_by_windows += 1;
                            continue;
                        }
                        let mut components = [0.0; TM_COMPONENTS];
                        let mut sum = 0.0;
                        for d_f in 0..ndeg_f {
                            for d_i in 0..ndeg_i {
                                for (m, a) in amplitudes.iter().enumerate() {
                                    let tm = a[f + n_upper * (d_i + ndeg_i * (i + n * d_f))];
                                    components[m + COMPONENTS * (d_i + MAX_DEGENERACY * d_f)] = tm;
                                    sum += tm * tm;
                                }
                            }
                        }
                        let moment = sum.sqrt();
                        let anu = nu.abs();
                        let squared = moment * moment;
                        let einstein_a = constants.einstein_a_coefficient * squared * (anu * anu * anu);
                        let intensity = squared
                            * constants.intensity_coefficient
                            * boltzmann_factor(nu, e_i - params.zpe, beta, params.partition_function);
                        for (name, value) in [("moment", moment), ("einstein_a", einstein_a), ("intensity", intensity)]
                        {
                            if !value.is_finite() {
                                return Err(Error::NotFinite {
                                    name,
                                    index: None,
                                    detail: format!("{value} for the moment from state {s} of block {lower} to state {f} of block {u}"),
                                });
                            }
                        }
                        if moment < params.thresh_intens {
                            list.counts.dropped_by_thresholds += 1;
                            continue;
                        }
                        list.counts.kept += 1;
                        memory::reserve("the transition moments", &mut list.moments, 1)?;
                        list.moments.push(TransitionMoment {
                            upper_id: self.state_id(u, f),
                            lower_id: self.state_id(lower, s),
                            upper_block: u,
                            upper_state: f,
                            lower_block: lower,
                            lower_state: s,
                            wavenumber: nu,
                            moment,
                            einstein_a,
                            intensity,
                            ndeg_lower: ndeg_i,
                            ndeg_upper: ndeg_f,
                            components,
                        });
                    }
                }
            }
            tracker.update((batch[batch.len() - 1] + 1) as f64, n_lower as f64)?;
        }
        let uppers_pos = |b: usize| uppers.iter().position(|&u| u == b);
        list.moments.sort_by_key(|t| (t.lower_state, uppers_pos(t.upper_block), t.upper_state));
        Ok(list)
    }
}
