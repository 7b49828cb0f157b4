//! The periodic (cyclic) tridiagonal solve of the hybrid scheme (paper eqs. 11-16): the Thomas
//! algorithm with the Sherman-Morrison formula, for the constant-coefficient systems that the
//! θ-correction gives on one (x, ρ) ring (diagonal b, both off-diagonals and both corners a).
//!
//! With γ = −b, u = (γ, 0, …, 0, a)ᵀ and v = (1, 0, …, 0, a/γ)ᵀ, A = B + u vᵀ where B is the
//! tridiagonal matrix with B₀₀ = 2b and B_{n−1,n−1} = b + a²/b (eq. 12). Then
//! h = y − q (vᵀy)/(1 + vᵀq) with B y = d and B q = u (eq. 13; the paper prints vᵀy in the
//! denominator, which is a misprint of the Sherman-Morrison formula). Both tridiagonal solves share
//! one forward elimination (eq. 15) and back substitution (eq. 16). The CUDA kernel
//! (`kernels/tdse.cu`, `stage_implicit_march`) solves the same system through a factorisation into
//! two first-order cyclic recurrences, each a parallel scan over the ring.

use num_complex::Complex64 as C64;

/// Solves A h = d in place for the cyclic tridiagonal A of order n = `rhs.len()` ≥ 3 with
/// diagonal `b` and off-diagonals and corners `a`. `c_prime` and `q` are scratch of length n.
/// A must be diagonally dominant (|b| > 2|a|), as the hybrid scheme's systems are.
pub fn solve_cyclic(b: C64, a: C64, rhs: &mut [C64], c_prime: &mut [C64], q: &mut [C64]) {
    let n = rhs.len();
    let gamma = -b;
    let diag = |k: usize| {
        if k == 0 {
            b - gamma
        } else if k == n - 1 {
            b - a * a / gamma
        } else {
            b
        }
    };
    // Forward elimination (eq. 15) for d (in rhs) and u (in q) together.
    let d0 = diag(0);
    c_prime[0] = a / d0;
    rhs[0] /= d0;
    q[0] = gamma / d0;
    for k in 1..n {
        let den = diag(k) - a * c_prime[k - 1];
        c_prime[k] = a / den;
        rhs[k] = (rhs[k] - a * rhs[k - 1]) / den;
        let u_k = if k == n - 1 { a } else { C64::new(0.0, 0.0) };
        q[k] = (u_k - a * q[k - 1]) / den;
    }
    // Back substitution (eq. 16).
    for k in (0..n - 1).rev() {
        let next = rhs[k + 1];
        rhs[k] -= c_prime[k] * next;
        let next = q[k + 1];
        q[k] -= c_prime[k] * next;
    }
    // Sherman-Morrison (eq. 13).
    let v_last = a / gamma;
    let factor = (rhs[0] + v_last * rhs[n - 1]) / (1.0 + q[0] + v_last * q[n - 1]);
    for k in 0..n {
        rhs[k] -= factor * q[k];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Residual check: A h − d computed from the definition of A, independent of the solver.
    #[test]
    fn the_solution_satisfies_the_cyclic_system() {
        for n in [3usize, 4, 8, 37, 128] {
            let sigma = C64::new(0.0, 3.7);
            let (b, a) = (1.0 + 2.0 * sigma, -sigma);
            let d: Vec<C64> = (0..n).map(|k| C64::new((k as f64 * 0.7).sin(), (k as f64 * 1.3).cos())).collect();
            let mut h = d.clone();
            let (mut c, mut q) = (vec![C64::default(); n], vec![C64::default(); n]);
            solve_cyclic(b, a, &mut h, &mut c, &mut q);
            for k in 0..n {
                let ax = b * h[k] + a * (h[(k + 1) % n] + h[(k + n - 1) % n]);
                assert!((ax - d[k]).norm() < 1e-12, "n = {n}, row {k}: residual {}", (ax - d[k]).norm());
            }
        }
    }
}
