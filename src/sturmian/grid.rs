//! The radial grid of a basis (paper §3.1-3.2): Nq Gauss-Legendre abscissas r_1 < … < r_Nq of
//! [0, Rmax] with their weights (the outer integrals, eq. 19), the extended set
//! T = {r_1, …, r_Nq, Rmax} (eq. 24), and Ns equally spaced Simpson points inside each interval
//! [r_k, r_(k+1)] of T (the inner integrals, eq. 23): Nq + 1 + Nq·Ns points in all.
//!
//! **Point order** (the rows of every basis array): radially ascending,
//!
//! ```text
//! r_1, s_(1,1) … s_(1,Ns), r_2, s_(2,1) … s_(2,Ns), …, r_Nq, s_(Nq,1) … s_(Nq,Ns), Rmax
//! s_(k,i) = r_k + i (r_(k+1) - r_k) / (Ns + 1),   i = 1 … Ns,
//! ```
//!
//! so Gauss point k (0-based) is row k (Ns + 1) and Rmax is the last row. Radii in bohr.
//! Ns must be odd: each interval then holds Ns + 1 (even) Simpson sub-intervals.

use crate::error::{require_finite, Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use crate::memory;

/// Largest Nq (the Gauss-Legendre generator's limit) and Ns accepted.
pub const MAX_NQ: usize = 1024;
pub const MAX_NS: usize = 1023;

/// The quadrature grid shared by all channels of a basis.
#[derive(Clone, Debug)]
pub struct Grid {
    rmax: f64,
    ns: usize,
    abscissas: Vec<f64>,
    weights: Vec<f64>,
    points: Vec<f64>,
}

impl Grid {
    /// The Nq-point Gauss-Legendre rule on [0, `rmax`] (bohr) with `ns` Simpson points per interval.
    pub fn gauss_legendre(rmax: f64, nq: usize, ns: usize) -> Result<Grid> {
        check_rmax(rmax)?;
        if nq == 0 || nq > MAX_NQ {
            return Err(Error::invalid("nq", format!("must be in [1, {MAX_NQ}], got {nq}")));
        }
        let rule = GaussLegendre::new(nq).map_err(|e| Error::invalid("nq", e.to_string()))?;
        let (abscissas, weights) = rule.on_interval(0.0, rmax);
        Grid::new(rmax, ns, &abscissas, &weights)
    }

    /// A grid from the caller's own abscissas (strictly increasing inside (0, `rmax`)) and
    /// weights (finite, > 0), e.g. those its code already uses.
    pub fn new(rmax: f64, ns: usize, abscissas: &[f64], weights: &[f64]) -> Result<Grid> {
        check_rmax(rmax)?;
        if ns.is_multiple_of(2) || ns > MAX_NS {
            return Err(Error::invalid("ns", format!("must be odd and in [1, {MAX_NS}], got {ns}")));
        }
        let nq = abscissas.len();
        if nq == 0 || nq > MAX_NQ || weights.len() != nq {
            return Err(Error::invalid("nq", format!("must be in [1, {MAX_NQ}] with one weight per abscissa")));
        }
        let mut previous = 0.0;
        for (j, &r) in abscissas.iter().enumerate() {
            require_finite("abscissas", Some(j), r)?;
            if r <= previous || r >= rmax {
                return Err(Error::invalid_at(
                    "abscissas",
                    j,
                    format!("must increase strictly inside (0, rmax = {rmax}), got {r} after {previous}"),
                ));
            }
            previous = r;
        }
        for (j, &w) in weights.iter().enumerate() {
            if !(w.is_finite() && w > 0.0) {
                return Err(Error::invalid_at("weights", j, format!("must be finite and > 0, got {w}")));
            }
        }
        let n_points = nq * (ns + 1) + 1;
        let mut points = memory::with_capacity("the grid points", n_points)?;
        for k in 0..nq {
            let (a, b) = (abscissas[k], if k + 1 < nq { abscissas[k + 1] } else { rmax });
            points.push(a);
            points.extend((1..=ns).map(|i| a + i as f64 * (b - a) / (ns + 1) as f64));
        }
        points.push(rmax);
        Ok(Grid {
            rmax,
            ns,
            abscissas: memory::copy_of("the abscissas", abscissas)?,
            weights: memory::copy_of("the weights", weights)?,
            points,
        })
    }

    /// Rmax in bohr.
    pub fn rmax(&self) -> f64 {
        self.rmax
    }

    /// Number of Gauss-Legendre abscissas Nq.
    pub fn nq(&self) -> usize {
        self.abscissas.len()
    }

    /// Simpson points per interval Ns.
    pub fn ns(&self) -> usize {
        self.ns
    }

    /// The Gauss-Legendre abscissas r_j (bohr).
    pub fn abscissas(&self) -> &[f64] {
        &self.abscissas
    }

    /// The Gauss-Legendre weights w_j (bohr).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// All Nq + 1 + Nq·Ns points in the order of the module docs (bohr).
    pub fn points(&self) -> &[f64] {
        &self.points
    }

    /// Nq + 1 + Nq·Ns.
    pub fn n_points(&self) -> usize {
        self.points.len()
    }

    /// Row of Gauss point `j` (0-based) among [`Self::points`].
    pub fn gauss_row(&self, j: usize) -> usize {
        j * (self.ns + 1)
    }

    /// Weights of the inner integrals for multipole `l`, as the stable form of eqs. 23-24:
    ///
    /// ```text
    /// g(r_j) = r_j^l ∫_{r_j}^{Rmax} u^(-l-1) f(u) du = h_j + (r_j / r_(j+1))^l g(r_(j+1)),  g(Rmax) = 0,
    /// h_j    = ∫_{r_j}^{r_(j+1)} (r_j / u)^l u^(-1) f(u) du ≈ Σ_i c_(j,i) f(p_(j,i)),
    /// ```
    ///
    /// with Simpson's rule on the Ns + 2 points p_(j,0) = r_j … p_(j,Ns+1) = r_(j+1). Returns
    /// (c: Nq × (Ns + 2), c[j (Ns+2) + i]; ratio: Nq values (r_j / r_(j+1))^l), in 1/bohr·bohr = 1.
    /// The ratios are ≤ 1, so nothing overflows for any l (r_j^l and u^(-l-1) separately would).
    pub fn inner_weights(&self, l: u32) -> (Vec<f64>, Vec<f64>) {
        let (nq, ns) = (self.nq(), self.ns);
        let per = ns + 2;
        let mut c = vec![0.0; nq * per];
        let mut ratio = vec![0.0; nq];
        for j in 0..nq {
            let row = self.gauss_row(j);
            let (a, b) = (self.points[row], self.points[row + ns + 1]);
            let step = (b - a) / (ns + 1) as f64;
            for i in 0..per {
                let simpson = if i == 0 || i == per - 1 {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                let u = self.points[row + i];
                c[j * per + i] = simpson * step / 3.0 * (a / u).powi(l as i32) / u;
            }
            ratio[j] = (a / b).powi(l as i32);
        }
        (c, ratio)
    }
}

fn check_rmax(rmax: f64) -> Result<()> {
    if rmax.is_finite() && rmax > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid("rmax", format!("must be finite and > 0 bohr, got {rmax}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: ∫_r^R u^(-l-1) u^(l+3) du = (R³ - r³)/3 for f(u) = u^(l+3) (a cubic times u^l:
    /// Simpson is exact for cubics once the (r/u)^l u^-1 weight cancels the power), so
    /// g(r_j) = r_j^l (R³ - r_j³)/3.
    #[test]
    fn inner_weights_integrate_a_power_exactly() {
        let grid = Grid::gauss_legendre(10.0, 16, 3).unwrap();
        for l in [0u32, 1, 4] {
            let (c, ratio) = grid.inner_weights(l);
            let mut g = 0.0;
            for j in (0..grid.nq()).rev() {
                let row = grid.gauss_row(j);
                let h: f64 = (0..grid.ns() + 2)
                    .map(|i| c[j * (grid.ns() + 2) + i] * grid.points()[row + i].powi(l as i32 + 3))
                    .sum();
                g = h + ratio[j] * g;
                let r = grid.abscissas()[j];
                let exact = r.powi(l as i32) * (1000.0 - r.powi(3)) / 3.0;
                assert!((g - exact).abs() <= 1e-11 * exact.abs().max(1.0), "l {l} j {j}: {g} vs {exact}");
            }
        }
    }

    #[test]
    fn points_are_ordered_with_gauss_rows() {
        let grid = Grid::gauss_legendre(5.0, 7, 5).unwrap();
        assert_eq!(grid.n_points(), 7 + 1 + 7 * 5);
        assert!(grid.points().windows(2).all(|w| w[0] < w[1]));
        for j in 0..7 {
            assert_eq!(grid.points()[grid.gauss_row(j)], grid.abscissas()[j]);
        }
        assert_eq!(*grid.points().last().unwrap(), 5.0);
        assert!(Grid::gauss_legendre(5.0, 7, 4).is_err());
    }
}
