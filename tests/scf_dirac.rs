//! Dirac-Fock and open shells of the SCF family (`src/scf/radial.rs`, `solver.rs`) against
//! independent references:
//!
//! * the relativistic exchange weights Γ^k = (j k j'; ½ 0 -½)² through two identities of the 3j
//!   symbols: orthogonality Σ_{j'} (2j'+1) (j k j'; ½ 0 -½)² = 1 (Edmonds eq. 3.7.8), and the
//!   non-relativistic sum Σ_{j' = l' ± ½} (2j'+1) Γ^k [l + l' + k even] = (2l'+1) (l k l'; 0 0 0)²;
//!   and the exact values 1/6 of (½ 1 ½; ½ 0 -½)² and (½ 1 3/2; ½ 0 -½)²;
//! * kinetic balance: S^SS_pq = T_pq / √(T_pp T_qq) exactly (an integration by parts, module docs
//!   of radial.rs), from the small functions' own primitive integrals;
//! * hydrogen-like ions: the Dirac one-electron matrix's electronic eigenvalues against the exact
//!   Dirac energies E = c² [(1 + (Zα/(n - |κ| + √(κ² - (Zα)²)))²)^{-1/2} - 1], for 1s1/2, 2s1/2,
//!   2p1/2, 2p3/2, 3d3/2, 3d5/2,
//!   Z = 1 and 50, with no eigenvalue below the exact level beyond the basis tolerance (no
//!   variational collapse), the levels at c = 1e4 au, the shift between c and 1e4 au against the exact one (where the
//!   basis error largely cancels) to 1e-4 at Z = 50 (measured 4e-6);
//! * Dirac-Fock → Hartree-Fock as c → ∞: E_DF(c) - E_HF scales as 1/c² (Ne, Ar);
//! * average-of-configuration open shells: one open s electron (Li, Na 1s² 2s, … 3s) is the
//!   doublet's restricted open-shell HF, against PySCF 2.14.0 ROHF on the same basis (script
//!   quoted); the open-shell energy is continuous at q → 0 (the ion) and q → N (the closed shell);
//! * the Dirac blocks (S^SS, Π, -2c² S^SS, V^SS for κ < 0 and κ > 0, point and Gaussian nucleus)
//!   at exponents of 1e±100 … 1e±300 against `tests/reference/scf_extremes_mpmath.py` (quadrature
//!   of the small functions' own definitions at 50 digits; table `DIRAC_EXTREMES`);
//! * the nuclear charge: a point nucleus refused from Z = c on; a Gaussian nucleus (Visscher and
//!   Dyall, A = 370) at Z = 150, whose 1s1/2 (-1.108 c²) lies below -c², against the B-spline
//!   Dirac solver of `tests/reference/df_numerical.py` (the Gaussian potential, four grids agree
//!   to 5e-9 hartree); Z = 175 (beyond the critical charge, 1s1/2 in the negative continuum)
//!   refused.

use atomgpu::backend::Backend;
use atomgpu::error::Error;
use atomgpu::math::wigner::{three_j, three_j_doubled};
use atomgpu::scf::one_electron::{gaussian_nucleus_exponent, one_electron, Nucleus, DFRATOM_SPEED_OF_LIGHT};
use atomgpu::scf::radial::dirac_one_electron;
use atomgpu::scf::solver::{scf, Basis, Occupation, ScfSpec};
use atomgpu::scf::{dirac_exchange_weights, Spinor, Symmetry};
use faer::{Mat, Side};

fn even(alpha: f64, beta: f64, n: i32) -> Vec<f64> {
    (0..n).map(|k| alpha * beta.powi(k)).collect()
}

#[test]
fn relativistic_exchange_weights_obey_3j_identities() {
    assert!((three_j_doubled(1, 2, 1, 1, 0, -1).powi(2) - 1.0 / 6.0).abs() < 1e-15);
    assert!((three_j_doubled(1, 2, 3, 1, 0, -1).powi(2) - 1.0 / 6.0).abs() < 1e-15);
    for tj in (1..=13).step_by(2) {
        for k in 0..=8 {
            let sum: f64 = (1..=tj + 2 * k)
                .step_by(2)
                .map(|tjp| (tjp + 1) as f64 * three_j_doubled(tj, 2 * k, tjp, 1, 0, -1).powi(2))
                .sum();
            assert!((sum - 1.0).abs() < 1e-14, "2j = {tj}, k = {k}: orthogonality sum {sum}");
        }
    }
    let kappas = |l: i32| if l == 0 { vec![-1] } else { vec![l, -l - 1] };
    for l in 0..=4 {
        for kappa in kappas(l) {
            for lp in 0..=4 {
                let mut by_k = [0.0; 12];
                for kp in kappas(lp) {
                    for (k, w) in dirac_exchange_weights(kappa, kp) {
                        by_k[k as usize] += (2 * kp.abs()) as f64 * w;
                    }
                }
                for (k, &sum) in by_k.iter().enumerate() {
                    let nr = (2 * lp + 1) as f64 * three_j(l, k as i32, lp, 0, 0, 0).powi(2);
                    assert!((sum - nr).abs() < 1e-14, "κ {kappa}, l' {lp}, k {k}: {sum} vs {nr}");
                }
            }
        }
    }
}

/// Exact Dirac energy (without mc²) of level n, κ for nuclear charge Z.
fn dirac_exact(n: u32, kappa: i32, z: f64, c: f64) -> f64 {
    let za = z / c;
    let k = kappa.abs() as f64;
    let denominator = n as f64 - k + (k * k - za * za).sqrt();
    c * c * ((1.0 + (za / denominator).powi(2)).powf(-0.5) - 1.0)
}

/// The electronic eigenvalues (above -c²) of the Dirac matrix, ascending.
fn dirac_levels(kappa: i32, exponents: &[f64], z: f64, c: f64) -> Vec<f64> {
    let d = dirac_one_electron(kappa, exponents, z, Nucleus::Point, c).unwrap();
    let m = 2 * exponents.len();
    let at = |v: &[f64]| Mat::from_fn(m, m, |i, j| v[i + m * j]);
    let (s, h) = (at(&d.overlap), Mat::from_fn(m, m, |i, j| d.free_hamiltonian[i + m * j] + d.nuclear[i + m * j]));
    // Löwdin orthogonalisation of the (block-diagonal, well-conditioned) metric, then the
    // symmetric eigenproblem.
    let se = s.self_adjoint_eigen(Side::Lower).unwrap();
    let x = Mat::from_fn(m, m, |i, j| se.U()[(i, j)] / se.S().column_vector()[j].sqrt());
    let hp = x.transpose() * &h * &x;
    let hp = Mat::from_fn(m, m, |i, j| 0.5 * (hp[(i, j)] + hp[(j, i)]));
    let e = hp.self_adjoint_eigen(Side::Lower).unwrap();
    let mut levels: Vec<f64> = (0..m).map(|i| e.S().column_vector()[i]).filter(|&v| v > -c * c).collect();
    levels.sort_by(f64::total_cmp);
    levels
}

#[test]
fn small_component_overlap_follows_from_the_kinetic_matrix() {
    let c = DFRATOM_SPEED_OF_LIGHT;
    for kappa in [-1, 1, -2, 2, -3, 3, -4] {
        let exponents = even(0.07, 3.1, 9);
        let d = dirac_one_electron(kappa, &exponents, 3.0, Nucleus::Point, c).unwrap();
        let l = if kappa > 0 { kappa as u32 } else { (-kappa - 1) as u32 };
        let t = one_electron(l, &exponents, 3.0, Nucleus::Point).unwrap().kinetic;
        let n = exponents.len();
        for j in 0..n {
            for i in 0..n {
                let s_ss = d.overlap[(n + i) + 2 * n * (n + j)];
                let expected = t[i + n * j] / (t[i + n * i] * t[j + n * j]).sqrt();
                assert!((s_ss - expected).abs() <= 1e-11 * expected.abs(), "κ {kappa} ({i},{j}): {s_ss} vs {expected}");
            }
        }
    }
}

#[test]
fn hydrogen_like_dirac_levels_match_the_exact_formula_without_collapse() {
    let c = DFRATOM_SPEED_OF_LIGHT;
    // (κ, lowest n) and the levels checked.
    let symmetries = [(-1, 1), (1, 2), (-2, 2), (2, 3), (-3, 3)];
    for (z, exponents, tolerance) in [(1.0, even(0.002, 2.0, 34), 2e-6), (50.0, even(0.2, 2.0, 40), 5e-6)] {
        for (kappa, n0) in symmetries {
            let levels = dirac_levels(kappa, &exponents, z, c);
            let large_c = 1e4;
            let schrodinger_levels = dirac_levels(kappa, &exponents, z, large_c);
            // The lowest level of each κ, and 2s1/2 too.
            for i in 0..if kappa == -1 { 2 } else { 1 } {
                let n = n0 + i as u32;
                let (e, exact) = (levels[i], dirac_exact(n, kappa, z, c));
                let relative = (e - exact) / exact.abs();
                // The shift from c = 1e4 au to c, in which the basis error of the level largely cancels.
                let exact_large_c = dirac_exact(n, kappa, z, large_c);
                let (shift, exact_shift) = (e - schrodinger_levels[i], exact - exact_large_c);
                println!("Z {z} κ {kappa} n {n}: {e:.12} exact {exact:.12} relative {relative:.1e}; shift {shift:.6e} exact {exact_shift:.6e}");
                assert!(relative.abs() < tolerance, "Z {z} κ {kappa} n {n}: {e} vs exact {exact}");
                assert!(relative > -tolerance, "variational collapse: {e} below {exact}");
                // At Z = 1 the shift (~2e-6) is within the basis error of the levels (~1e-8).
                if z > 10.0 {
                    assert!(
                        ((shift - exact_shift) / exact_shift).abs() < 1e-4,
                        "Z {z} κ {kappa} n {n}: shift {shift} vs {exact_shift}"
                    );
                }
                // Towards the non-relativistic limit: at c = 1e4 au the exact level is within
                // (Z/c)² ≈ 2.5e-5 of -Z²/2n², and the matrix still matches it.
                let nr = schrodinger_levels[i];
                assert!(((nr - exact_large_c) / exact_large_c).abs() < tolerance, "c = 1e4: {nr} vs {exact_large_c}");
            }
        }
    }
}

fn dirac_spec(z: f64, c: f64, shells: &[(u32, Vec<f64>, usize)]) -> ScfSpec {
    let mut spinors = Vec::new();
    let mut occupations = Vec::new();
    for (l, exponents, closed) in shells {
        let kappas = if *l == 0 { vec![-1] } else { vec![*l as i32, -(*l as i32) - 1] };
        for kappa in kappas {
            spinors.push(Spinor { kappa, exponents: exponents.clone() });
            occupations.push(Occupation::closed(*closed));
        }
    }
    ScfSpec {
        threshold_large: 1e-9,
        threshold_small: 1e-8,
        max_iterations: 200,
        ..ScfSpec::new(Basis::Dirac { speed_of_light: c, spinors }, z, Nucleus::Point, occupations)
    }
}

fn hf_spec(z: f64, shells: &[(u32, Vec<f64>, usize)]) -> ScfSpec {
    let basis =
        Basis::NonRelativistic(shells.iter().map(|(l, e, _)| Symmetry { l: *l, exponents: e.clone() }).collect());
    let occupations = shells.iter().map(|s| Occupation::closed(s.2)).collect();
    ScfSpec { threshold_large: 1e-9, max_iterations: 200, ..ScfSpec::new(basis, z, Nucleus::Point, occupations) }
}

#[test]
fn dirac_fock_tends_to_hartree_fock_as_c_grows() {
    let cases = [
        ("Ne", 10.0, vec![(0, even(0.1, 2.5, 12), 2), (1, even(0.05, 2.5, 8), 1)]),
        ("Ar", 18.0, vec![(0, even(0.03, 2.4, 15), 3), (1, even(0.03, 2.4, 11), 2)]),
    ];
    for (name, z, shells) in cases {
        let hf = scf(&Backend::Cpu, &hf_spec(z, &shells)).unwrap().energy;
        // Density thresholds 1e-6: at 100c the Dirac matrix spans 2c² ≈ 4e8 hartree, and its
        // eigenvectors carry rounding of ~1e-16 x 4e8 (the energy error is quadratic: ~1e-12).
        let shift = |c: f64| {
            let spec = ScfSpec { threshold_large: 1e-6, threshold_small: 1e-6, ..dirac_spec(z, c, &shells) };
            scf(&Backend::Cpu, &spec).unwrap().energy - hf
        };
        let (s1, s10, s100) = (
            shift(DFRATOM_SPEED_OF_LIGHT),
            shift(10.0 * DFRATOM_SPEED_OF_LIGHT),
            shift(100.0 * DFRATOM_SPEED_OF_LIGHT),
        );
        println!("{name}: E_HF = {hf:.10}; E_DF - E_HF = {s1:.6e} (c), {s10:.6e} (10c), {s100:.6e} (100c)");
        assert!(s1 < 0.0 && s10 < 0.0 && s100 < 0.0, "{name}: relativity lowers the energy");
        assert!((s1 / s10 / 100.0 - 1.0).abs() < 0.01, "{name}: the shift does not scale as 1/c²: {s1} / {s10}");
        assert!((s10 / s100 / 100.0 - 1.0).abs() < 0.01, "{name}: the shift does not scale as 1/c²: {s10} / {s100}");
    }
}

/// PySCF 2.14.0 ROHF (spin = 1) on the same bases, conv_tol 1e-13:
///
/// ```text
/// mol = gto.M(atom=f'{name} 0 0 0', basis=basis, spin=1, cart=False)
/// mf = scf.ROHF(mol); mf.conv_tol = 1e-13; e = mf.kernel()
/// ```
/// Li: even(0.02, 2.5, 12) s → -7.431951246054; Na: s even(0.01, 2.5, 15), p even(0.03, 2.5, 9)
/// → -161.807818789478.
#[test]
fn one_open_s_electron_matches_pyscf_rohf() {
    let cases = [
        ("Li", 3.0, vec![(0, even(0.02, 2.5, 12), 1)], -7.431951246054),
        ("Na", 11.0, vec![(0, even(0.01, 2.5, 15), 2), (1, even(0.03, 2.5, 9), 1)], -161.807818789478),
    ];
    for (name, z, shells, pyscf) in cases {
        let mut spec = hf_spec(z, &shells);
        spec.occupations[0].open_electrons = 1.0;
        let r = scf(&Backend::Cpu, &spec).unwrap();
        println!(
            "{name}: E = {:.10} (PySCF ROHF {pyscf:.10}, difference {:.1e}), ε {:?}",
            r.energy,
            r.energy - pyscf,
            r.orbital_energies
        );
        assert!((r.energy - pyscf).abs() <= 1e-8, "{name}: {} vs {pyscf}", r.energy);
    }
}

/// The average-of-configuration energy of Ne with q electrons in its 2p shell is continuous at
/// both ends: q → 6 gives the closed shell, q → 0 the 2p-stripped ion (Ne⁶⁺ 1s² 2s²).
#[test]
fn open_shell_energy_is_continuous_at_empty_and_full() {
    let shells = vec![(0, even(0.1, 2.5, 12), 2), (1, even(0.05, 2.5, 8), 0)];
    let closed_ne =
        scf(&Backend::Cpu, &hf_spec(10.0, &[(0, even(0.1, 2.5, 12), 2), (1, even(0.05, 2.5, 8), 1)])).unwrap();
    let ion = scf(&Backend::Cpu, &hf_spec(10.0, &[(0, even(0.1, 2.5, 12), 2)])).unwrap();
    let with = |q: f64| {
        let mut spec = hf_spec(10.0, &shells);
        spec.occupations[1].open_electrons = q;
        scf(&Backend::Cpu, &spec).unwrap().energy
    };
    let (near_full, near_empty) = (with(6.0 - 1e-6), with(1e-6));
    println!(
        "Ne: q = 6 - 1e-6: {near_full:.10} (closed {:.10}); q = 1e-6: {near_empty:.10} (ion {:.10})",
        closed_ne.energy, ion.energy
    );
    assert!((near_full - closed_ne.energy).abs() < 1e-4);
    assert!((near_empty - ion.energy).abs() < 1e-4);
}

/// Numerical Dirac-Fock limits from `tests/reference/df_numerical.py` (run here with NumPy/SciPy:
/// `python3 tests/reference/df_numerical.py`): a B-spline dual-kinetic-balance Galerkin solver on
/// a radial grid (Shabaev et al., PRL 93, 130405 (2004)), no Gaussians; four grids agree to
/// 1.4e-12 hartree, its non-relativistic mode reproduces the numerical HF limits of He and Be
/// (Froese Fischer) to 4e-12, and its one-electron Dirac levels the exact formula to 7e-13.
/// c = 137.03599976; Gaussian nuclei ξ = 1.1671538870e9 (He), 7.8788802914e8 (Be),
/// 5.2105715255e8 (Ne) bohr⁻². Columns: name, Z, closed s shells, ξ, E_DF point, E_DF Gaussian,
/// E_HF (hartree).
const NUMERICAL_DF: [(&str, f64, usize, f64, f64, f64, f64); 3] = [
    ("He", 2.0, 1, 1.1671538870e9, -2.8618133422120, -2.8618133228159, -2.8616799956123),
    ("Be", 4.0, 2, 7.8788802914e8, -14.5758922664034, -14.5758916978083, -14.5730231683166),
    ("Ne8+", 10.0, 1, 5.2105715255e8, -93.9827996174656, -93.9827622152890, -93.8611135192305),
];

/// He, Be and Ne⁸⁺ in one even-tempered s set of 30 exponents (0.03 … 2.6e8 bohr⁻²): Dirac-Fock
/// with a point and with a Gaussian nucleus approaches the numerical Dirac-Fock limit as closely
/// as Hartree-Fock in the same set approaches the numerical HF limit (the basis error is
/// non-relativistic in origin), and the relativistic shift E_DF - E_HF matches the numerical one
/// to 1e-4 of itself. Measured differences are printed.
#[test]
fn dirac_fock_approaches_the_numerical_dirac_fock_limit() {
    for (name, z, closed, xi, point_limit, gaussian_limit, hf_limit) in NUMERICAL_DF {
        let shells = [(0, even(0.03, 2.2, 30), closed)];
        // Density thresholds 1e-7: the energy error is second order in them.
        let hf = scf(&Backend::Cpu, &ScfSpec { threshold_large: 1e-7, ..hf_spec(z, &shells) }).unwrap().energy;
        for (nucleus, limit) in [(Nucleus::Point, point_limit), (Nucleus::Gaussian { exponent: xi }, gaussian_limit)] {
            let dirac = dirac_spec(z, DFRATOM_SPEED_OF_LIGHT, &shells);
            let df = scf(&Backend::Cpu, &ScfSpec { nucleus, threshold_large: 1e-7, threshold_small: 1e-7, ..dirac })
                .unwrap()
                .energy;
            let (shift, limit_shift) = (df - hf, limit - hf_limit);
            println!(
                "{name} {nucleus:?}: DF {df:.10} (numerical {limit:.10}, {:+.1e}); HF {hf:.10} (numerical {hf_limit:.10}, {:+.1e}); shift {shift:.6e} vs {limit_shift:.6e}",
                df - limit,
                hf - hf_limit
            );
            assert!(df > limit - 1e-9, "{name}: DF {df} below the numerical limit {limit}");
            assert!(df - limit < 1e-6 + 2.0 * (hf - hf_limit).abs(), "{name}: DF {df} vs {limit}");
            assert!(((shift - limit_shift) / limit_shift).abs() < 1e-4, "{name}: shift {shift} vs {limit_shift}");
        }
    }
}

/// (κ, a, b, ξ (0: point), S^SS_ab, Π_ab, -2c² S^SS_ab, V^SS_ab) for Z = 1, c = 137.03599976,
/// from `tests/reference/scf_extremes_mpmath.py` (quadrature of the small functions at 50
/// digits). The κ = 3 row has a nucleus far wider than its functions (u = p/(p + ξ) = 1 - 3e-92),
/// where the three primitive terms of V^SS cancel to 1e-92 of themselves.
type DiracExtreme = (i32, f64, f64, f64, f64, f64, f64, f64);
#[allow(clippy::excessive_precision)]
const DIRAC_EXTREMES: [DiracExtreme; 4] = [
    (
        -1,
        1e300,
        2e300,
        0.0,
        0.8630964830352416360599478,
        2.048588105935873537029721e152,
        -32415.94507119602584494087,
        -1.124562959001586596411476e150,
    ),
    (
        2,
        1e-300,
        3e-300,
        1e9,
        0.5234652332449310244044355,
        1.897892175055550357208142e-148,
        -19660.16613562732298967329,
        -1.140081576020835176958364e-150,
    ),
    (
        3,
        1e100,
        2e100,
        1e9,
        0.7233201493007162489609753,
        2.973626994179283481813329e52,
        -27166.26320404545417404956,
        -25809.85844133261642442996,
    ),
    (
        1,
        1e-200,
        2e-200,
        0.0,
        0.8137351679633057800810972,
        2.493462037017468496178563e-98,
        -30562.04610455113594580575,
        -2.27953346998619641659891e-100,
    ),
];

#[test]
fn dirac_blocks_at_extreme_exponents_match_mpmath() {
    let mut worst = 0.0f64;
    for (kappa, a, b, xi, s_ss, pi, rest, v_ss) in DIRAC_EXTREMES {
        let nucleus = if xi > 0.0 { Nucleus::Gaussian { exponent: xi } } else { Nucleus::Point };
        let d = dirac_one_electron(kappa, &[a, b], 1.0, nucleus, DFRATOM_SPEED_OF_LIGHT).unwrap();
        // 4 x 4 over (large a, large b, small a, small b): element (i, j) at i + 4 j.
        for (got, want, what) in [
            (d.overlap[2 + 4 * 3], s_ss, "S^SS_ab"),
            (d.free_hamiltonian[4 * 3], pi, "Π_ab"),
            (d.free_hamiltonian[3], pi, "Π_ab (transpose)"),
            (d.free_hamiltonian[2 + 4 * 3], rest, "-2c² S^SS_ab"),
            (d.nuclear[2 + 4 * 3], v_ss, "V^SS_ab"),
        ] {
            let err = ((got - want) / want).abs();
            worst = worst.max(err);
            assert!(
                err <= 1e-12,
                "κ {kappa}, a {a:e}, b {b:e}, ξ {xi:e}: {what} = {got:e}, mpmath {want:e} ({err:.1e})"
            );
        }
    }
    println!("Dirac blocks at extreme exponents vs mpmath: max relative error {worst:.1e}");
}

/// 1s1/2 of a hydrogen-like ion Z = 150 in the Gaussian nucleus of A = 370 (ξ =
/// 97261163.78227422 bohr⁻²), c = 137.03599976, from `tests/reference/df_numerical.py`'s
/// B-spline dual-kinetic-balance solver (`Basis`, `hcore` with the Gaussian potential,
/// `lowest_states` with the shift -1.9 c²) on its grids A-D with r_min / 20 and r_max = 2 (x1.4
/// for D) bohr: -20811.32745371965, -20811.327453724512, -20811.32745372071, -20811.327453718528.
const Z150_GAUSSIAN_1S: f64 = -20811.3274537207;

#[test]
fn the_nuclear_charge_is_bounded_by_c_for_a_point_nucleus_and_by_the_critical_charge_for_a_gaussian() {
    let c = DFRATOM_SPEED_OF_LIGHT;
    let exponents = even(0.5, 2.0, 36);
    // Point nucleus: Z = 140 > c refused, Z = c refused, Z just below c accepted.
    for z in [140.0, c] {
        match dirac_one_electron(-1, &exponents, z, Nucleus::Point, c) {
            Err(Error::InvalidArgument { name: "nuclear_charge", .. }) => {}
            other => panic!("Z = {z}, point nucleus: expected a refusal, got {other:?}"),
        }
    }
    assert!(dirac_one_electron(-1, &exponents, 137.0, Nucleus::Point, c).is_ok());
    // Gaussian nucleus: Z = 150, one s1/2 electron (the open shell's average of configuration
    // removes its self-interaction: E = ε_1s). Its 1s lies below -c², where the electronic
    // states were once sought; it is the lowest state above the negative-energy branch.
    let xi = gaussian_nucleus_exponent(370.0).unwrap();
    assert!((xi - 97261163.78227422).abs() < 1e-6 * xi, "ξ = {xi}");
    let one_electron_ion = |z: f64| {
        let basis =
            Basis::Dirac { speed_of_light: c, spinors: vec![Spinor { kappa: -1, exponents: exponents.clone() }] };
        let occupations = vec![Occupation { closed: 0, open_electrons: 1.0 }];
        let spec = ScfSpec {
            threshold_large: 1e-9,
            threshold_small: 1e-9,
            max_iterations: 100,
            ..ScfSpec::new(basis, z, Nucleus::Gaussian { exponent: xi }, occupations)
        };
        scf(&Backend::Cpu, &spec)
    };
    let r = one_electron_ion(150.0).unwrap();
    let e = r.energy;
    println!(
        "Z = 150, Gaussian nucleus: E = {e:.8} (B-spline {Z150_GAUSSIAN_1S:.8}, {:+.1e}), ε = {:.8}, E/c² = {:.6}",
        e - Z150_GAUSSIAN_1S,
        r.orbital_energies[0][0],
        e / (c * c)
    );
    assert!(e < -c * c);
    // The Gaussian set (36 exponents to 1.7e10) lies within a few 1e-10 of the grid solution
    // (kinetic balance does not make the Dirac level a strict upper bound).
    assert!(((e - Z150_GAUSSIAN_1S) / Z150_GAUSSIAN_1S).abs() < 5e-9, "E = {e}, B-spline {Z150_GAUSSIAN_1S}");
    assert!((r.orbital_energies[0][0] - e).abs() < 1e-9 * e.abs());
    // Z = 175: 1s1/2 has dived into the negative-energy continuum (below -2c²).
    match one_electron_ion(175.0) {
        Err(Error::InvalidArgument { name: "nuclear_charge", rule, .. }) => {
            assert!(rule.contains("critical"), "{rule}")
        }
        other => panic!("Z = 175, Gaussian nucleus: expected a refusal, got {other:?}"),
    }
}
