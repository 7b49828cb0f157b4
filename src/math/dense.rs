//! Small dense linear algebra: LU factorisation with partial pivoting, for the few-dozen-unknown
//! systems of implicit time steps (row-major `n x n` matrices).

/// LU factors of a square matrix (row-major) with the row permutation.
pub struct Lu {
    n: usize,
    factors: Vec<f64>,
    pivots: Vec<usize>,
}

impl Lu {
    /// Factorises the row-major `n x n` matrix `a` (PA = LU, Doolittle, partial pivoting).
    /// Returns `None` when a pivot is zero (singular to working precision).
    pub fn new(n: usize, mut a: Vec<f64>) -> Option<Lu> {
        assert_eq!(a.len(), n * n, "matrix must be n x n");
        let mut pivots = vec![0; n];
        for k in 0..n {
            let p = (k..n).max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))?;
            if a[p * n + k] == 0.0 {
                return None;
            }
            pivots[k] = p;
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
            }
            for i in k + 1..n {
                let l = a[i * n + k] / a[k * n + k];
                a[i * n + k] = l;
                for j in k + 1..n {
                    a[i * n + j] -= l * a[k * n + j];
                }
            }
        }
        Some(Lu { n, factors: a, pivots })
    }

    /// Solves A x = b in place.
    pub fn solve(&self, b: &mut [f64]) {
        let (n, a) = (self.n, &self.factors);
        for k in 0..n {
            b.swap(k, self.pivots[k]);
        }
        for i in 0..n {
            for j in 0..i {
                b[i] -= a[i * n + j] * b[j];
            }
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                b[i] -= a[i * n + j] * b[j];
            }
            b[i] /= a[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lu;

    /// A system that needs pivoting (zero first pivot), against the solution worked by hand:
    /// [[0, 2, 1], [1, 1, 1], [2, 1, 0]] x = (5, 4, 4) has x = (1, 2, 1).
    #[test]
    fn solves_a_pivoting_system() {
        let lu = Lu::new(3, vec![0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 0.0]).unwrap();
        let mut b = [5.0, 4.0, 4.0];
        lu.solve(&mut b);
        for (x, e) in b.iter().zip([1.0, 2.0, 1.0]) {
            assert!((x - e).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn singular_is_none() {
        assert!(Lu::new(2, vec![1.0, 2.0, 2.0, 4.0]).is_none());
    }
}
