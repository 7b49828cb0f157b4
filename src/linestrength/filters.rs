//! TROVE's intensity filters (dipole.f90: `intens_filter`, `energy_filter_lower`,
//! `energy_filter_upper`, `degeneracy_filter`), applied where the amplitudes are (on the GPU: on
//! the device, before anything is copied back), and the count of what they keep and drop.
//!
//! A pair (lower level i of block B'', upper level f of block B') of a line list is judged in this
//! order, and counted once, under the first rule it fails. [`IntensityParams::convention`] picks
//! atomgpu's documented rules ([`Convention::Documented`], the default) or TROVE's own
//! ([`Convention::Trove`], `dm_intensity_symmvec` and `intens_filter` of dipole.f90); small_ is
//! TROVE's `epsilon(1d0)` = 2.220446049250313e-16.
//!
//! 1. **rules** (whole block pairs, nothing computed; [`LineFilters::allows`]):
//!    - documented: J'' and J' both in [`LineFilters::j_range`] = [j_min, j_max];
//!    - TROVE: TROVE loads J in {0} U [max(j_min, 1), j_max]; the pair needs J'' >= j_min, J'
//!      loaded, not (J'' = J' = j_min), and g_ns(B'') >= small_;
//!
//!    and, in both, |J' - J''| <= 1, J' + J'' >= 1 (checked on the arguments), and when
//!    [`LineFilters::gamma_pair`] is given, gamma' = gamma_pair[gamma''];
//! 2. **windows**: E'' - ZPE in `lower_energy`, E' - ZPE in `upper_energy`, nu in `freq_window`,
//!    and nu > 0 (documented) or nu >= -small_ (TROVE), with nu = E' - E'' ([`IntensityParams`]);
//!    for [`Action::Emission`] the lower block holds the emitting states I and the upper block
//!    the final states F: E_I - ZPE in `lower_energy`, E_F - ZPE in `upper_energy`, nu = E_I - E_F
//!    (TROVE's `intens_filter` for EMISSION);
//! 3. **thresholds**: THRESH_LINE, then I >= THRESH_INTES, then (TROVE) A > small_, with
//!
//! ```text
//!   R = sum_(d_I, d_F kept) a(f, d_F; i, d_I)^2                  Debye^2 (TROVE's linestr before division)
//!   L = R / ndeg_I  (R with REDUCED)                             Debye^2 (TROVE's linestr)
//!   S = g_ns (2J'+1)(2J''+1) L,   A = A_coef (2J_A+1) L nu^3,   I = I_coef S |nu| e^(-c2 (E''-ZPE)/T) (1 - e^(-c2 |nu|/T)) / Q
//! ```
//! where J_A = J'' (absorption) or J_F (emission), the kept component pairs are the
//! [`ComponentRule`] of the pair, and for emission I is the emissivity of [`super::intensity`]
//! (with E_I in the exponent). THRESH_LINE is compared with S (documented: S >= THRESH_LINE) or,
//! as TROVE does, with the raw sum R before the division by ndeg_I and before g_ns (2J'+1)(2J''+1)
//! (TROVE: R >= THRESH_LINE). TROVE writes a line to its `.trans` file only when A > small_; in
//! TROVE mode lines with A <= small_ are dropped here (counted with the thresholds). TROVE's
//! `degeneracy_filter` acts only with REDUCED: in TROVE mode it is applied exactly when
//! [`LineFilters::reduced`] is set (and the handle has a group), whatever
//! [`LineFilters::degeneracy_filter`] says; in the documented mode it is applied when
//! `degeneracy_filter` is set. A pair whose S, A or I is not finite is an error naming that
//! output, never a line dropped by a comparison with NaN.

use super::intensity::{beta, boltzmann_factor, Action, Convention};
use super::symmetry::{ComponentRule, MAX_DEGENERACY};
use super::{Block, IntensityParams, MAX_J};
use crate::error::{Error, Result};

/// The selection rules and component options of a line list (TROVE's INTENSITY block: `J`,
/// `selection` / `isym_pairs`, `reduced`), beside the windows and thresholds of
/// [`IntensityParams`].
#[derive(Clone, Debug, PartialEq)]
pub struct LineFilters {
    /// [j_min, j_max]: both J in it (documented), or TROVE's J rule (module documentation).
    pub j_range: [u32; 2],
    /// TROVE's REDUCED: only the upper component d_F = 0 is computed and the squares are not
    /// divided by ndeg_I (see [`ComponentRule`]).
    pub reduced: bool,
    /// Apply TROVE's `degeneracy_filter` of the handle's group between component pairs (documented
    /// convention; with [`Convention::Trove`] the filter follows `reduced`, as in TROVE).
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
    pub(crate) fn check(&self, blocks: &[Block], has_group: bool, convention: Convention) -> Result<()> {
        if self.j_range[0] > self.j_range[1] {
            return Err(Error::invalid(
                "j_range",
                format!("must be [min, max] with min <= max, got {:?}", self.j_range),
            ));
        }
        if convention == Convention::Documented && self.degeneracy_filter && !has_group {
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

    /// Rule 1 of the module documentation for a pair of blocks (J' within 1 of J'', J + J' >= 1).
    pub(crate) fn allows(&self, lower: &Block, upper: &Block, convention: Convention) -> bool {
        let [j_min, j_max] = self.j_range;
        let js = match convention {
            Convention::Documented => {
                let inside = |j: u32| j >= j_min && j <= j_max;
                inside(lower.j) && inside(upper.j)
            }
            Convention::Trove => {
                let loaded = |j: u32| j == 0 || (j >= j_min.max(1) && j <= j_max);
                lower.j >= j_min
                    && loaded(lower.j)
                    && loaded(upper.j)
                    && !(lower.j == j_min && upper.j == j_min)
                    && lower.gns >= SMALL
            }
        };
        js && self.gamma_pair.as_ref().is_none_or(|p| p[lower.gamma as usize] == upper.gamma)
    }

    /// Whether TROVE's degeneracy filter applies (module documentation).
    pub(crate) fn filters_components(&self, convention: Convention) -> bool {
        match convention {
            Convention::Documented => self.degeneracy_filter,
            Convention::Trove => self.reduced,
        }
    }
}

/// TROVE's small_ = epsilon(1d0).
pub const SMALL: f64 = f64::EPSILON;

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
    /// Bit 0 ([`MODE_TROVE`]): TROVE's rules; bit 1 ([`MODE_EMISSION`]): an emission list.
    pub mode: u64,
    /// L = R / divisor: ndeg_I, or 1 with REDUCED.
    pub divisor: f64,
    /// g_ns of the lower block.
    pub gns: f64,
    /// (2J'+1)(2J''+1).
    pub rotational: f64,
    /// A_coef (2J_A+1): J_A = J'' for absorption, J' (the final state) for emission.
    pub einstein_factor: f64,
    /// I_coef.
    pub intensity_coefficient: f64,
    /// Emission: h c g_ns (2J''+1) / (4 pi), erg cm sr^-1 (the emissivity is A nu times it times
    /// the Boltzmann factor over Q).
    pub emission_factor: f64,
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

/// [`LineRule::mode`] bit: TROVE's rules.
pub(crate) const MODE_TROVE: u64 = 1;
/// [`LineRule::mode`] bit: emission.
pub(crate) const MODE_EMISSION: u64 = 2;

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
        let constants = params.convention.constants();
        let emission = params.action == Action::Emission;
        let mut mode = 0;
        if params.convention == Convention::Trove {
            mode |= MODE_TROVE;
        }
        if emission {
            mode |= MODE_EMISSION;
        }
        let j_a = if emission { upper.j } else { lower.j };
        LineRule {
            n_upper: upper.energies.len() as i64,
            n_levels: 0,
            ndeg_lower: lower.ndeg as i64,
            ndeg_upper: upper.ndeg as i64,
            kept_mask,
            mode,
            // w = 1 (REDUCED or one component) or 1/ndeg_I: TROVE divides by ndeg_I.
            divisor: if components.weight == 1.0 { 1.0 } else { lower.ndeg as f64 },
            gns: lower.gns,
            rotational: (2 * lower.j + 1) as f64 * (2 * upper.j + 1) as f64,
            einstein_factor: constants.einstein_a_coefficient * (2 * j_a + 1) as f64,
            intensity_coefficient: constants.intensity_coefficient,
            emission_factor: constants.planck * constants.light_speed * lower.gns * (2 * lower.j + 1) as f64
                / (4.0 * std::f64::consts::PI),
            zpe: params.zpe,
            beta: beta(&constants, params.temperature),
            partition_function: params.partition_function,
            freq_window: params.freq_window,
            lower_energy: params.lower_energy,
            upper_energy: params.upper_energy,
            thresh_line: params.thresh_line,
            thresh_intens: params.thresh_intens,
        }
    }

    /// nu of the pair: E' - E'', or E_I - E_F for emission (the lower side holds I).
    pub fn wavenumber(&self, e_lower: f64, e_upper: f64) -> f64 {
        if self.mode & MODE_EMISSION != 0 {
            e_lower - e_upper
        } else {
            e_upper - e_lower
        }
    }

    /// The window rule (2) for one pair.
    pub fn inside_windows(&self, e_lower: f64, e_upper: f64) -> bool {
        let inside = |w: [f64; 2], x: f64| x >= w[0] && x <= w[1];
        let nu = self.wavenumber(e_lower, e_upper);
        let direction = if self.mode & MODE_TROVE != 0 { nu >= -SMALL } else { nu > 0.0 };
        direction
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
        let trove = self.mode & MODE_TROVE != 0;
        let squared = sum / self.divisor;
        let nu = self.wavenumber(e_lower, e_upper);
        let anu = nu.abs();
        // TROVE's order of the products (dm_intensity_symmvec).
        let linestrength = squared * self.gns * self.rotational;
        let einstein_a = self.einstein_factor * squared * (anu * anu * anu);
        let intensity = if self.mode & MODE_EMISSION != 0 {
            einstein_a * self.emission_factor * anu * (-(e_lower - self.zpe) * self.beta).exp()
                / self.partition_function
        } else {
            linestrength
                * self.intensity_coefficient
                * boltzmann_factor(nu, e_lower - self.zpe, self.beta, self.partition_function)
        };
        for (name, value) in [("linestrength", linestrength), ("einstein_a", einstein_a), ("intensity", intensity)] {
            if !value.is_finite() {
                return Verdict::NotFinite(name, value);
            }
        }
        let line_quantity = if trove { sum } else { linestrength };
        if line_quantity >= self.thresh_line && intensity >= self.thresh_intens && (!trove || einstein_a > SMALL) {
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
