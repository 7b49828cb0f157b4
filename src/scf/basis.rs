//! Basis sets of the SCF family (paper dfratom-cudaprophet-scf.txt, §2.4 `$bas`, `$wtbs`):
//! spherical Gaussian radial functions R(r) = N r^l e^{-ζ r²} (ζ in bohr⁻²), one exponent list per
//! symmetry, either read in (`rdin`) or taken from well-tempered pools (`wtbs`).
//!
//! **Well-tempered pools.** Group g has parameters (α, β, γ, δ) (DFRATOM's input order is α, β,
//! δ, γ) and a pool of K exponents, the recursive form that published WTBS exponent lists follow:
//!
//! ```text
//! ζ_1 = α,   ζ_k = ζ_{k-1} β [1 + γ (k/K)^δ],   k = 2 … K,
//! ```
//!
//! with α > 0, β > 1, γ >= 0, δ > 0 (exponents then strictly ascending). Symmetry i takes
//! `nbs[i]` consecutive exponents of its group's pool from position `start[i]` (1-based, as the
//! namelist gives it); K is the largest `start + nbs - 1` over the group's symmetries.

use crate::error::{Error, Result};

/// Largest number of exponents of one symmetry (a 400 x 400 matrix per symmetry; DFRATOM's bases
/// stay under 60).
pub const MAX_FUNCTIONS: usize = 400;

/// Parameters of one well-tempered group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WtbsGroup {
    /// ζ_1 (bohr⁻², > 0).
    pub alpha: f64,
    /// Ratio between neighbours (> 1).
    pub beta: f64,
    /// Strength of the tempering (>= 0).
    pub gamma: f64,
    /// Power of the tempering (> 0).
    pub delta: f64,
}

/// Which pool positions each symmetry takes (the `$wtbs` namelist's `nbs`, `start`, `groups`).
#[derive(Clone, Debug, PartialEq)]
pub struct WtbsLayout {
    /// Exponents per symmetry (each in [1, MAX_FUNCTIONS]).
    pub nbs: Vec<usize>,
    /// First pool position per symmetry, 1-based.
    pub start: Vec<usize>,
    /// Group per symmetry, 1-based.
    pub groups: Vec<usize>,
}

/// (2n-1)!! for n >= 0 ((-1)!! = 1).
pub(crate) fn odd_double_factorial(n: u32) -> f64 {
    (1..=n).map(|k| (2 * k - 1) as f64).product()
}

fn positive(name: &'static str, value: f64, index: Option<usize>) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        let rule = format!("must be finite and > 0, got {value}");
        Err(index.map_or_else(|| Error::invalid(name, rule.clone()), |i| Error::invalid_at(name, i, rule.clone())))
    }
}

/// The K exponents of a pool (module docs), ascending.
pub fn wtbs_pool(group: &WtbsGroup, k: usize) -> Result<Vec<f64>> {
    positive("alpha", group.alpha, None)?;
    if !(group.beta.is_finite() && group.beta > 1.0) {
        return Err(Error::invalid("beta", format!("must be finite and > 1, got {}", group.beta)));
    }
    if !(group.gamma.is_finite() && group.gamma >= 0.0) {
        return Err(Error::invalid("gamma", format!("must be finite and >= 0, got {}", group.gamma)));
    }
    positive("delta", group.delta, None)?;
    let mut pool = Vec::with_capacity(k);
    let mut zeta = group.alpha;
    for i in 1..=k {
        if i > 1 {
            zeta *= group.beta * (1.0 + group.gamma * (i as f64 / k as f64).powf(group.delta));
        }
        if !zeta.is_finite() {
            return Err(Error::invalid("beta", format!("makes exponent {i} of {k} overflow")));
        }
        pool.push(zeta);
    }
    Ok(pool)
}

/// The exponents of every symmetry from well-tempered `groups` and `layout` (module docs).
pub fn wtbs_basis(groups: &[WtbsGroup], layout: &WtbsLayout) -> Result<Vec<Vec<f64>>> {
    let n_sym = layout.nbs.len();
    if n_sym == 0 {
        return Err(Error::invalid("nbs", "must name at least one symmetry"));
    }
    for (name, len) in [("start", layout.start.len()), ("groups", layout.groups.len())] {
        if len != n_sym {
            return Err(Error::invalid(name, format!("must hold one entry per symmetry ({n_sym}), got {len}")));
        }
    }
    let mut pool_size = vec![0usize; groups.len()];
    for i in 0..n_sym {
        let (nbs, start, group) = (layout.nbs[i], layout.start[i], layout.groups[i]);
        if nbs == 0 || nbs > MAX_FUNCTIONS {
            return Err(Error::invalid_at("nbs", i, format!("must be in [1, {MAX_FUNCTIONS}], got {nbs}")));
        }
        if start == 0 || start > MAX_FUNCTIONS {
            return Err(Error::invalid_at(
                "start",
                i,
                format!("must be in [1, {MAX_FUNCTIONS}] (1-based), got {start}"),
            ));
        }
        if group == 0 || group > groups.len() {
            return Err(Error::invalid_at(
                "groups",
                i,
                format!("must name one of the {} groups (1-based), got {group}", groups.len()),
            ));
        }
        pool_size[group - 1] = pool_size[group - 1].max(start + nbs - 1);
    }
    let pools = groups
        .iter()
        .zip(&pool_size)
        .enumerate()
        .map(|(i, (g, &k))| {
            wtbs_pool(g, k).map_err(|e| match e {
                Error::InvalidArgument { name, index: None, rule } => Error::invalid_at(name, i, rule),
                other => other,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((0..n_sym)
        .map(|i| {
            let s = layout.start[i] - 1;
            pools[layout.groups[i] - 1][s..s + layout.nbs[i]].to_vec()
        })
        .collect())
}

/// Checks a read-in exponent list (`rdin`): 1 to MAX_FUNCTIONS finite positive exponents, no two
/// equal (equal exponents make the overlap matrix singular).
pub fn check_exponents(name: &'static str, exponents: &[f64]) -> Result<()> {
    if exponents.is_empty() || exponents.len() > MAX_FUNCTIONS {
        return Err(Error::invalid(name, format!("must hold 1 to {MAX_FUNCTIONS} exponents, got {}", exponents.len())));
    }
    for (i, &z) in exponents.iter().enumerate() {
        positive(name, z, Some(i))?;
        if exponents[..i].contains(&z) {
            return Err(Error::invalid_at(name, i, format!("repeats the exponent {z}")));
        }
    }
    Ok(())
}
