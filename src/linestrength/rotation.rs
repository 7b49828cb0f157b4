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
//! 3 (2J+1) entries.

use super::rotsym::{self, RotationalBasis};
use crate::error::Result;
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
    /// ([`rotsym::contraction`], whose 3j cut is TROVE's `small_`, not `thresh_coeff`) when both
    /// blocks carry a rotational basis (the handle never pairs the two kinds).
    pub fn new(j: u32, lower: &Slots, jp: u32, upper: &Slots, thresh_coeff: f64) -> Self {
        if let (Some(lower_basis), Some(upper_basis)) = (&lower.basis, &upper.basis) {
            return rotsym::contraction(lower_basis, &lower.labels, upper_basis, &upper.labels);
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
}
