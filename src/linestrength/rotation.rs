//! Rotational factors of the half-linestrength in TROVE's conventions (paper eqs. 9, 13-14).
//!
//! A primitive rovibrational function is |v> |J, K, tau>, a vibrational function times a Wang
//! combination of symmetric-top functions (K >= 0, tau in {0, 1}). Between a lower function
//! (J, K, tau) and an upper one (J', K', tau') the rotational part of the dipole matrix element
//! reduces, as in TROVE's `do_1st_half_linestrength_III_symmvec` (dipole.f90), to one molecule-fixed
//! dipole component times the factor
//!
//! ```text
//!   f = (-1)^sigma' (-1)^(sigma + K) (J 1 J'; K, K'-K, -K') g,       sigma = (K mod 3) tau,
//!   K' = K:            component z,  g = tau' - tau
//!   K' != K, tau' != tau: component x,  g = (K' - K)(tau' - tau) / s
//!   K' != K, tau' = tau:  component y,  g = -1 / s
//! ```
//! with s = sqrt(2) when K K' != 0 and s = 1 otherwise, and f = 0 when |K' - K| > 1. The
//! dipole matrix element taken is `dipole(v, v', component)` (lower vibrational index first,
//! TROVE's `dipole_me(icontrI, icontrF, imu)`); the y matrix elements are TROVE's real ones (the
//! factor i of mu_y is absorbed into g as TROVE does: "I**(tauF-tauI) is equivalent to
//! I*(tauF-tauI)"). As in TROVE, a 3j symbol smaller in magnitude than the coefficient threshold
//! THRESH_COEFF is skipped.
//!
//! The factor depends only on (J, K, tau, J', K', tau'), so a block's functions are grouped by
//! their distinct (K, tau) pairs, its rotational *slots*; the half-linestrength is then three
//! dense products with the dipole matrix over the vibrational index followed by a contraction
//! over at most six lower slots per upper slot ([`Contraction`]). Blocks of TROVE's
//! rotational-symmetry route label their functions by symmetrised rotational functions instead
//! ([`super::rotsym`]); their slots are those labels and their contraction lists have up to
//! 3 (2J+1) entries. Their bases ([`RotationalBasis`], one per J) and factors are here too;
//! [`super::rotsym`] holds the route's calls of the handle.

use super::symmetry::MAX_DEGENERACY;
use crate::error::{require_finite, Error, Result};
use crate::math::gemm::{dgemm, Strided};
use crate::math::wigner::three_j_rank1;
use crate::memory;
use std::sync::Arc;

/// Cartesian molecule-fixed dipole components, in the order of the third index of the dipole
/// matrix `dipole_me(Nvib, Nvib, 3)`.
pub const COMPONENTS: usize = 3;
const X: usize = 0;
const Y: usize = 1;
const Z: usize = 2;

/// The distinct rotational labels of a block and the slot of each primitive function.
#[derive(Clone, Debug, PartialEq)]
pub struct Slots {
    /// The label of each slot, sorted: (K, tau) of a Wang function, or, with a `basis`, (level,
    /// component) of a symmetrised rotational function (TROVE's `irlevel - 1`, `irdeg - 1`).
    pub labels: Vec<(u32, u8)>,
    /// Slot index of each primitive function.
    pub of_function: Vec<u32>,
    /// The block's J's symmetrised rotational basis on the rotsym route; `None` for Wang labels.
    pub basis: Option<Arc<RotationalBasis>>,
}

impl Slots {
    /// Groups functions with Wang labels `k[p]`, `tau[p]` (already validated).
    pub fn new(k: &[u32], tau: &[u8]) -> Result<Self> {
        Self::grouped(k, tau, None)
    }

    /// Groups functions with labels (`first[p]`, `second[p]`) (already validated) of `basis`.
    pub fn grouped(first: &[u32], second: &[u8], basis: Option<Arc<RotationalBasis>>) -> Result<Self> {
        let mut labels =
            memory::collect("the block's rotational labels", first.iter().copied().zip(second.iter().copied()))?;
        labels.sort_unstable();
        labels.dedup();
        let of_function = memory::collect(
            "the block's rotational slots",
            first.iter().zip(second).map(|(&a, &b)| labels.binary_search(&(a, b)).expect("label was inserted") as u32),
        )?;
        Ok(Slots { labels, of_function, basis })
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when the block has no function.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// The rotational factor f and the dipole component coupling the lower function (j, k, tau) to
/// the upper one (jp, kp, taup), as in the module documentation; `None` when it vanishes or its
/// 3j symbol is below `thresh_coeff` in magnitude.
pub fn wang_factor(j: u32, k: u32, tau: u8, jp: u32, kp: u32, taup: u8, thresh_coeff: f64) -> Option<(usize, f64)> {
    let (k, kp) = (k as i32, kp as i32);
    if (kp - k).abs() > 1 {
        return None;
    }
    let three_j = three_j_rank1(j as i32, k, jp as i32, kp);
    if three_j.abs() < thresh_coeff || three_j == 0.0 {
        return None;
    }
    let (tau, taup) = (tau as i32, taup as i32);
    let scale = if k * kp != 0 { std::f64::consts::FRAC_1_SQRT_2 } else { 1.0 };
    let (component, g) = if kp == k {
        (Z, (taup - tau) as f64)
    } else if taup != tau {
        (X, ((kp - k) * (taup - tau)) as f64 * scale)
    } else {
        (Y, -scale)
    };
    if g == 0.0 {
        return None;
    }
    let sigma = (k % 3) * tau;
    let sigma_p = (kp % 3) * taup;
    let phase = if (sigma_p + sigma + k) % 2 == 0 { 1.0 } else { -1.0 };
    Some((component, phase * three_j * g))
}

/// For each upper slot, the lower slots it couples to: entries `start[s]..start[s + 1]` of
/// `lower_slot`, `component` and `factor` (the [`wang_factor`] of the pair).
#[derive(Clone, Debug, PartialEq)]
pub struct Contraction {
    pub start: Vec<u32>,
    pub lower_slot: Vec<u32>,
    pub component: Vec<u32>,
    pub factor: Vec<f64>,
}

impl Contraction {
    /// The table between a lower block (J = `j`, slots `lower`) and an upper one (`jp`, `upper`):
    /// from [`wang_factor`] for Wang labels, from the rotsym route's factors
    /// ([`symmetrised_contraction`], whose 3j cut is TROVE's `small_`, not `thresh_coeff`) when both
    /// blocks carry a rotational basis (the handle never pairs the two kinds).
    pub fn new(j: u32, lower: &Slots, jp: u32, upper: &Slots, thresh_coeff: f64) -> Self {
        if let (Some(lower_basis), Some(upper_basis)) = (&lower.basis, &upper.basis) {
            return symmetrised_contraction(lower_basis, &lower.labels, upper_basis, &upper.labels);
        }
        let mut table = Contraction { start: vec![0], lower_slot: vec![], component: vec![], factor: vec![] };
        for &(kp, taup) in &upper.labels {
            for (slot, &(k, tau)) in lower.labels.iter().enumerate() {
                if let Some((component, factor)) = wang_factor(j, k, tau, jp, kp, taup, thresh_coeff) {
                    table.lower_slot.push(slot as u32);
                    table.component.push(component as u32);
                    table.factor.push(factor);
                }
            }
            table.start.push(table.lower_slot.len() as u32);
        }
        table
    }
}

/// Largest J of a block: (2J'+1)(2J''+1) stays exact in 32-bit arithmetic.
pub const MAX_J: u32 = 32767;

/// Checks a block's J: in [0, [`MAX_J`]].
pub(crate) fn check_j(j: u32) -> Result<()> {
    if j > MAX_J {
        return Err(Error::invalid("j", format!("must be in [0, {MAX_J}], got {j}")));
    }
    Ok(())
}

/// Largest |E^T E - 1| element accepted for a rotational basis E_J.
pub const ORTHOGONALITY_TOLERANCE: f64 = 1e-10;

/// TROVE's `small_` (accuracy.f90: `epsilon(1d0)`): the 3j symbols of the route below it in
/// magnitude are skipped.
pub const SMALL: f64 = f64::EPSILON;

/// The symmetrised rotational basis of one J (validated).
#[derive(Debug, PartialEq)]
pub struct RotationalBasis {
    j: u32,
    /// E_J, `(2J+1) x (2J+1)`, column-major.
    e: Vec<f64>,
    /// Column of E_J of component d of each level (`count_index`), entries beyond its
    /// degeneracy unused.
    columns: Vec<[u32; MAX_DEGENERACY]>,
    /// Degenerate components of each level.
    ndeg: Vec<u8>,
}

impl RotationalBasis {
    /// Checks and keeps the basis of J = `j`: `e` holds E_J (`(2J+1)^2` values, column-major),
    /// `level_of_column[c]`, `deg_of_column[c]` (0-based) the level and component of column c.
    /// Rules: E_J finite and orthogonal (|E^T E - 1| <= [`ORTHOGONALITY_TOLERANCE`] elementwise);
    /// every level in [0, 2J+1) and component in [0, 3); each (level, component) once; the levels
    /// used are 0..L-1 and the components of each level are 0..ndeg-1 (TROVE's `count_index`).
    pub fn new(j: u32, e: &[f64], level_of_column: &[i32], deg_of_column: &[i32]) -> Result<Self> {
        check_j(j)?;
        let n = 2 * j as usize + 1;
        let size = memory::elements::<f64>("the rotational basis", n, n)?;
        if e.len() != size {
            return Err(Error::invalid(
                "e",
                format!("must hold (2J+1)^2 = {size} values for J = {j}, got {}", e.len()),
            ));
        }
        for (name, labels) in [("level_of_column", level_of_column), ("deg_of_column", deg_of_column)] {
            if labels.len() != n {
                return Err(Error::invalid(
                    name,
                    format!("must hold 2J+1 = {n} labels (one per column of E_J), got {}", labels.len()),
                ));
            }
        }
        for (i, &x) in e.iter().enumerate() {
            require_finite("e", Some(i), x)?;
        }
        check_orthogonal(e, n)?;
        let mut columns = memory::filled("the rotational basis", n, [u32::MAX; MAX_DEGENERACY])?;
        for c in 0..n {
            let (level, deg) = (level_of_column[c], deg_of_column[c]);
            if level < 0 || level as usize >= n {
                return Err(Error::invalid_at(
                    "level_of_column",
                    c,
                    format!("must be in [0, 2J+1 = {n}), got {level}"),
                ));
            }
            if !(0..MAX_DEGENERACY as i32).contains(&deg) {
                return Err(Error::invalid_at(
                    "deg_of_column",
                    c,
                    format!("must be in [0, {MAX_DEGENERACY}) (a component of a level), got {deg}"),
                ));
            }
            let slot = &mut columns[level as usize][deg as usize];
            if *slot != u32::MAX {
                return Err(Error::invalid_at(
                    "deg_of_column",
                    c,
                    format!("(level {level}, component {deg}) was given to column {} already", *slot),
                ));
            }
            *slot = c as u32;
        }
        let n_levels = columns.iter().rposition(|l| l.iter().any(|&c| c != u32::MAX)).map_or(0, |l| l + 1);
        columns.truncate(n_levels);
        let mut ndeg = memory::with_capacity("the rotational basis", n_levels)?;
        for (level, cols) in columns.iter().enumerate() {
            let count = cols.iter().take_while(|&&c| c != u32::MAX).count();
            if count == 0 || cols[count..].iter().any(|&c| c != u32::MAX) {
                return Err(Error::invalid(
                    "deg_of_column",
                    format!(
                        "level {level} must have components 0..ndeg-1 (the levels used are 0..L-1, each with its \
                         components numbered from 0), got columns {cols:?} (u32::MAX: none)"
                    ),
                ));
            }
            ndeg.push(count as u8);
        }
        Ok(RotationalBasis { j, e: memory::copy_of("the rotational basis", e)?, columns, ndeg })
    }

    /// J of the basis.
    pub fn j(&self) -> u32 {
        self.j
    }

    /// Number of rotational levels.
    pub fn n_levels(&self) -> usize {
        self.ndeg.len()
    }

    /// Degenerate components of `level`.
    pub fn ndeg(&self, level: usize) -> usize {
        self.ndeg[level] as usize
    }

    /// Column of E_J of component `deg` of `level` (`count_index`).
    fn column(&self, level: u32, deg: u8) -> usize {
        self.columns[level as usize][deg as usize] as usize
    }

    /// 2J+1.
    fn dimension(&self) -> usize {
        2 * self.j as usize + 1
    }
}

/// Checks |E^T E - 1| <= [`ORTHOGONALITY_TOLERANCE`] for the `n x n` matrix `e`.
fn check_orthogonal(e: &[f64], n: usize) -> Result<()> {
    let mut gram = memory::filled("the rotational basis", n * n, 0.0)?;
    dgemm(n, n, n, Strided::transposed(e, n), Strided::col_major(e, n), &mut gram, n);
    for a in 0..n {
        for b in 0..n {
            let deviation = (gram[a + n * b] - f64::from(a == b)).abs();
            if deviation > ORTHOGONALITY_TOLERANCE {
                return Err(Error::invalid(
                    "e",
                    format!(
                        "must be orthogonal (|E^T E - 1| <= {ORTHOGONALITY_TOLERANCE:e}): (E^T E)({a}, {b}) is off \
                         by {deviation:e}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// (K, tau) of Wang function `a` of J in TROVE's order: a = 0 is K = 0, tau = J mod 2; a = 2K - 1
/// + tau for K >= 1.
fn wang_label(j: u32, a: usize) -> (u32, u8) {
    if a == 0 {
        (0, (j % 2) as u8)
    } else {
        (a.div_ceil(2) as u32, ((a + 1) % 2) as u8)
    }
}

/// The contraction table of a rotsym pair: for each upper slot (level', deg') of `upper_labels`,
/// every lower slot (level, deg) of `lower_labels` and component m with a non-zero
/// W_m(level, deg; level', deg') = [E^T M_m E'](c, c') ([`super::rotsym`] documents the route). Each column of
/// M_m E' is formed once (M_m has at most six entries per column) and dotted with the lower
/// columns of E.
fn symmetrised_contraction(
    lower: &RotationalBasis,
    lower_labels: &[(u32, u8)],
    upper: &RotationalBasis,
    upper_labels: &[(u32, u8)],
) -> Contraction {
    let (n, np) = (lower.dimension(), upper.dimension());
    // M_m column by column: (row a, component m, factor) of each upper Wang function b.
    let wang: Vec<Vec<(usize, usize, f64)>> = (0..np)
        .map(|b| {
            let (kp, taup) = wang_label(upper.j, b);
            (0..n)
                .filter_map(|a| {
                    let (k, tau) = wang_label(lower.j, a);
                    wang_factor(lower.j, k, tau, upper.j, kp, taup, SMALL).map(|(m, f)| (a, m, f))
                })
                .collect()
        })
        .collect();
    let mut table = Contraction { start: vec![0], lower_slot: vec![], component: vec![], factor: vec![] };
    let mut column = vec![0.0; COMPONENTS * n];
    for &(level_p, deg_p) in upper_labels {
        let cp = upper.column(level_p, deg_p);
        let e_upper = &upper.e[cp * np..(cp + 1) * np];
        column.fill(0.0);
        for (b, entries) in wang.iter().enumerate() {
            for &(a, m, f) in entries {
                column[a + n * m] += f * e_upper[b];
            }
        }
        for (slot, &(level, deg)) in lower_labels.iter().enumerate() {
            let c = lower.column(level, deg);
            let e_lower = &lower.e[c * n..(c + 1) * n];
            for m in 0..COMPONENTS {
                let w: f64 = e_lower.iter().zip(&column[m * n..(m + 1) * n]).map(|(x, y)| x * y).sum();
                if w != 0.0 {
                    table.lower_slot.push(slot as u32);
                    table.component.push(m as u32);
                    table.factor.push(w);
                }
            }
        }
        table.start.push(table.lower_slot.len() as u32);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_follow_the_change_of_k_and_tau() {
        // TROVE's choice: dipole_me(:,:,3) for K' = K, (:,:,1) for tau' != tau, (:,:,2) for tau' = tau.
        assert_eq!(wang_factor(2, 1, 0, 2, 1, 1, 0.0).unwrap().0, Z);
        assert_eq!(wang_factor(2, 1, 0, 2, 2, 1, 0.0).unwrap().0, X);
        assert_eq!(wang_factor(2, 1, 0, 2, 2, 0, 0.0).unwrap().0, Y);
        assert!(wang_factor(2, 1, 0, 2, 1, 0, 0.0).is_none());
        assert!(wang_factor(2, 0, 0, 3, 2, 0, 0.0).is_none());
    }

    #[test]
    fn slots_are_the_distinct_labels() {
        let s = Slots::new(&[0, 1, 1, 0, 2], &[0, 1, 0, 0, 1]).unwrap();
        assert_eq!(s.labels, vec![(0, 0), (1, 0), (1, 1), (2, 1)]);
        assert_eq!(s.of_function, vec![0, 2, 1, 0, 3]);
    }

    #[test]
    fn wang_labels_follow_trove_order() {
        assert_eq!(wang_label(3, 0), (0, 1));
        assert_eq!(wang_label(2, 0), (0, 0));
        assert_eq!(wang_label(3, 1), (1, 0));
        assert_eq!(wang_label(3, 2), (1, 1));
        assert_eq!(wang_label(3, 5), (3, 0));
        assert_eq!(wang_label(3, 6), (3, 1));
    }

    #[test]
    fn bases_with_gaps_or_repeats_are_refused() {
        let identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert!(RotationalBasis::new(1, &identity, &[0, 0, 0], &[0, 1, 2]).is_ok());
        let repeat = RotationalBasis::new(1, &identity, &[0, 0, 1], &[0, 0, 0]).unwrap_err();
        assert!(repeat.to_string().contains("deg_of_column"), "{repeat}");
        let gap = RotationalBasis::new(1, &identity, &[0, 2, 2], &[0, 0, 1]).unwrap_err();
        assert!(gap.to_string().contains("level 1"), "{gap}");
        let skew = [1.0, 0.0, 0.0, 0.0, 1.0, 1e-9, 0.0, 0.0, 1.0];
        assert!(RotationalBasis::new(1, &skew, &[0, 1, 2], &[0, 0, 0]).unwrap_err().to_string().contains("orthogonal"));
    }
}
