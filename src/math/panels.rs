//! Breakpoints for graded composite Gauss-Legendre quadrature.
//!
//! An N-point Gauss-Legendre rule on a panel [a, b] converges geometrically, with error
//! ~ ρ^{-2N}, where ρ > 1 is the sum of the semi-axes of the largest ellipse with foci a and b
//! (in units of (b - a)/2) inside which the integrand is analytic. The singularity nearest the
//! panel sets ρ, through the ratio of its distance from the panel to the panel's length.
//!
//! A Fermi-Dirac occupation `1 / (1 + e^{(x - μ)/T})` is analytic on the real axis but has
//! poles at `x = μ ± iπT (2k + 1)`, the nearest ones a distance πT from the edge at μ. A single
//! 32-point rule over a keV-wide energy range with an edge of width T = 0.1 eV sees a pole
//! about 6·10⁻⁴ half-lengths from the panel, so ρ ≈ 1 + 6·10⁻⁴, ρ^{-64} ≈ 1, and the rule has
//! not begun to converge. Cutting [lo, hi] at μ and at μ ± s·4^j (j = 0, 1, 2, ...; s the
//! feature's length scale) makes every panel that does not touch μ at most 3 times as long as
//! its distance from μ (`[μ + s·4^j, μ + s·4^{j+1}]`: length 3s·4^j, gap s·4^j), which puts μ at
//! t = -5/3 in the panel's own [-1, 1] coordinate and gives ρ ≥ 3 (more, since the poles lie off
//! the real axis); on the two panels that touch μ the poles lie πT off the axis at an endpoint,
//! and with s ≤ πT their ρ exceeds 4. Then
//! ρ^{-2N} ≤ 3^{-64} ≈ 3·10⁻³¹ for N = 32: about machine precision on every panel, whatever
//! T / (hi - lo) is, for a number of panels that grows only like 2 log₄((hi - lo) / s) per
//! feature. The same holds for a pole a distance `scale` outside the interval (e.g. `1/(1 + x)`
//! with a feature at x = 0 of scale 1) and for a threshold where the integrand has a kink.
//!
//! The algorithm is deterministic, allocation-free and works on a fixed-size array, so the CUDA
//! kernels can use a line-by-line transcription and get the same breakpoints.

use super::gauss_legendre::GaussLegendre;

/// A point near which the integrand varies on the length `scale` (a Fermi edge of width ~T,
/// a pole at distance `scale` outside the interval, a threshold). `at` and `scale` are in the
/// units of the integration variable.
#[derive(Clone, Copy, Debug)]
pub struct Feature {
    /// Position of the feature.
    pub at: f64,
    /// Length over which the integrand varies near `at`; must be finite and > 0 to be used.
    pub scale: f64,
}

/// Capacity of the breakpoint array, lo and hi included (at most 127 panels).
pub const MAX_BREAKPOINTS: usize = 128;

/// Ratio of successive distances of breakpoints from a feature.
pub const GRADING_FACTOR: f64 = 4.0;

/// Candidates closer than this fraction of (hi - lo) to a breakpoint already held (lo, hi or
/// a kept candidate) are dropped, so no panel is narrower than 1e-12 (hi - lo).
const MIN_GAP_RELATIVE: f64 = 1e-12;

/// Fills `out[0..count]` with ascending breakpoints of [lo, hi] and returns count (>= 2,
/// `out[0] = lo`, `out[count-1] = hi`).
///
/// Candidate points, in this order: for each feature (skipping ones with non-finite `at`, or
/// non-finite or non-positive `scale`): `at` itself, then for j = 0, 1, 2, ...:
/// `at - scale·4^j` and `at + scale·4^j`, stopping when `scale·4^j > (hi - lo)` (the distances
/// are formed by repeated multiplication by [`GRADING_FACTOR`], which is exact). A candidate c is
/// kept only if `lo < c < hi` strictly and it is not within `1e-12 (hi - lo)` of lo, hi or a
/// point already kept; candidates are dropped once `MAX_BREAKPOINTS - 1` points (including lo)
/// are held, so that hi always fits. Kept points are inserted in sorted position (insertion
/// sort). Requires `lo < hi` with `hi - lo` finite (callers guarantee it).
pub fn graded_breakpoints(lo: f64, hi: f64, features: &[Feature], out: &mut [f64; MAX_BREAKPOINTS]) -> usize {
    debug_assert!(
        lo < hi && (hi - lo).is_finite(),
        "graded_breakpoints needs lo < hi with a finite width, got [{lo}, {hi}]"
    );
    let width = hi - lo;
    let min_gap = MIN_GAP_RELATIVE * width;
    out[0] = lo;
    let mut count = 1;
    for feature in features {
        if !(feature.at.is_finite() && feature.scale.is_finite() && feature.scale > 0.0) {
            continue;
        }
        count = insert_breakpoint(out, count, hi, min_gap, feature.at);
        let mut distance = feature.scale;
        // `distance < INFINITY` only matters if hi - lo overflowed, which callers exclude; it
        // keeps the loop finite regardless.
        while distance <= width && distance < f64::INFINITY {
            count = insert_breakpoint(out, count, hi, min_gap, feature.at - distance);
            count = insert_breakpoint(out, count, hi, min_gap, feature.at + distance);
            distance *= GRADING_FACTOR;
        }
    }
    out[count] = hi;
    count + 1
}

/// Inserts `candidate` into the ascending `out[0..count]` (whose first entry is lo) if it lies
/// strictly between lo and hi, is more than `min_gap` from hi and from its neighbours, and
/// fewer than `MAX_BREAKPOINTS - 1` points are held; returns the new count.
fn insert_breakpoint(out: &mut [f64; MAX_BREAKPOINTS], count: usize, hi: f64, min_gap: f64, candidate: f64) -> usize {
    if count >= MAX_BREAKPOINTS - 1 || !(candidate > out[0] && hi - candidate > min_gap) {
        return count;
    }
    // out[0] = lo < candidate, so the scan stops at position >= 1.
    let mut position = count;
    while out[position - 1] > candidate {
        position -= 1;
    }
    // The list is sorted, so only the two neighbours can be within min_gap.
    let too_close_below = candidate - out[position - 1] <= min_gap;
    let too_close_above = position < count && out[position] - candidate <= min_gap;
    if too_close_below || too_close_above {
        return count;
    }
    let mut i = count;
    while i > position {
        out[i] = out[i - 1];
        i -= 1;
    }
    out[position] = candidate;
    count + 1
}

/// `∫ f(x) dx` over `[breaks[0], breaks[breaks.len() - 1]]` as the sum over the panels
/// `[breaks[i], breaks[i+1]]`, in ascending order, of `rule` applied to f on each panel (see
/// [`GaussLegendre::integrate`]). The result has the units of f times those of x; fewer than two
/// breakpoints give 0.
pub fn integrate_graded<F: FnMut(f64) -> f64>(rule: &GaussLegendre, breaks: &[f64], mut f: F) -> f64 {
    let mut total = 0.0;
    for panel in breaks.windows(2) {
        total += rule.integrate(panel[0], panel[1], &mut f);
    }
    total
}

/// [`integrate_graded`] of K integrands at once (f returns all K at each abscissa): per panel,
/// half-length times the rule's weighted sum of each, the panels added in ascending order. The
/// one composite loop of the rate integrals and the Fermi-Dirac integrals, which share the costly
/// part of their integrands (an exponential) between the K values.
#[inline]
pub fn integrate_graded_sums<const K: usize, F: FnMut(f64) -> [f64; K]>(
    rule: &GaussLegendre,
    breaks: &[f64],
    mut f: F,
) -> [f64; K] {
    let mut sums = [0.0; K];
    for panel in breaks.windows(2) {
        let half = 0.5 * (panel[1] - panel[0]);
        let mid = 0.5 * (panel[1] + panel[0]);
        let mut partial = [0.0; K];
        for (x, w) in rule.nodes().iter().zip(rule.weights()) {
            let v = f(mid + half * x);
            for (p, v) in partial.iter_mut().zip(v) {
                *p += w * v;
            }
        }
        for (s, p) in sums.iter_mut().zip(partial) {
            *s += half * p;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breakpoints(lo: f64, hi: f64, features: &[Feature]) -> Vec<f64> {
        let mut out = [0.0; MAX_BREAKPOINTS];
        let count = graded_breakpoints(lo, hi, features, &mut out);
        out[..count].to_vec()
    }

    fn assert_valid(breaks: &[f64], lo: f64, hi: f64) {
        assert!(breaks.len() >= 2 && breaks.len() <= MAX_BREAKPOINTS);
        assert_eq!(breaks[0], lo);
        assert_eq!(*breaks.last().unwrap(), hi);
        assert!(breaks.windows(2).all(|p| p[0] < p[1]), "not ascending: {breaks:?}");
    }

    #[test]
    fn breakpoints_are_ascending_bounded_and_contain_the_feature() {
        let (lo, hi) = (0.0, 50.0);
        let features = [Feature { at: 20.0, scale: 0.02 }, Feature { at: 0.0, scale: 0.01 }];
        let breaks = breakpoints(lo, hi, &features);
        assert_valid(&breaks, lo, hi);
        assert!(breaks.contains(&20.0));
        // 20 ± 0.02·4^j for j = 0..=5 (0.02·4^5 = 20.48; 20 - 20.48 < lo is dropped), then
        // 0.01·4^j for j = 0..=6 (0.01·4^6 = 40.96 <= 50).
        assert_eq!(breaks.len(), 2 + 1 + 11 + 7);
        assert!(breaks.contains(&(20.0 + 0.02 * 4f64.powi(5))));
        assert!(breaks.contains(&(0.01 * 4f64.powi(6))));
    }

    #[test]
    fn invalid_features_and_near_duplicates_are_skipped() {
        let invalid = [
            Feature { at: f64::NAN, scale: 1.0 },
            Feature { at: f64::INFINITY, scale: 1.0 },
            Feature { at: 0.5, scale: 0.0 },
            Feature { at: 0.5, scale: -0.1 },
            Feature { at: 0.5, scale: f64::INFINITY },
            Feature { at: 0.5, scale: f64::NAN },
        ];
        assert_eq!(breakpoints(0.0, 1.0, &invalid), vec![0.0, 1.0]);

        // A feature with scale above hi - lo contributes only its own position; a repeat
        // within 1e-12 (hi - lo) of it, or of lo or hi, is dropped.
        let near = [
            Feature { at: 0.5, scale: 2.0 },
            Feature { at: 0.5 + 1e-13, scale: 2.0 },
            Feature { at: 1e-13, scale: 2.0 },
            Feature { at: 1.0 - 1e-13, scale: 2.0 },
        ];
        assert_eq!(breakpoints(0.0, 1.0, &near), vec![0.0, 0.5, 1.0]);
    }

    /// ∫_0^50 dx / (1 + e^{(x - μ)/T}) = T ln((1 + e^{μ/T}) / (1 + e^{(μ - 50)/T})), written
    /// without overflow as μ + T ln1p(e^{-μ/T}) - T ln1p(e^{(μ - 50)/T}).
    #[test]
    fn graded_rule_integrates_a_sharp_fermi_edge_to_machine_precision() {
        let (mu, t, lo, hi) = (20.0_f64, 0.01_f64, 0.0, 50.0);
        let fermi = |x: f64| 1.0 / (1.0 + ((x - mu) / t).exp());
        let exact = mu + t * (-mu / t).exp().ln_1p() - t * ((mu - hi) / t).exp().ln_1p();
        let rule = GaussLegendre::new(32).unwrap();
        let features = [Feature { at: mu, scale: 2.0 * t }, Feature { at: 0.0, scale: t }];
        let breaks = breakpoints(lo, hi, &features);
        let graded = integrate_graded(&rule, &breaks, fermi);
        assert!((graded - exact).abs() <= 1e-13 * exact, "graded {graded} vs {exact}");

        let single = rule.integrate(lo, hi, fermi);
        assert!((single - exact).abs() > 1e-4 * exact, "single panel {single} vs {exact}");
    }

    /// Reference: ∫_0^1000 e^{-x/3} / (1 + x) dx = e^{1/3} (E_1(1/3) - E_1(1001/3)), evaluated
    /// with mpmath 1.3 at mp.dps = 40 both from this closed form and by mp.quad on
    /// [0, 1, 4, 16, 64, 256, 1000]; the two agree to all 30 digits printed:
    /// 1.15680603641008202084100405542.
    #[test]
    fn graded_rule_integrates_a_nearby_pole_to_machine_precision() {
        let reference = 1.156_806_036_410_082;
        let rule = GaussLegendre::new(32).unwrap();
        let breaks = breakpoints(0.0, 1000.0, &[Feature { at: 0.0, scale: 1.0 }]);
        assert_eq!(breaks, vec![0.0, 1.0, 4.0, 16.0, 64.0, 256.0, 1000.0]);
        let value = integrate_graded(&rule, &breaks, |x| (-x / 3.0).exp() / (1.0 + x));
        assert!((value - reference).abs() <= 1e-13 * reference, "{value} vs {reference}");
    }

    #[test]
    fn breakpoint_count_is_capped() {
        let (lo, hi) = (0.0, 1e6);
        let features: Vec<Feature> =
            (0..10).map(|i| Feature { at: 1e5 * f64::from(i) + 1234.5, scale: 1e-9 }).collect();
        let breaks = breakpoints(lo, hi, &features);
        assert_eq!(breaks.len(), MAX_BREAKPOINTS);
        assert_valid(&breaks, lo, hi);
    }
}
