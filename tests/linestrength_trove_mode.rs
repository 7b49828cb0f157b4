//! TROVE's convention and actions on the CPU reference, each rule against its own hand-made case:
//! - the constants: TROVE's A_coef = 64.0d-36 pi^4/(3 planck) and I_coef = 8.0d-36 pi^3/(3 planck
//!   vellgt) with accuracy.f90's single-precision literals, and the CODATA 2018 ones, against
//!   mpmath (digits and how below);
//! - the J rule of each convention on rigid-rotor blocks J = 0..3, the allowed block pairs
//!   enumerated by hand from TROVE's intens_filter / energy_filter_lower and from the documented
//!   rule; the g_ns >= small_ rule;
//! - THRESH_LINE on TROVE's raw sum of squares (before 1/ndeg and g_ns (2J'+1)(2J''+1)) against
//!   the documented S, with a case where S passes and the raw sum does not, and the reverse;
//! - the A > small_ cut, and nu = 0 / nu = -1.1e-16 lines (TROVE keeps nu >= -small_ through the
//!   windows, then its A cut drops them; the documented rule drops them as nu <= 0);
//! - emission: A(1 -> 0) and the ExoCross emissivity of a rigid rotor against closed forms
//!   evaluated with mpmath;
//! - TM: transition moments of J = 0 blocks (a non-degenerate and a doubly degenerate one with an
//!   unfolding) against a literal triple loop of TROVE's formula written here.

#[path = "support/molecule.rs"]
mod molecule;

use atomgpu::backend::Backend;
use atomgpu::linestrength::{
    Action, BlockSpec, Convention, IntensityParams, LineFilters, LineStrength, Options, Unfolding,
};
use molecule::*;

/// TROVE's small_ = epsilon(1d0).
const SMALL: f64 = 2.220446049250313e-16;

fn params(convention: Convention) -> IntensityParams {
    IntensityParams {
        temperature: 300.0,
        partition_function: 50.0,
        zpe: 0.0,
        freq_window: [-1e6, 1e6],
        lower_energy: [-1e6, 1e6],
        upper_energy: [-1e6, 1e6],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 2,
        convention,
        action: Action::Absorption,
    }
}

/// A diatomic (one vibrational function, dipole mu along z) with one state per J in `js`, of
/// nuclear-spin weight `gns`, at energies `energy(J)`.
fn rotor(mu: f64, js: &[u32], gns: f64, energy: impl Fn(u32) -> f64) -> LineStrength {
    let mut h = LineStrength::new_on(Backend::Cpu, 1, &[0.0, 0.0, mu], 1, Options::default()).unwrap();
    for &j in js {
        let (v, k, tau) = ([0i64], [0i32], [(j % 2) as i32]);
        let spec = BlockSpec { j, gamma: 0, gns, v: &v, k: &k, tau: &tau, unfolding: None };
        let id = h.add_block(&spec).unwrap();
        h.set_states(id, &[energy(j)], &[1.0], 1).unwrap();
    }
    h
}

#[test]
fn constants_are_the_correctly_rounded_values() {
    // mpmath (mp.prec = 300): TROVE's h, k, c are the binary32 roundings of its literals
    // (struct.pack('f', ...)): h = 6.62606875865497661022e-27, c = 29979246592,
    // k = 1.38065801302189518785e-16 (gfortran prints the same for accuracy.f90's parameters).
    // 64e-36 (the double of 64.0d-36) * pi^4 / (3 h) = 3.13618932192790888644648510464e-7, whose
    // nearest double is 3.136189321927909e-7 (gfortran's quad evaluation prints
    // 3.136189321927909071e-7); 8e-36 * pi^3 / (3 h c) = 4.16237972763166695947881353316e-19.
    let t = Convention::Trove.constants();
    assert_eq!(t.planck, 6.626068758654977e-27);
    assert_eq!(t.light_speed, 29979246592.0);
    assert_eq!(t.boltzmann, 1.3806580130218952e-16);
    assert_eq!(t.einstein_a_coefficient, 3.136189321927909e-7);
    assert_eq!(t.intensity_coefficient, 4.162379727631667e-19);
    // CODATA 2018 with the exact decimals: 3.13618866338954369161142535951e-7 and
    // 4.16237896357627952144125383928e-19; from the doubles of h and c the results may differ
    // from these by the inputs' rounding (< 2 ulp).
    let d = Convention::Documented.constants();
    assert_eq!((d.planck, d.light_speed, d.boltzmann), (6.62607015e-27, 2.99792458e10, 1.380649e-16));
    for (x, want) in
        [(d.einstein_a_coefficient, 3.1361886633895437e-7), (d.intensity_coefficient, 4.1623789635762795e-19)]
    {
        assert!((x - want).abs() <= 2.0 * f64::EPSILON * want, "{x} vs {want}");
    }
}

/// The (J'', J') block pairs of a rotor J = 0..3 that the rules let through (counted as not
/// dropped by the rules), over every pair |J'-J''| <= 1, J+J' >= 1.
fn allowed_pairs(convention: Convention, j_range: [u32; 2], gns: f64) -> Vec<(u32, u32)> {
    let mut h = rotor(1.0, &[0, 1, 2, 3], gns, |j| 10.0 * j as f64);
    let filters = LineFilters { j_range, ..LineFilters::default() };
    let mut allowed = Vec::new();
    for lower in 0..4u32 {
        for upper in lower.saturating_sub(1)..=(lower + 1).min(3) {
            if lower + upper == 0 {
                continue;
            }
            let list = h.line_list_filtered(lower as usize, &[upper as usize], &params(convention), &filters).unwrap();
            assert_eq!(list.counts.pairs, 1);
            if list.counts.dropped_by_rules == 0 {
                allowed.push((lower, upper));
            }
        }
    }
    allowed
}

#[test]
fn j_rules_of_both_conventions() {
    // Documented: both J in [j_min, j_max].
    assert_eq!(allowed_pairs(Convention::Documented, [1, 2], 1.0), vec![(1, 1), (1, 2), (2, 1), (2, 2)]);
    assert_eq!(allowed_pairs(Convention::Documented, [2, 3], 1.0), vec![(2, 2), (2, 3), (3, 2), (3, 3)]);
    assert_eq!(
        allowed_pairs(Convention::Documented, [0, 3], 1.0),
        vec![(0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3)]
    );
    // TROVE, J = 1 2: Jval = {0, 1, 2}; J'' >= 1; not 1 -> 1: J' = 0 is reached, J1 -> J1 is not.
    assert_eq!(allowed_pairs(Convention::Trove, [1, 2], 1.0), vec![(1, 0), (1, 2), (2, 1), (2, 2)]);
    // J = 2 3: Jval = {0, 2, 3}; J'' in {2, 3}; not 2 -> 2 (J' = 1 is not loaded).
    assert_eq!(allowed_pairs(Convention::Trove, [2, 3], 1.0), vec![(2, 3), (3, 2), (3, 3)]);
    // J = 0 3: Jval = {0, 1, 2, 3}; every pair but 0 -> 0 (already excluded by J + J' >= 1).
    assert_eq!(
        allowed_pairs(Convention::Trove, [0, 3], 1.0),
        vec![(0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3)]
    );
    // g_ns < small_: TROVE's intens_filter drops the pair; the documented rule computes it.
    assert_eq!(allowed_pairs(Convention::Trove, [0, 3], 1e-17), vec![]);
    assert_eq!(allowed_pairs(Convention::Documented, [1, 2], 1e-17).len(), 4);
}

#[test]
fn thresh_line_compares_troves_raw_sum_and_the_documented_s() {
    // J'' = 0 -> J' = 1 of a diatomic: the raw sum R = a^2 = mu^2/3 (the Hoenl-London factor of
    // J = 1 <- 0), ndeg = 1, S = g_ns 3 R.
    let mu = 1.2;
    let raw = mu * mu / 3.0;
    for (gns, thresh, documented_kept, trove_kept) in [
        // g_ns = 3: S = 9 R; a threshold of 5 R keeps S, not R.
        (3.0, 5.0 * raw, true, false),
        // g_ns = 0.05: S = 0.15 R; a threshold of 0.5 R keeps R, not S.
        (0.05, 0.5 * raw, false, true),
    ] {
        let mut h = rotor(mu, &[0, 1], gns, |j| 5.0 * j as f64);
        for (convention, kept) in [(Convention::Documented, documented_kept), (Convention::Trove, trove_kept)] {
            let p = IntensityParams { thresh_line: thresh, ..params(convention) };
            let list = h.line_list_filtered(0, &[1], &p, &LineFilters::default()).unwrap();
            assert_eq!(list.counts.kept, kept as u64, "g_ns {gns}, {convention:?}");
            assert_eq!(list.counts.dropped_by_thresholds, !kept as u64);
            if kept {
                assert!((list.lines[0].linestrength - gns * 3.0 * raw).abs() <= 1e-15 * gns * 3.0 * raw);
            }
        }
    }
}

#[test]
fn troves_a_cut_and_lines_at_nu_zero() {
    // A = A_coef (2J''+1) (mu^2/3) nu^3 with A_coef = 3.1361893e-7 (TROVE): mu = 1, J'' = 0, nu =
    // 5e-4 cm^-1 gives A = 3.9e-17 <= small_; nu = 2e-3 gives 2.5e-15 > small_.
    for (nu, trove_kept) in [(5e-4, false), (2e-3, true)] {
        let mut h = rotor(1.0, &[0, 1], 1.0, |j| nu * j as f64);
        let documented =
            h.line_list_filtered(0, &[1], &params(Convention::Documented), &LineFilters::default()).unwrap();
        assert_eq!(documented.counts.kept, 1, "the documented rule has no A cut");
        let a = documented.lines[0].einstein_a;
        assert_eq!(a <= SMALL, !trove_kept, "A = {a}");
        let trove = h.line_list_filtered(0, &[1], &params(Convention::Trove), &LineFilters::default()).unwrap();
        assert_eq!((trove.counts.kept, trove.counts.dropped_by_thresholds), (trove_kept as u64, !trove_kept as u64));
    }
    // nu = 0 and nu = -1.1102230246251565e-16 (E' one ulp of 1 below E'' = 1): TROVE's windows let
    // nu >= -small_ through and its A cut (A = 0 or ~1e-54) drops them; the documented rule drops
    // them at the windows (nu <= 0).
    for e_upper in [1.0, 1.0 - f64::EPSILON / 2.0] {
        let mut h = rotor(1.0, &[0, 1], 1.0, |j| if j == 0 { 1.0 } else { e_upper });
        let d = h.line_list_filtered(0, &[1], &params(Convention::Documented), &LineFilters::default()).unwrap();
        assert_eq!((d.counts.dropped_by_windows, d.counts.kept), (1, 0));
        let t = h.line_list_filtered(0, &[1], &params(Convention::Trove), &LineFilters::default()).unwrap();
        assert_eq!((t.counts.dropped_by_windows, t.counts.dropped_by_thresholds), (0, 1));
    }
    // nu = -3e-16 < -small_: out of TROVE's windows too.
    let mut h = rotor(1.0, &[0, 1], 1.0, |j| if j == 0 { 1.0 } else { 1.0 - 3e-16 });
    let t = h.line_list_filtered(0, &[1], &params(Convention::Trove), &LineFilters::default()).unwrap();
    assert_eq!(t.counts.dropped_by_windows, 1);
}

#[test]
fn emission_of_a_rigid_rotor_has_the_closed_form() {
    // J = 1 (E = 2B = 4 cm^-1) emits into J = 0; mu = 1.3 D, T = 300 K, Q = 50, g_ns = 1. With
    // CODATA 2018 (mpmath, mp.prec = 200):
    //   A(1 -> 0) = 64 pi^4 1e-36/(3h) mu^2 nu^3 / 3                        = 1.1307005527740434856e-5 s^-1
    //   epsilon   = A h c nu (2J_I+1) exp(-hc nu/(kT)) / (4 pi Q)          = 4.2081803401510498271e-23 erg/s/sr/molecule
    let (mu, b) = (1.3, 2.0);
    let mut h = rotor(mu, &[0, 1], 1.0, |j| b * (j * (j + 1)) as f64);
    let p = IntensityParams { action: Action::Emission, ..params(Convention::Documented) };
    let list = h.line_list_filtered(1, &[0], &p, &LineFilters::default()).unwrap();
    assert_eq!(list.lines.len(), 1);
    let l = list.lines[0];
    assert_eq!((l.lower_block, l.upper_block), (1, 0), "the lower side holds the emitting state");
    assert!((l.wavenumber - 4.0).abs() < 1e-15);
    assert!((l.einstein_a / 1.1307005527740434e-5 - 1.0).abs() < 1e-14, "A = {}", l.einstein_a);
    assert!((l.intensity / 4.20818034015105e-23 - 1.0).abs() < 1e-13, "epsilon = {}", l.intensity);
    assert!((l.linestrength / (mu * mu) - 1.0).abs() < 1e-14, "S = mu^2, symmetric");
    // The emitting state below the final one: nu < 0, no emission line; the windows are E_I on
    // lower_energy and E_F on upper_energy.
    let none = h.line_list_filtered(0, &[1], &p, &LineFilters::default()).unwrap();
    assert_eq!(none.counts.dropped_by_windows, 1);
    let q = IntensityParams { lower_energy: [0.0, 3.0], ..p };
    assert_eq!(h.line_list_filtered(1, &[0], &q, &LineFilters::default()).unwrap().counts.dropped_by_windows, 1);
    let q = IntensityParams { upper_energy: [1.0, 10.0], ..p };
    assert_eq!(h.line_list_filtered(1, &[0], &q, &LineFilters::default()).unwrap().counts.dropped_by_windows, 1);
    // Line lists refuse TM; moments refuse the other actions.
    let tm = IntensityParams { action: Action::Tm, ..p };
    let e = h.line_list_filtered(1, &[0], &tm, &LineFilters::default()).unwrap_err();
    assert!(e.to_string().contains("`action`"), "{e}");
    let e = h.transition_moments(0, &[0], &p).unwrap_err();
    assert!(e.to_string().contains("`action`"), "{e}");
}

/// A J = 0 block over vibrational functions `v` for the moments test: its vectors, energies and,
/// when `ndeg` > 1, a dense stacked unfolding `T` (`ndeg n_prim x n_sym`, column-major).
struct ZeroBlock {
    v: Vec<i64>,
    ndeg: usize,
    n_sym: usize,
    t: Vec<f64>,
    energies: Vec<f64>,
    vectors: Vec<f64>,
}

impl ZeroBlock {
    /// u_d = T_d c of level s (primitive coefficients of component d).
    fn primitive(&self, s: usize, d: usize) -> Vec<f64> {
        let n_prim = self.v.len();
        let c = &self.vectors[s * self.n_sym..(s + 1) * self.n_sym];
        (0..n_prim)
            .map(|p| {
                if self.ndeg == 1 && self.t.is_empty() {
                    c[p]
                } else {
                    (0..self.n_sym).map(|k| self.t[d * n_prim + p + self.ndeg * n_prim * k] * c[k]).sum()
                }
            })
            .collect()
    }
}

#[test]
fn transition_moments_follow_troves_formula() {
    let mut rng = Rng::new(7);
    let n_vib = 5;
    let dipole = random_dipole(&mut rng, n_vib);
    let a = ZeroBlock {
        v: vec![0, 1, 2, 3, 4],
        ndeg: 1,
        n_sym: 5,
        t: vec![],
        energies: vec![0.0, 700.0, 1500.0],
        vectors: random_values(&mut rng, 15),
    };
    // A doubly degenerate species: 4 primitive functions, 3 symmetrised, T dense with a zero.
    let mut t = random_values(&mut rng, 2 * 4 * 3);
    t[5] = 0.0;
    let e = ZeroBlock {
        v: vec![1, 2, 3, 4],
        ndeg: 2,
        n_sym: 3,
        t,
        energies: vec![650.0, 1500.0 - 1e-16, 2100.0],
        vectors: random_values(&mut rng, 9),
    };
    let mut h = LineStrength::new_on(Backend::Cpu, n_vib, &dipole, n_vib, Options::default()).unwrap();
    let zero_k = [0i32; 5];
    h.add_block(&BlockSpec { j: 0, gamma: 0, gns: 0.0, v: &a.v, k: &zero_k, tau: &zero_k, unfolding: None }).unwrap();
    // The CSR of e.t, zeros left out.
    let (mut start, mut col, mut value) = (vec![0i64], vec![], vec![]);
    for row in 0..8 {
        for k in 0..3 {
            let x = e.t[row + 8 * k];
            if x != 0.0 {
                col.push(k as i64);
                value.push(x);
            }
        }
        start.push(col.len() as i64);
    }
    let unfolding = Unfolding { ndeg: 2, n_sym: 3, row_start: &start, col: &col, value: &value };
    h.add_block(&BlockSpec {
        j: 0,
        gamma: 2,
        gns: 1.0,
        v: &e.v,
        k: &zero_k[..4],
        tau: &zero_k[..4],
        unfolding: Some(unfolding),
    })
    .unwrap();
    h.set_states(0, &a.energies, &a.vectors, 5).unwrap();
    h.set_states(1, &e.energies, &e.vectors, 3).unwrap();
    let blocks = [&a, &e];
    let (temperature, q, thresh) = (500.0, 20.0, 0.3);
    // TROVE's constants (constants_are_the_correctly_rounded_values) and beta as TROVE computes it.
    let (a_coef, i_coef) = (3.136189321927909e-7, 4.162379727631667e-19);
    let beta = 6.626068758654977e-27 * 29979246592.0 / (1.3806580130218952e-16 * temperature);
    for (lower, uppers) in [(0usize, vec![0usize, 1]), (1, vec![1, 0])] {
        let p = IntensityParams {
            temperature,
            partition_function: q,
            thresh_intens: thresh,
            action: Action::Tm,
            ..params(Convention::Trove)
        };
        let list = h.transition_moments(lower, &uppers, &p).unwrap();
        // TROVE's loops, literally: per lower level, per upper block and level, per component pair.
        let li = blocks[lower];
        let mut expected = Vec::new();
        for s in 0..li.energies.len() {
            for &u in &uppers {
                let fi = blocks[u];
                for f in 0..fi.energies.len() {
                    let nu = fi.energies[f] - li.energies[s];
                    if nu < -SMALL {
                        continue;
                    }
                    let mut tm = [0.0f64; 27];
                    for d_i in 0..li.ndeg {
                        let vec_i = li.primitive(s, d_i);
                        for d_f in 0..fi.ndeg {
                            let vec_f = fi.primitive(f, d_f);
                            for m in 0..3 {
                                let mut dmu = 0.0;
                                for (q_, &vq) in fi.v.iter().enumerate() {
                                    let mut half = 0.0;
                                    for (p_, &vp) in li.v.iter().enumerate() {
                                        half += dipole[vp as usize + n_vib * (vq as usize + n_vib * m)] * vec_i[p_];
                                    }
                                    dmu += half * vec_f[q_];
                                }
                                tm[m + 3 * (d_i + 3 * d_f)] = dmu;
                            }
                        }
                    }
                    let moment = tm.iter().map(|x| x * x).sum::<f64>().sqrt();
                    if moment >= thresh {
                        let boltz = nu.abs() * (-li.energies[s] * beta).exp() * (1.0 - (-nu.abs() * beta).exp()) / q;
                        let a = a_coef * moment * moment * nu.abs().powi(3);
                        expected.push((u, s, f, nu, moment, a, moment * moment * i_coef * boltz, tm));
                    }
                }
            }
        }
        assert!(expected.len() >= 4 && expected.iter().any(|x| x.3 == 0.0), "diagonal pairs are moments too");
        assert_eq!(list.moments.len(), expected.len(), "lower block {lower}");
        assert_eq!(list.counts.kept as usize, expected.len());
        for (t, x) in list.moments.iter().zip(&expected) {
            assert_eq!((t.upper_block, t.lower_state, t.upper_state), (x.0, x.1, x.2));
            assert_eq!((t.ndeg_lower, t.ndeg_upper), (li.ndeg, blocks[x.0].ndeg));
            assert_eq!(t.wavenumber, x.3);
            assert!((t.moment - x.4).abs() <= 1e-13 * x.4);
            assert!((t.einstein_a - x.5).abs() <= 1e-13 * x.5.max(f64::MIN_POSITIVE));
            assert!((t.intensity - x.6).abs() <= 1e-13 * x.6.max(f64::MIN_POSITIVE));
            for (c, d) in t.components.iter().zip(&x.7) {
                assert!((c - d).abs() <= 1e-13 * x.4, "{c} vs {d}");
            }
        }
    }
    // J > 0 blocks are refused, naming them.
    let mut r = rotor(1.0, &[0, 1], 1.0, |j| j as f64);
    let p = IntensityParams { action: Action::Tm, ..params(Convention::Trove) };
    let e = r.transition_moments(0, &[1], &p).unwrap_err();
    assert!(e.to_string().contains("`upper_blocks`"), "{e}");
}
