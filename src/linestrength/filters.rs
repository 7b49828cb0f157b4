//! TROVE's intensity filters (dipole.f90: `intens_filter`, `energy_filter_lower`,
//! `energy_filter_upper`, `degeneracy_filter`), applied where the amplitudes are (on the GPU: on
//! the device, before anything is copied back), and the count of what they keep and drop.
//!
//! A pair (lower level i of block B'', upper level f of block B') of a line list is judged in this
//! order, and counted once, under the first rule it fails:
//!
//! 1. **rules** (TROVE's J range and `isym_pairs`): J'' and J' in [`LineFilters::j_range`] and,
//!    when [`LineFilters::gamma_pair`] is given, gamma' = gamma_pair[gamma''];
//! 2. **windows**: E'' - ZPE in `lower_energy`, E' - ZPE in `upper_energy`, nu = E' - E'' > 0
//!    and nu in `freq_window` ([`IntensityParams`]);
//! 3. **thresholds**: S >= THRESH_LINE and I >= THRESH_INTES, with
//!
//! ```text
//!   L = w sum_(d_I, d_F kept) a(f, d_F; i, d_I)^2                      Debye^2 (TROVE's linestr)
//!   S = g_ns (2J'+1)(2J''+1) L,   A = 3.1361892e-7 (2J''+1) L nu^3,   I = 4.1623797e-19 S nu
//!       e^(-c2 (E''-ZPE)/T) (1 - e^(-c2 nu/T)) / Q
//! ```
//! where the kept component pairs and the weight w (1/ndeg_I, or 1 with REDUCED) are the
//! [`ComponentRule`] of the pair. TROVE compares its THRESH_LINE with the sum of squares before
//! the division by ndeg_I and the nuclear-spin and (2J+1) factors; atomgpu compares it with S, as
//! its line lists always have (a threshold in TROVE's sense is THRESH_LINE / (w g_ns (2J'+1)(2J''+1))
//! here). A pair whose S, A or I is not finite is an error naming that output, never a line
//! dropped by a comparison with NaN.

use super::intensity::{absorption_intensity_at, beta, einstein_a};
use super::symmetry::{ComponentRule, MAX_DEGENERACY};
use super::{Block, IntensityParams, MAX_J};
use crate::error::{Error, Result};

/// The selection rules and component options of a line list (TROVE's INTENSITY block: `J`,
/// `selection` / `isym_pairs`, `reduced`), beside the windows and thresholds of
/// [`IntensityParams`].
#[derive(Clone, Debug, PartialEq)]
pub struct LineFilters {
    /// J'' and J' must both lie in [j_range[0], j_range[1]].
    pub j_range: [u32; 2],
    /// TROVE's REDUCED: only the upper component d_F = 0 is computed and the squares are not
    /// divided by ndeg_I (see [`ComponentRule`]).
    pub reduced: bool,
    /// Apply TROVE's `degeneracy_filter` of the handle's group between component pairs.
    pub degeneracy_filter: bool,
    /// The upper species allowed for each lower species (`gamma_pair[gamma'']`, 0-based; TROVE's
    /// `isym_pairs` less one); `None`: every species pair the caller's blocks form.
    pub gamma_pair: Option<Vec<u32>>,
}

impl Default for LineFilters {
    /// Every J, no REDUCED, every component pair, every species pair.
    fn default() -> Self {
        LineFilters { j_range: [0, MAX_J], reduced: false, degeneracy_filter: false, gamma_pair: None }
    }
}

impl LineFilters {
    /// Checks the filters against the handle's blocks (each lower species must have a partner
    /// entry) and group (the degeneracy filter needs one).
    pub(crate) fn check(&self, blocks: &[Block], has_group: bool) -> Result<()> {
        if self.j_range[0] > self.j_range[1] {
            return Err(Error::invalid(
                "j_range",
                format!("must be [min, max] with min <= max, got {:?}", self.j_range),
            ));
        }
        if self.degeneracy_filter && !has_group {
            return Err(Error::invalid(
                "degeneracy_filter",
                "needs the handle's symmetry group (set_group / atomgpu_linestrength_set_group)",
            ));
        }
        if let Some(pairs) = &self.gamma_pair {
            if let Some(b) = blocks.iter().find(|b| b.gamma as usize >= pairs.len()) {
                return Err(Error::invalid(
                    "gamma_pair",
                    format!(
                        "has {} entries, but a block has species {} (one entry per species needed)",
                        pairs.len(),
                        b.gamma
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Rule 1 of the module documentation for a pair of blocks.
    pub(crate) fn allows(&self, lower: &Block, upper: &Block) -> bool {
        let inside = |j: u32| j >= self.j_range[0] && j <= self.j_range[1];
        inside(lower.j)
            && inside(upper.j)
            && self.gamma_pair.as_ref().is_none_or(|p| p[lower.gamma as usize] == upper.gamma)
    }
}

/// How many pairs of levels a line list judged, and what it did with them (module documentation):
/// `pairs = dropped_by_rules + dropped_by_windows + dropped_by_thresholds + kept`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub pairs: u64,
    pub dropped_by_rules: u64,
    pub dropped_by_windows: u64,
    pub dropped_by_thresholds: u64,
    pub kept: u64,
}

impl LineCounts {
    /// Adds the counts of another list (of other blocks) to these.
    pub fn add(&mut self, other: &LineCounts) {
        self.pairs += other.pairs;
        self.dropped_by_rules += other.dropped_by_rules;
        self.dropped_by_windows += other.dropped_by_windows;
        self.dropped_by_thresholds += other.dropped_by_thresholds;
        self.kept += other.kept;
    }
}

/// A line list and its counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineList {
    pub lines: Vec<super::Line>,
    pub counts: LineCounts,
}

/// The constants of one (lower block, upper block) pair under one set of parameters: what the
/// CPU judge below and the device kernel `ls_lines` (kernels/linestrength.cu) both use. The
/// layout is the kernel's `LineRule`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineRule {
    pub n_upper: i64,
    pub n_levels: i64,
    pub ndeg_lower: i64,
    pub ndeg_upper: i64,
    /// Bit `d_I + 3 d_F` set when the component pair is kept.
    pub kept_mask: u64,
    pub weight: f64,
    /// g_ns (2J'+1)(2J''+1).
    pub degeneracy: f64,
    /// J''.
    pub j_lower: i64,
    pub zpe: f64,
    /// hc/(kT) in cm.
    pub beta: f64,
    pub partition_function: f64,
    pub freq_window: [f64; 2],
    pub lower_energy: [f64; 2],
    pub upper_energy: [f64; 2],
    pub thresh_line: f64,
    pub thresh_intens: f64,
}

/// What the judge decided for one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    Window,
    Threshold,
    /// (S, A, I) not all finite: the name of the first that is not, and its value.
    NotFinite(&'static str, f64),
    /// nu, S, A, I.
    Kept(f64, f64, f64, f64),
}

impl LineRule {
    /// The rule of the pair; `n_levels` (the batch's size) is set per batch.
    pub fn new(lower: &Block, upper: &Block, params: &IntensityParams, components: &ComponentRule) -> Self {
        let mut kept_mask = 0u64;
        for d_f in 0..upper.ndeg {
            for d_i in 0..lower.ndeg {
                if components.kept[d_i + MAX_DEGENERACY * d_f] {
                    kept_mask |= 1 << (d_i + MAX_DEGENERACY * d_f);
                }
            }
        }
        LineRule {
            n_upper: upper.energies.len() as i64,
            n_levels: 0,
            ndeg_lower: lower.ndeg as i64,
            ndeg_upper: upper.ndeg as i64,
            kept_mask,
            weight: components.weight,
            degeneracy: lower.gns * ((2 * lower.j + 1) as f64 * (2 * upper.j + 1) as f64),
            j_lower: lower.j as i64,
            zpe: params.zpe,
            beta: beta(params.temperature),
            partition_function: params.partition_function,
            freq_window: params.freq_window,
            lower_energy: params.lower_energy,
            upper_energy: params.upper_energy,
            thresh_line: params.thresh_line,
            thresh_intens: params.thresh_intens,
        }
    }

    /// The window rule (2) for one pair.
    pub fn inside_windows(&self, e_lower: f64, e_upper: f64) -> bool {
        let inside = |w: [f64; 2], x: f64| x >= w[0] && x <= w[1];
        let nu = e_upper - e_lower;
        nu > 0.0
            && inside(self.freq_window, nu)
            && inside(self.lower_energy, e_lower - self.zpe)
            && inside(self.upper_energy, e_upper - self.zpe)
    }

    /// The verdict on upper level f and batch level i, from the amplitudes of the batch
    /// (`n_upper x (ndeg_I n_levels ndeg_F)`, column `d_I + ndeg_I (i + n_levels d_F)`).
    pub fn judge(&self, amplitudes: &[f64], f: usize, i: usize, e_lower: f64, e_upper: f64) -> Verdict {
        if !self.inside_windows(e_lower, e_upper) {
            return Verdict::Window;
        }
        let (n_upper, n_levels) = (self.n_upper as usize, self.n_levels as usize);
        let (ndeg_i, ndeg_f) = (self.ndeg_lower as usize, self.ndeg_upper as usize);
        let mut sum = 0.0;
        for d_f in 0..ndeg_f {
            for d_i in 0..ndeg_i {
                if self.kept_mask >> (d_i + MAX_DEGENERACY * d_f) & 1 == 1 {
                    let a = amplitudes[f + n_upper * (d_i + ndeg_i * (i + n_levels * d_f))];
                    sum += a * a;
                }
            }
        }
        let squared = self.weight * sum;
        let nu = e_upper - e_lower;
        let linestrength = self.degeneracy * squared;
        let einstein_a = einstein_a(self.j_lower as u32, squared, nu);
        let intensity =
            absorption_intensity_at(linestrength, nu, e_lower - self.zpe, self.beta, self.partition_function);
        for (name, value) in [("linestrength", linestrength), ("einstein_a", einstein_a), ("intensity", intensity)] {
            if !value.is_finite() {
                return Verdict::NotFinite(name, value);
            }
        }
        if intensity >= self.thresh_intens && linestrength >= self.thresh_line {
            Verdict::Kept(nu, linestrength, einstein_a, intensity)
        } else {
            Verdict::Threshold
        }
    }
}

/// A kept line of one batch: upper level f, batch level i, nu, S, A, I. The layout is the
/// kernel's `RawLine`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RawLine {
    pub upper_state: i64,
    pub level: i64,
    pub wavenumber: f64,
    pub linestrength: f64,
    pub einstein_a: f64,
    pub intensity: f64,
}

/// The lines of one batch into one upper block, and the pairs dropped.
#[derive(Debug, Default)]
pub(crate) struct BatchLines {
    pub lines: Vec<RawLine>,
    pub dropped_by_windows: u64,
    pub dropped_by_thresholds: u64,
}

/// The CPU judge over a whole batch (the reference of the device kernel): pairs in the order
/// i, then f; the first pair that is not finite ends it with an error naming the output and the
/// pair (`describe(i, f)`).
pub(crate) fn judge_batch(
    rule: &LineRule,
    amplitudes: &[f64],
    lower_energies: &[f64],
    upper_energies: &[f64],
    describe: &dyn Fn(usize, usize) -> String,
) -> Result<BatchLines> {
    let mut out = BatchLines::default();
    for (i, &e_lower) in lower_energies.iter().enumerate() {
        for (f, &e_upper) in upper_energies.iter().enumerate() {
            match rule.judge(amplitudes, f, i, e_lower, e_upper) {
                Verdict::Window => out.dropped_by_windows += 1,
                Verdict::Threshold => out.dropped_by_thresholds += 1,
                Verdict::NotFinite(name, value) => return Err(not_finite(name, value, describe(i, f))),
                Verdict::Kept(nu, s, a, intensity) => {
                    crate::memory::reserve("the line list", &mut out.lines, 1)?;
                    out.lines.push(RawLine {
                        upper_state: f as i64,
                        level: i as i64,
                        wavenumber: nu,
                        linestrength: s,
                        einstein_a: a,
                        intensity,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The error for a line whose output `name` is `value`, not finite; `pair` says which line.
pub(crate) fn not_finite(name: &'static str, value: f64, pair: String) -> Error {
    Error::NotFinite { name, index: None, detail: format!("{value} for the line {pair}") }
}
