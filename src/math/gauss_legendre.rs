//! N-point Gauss-Legendre quadrature, computed by the Golub-Welsch algorithm and polished by
//! Newton's method.
//!
//! The rule is
//!
//! ```text
//! ∫_{-1}^{1} f(t) dt ≈ Σ_{j=1}^{N} w_j f(t_j),
//! ```
//!
//! exact when f is a polynomial of degree ≤ 2N - 1. Nodes t_j and weights w_j are
//! dimensionless.
//!
//! **Golub-Welsch** (paper `degenerate-rates-quadrature-gpu`, §3.1-3.2, eqs. 23-26). The nodes
//! are the eigenvalues of the N×N symmetric tridiagonal Jacobi matrix J of the Legendre
//! polynomials,
//!
//! ```text
//! J_{ii} = α_i = 0,    J_{i,i+1} = J_{i+1,i} = β_i = i / sqrt(4 i² - 1),   i = 1 .. N-1,
//! ```
//!
//! and the weights are `w_j = μ_0 q_{1j}²`, where `q_{1j}` is the first component of the j-th
//! normalized eigenvector and `μ_0 = ∫_{-1}^{1} dt = 2`. (The paper prints eq. 26 as
//! `β_i = 1/sqrt(1 - (2i)²)`, which is imaginary, and omits the factor μ_0 from eq. 24; the
//! forms above are the standard ones.) The eigenproblem is solved here by an implicit QL
//! iteration with Wilkinson shifts that accumulates only the first row of the eigenvector
//! matrix, which is all the weights need.
//!
//! **Polishing.** Eigenvalues carry absolute errors of a few ulps of ‖J‖ ≈ 1 and the
//! eigenvector weights up to ~1e-10 relative (N = 1024), so each node is refined by two Newton
//! steps on `P_N(t)` (three-term recurrence, evaluated in double-double arithmetic), and its
//! weight recomputed from the closed form
//!
//! ```text
//! w_j = 2 / ((1 - t_j²) P_N'(t_j)²),
//! ```
//!
//! which gives nodes and weights to about 1e-15 relative for every N up to 1024. Symmetry is
//! exact: `t_j = -t_{N+1-j}`, equal weights, and the middle node of an odd rule is exactly 0.

use thiserror::Error;

/// Largest number of nodes accepted by [`GaussLegendre::new`].
const MAX_NODES: usize = 1024;

/// Newton steps on P_N applied to each Golub-Welsch eigenvalue. The eigenvalue is already
/// within a few ulps of the root, so one step reaches the root to rounding and the second
/// confirms it.
const NEWTON_STEPS: usize = 2;

/// QL iterations allowed per eigenvalue. With Wilkinson shifts the iteration converges
/// cubically; for every N in 1..=1024 the Legendre Jacobi matrix needs at most 6 iterations for
/// any eigenvalue (checked). The cap only guarantees termination.
const MAX_QL_ITERATIONS: usize = 30;

/// Error building a quadrature rule.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum QuadratureError {
    /// The requested number of nodes is 0 or larger than 1024.
    #[error("number of Gauss-Legendre nodes {0} is outside 1..=1024")]
    NodeCount(usize),
}

/// N-point Gauss-Legendre rule on [-1, 1]: nodes in ascending order and their weights.
#[derive(Debug, Clone, PartialEq)]
pub struct GaussLegendre {
    nodes: Vec<f64>,
    weights: Vec<f64>,
}

impl GaussLegendre {
    /// Builds the `n`-point rule, `1 <= n <= 1024`.
    ///
    /// Nodes come from the Golub-Welsch eigenvalues, polished by Newton's method on `P_n`;
    /// weights from `2 / ((1 - t²) P_n'(t)²)` at the polished nodes. The nodes `t < 0` are
    /// computed and mirrored to `t > 0`.
    ///
    /// # Errors
    ///
    /// [`QuadratureError::NodeCount`] if `n` is 0 or larger than 1024.
    pub fn new(n: usize) -> Result<Self, QuadratureError> {
        if !(1..=MAX_NODES).contains(&n) {
            return Err(QuadratureError::NodeCount(n));
        }
        let (eigenvalues, eigen_weights) = golub_welsch(n);
        let mut nodes = vec![0.0; n];
        let mut weights = vec![0.0; n];
        // Ascending eigenvalues: the first n/2 are the negative nodes; for odd n the middle node
        // is exactly 0 (P_n(0) = 0 exactly in the recurrence, so it needs no polishing).
        for i in 0..n.div_ceil(2) {
            let t = if 2 * i + 1 == n { 0.0 } else { newton_polish(n, eigenvalues[i]) };
            let w = weight_at_root(n, t);
            debug_assert!(
                (w - eigen_weights[i]).abs() <= 1e-9 * w,
                "Golub-Welsch weight {} disagrees with the polished weight {w} (n = {n}, node {i})",
                eigen_weights[i]
            );
            // Mirror first, so that the middle node of an odd rule stays +0.0.
            nodes[n - 1 - i] = -t;
            nodes[i] = t;
            weights[n - 1 - i] = w;
            weights[i] = w;
        }
        Ok(Self { nodes, weights })
    }

    /// Number of nodes N.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a rule has at least one node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Nodes t_j on [-1, 1], ascending.
    pub fn nodes(&self) -> &[f64] {
        &self.nodes
    }

    /// Weights w_j for the interval [-1, 1] (they sum to 2), in node order.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// ∫_a^b f(x) dx ≈ Σ_j W_j f(x_j), with the nodes and weights of [`Self::on_interval`]:
    /// `x_j = (a+b)/2 + (b-a)/2 · t_j`, `W_j = (b-a)/2 · w_j`. Terms are summed in ascending node
    /// order, so the result is bit-for-bit `Σ W_j f(x_j)` over `on_interval(a, b)`. The result
    /// has the units of f times the units of x; `b < a` gives minus the integral over [b, a].
    pub fn integrate<F: FnMut(f64) -> f64>(&self, a: f64, b: f64, mut f: F) -> f64 {
        let (center, half) = (0.5 * (a + b), 0.5 * (b - a));
        let mut sum = 0.0;
        for (&t, &w) in self.nodes.iter().zip(&self.weights) {
            sum += half * w * f(center + half * t);
        }
        sum
    }

    /// Nodes and weights mapped affinely to [a, b]: `x_j = (a+b)/2 + (b-a)/2 · t_j`,
    /// `W_j = (b-a)/2 · w_j` (units of x).
    pub fn on_interval(&self, a: f64, b: f64) -> (Vec<f64>, Vec<f64>) {
        let (center, half) = (0.5 * (a + b), 0.5 * (b - a));
        let nodes = self.nodes.iter().map(|&t| center + half * t).collect();
        let weights = self.weights.iter().map(|&w| half * w).collect();
        (nodes, weights)
    }
}

/// Golub-Welsch: eigenvalues of the Legendre Jacobi matrix (zero diagonal, off-diagonal
/// `β_i = i / sqrt(4 i² - 1)`) in ascending order, with the weights `2 q_{1j}²`.
fn golub_welsch(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut diagonal = vec![0.0; n];
    // off_diagonal[i] couples rows i and i+1 (0-based), i.e. β_{i+1}; the last entry is
    // workspace for the QL iteration and starts at 0.
    let mut off_diagonal: Vec<f64> = (1..=n)
        .map(|i| {
            if i == n {
                0.0
            } else {
                let i = i as f64;
                i / (4.0 * i * i - 1.0).sqrt()
            }
        })
        .collect();
    let mut first_row = vec![0.0; n];
    first_row[0] = 1.0;
    symmetric_tridiagonal_ql(&mut diagonal, &mut off_diagonal, &mut first_row);

    let mut pairs: Vec<(f64, f64)> = diagonal.into_iter().zip(first_row).map(|(t, q)| (t, 2.0 * q * q)).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    pairs.into_iter().unzip()
}

/// Implicit QL iteration with Wilkinson shifts for a real symmetric tridiagonal matrix.
///
/// On entry `d` is the diagonal, `e[i]` couples rows i and i+1 (`e[n-1]` is workspace), and
/// `z` is the first row of the matrix whose columns the rotations act on (the first row of
/// the identity, to get eigenvector first components). On exit `d` holds the eigenvalues (not
/// sorted), `z[j]` the first component of the normalized eigenvector of `d[j]`, and `e` is
/// destroyed.
///
/// For each l, the unreduced block l..=m is found (off-diagonal `|e[m]| <= ε (|d[m]| + |d[m+1]|)`
/// counts as zero), shifted by the eigenvalue of the 2×2 block `[[d_l, e_l], [e_l, d_{l+1}]]`
/// nearer to `d_l`, and swept by plane rotations from the bottom up (chasing the bulge), until
/// `e[l]` is negligible.
fn symmetric_tridiagonal_ql(d: &mut [f64], e: &mut [f64], z: &mut [f64]) {
    let n = d.len();
    for l in 0..n {
        for _ in 0..MAX_QL_ITERATIONS {
            let mut m = l;
            while m + 1 < n && e[m].abs() > f64::EPSILON * (d[m].abs() + d[m + 1].abs()) {
                m += 1;
            }
            if m == l {
                break;
            }
            // Wilkinson shift: σ = d_l - e_l / (g ± sqrt(g² + 1)), g = (d_{l+1} - d_l) / (2 e_l),
            // sign chosen to avoid cancellation.
            let g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let shift = d[l] - e[l] / (g + g.hypot(1.0).copysign(g));
            let mut g = d[m] - shift;
            let (mut s, mut c, mut p) = (1.0, 1.0, 0.0);
            let mut rotation_underflow = false;
            for i in (l..m).rev() {
                let f = s * e[i];
                let b = c * e[i];
                let r = f.hypot(g);
                e[i + 1] = r;
                if r == 0.0 {
                    // The rotation vanished: the matrix split at i+1; restart on the smaller block.
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    rotation_underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                let h = d[i + 1] - p;
                let t = (d[i] - h) * s + 2.0 * c * b;
                p = s * t;
                d[i + 1] = h + p;
                g = c * t - b;
                let z_next = z[i + 1];
                z[i + 1] = s * z[i] + c * z_next;
                z[i] = c * z[i] - s * z_next;
            }
            if !rotation_underflow {
                d[l] -= p;
                e[l] = g;
                e[m] = 0.0;
            }
        }
    }
}

/// Double-double number `hi + lo` with `|lo| <= ulp(hi)/2`: about 106 significant bits.
type DoubleDouble = (f64, f64);

/// `a + b` exactly as `s + e`, s = fl(a + b), for `|a| >= |b|` (Dekker).
fn fast_two_sum(a: f64, b: f64) -> DoubleDouble {
    let s = a + b;
    (s, b - (s - a))
}

/// `a + b` exactly as `s + e`, s = fl(a + b), any order of magnitude (Knuth).
fn two_sum(a: f64, b: f64) -> DoubleDouble {
    let s = a + b;
    let b_virtual = s - a;
    (s, (a - (s - b_virtual)) + (b - b_virtual))
}

/// `a - b` in double-double; absolute error about ε² (|a| + |b|).
fn dd_sub(a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    let (s, e) = two_sum(a.0, -b.0);
    fast_two_sum(s, e + (a.1 - b.1))
}

/// `a · b` for a double-double a and a double b (product error from a fused multiply-add).
fn dd_mul(a: DoubleDouble, b: f64) -> DoubleDouble {
    let p = a.0 * b;
    let e = a.0.mul_add(b, -p);
    fast_two_sum(p, a.1.mul_add(b, e))
}

/// `a / b` for a double-double a and a double b.
fn dd_div(a: DoubleDouble, b: f64) -> DoubleDouble {
    let q = a.0 / b;
    let p = q * b;
    let e = q.mul_add(b, -p);
    let remainder = ((a.0 - p) - e) + a.1;
    fast_two_sum(q, remainder / b)
}

/// `(P_n(x), P_{n-1}(x))`, `n >= 1`, by the recurrence
/// `(k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}`, `P_0 = 1`, `P_1 = x`.
///
/// Run in double-double and rounded at the end: in plain double precision the recurrence
/// loses about 1e-12 relative near x = ±1 for n = 1024, which would limit the outermost
/// weights to that accuracy.
fn legendre_pair(n: usize, x: f64) -> (f64, f64) {
    let (mut previous, mut current): (DoubleDouble, DoubleDouble) = ((1.0, 0.0), (x, 0.0));
    for k in 1..n {
        let k = k as f64;
        let next = dd_div(dd_sub(dd_mul(dd_mul(current, x), 2.0 * k + 1.0), dd_mul(previous, k)), k + 1.0);
        previous = current;
        current = next;
    }
    (current.0, previous.0)
}

/// `(P_n(x), P_n'(x), 1 - x²)` for |x| < 1, with `P_n'(x) = n (P_{n-1}(x) - x P_n(x)) / (1 - x²)`
/// and `1 - x²` formed as `(1 - x)(1 + x)` (no cancellation near ±1).
fn legendre_with_derivative(n: usize, x: f64) -> (f64, f64, f64) {
    let (p, p_previous) = legendre_pair(n, x);
    let one_minus_x2 = (1.0 - x) * (1.0 + x);
    (p, n as f64 * (p_previous - x * p) / one_minus_x2, one_minus_x2)
}

/// Refines `seed`, close to a root of `P_n`, by [`NEWTON_STEPS`] steps `x ← x - P_n(x)/P_n'(x)`.
fn newton_polish(n: usize, seed: f64) -> f64 {
    let mut x = seed;
    for _ in 0..NEWTON_STEPS {
        let (p, dp, _) = legendre_with_derivative(n, x);
        x -= p / dp;
    }
    x
}

/// Gauss-Legendre weight `w(r) = 2 / ((1 - r²) P_n'(r)²)` at the root r of `P_n` that `x`
/// approximates to about an ulp.
///
/// The remaining `δ = r - x ≈ -P_n(x) / P_n'(x)` is not negligible near ±1: there
/// `d ln w / dx = -2x / (1 - x²)` (at a root, Legendre's equation gives
/// `(1 - x²) P_n'' = 2x P_n'`), so for n = 1024 half an ulp of x moves the outermost weight by
/// ~2e-11 relative. The first-order correction `w(r) = w(x) (1 - 2x δ / (1 - x²))` removes it.
fn weight_at_root(n: usize, x: f64) -> f64 {
    let (p, dp, one_minus_x2) = legendre_with_derivative(n, x);
    let delta = -p / dp;
    2.0 / (one_minus_x2 * dp * dp) * (1.0 - 2.0 * x * delta / one_minus_x2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(n: usize) -> GaussLegendre {
        GaussLegendre::new(n).unwrap()
    }

    /// The 32-point rule on [0, 1] from the paper's Appendix C, Table 3 ("The nodes and weights,
    /// as defined for use in Equation (22), for 32-point Gaussian quadrature"), printed to about
    /// 8 significant digits: (x_j, w_j).
    const PAPER_TABLE_3: [(f64, f64); 32] = [
        (1.36806908E-03, 3.50930500E-03),
        (7.19424423E-03, 8.13719737E-03),
        (1.76188722E-02, 1.26960327E-02),
        (3.25469620E-02, 1.71369315E-02),
        (5.18394221E-02, 2.14179490E-02),
        (7.53161931E-02, 2.54990296E-02),
        (1.02758102E-01, 2.93420467E-02),
        (1.33908941E-01, 3.29111114E-02),
        (1.68477867E-01, 3.61728971E-02),
        (2.06142121E-01, 3.90969479E-02),
        (2.46550046E-01, 4.16559621E-02),
        (2.89324362E-01, 4.38260465E-02),
        (3.34065699E-01, 4.55869393E-02),
        (3.80356319E-01, 4.69221995E-02),
        (4.27764019E-01, 4.78193600E-02),
        (4.75846167E-01, 4.82700443E-02),
        (5.24153833E-01, 4.82700443E-02),
        (5.72235981E-01, 4.78193600E-02),
        (6.19643681E-01, 4.69221995E-02),
        (6.65934301E-01, 4.55869393E-02),
        (7.10675638E-01, 4.38260465E-02),
        (7.53449954E-01, 4.16559621E-02),
        (7.93857879E-01, 3.90969479E-02),
        (8.31522133E-01, 3.61728971E-02),
        (8.66091059E-01, 3.29111114E-02),
        (8.97241898E-01, 2.93420467E-02),
        (9.24683807E-01, 2.54990296E-02),
        (9.48160578E-01, 2.14179490E-02),
        (9.67453038E-01, 1.71369315E-02),
        (9.82381128E-01, 1.26960327E-02),
        (9.92805756E-01, 8.13719737E-03),
        (9.98631931E-01, 3.50930500E-03),
    ];

    #[test]
    fn matches_paper_appendix_c_table_3() {
        let (nodes, weights) = rule(32).on_interval(0.0, 1.0);
        for (j, (&(x_ref, w_ref), (&x, &w))) in PAPER_TABLE_3.iter().zip(nodes.iter().zip(&weights)).enumerate() {
            assert!((x - x_ref).abs() <= 6e-9, "node {j}: {x} vs table {x_ref}");
            assert!((w - w_ref).abs() <= 2e-8 * w_ref, "weight {j}: {w} vs table {w_ref}");
        }
    }

    #[test]
    fn integrates_monomials_up_to_degree_2n_minus_1_exactly() {
        let (a, b) = (-0.7_f64, 2.3_f64);
        for n in [1, 2, 3, 7, 32, 64, 100] {
            let gl = rule(n);
            for k in 0..2 * n {
                let k_int = k as i32;
                let exact = (b.powi(k_int + 1) - a.powi(k_int + 1)) / (k as f64 + 1.0);
                let quad = gl.integrate(a, b, |x| x.powi(k_int));
                assert!((quad - exact).abs() <= 1e-13 * exact.abs(), "n = {n}, x^{k}: {quad} vs {exact}");
            }
        }
    }

    /// Degree 2N is not exact, and the error is the Gauss remainder: for x^{2N} on [a, b],
    /// `∫ - Q = (b-a)^{2N+1} (N!)^4 / ((2N+1) ((2N)!)^3) · f^{(2N)} = (b-a)^{2N+1} (N!)^4 / ((2N+1) ((2N)!)^2)`.
    /// Also `Q[P_N²] = 0` (the nodes are the roots of P_N) while `∫_{-1}^{1} P_N² = 2/(2N+1)`.
    #[test]
    fn degree_2n_is_not_exact_and_error_is_the_gauss_remainder() {
        let n = 5;
        let gl = rule(n);
        let (a, b) = (-0.7_f64, 2.3_f64);
        let exact = (b.powi(11) - a.powi(11)) / 11.0;
        let quad = gl.integrate(a, b, |x| x.powi(10));
        let factorial = |m: u32| (1..=m).map(f64::from).product::<f64>();
        let remainder = (b - a).powi(11) * factorial(5).powi(4) / (11.0 * factorial(10).powi(2));
        assert!((exact - quad).abs() > 1e-6 * exact, "x^10 integrated exactly by 5 nodes");
        assert!(
            ((exact - quad) - remainder).abs() <= 1e-10 * remainder,
            "error {} vs Gauss remainder {remainder}",
            exact - quad
        );

        // P_5(t) = (63 t^5 - 70 t^3 + 15 t) / 8.
        let p5 = |t: f64| (63.0 * t.powi(5) - 70.0 * t.powi(3) + 15.0 * t) / 8.0;
        let exact = 2.0 / 11.0;
        let quad = gl.integrate(-1.0, 1.0, |t| p5(t) * p5(t));
        assert!((exact - quad).abs() > 1e-6 * exact, "P_5² integrated exactly: {quad}");
        assert!(quad.abs() < 1e-28, "P_5 does not vanish at the nodes: {quad}");
    }

    #[test]
    fn five_point_rule_matches_closed_form() {
        let gl = rule(5);
        let inner = (5.0 - 2.0 * (10.0_f64 / 7.0).sqrt()).sqrt() / 3.0;
        let outer = (5.0 + 2.0 * (10.0_f64 / 7.0).sqrt()).sqrt() / 3.0;
        let w_outer = (322.0 - 13.0 * 70.0_f64.sqrt()) / 900.0;
        let w_inner = (322.0 + 13.0 * 70.0_f64.sqrt()) / 900.0;
        let nodes = [-outer, -inner, 0.0, inner, outer];
        let weights = [w_outer, w_inner, 128.0 / 225.0, w_inner, w_outer];
        for j in 0..5 {
            assert!((gl.nodes()[j] - nodes[j]).abs() <= 1e-15, "node {j}");
            assert!((gl.weights()[j] - weights[j]).abs() <= 1e-15, "weight {j}");
        }
    }

    #[test]
    fn weights_of_1024_point_rule_sum_to_two() {
        let sum: f64 = rule(1024).weights().iter().sum();
        assert!((sum - 2.0).abs() <= 1e-14, "sum = {sum}");
    }

    /// Outer and inner nodes of the 1024-point rule against values computed with mpmath 1.3 at
    /// mp.dps = 50 (12 Newton steps on the Legendre recurrence from cos(π (k - 1/4) / (n + 1/2)),
    /// weight 2 / ((1 - x²) P_n'(x)²)), rounded to the nearest double. k counts from t = 1.
    #[test]
    fn rule_1024_matches_high_precision_reference() {
        let gl = rule(1024);
        let reference = [
            (1, 0.999_997_245_054_558_4, 7.070_076_410_182_59e-6),
            (2, 0.999_985_484_385_028_4, 1.645_772_757_989_687e-5),
            (100, 0.953_582_268_385_096_9, 9.234_112_228_888_109e-4),
            (512, 1.533_231_356_062_638_5e-3, 3.066_460_309_243_908_3e-3),
        ];
        for (k, t_ref, w_ref) in reference {
            let j = 1024 - k;
            let (t, w) = (gl.nodes()[j], gl.weights()[j]);
            assert!((t - t_ref).abs() <= 1e-15 * t_ref, "node k = {k}: {t} vs {t_ref}");
            assert!((w - w_ref).abs() <= 1e-15 * w_ref, "weight k = {k}: {w} vs {w_ref}");
        }
    }

    #[test]
    fn rules_are_exactly_symmetric_and_ascending() {
        for n in (1..=64).chain([127, 128, 513, 1024]) {
            let gl = rule(n);
            assert_eq!(gl.len(), n);
            let (t, w) = (gl.nodes(), gl.weights());
            for i in 0..n {
                assert_eq!(t[i], -t[n - 1 - i], "n = {n}, node {i}");
                assert_eq!(w[i], w[n - 1 - i], "n = {n}, weight {i}");
                assert!(w[i] > 0.0 && t[i].abs() < 1.0);
            }
            assert!(t.windows(2).all(|p| p[0] < p[1]), "n = {n}: nodes not ascending");
            if n % 2 == 1 {
                assert_eq!(t[n / 2].to_bits(), 0.0_f64.to_bits(), "n = {n}: middle node");
            }
        }
        let one = rule(1);
        assert_eq!((one.nodes(), one.weights()), (&[0.0][..], &[2.0][..]));
    }

    /// The raw Golub-Welsch output (eigenvalues and 2 q_1²) agrees with the polished rule, i.e.
    /// the QL solver converged: nodes to 1e-14 absolute, weights to 1e-9 relative (the
    /// eigenvector weights lose up to ~1.4e-10 relative at N ≈ 1000, which the polishing removes).
    #[test]
    fn golub_welsch_agrees_with_polished_rule() {
        for n in [2, 3, 10, 32, 200, 1024] {
            let (t_gw, w_gw) = golub_welsch(n);
            let gl = rule(n);
            for j in 0..n {
                assert!((t_gw[j] - gl.nodes()[j]).abs() <= 1e-14, "n = {n}, node {j}");
                assert!((w_gw[j] - gl.weights()[j]).abs() <= 1e-9 * gl.weights()[j]);
            }
        }
    }

    #[test]
    fn integrate_equals_sum_over_on_interval() {
        let gl = rule(17);
        let f = |x: f64| (3.0 * x).sin() / (1.0 + x * x);
        let (x, w) = gl.on_interval(-2.0, 5.5);
        let mut sum = 0.0;
        for (&x, &w) in x.iter().zip(&w) {
            sum += w * f(x);
        }
        assert_eq!(gl.integrate(-2.0, 5.5, f).to_bits(), sum.to_bits());
    }

    #[test]
    fn rejects_node_counts_outside_range() {
        assert_eq!(GaussLegendre::new(0), Err(QuadratureError::NodeCount(0)));
        assert_eq!(GaussLegendre::new(1025), Err(QuadratureError::NodeCount(1025)));
        assert_eq!(QuadratureError::NodeCount(0).to_string(), "number of Gauss-Legendre nodes 0 is outside 1..=1024");
    }
}
