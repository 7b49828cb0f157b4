//! Pulay's direct inversion in the iterative subspace (DIIS; P. Pulay, Chem. Phys. Lett. 73 (1980)
//! 393; J. Comput. Chem. 3 (1982) 556) for the SCF of [`super::solver`].
//!
//! Each cycle n gives the coupling operator R_n of every symmetry (the matrix whose eigenvectors are
//! the next orbitals) and its error e_n: the blocks of R_n between orbitals of different occupation
//! classes (negative-energy, closed, open, virtual), which vanish exactly when the energy is
//! stationary. Both are stored in each symmetry's fixed orthonormal basis X (XᵀSX = 1), where
//! operators of different cycles can be added. The extrapolated operator is R* = Σ c_i R_i with
//! the c_i minimising |Σ c_i e_i|² subject to Σ c_i = 1: the linear system
//!   [B  −1] [c]   [ 0]
//!   [−1  0] [λ] = [−1],   B_ij = Σ_symmetries ⟨e_i, e_j⟩ (Frobenius).
//! When B is singular to working precision (the errors have become linearly dependent, as they
//! do near convergence) the oldest vectors are dropped until it is not.

use crate::math::dense::Lu;
use faer::Mat;
use std::collections::VecDeque;

/// The operators and errors of the last cycles (one matrix per symmetry each).
pub(crate) struct Diis {
    capacity: usize,
    operators: VecDeque<Vec<Mat<f64>>>,
    errors: VecDeque<Vec<Mat<f64>>>,
    /// overlaps[i][j] = <e_i, e_j> for j <= i (the B matrix before scaling): each cycle adds
    /// one row, so B costs n inner products per cycle, not n²/2.
    overlaps: VecDeque<Vec<f64>>,
}

fn inner(a: &[Mat<f64>], b: &[Mat<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (0..x.ncols()).map(|j| (0..x.nrows()).map(|i| x[(i, j)] * y[(i, j)]).sum::<f64>()).sum::<f64>())
        .sum()
}

impl Diis {
    /// A subspace of at most `capacity` (≥ 1) cycles.
    pub(crate) fn new(capacity: usize) -> Self {
        Diis { capacity, operators: VecDeque::new(), errors: VecDeque::new(), overlaps: VecDeque::new() }
    }

    /// Forgets the oldest cycle.
    fn drop_oldest(&mut self) {
        self.operators.pop_front();
        self.errors.pop_front();
        self.overlaps.pop_front();
        for row in &mut self.overlaps {
            row.remove(0);
        }
    }

    /// Adds cycle n's operators and errors and returns the extrapolated operators.
    pub(crate) fn extrapolate(&mut self, operators: Vec<Mat<f64>>, errors: Vec<Mat<f64>>) -> Vec<Mat<f64>> {
        if self.operators.len() == self.capacity {
            self.drop_oldest();
        }
        self.overlaps.push_back(self.errors.iter().chain([&errors]).map(|e| inner(e, &errors)).collect());
        self.operators.push_back(operators);
        self.errors.push_back(errors);
        while self.operators.len() > 1 {
            if let Some(c) = self.coefficients() {
                return self.combine(&c);
            }
            self.drop_oldest();
        }
        self.operators[0].clone()
    }

    /// The c_i of the module docs, or None when B is singular to working precision.
    fn coefficients(&self) -> Option<Vec<f64>> {
        let n = self.errors.len();
        let mut b = vec![0.0; (n + 1) * (n + 1)];
        let scale = (0..n).map(|i| self.overlaps[i][i]).fold(0.0f64, f64::max);
        if scale <= 0.0 || !scale.is_finite() {
            return None;
        }
        for i in 0..n {
            for j in 0..=i {
                let v = self.overlaps[i][j] / scale;
                b[i * (n + 1) + j] = v;
                b[j * (n + 1) + i] = v;
            }
            b[i * (n + 1) + n] = -1.0;
            b[n * (n + 1) + i] = -1.0;
        }
        let lu = Lu::new(n + 1, b)?;
        let mut rhs = vec![0.0; n + 1];
        rhs[n] = -1.0;
        lu.solve(&mut rhs);
        rhs.truncate(n);
        // A near-singular B gives huge coefficients of alternating sign: refuse those too.
        let largest = rhs.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        (largest.is_finite() && largest < 1e8).then_some(rhs)
    }

    fn combine(&self, c: &[f64]) -> Vec<Mat<f64>> {
        let mut out: Vec<Mat<f64>> = self.operators[0].iter().map(|m| Mat::zeros(m.nrows(), m.ncols())).collect();
        for (ci, operators) in c.iter().zip(&self.operators) {
            for (o, m) in out.iter_mut().zip(operators) {
                *o += m * faer::Scale(*ci);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_errors_of_opposite_sign_are_mixed_to_cancel() {
        // e_1 = +a, e_2 = −a/3: the combination c_1 e_1 + c_2 e_2 = 0 with c_1 + c_2 = 1 is
        // c = (1/4, 3/4) (closed form), and R* = c_1 R_1 + c_2 R_2.
        let e1 = Mat::from_fn(2, 2, |i, j| if i != j { 0.3 } else { 0.0 });
        let e2 = Mat::from_fn(2, 2, |i, j| if i != j { -0.1 } else { 0.0 });
        let r1 = Mat::from_fn(2, 2, |i, j| (i + 2 * j) as f64);
        let r2 = Mat::from_fn(2, 2, |i, j| 1.0 + (i * j) as f64);
        let mut d = Diis::new(4);
        d.extrapolate(vec![r1.clone()], vec![e1]);
        let out = d.extrapolate(vec![r2.clone()], vec![e2]);
        for i in 0..2 {
            for j in 0..2 {
                let expected = 0.25 * r1[(i, j)] + 0.75 * r2[(i, j)];
                assert!((out[0][(i, j)] - expected).abs() < 1e-14, "{i} {j}: {} vs {expected}", out[0][(i, j)]);
            }
        }
    }

    #[test]
    fn identical_errors_fall_back_to_the_newest_operator() {
        let e = Mat::from_fn(2, 2, |i, j| if i != j { 0.2 } else { 0.0 });
        let (r1, r2) = (Mat::from_fn(2, 2, |_, _| 1.0), Mat::from_fn(2, 2, |_, _| 2.0));
        let mut d = Diis::new(3);
        d.extrapolate(vec![r1], vec![e.clone()]);
        let out = d.extrapolate(vec![r2], vec![e]);
        assert!((0..2).all(|i| (0..2).all(|j| out[0][(i, j)] == 2.0)));
    }
}
