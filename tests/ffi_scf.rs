//! The C ABI of the SCF family (`src/ffi/scf.rs`) at its three levels, against independent
//! references:
//!
//! * WTBS exponents: the recursion ζ_1 = α, ζ_k = ζ_(k-1) β [1 + γ (k/K)^δ] evaluated here, with
//!   `wtbspara` in DFRATOM's order (α, β, δ, γ);
//! * one-electron integrals of one normalised Gaussian r^l e^(-a r²): ⟨1⟩ = 1, T = (2l+3) a / 2,
//!   ⟨-Z/r⟩ = -2Z √(2a/π) (s), and the Gaussian nucleus -Z erf(√ξ r)/r: -2Z √(2aξ/(π(2a+ξ))) (s),
//!   the potential of one Gaussian charge on another (Szabo & Ostlund, eq. A.41 at zero distance);
//! * the supermatrix and the Fock build of one s function: R^0 = 2 √(a/π), the self-repulsion of
//!   the Gaussian charge |φ|² (same formula), so G_11 = R^0 / 2 and G(D) = R^0 for D = 2;
//! * the Fock build of random symmetric densities over s, p and d symmetries against the
//!   closed-shell formula assembled here from the Slater integrals R^k (`scf::slater`, tested
//!   against mpmath quadrature in tests/scf.rs) and exact 3j symbols;
//! * whole SCFs in one s Gaussian: hydrogen (one open s electron: the average of configuration
//!   removes the self-interaction) has E(a) = 3a/2 - 2√(2a/π), minimal -4/(3π) at a = 8/(9π);
//!   helium E(a) = 3a - k √a with k = (8√2 - 2)/√π, minimal -k²/12 at a = (k/6)²; the WTBS
//!   optimisation of that one exponent finds a = (k/6)²;
//! * a non-converged SCF: `ATOMGPU_ERR_NOT_CONVERGED` with its last cycle written;
//! * the long calls (`_run`, `_optimise_wtbs`, `_integrals_create`) stopped by a 1 ms time limit
//!   and by a progress callback (`ATOMGPU_ERR_CANCELLED`, outputs untouched; the reports' task,
//!   `done` and `total` as documented), and an SCF run to its end reporting `total` of `total`;
//!   max_iterations = 2^62 refused;
//! * extreme one-electron inputs: S of ζ = 1e-200 and 2e-200 (0.9154520639587190, mpmath, as in
//!   tests/scf.rs), T of 1.5e308 overflowing (`ATOMGPU_ERR_NOT_FINITE` at `free_hamiltonian`[0]), c =
//!   1e300 refused, a point nucleus of Z = 140 refused and a Gaussian one accepted;
//! * bad input named by argument and position, outputs untouched;
//! * on a CUDA device, the C entry points give the CPU's numbers (skipped without one, unless
//!   `ATOMGPU_REQUIRE_GPU=1`).

#[allow(dead_code)]
#[path = "support/rng.rs"]
mod rng;

#[path = "support/gpu.rs"]
mod gpu;

use atomgpu::ffi::common::*;
use atomgpu::ffi::scf::*;
use atomgpu::math::wigner::three_j;
use atomgpu::scf::slater::{slater, Gaussian};
use rng::Rng;
use std::f64::consts::PI;
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::Mutex;

/// The backend is process-wide: tests that set it run one at a time.
static BACKEND: Mutex<()> = Mutex::new(());

fn on_backend(backend: i32) -> std::sync::MutexGuard<'static, ()> {
    let lock = BACKEND.lock().unwrap_or_else(|p| p.into_inner());
    assert_eq!(atomgpu_set_backend(backend), ATOMGPU_OK);
    lock
}

fn last_error() -> String {
    let mut buffer = vec![0u8; 1024];
    let n = unsafe { atomgpu_last_error_message(buffer.as_mut_ptr() as *mut _, buffer.len()) };
    String::from_utf8_lossy(&buffer[..(n as usize).min(1023)]).into_owned()
}

fn params(method: i32, z: f64) -> atomgpu_scf_params {
    let mut p = unsafe { std::mem::zeroed::<atomgpu_scf_params>() };
    assert_eq!(unsafe { atomgpu_scf_default_params(&mut p) }, ATOMGPU_OK);
    p.method = method;
    p.nuclear_charge = z;
    p.threshold_large = 1e-10;
    p.threshold_small = 1e-10;
    p.max_iterations = 200;
    p
}

#[test]
fn defaults_are_dfratoms() {
    let p = params(ATOMGPU_SCF_HARTREE_FOCK, 1.0);
    let mut d = p;
    assert_eq!(unsafe { atomgpu_scf_default_params(&mut d) }, ATOMGPU_OK);
    assert_eq!(d.speed_of_light, 137.03599976);
    assert_eq!((d.damping, d.threshold_large, d.threshold_small, d.max_iterations), (0.3, 1e-5, 1e-7, 50));
    assert_eq!((d.diis_size, d.threshold_energy, d.threshold_gradient), (8, 1e-12, 1e-6));
    assert_eq!(d.nucleus_exponent, 0.0);
    assert_eq!((d.nucleus_model, d.nucleus_skin_thickness), (ATOMGPU_SCF_NUCLEUS_POINT, 2.30));
}

#[test]
fn wtbs_exponents_follow_the_recursion_in_dfratom_order() {
    // Two groups: (α, β, δ, γ) = (0.05, 2.1, 3.0, 0.4) and (0.2, 1.9, 1.5, 0.0).
    let wtbspara = [0.05, 2.1, 3.0, 0.4, 0.2, 1.9, 1.5, 0.0];
    let (nbs, start, groups) = ([6i64, 4, 3], [1i64, 3, 2], [1i64, 1, 2]);
    let mut out = vec![0.0; 13];
    let status = unsafe {
        atomgpu_scf_wtbs_exponents(
            2,
            wtbspara.as_ptr(),
            3,
            nbs.as_ptr(),
            start.as_ptr(),
            groups.as_ptr(),
            13,
            out.as_mut_ptr(),
        )
    };
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    let pool = |alpha: f64, beta: f64, delta: f64, gamma: f64, k: usize| {
        let mut z = vec![alpha];
        for i in 2..=k {
            let previous = z[i - 2];
            z.push(previous * beta * (1.0 + gamma * (i as f64 / k as f64).powf(delta)));
        }
        z
    };
    // Group 1's pool: K = max(1 + 6 - 1, 3 + 4 - 1) = 6; group 2's: K = 2 + 3 - 1 = 4.
    let (p1, p2) = (pool(0.05, 2.1, 3.0, 0.4, 6), pool(0.2, 1.9, 1.5, 0.0, 4));
    let want: Vec<f64> = p1.iter().chain(&p1[2..6]).chain(&p2[1..4]).copied().collect();
    for (i, (a, b)) in out.iter().zip(&want).enumerate() {
        assert!((a - b).abs() <= 1e-15 * b, "exponent {i}: {a} vs {b}");
    }
}

#[test]
fn one_electron_integrals_of_one_gaussian_match_closed_forms() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let (z, a, xi) = (3.0, 0.7, 2.5e4);
    for (l, nuclear_point) in [(0, -2.0 * z * (2.0 * a / PI).sqrt()), (1, f64::NAN)] {
        for nucleus_exponent in [0.0, xi] {
            let mut p = params(ATOMGPU_SCF_HARTREE_FOCK, z);
            p.nucleus_exponent = nucleus_exponent;
            if nucleus_exponent > 0.0 {
                p.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN;
            }
            let (mut s, mut t, mut v) = (0.0, 0.0, 0.0);
            let status = unsafe { atomgpu_scf_one_electron(&p, l, 1, &a, &mut s, &mut t, &mut v) };
            assert_eq!(status, ATOMGPU_OK, "{}", last_error());
            assert!((s - 1.0).abs() < 1e-14);
            assert!((t - (2 * l + 3) as f64 * a / 2.0).abs() < 1e-14, "l = {l}: T = {t}");
            if l == 0 {
                let want = if nucleus_exponent > 0.0 {
                    -2.0 * z * (2.0 * a * xi / (PI * (2.0 * a + xi))).sqrt()
                } else {
                    nuclear_point
                };
                assert!((v - want).abs() < 1e-13 * want.abs(), "ξ = {nucleus_exponent}: V = {v} vs {want}");
            }
        }
    }
    // Dirac: 2 x 2 blocks of one function; the normalised small function has ⟨1⟩ = 1 and the
    // small-small kinetic block is -2c² S^SS.
    let p = params(ATOMGPU_SCF_DIRAC_FOCK, z);
    let (mut s, mut t, mut v) = ([0.0; 4], [0.0; 4], [0.0; 4]);
    let status = unsafe { atomgpu_scf_one_electron(&p, -1, 1, &a, s.as_mut_ptr(), t.as_mut_ptr(), v.as_mut_ptr()) };
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    let c = p.speed_of_light;
    assert!((s[0] - 1.0).abs() < 1e-14 && (s[3] - 1.0).abs() < 1e-14 && s[1] == 0.0);
    assert!((t[3] + 2.0 * c * c).abs() < 1e-9 && t[0] == 0.0);
    // c σ·p between the large s function and its kinetically balanced partner: c √(2 T).
    assert!((t[1] - c * (2.0 * 1.5 * a).sqrt()).abs() < 1e-10, "Π = {}", t[1]);
}

/// An integral handle of one basis on the current backend.
fn integrals(p: &atomgpu_scf_params, angular: &[i32], counts: &[i64], exponents: &[f64]) -> *mut atomgpu_scf_integrals {
    let mut h = null_mut();
    let status = unsafe {
        atomgpu_scf_integrals_create(
            p,
            angular.len() as i64,
            angular.as_ptr(),
            counts.as_ptr(),
            exponents.as_ptr(),
            &mut h,
        )
    };
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    h
}

fn two_electron(h: *mut atomgpu_scf_integrals, densities: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; densities.len()];
    let status =
        unsafe { atomgpu_scf_integrals_two_electron(h, densities.len() as i64, densities.as_ptr(), g.as_mut_ptr()) };
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    g
}

#[test]
fn one_s_function_gives_the_gaussian_self_repulsion() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let a = 1.3;
    let r0 = 2.0 * (a / PI).sqrt();
    let h = integrals(&params(ATOMGPU_SCF_HARTREE_FOCK, 2.0), &[0], &[1], &[a]);
    let (mut pairs, mut sets) = (0, 0);
    assert_eq!(unsafe { atomgpu_scf_integrals_sizes(h, &mut pairs, &mut sets) }, ATOMGPU_OK);
    assert_eq!((pairs, sets), (1, 1));
    let mut packed = 0.0;
    assert_eq!(unsafe { atomgpu_scf_integrals_supermatrix(h, 1, &mut packed) }, ATOMGPU_OK);
    assert!((packed - r0 / 2.0).abs() < 1e-15, "{packed} vs {}", r0 / 2.0);
    let g = two_electron(h, &[2.0]);
    assert!((g[0] - r0).abs() < 1e-15);
    assert_eq!(unsafe { atomgpu_scf_integrals_destroy(h) }, ATOMGPU_OK);
}

/// G(D)^a_pq = Σ_b Σ_rs D^b_rs [R^0(pq, rs) - ¼ Σ_k (l_a k l_b; 0 0 0)² (R^k(pr, qs) + R^k(ps, qr))]
/// from Slater integrals, for symmetries (l, exponents) and column-major densities.
fn fock_from_slater(shells: &[(u32, Vec<f64>)], densities: &[Vec<f64>]) -> Vec<f64> {
    let gauss = |l: u32, exponent: f64| Gaussian { l, exponent };
    let mut out = Vec::new();
    for (la, ea) in shells {
        let m = ea.len();
        for q in 0..m {
            for p in 0..m {
                let mut sum = 0.0;
                for ((lb, eb), d) in shells.iter().zip(densities) {
                    let n = eb.len();
                    for s in 0..n {
                        for r in 0..n {
                            let (gp, gq, gr, gs) =
                                (gauss(*la, ea[p]), gauss(*la, ea[q]), gauss(*lb, eb[r]), gauss(*lb, eb[s]));
                            let mut value = slater(0, gp, gq, gr, gs).unwrap();
                            for k in (la.abs_diff(*lb)..=la + lb).step_by(2) {
                                let w = three_j(*la as i32, k as i32, *lb as i32, 0, 0, 0).powi(2);
                                value -= 0.25
                                    * w
                                    * (slater(k, gp, gr, gq, gs).unwrap() + slater(k, gp, gs, gq, gr).unwrap());
                            }
                            sum += d[r + n * s] * value;
                        }
                    }
                }
                out.push(sum);
            }
        }
    }
    out
}

fn random_symmetric(rng: &mut Rng, m: usize) -> Vec<f64> {
    let mut d = vec![0.0; m * m];
    for q in 0..m {
        for p in 0..=q {
            let x = rng.uniform(0.1, 1.0);
            d[p + m * q] = x;
            d[q + m * p] = x;
        }
    }
    d
}

fn random_shells(rng: &mut Rng, sizes: &[(u32, usize)]) -> Vec<(u32, Vec<f64>)> {
    sizes.iter().map(|&(l, n)| (l, (0..n).map(|_| 10f64.powf(rng.uniform(-1.5, 3.0))).collect())).collect()
}

/// The Fock build of `shells` with random densities on the current backend, against the Slater
/// assembly; returns the largest relative difference.
fn fock_build_difference(rng: &mut Rng, sizes: &[(u32, usize)]) -> (f64, Vec<f64>) {
    let shells = random_shells(rng, sizes);
    let densities: Vec<Vec<f64>> = shells.iter().map(|(_, e)| random_symmetric(rng, e.len())).collect();
    let angular: Vec<i32> = shells.iter().map(|s| s.0 as i32).collect();
    let counts: Vec<i64> = shells.iter().map(|s| s.1.len() as i64).collect();
    let exponents: Vec<f64> = shells.iter().flat_map(|s| s.1.clone()).collect();
    let h = integrals(&params(ATOMGPU_SCF_HARTREE_FOCK, 1.0), &angular, &counts, &exponents);
    let g = two_electron(h, &densities.concat());
    assert_eq!(unsafe { atomgpu_scf_integrals_destroy(h) }, ATOMGPU_OK);
    let want = fock_from_slater(&shells, &densities);
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    (g.iter().zip(&want).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / scale, g)
}

#[test]
fn fock_build_matches_the_slater_integral_formula() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let mut rng = Rng::new(7);
    for sizes in [&[(0u32, 3usize)][..], &[(0, 4), (1, 3)], &[(0, 2), (1, 3), (2, 5)]] {
        let (diff, _) = fock_build_difference(&mut rng, sizes);
        println!("{sizes:?}: Fock build vs Slater formula {diff:.1e}");
        assert!(diff < 1e-13, "{sizes:?}: {diff:.2e}");
    }
}

/// One SCF through the C ABI: (status, energies, orbital energies, iterations).
fn run(
    p: &atomgpu_scf_params,
    angular: &[i32],
    counts: &[i64],
    exponents: &[f64],
    closed: &[i64],
    open: &[f64],
) -> (i32, [f64; 4], Vec<f64>, i64) {
    let n_orbitals: i64 = closed.iter().sum::<i64>() + open.iter().filter(|&&q| q > 0.0).count() as i64;
    let (mut energies, mut orbitals, mut iterations) = ([0.0; 4], vec![0.0; n_orbitals as usize], 0);
    let status = unsafe {
        atomgpu_scf_run(
            p,
            angular.len() as i64,
            angular.as_ptr(),
            counts.as_ptr(),
            exponents.as_ptr(),
            closed.as_ptr(),
            open.as_ptr(),
            energies.as_mut_ptr(),
            n_orbitals,
            orbitals.as_mut_ptr(),
            &mut iterations,
        )
    };
    (status, energies, orbitals, iterations)
}

#[test]
fn one_gaussian_hydrogen_and_helium_reach_their_closed_form_minima() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    // Hydrogen: one open s electron.
    let a = 8.0 / (9.0 * PI);
    let (status, e, eps, _) = run(&params(ATOMGPU_SCF_HARTREE_FOCK, 1.0), &[0], &[1], &[a], &[0], &[1.0]);
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    let want = -4.0 / (3.0 * PI);
    assert!((e[0] - want).abs() < 1e-14, "H: {} vs {want}", e[0]);
    assert!((e[1] - 4.0 / (3.0 * PI)).abs() < 1e-14 && (e[2] + 8.0 / (3.0 * PI)).abs() < 1e-14 && e[3].abs() < 1e-14);
    assert!((eps[0] - want).abs() < 1e-14, "H orbital energy {}", eps[0]);
    // Helium: one closed s orbital.
    let k = (8.0 * 2f64.sqrt() - 2.0) / PI.sqrt();
    let a = (k / 6.0).powi(2);
    let (status, e, _, _) = run(&params(ATOMGPU_SCF_HARTREE_FOCK, 2.0), &[0], &[1], &[a], &[1], &[0.0]);
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    assert!((e[0] + k * k / 12.0).abs() < 1e-14, "He: {} vs {}", e[0], -k * k / 12.0);
    assert!((e[3] - 2.0 * (a / PI).sqrt()).abs() < 1e-14, "He: two-electron {}", e[3]);
}

#[test]
fn wtbs_optimisation_finds_the_one_gaussian_helium_minimum() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let k = (8.0 * 2f64.sqrt() - 2.0) / PI.sqrt();
    let best = (k / 6.0).powi(2);
    let p = params(ATOMGPU_SCF_HARTREE_FOCK, 2.0);
    let (wtbspara, one) = ([0.4, 2.0, 1.0, 0.5], [1i64]);
    let settings = wtbs_settings(&wtbspara, &one, &one, &one, 0.2, 1e-7, 200);
    let (mut optimised, mut exponent, mut energies, mut evaluations, mut converged) = ([0.0; 4], 0.0, [0.0; 4], 0, 0);
    let status = unsafe {
        atomgpu_scf_optimise_wtbs(
            &p,
            1,
            [0].as_ptr(),
            [1i64].as_ptr(),
            [0.0].as_ptr(),
            &settings,
            optimised.as_mut_ptr(),
            1,
            &mut exponent,
            energies.as_mut_ptr(),
            &mut evaluations,
            &mut converged,
        )
    };
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    println!("He one Gaussian: α = {exponent:.10} (exact {best:.10}), E = {:.14}, {evaluations} SCFs", energies[0]);
    assert_eq!(converged, 1);
    assert_eq!(optimised[0], exponent);
    assert!((exponent - best).abs() < 1e-5 * best, "α {exponent} vs {best}");
    assert!((energies[0] + k * k / 12.0).abs() < 1e-10);
}

#[test]
fn a_non_converged_scf_says_so_and_writes_its_last_cycle() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let mut p = params(ATOMGPU_SCF_HARTREE_FOCK, 10.0);
    p.max_iterations = 2;
    let exponents: Vec<f64> =
        (0..10).map(|k| 0.1 * 2.5f64.powi(k)).chain((0..6).map(|k| 0.2 * 2.5f64.powi(k))).collect();
    let (status, e, eps, iterations) = run(&p, &[0, 1], &[10, 6], &exponents, &[2, 1], &[0.0, 0.0]);
    assert_eq!(status, ATOMGPU_ERR_NOT_CONVERGED);
    let message = last_error();
    assert!(message.contains("did not reach") && message.contains("last cycle"), "{message}");
    assert_eq!(iterations, 2);
    assert!(e[0] < -100.0 && e[0] > -140.0, "Ne after 2 cycles: {}", e[0]);
    assert!(eps.iter().all(|x| x.is_finite() && *x < 0.0));
}

#[test]
fn bad_input_is_named_and_leaves_outputs_untouched() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let p = params(ATOMGPU_SCF_HARTREE_FOCK, 2.0);
    let sentinel = [-7.0; 4];
    // (description, angular, counts, exponents, closed, open, want argument position, fragment)
    type Case = (&'static str, [i32; 1], [i64; 1], [f64; 2], [i64; 1], [f64; 1], i32, &'static str);
    let cases: [Case; 5] = [
        ("negative exponent", [0], [2], [1.0, -2.0], [1], [0.0], 5, "exponents`[1]"),
        ("repeated exponent", [0], [2], [1.0, 1.0], [1], [0.0], 5, "repeats"),
        ("occupation beyond the functions", [0], [2], [1.0, 2.0], [3], [0.0], 6, "fit"),
        ("an open shell beyond the capacity", [0], [2], [1.0, 2.0], [0], [2.5], 7, "closed one"),
        ("negative l", [-1], [2], [1.0, 2.0], [1], [0.0], 3, "an l"),
    ];
    for (what, angular, counts, exponents, closed, open, position, fragment) in cases {
        let (mut energies, mut orbitals, mut iterations) = (sentinel, [-7.0; 4], -7);
        let status = unsafe {
            atomgpu_scf_run(
                &p,
                1,
                angular.as_ptr(),
                counts.as_ptr(),
                exponents.as_ptr(),
                closed.as_ptr(),
                open.as_ptr(),
                energies.as_mut_ptr(),
                1,
                orbitals.as_mut_ptr(),
                &mut iterations,
            )
        };
        assert_eq!(status, ATOMGPU_ERR_INVALID_ARGUMENT, "{what}");
        assert_eq!(atomgpu_last_error_arg(), position, "{what}: {}", last_error());
        assert!(last_error().contains(fragment), "{what}: {}", last_error());
        assert!(energies == sentinel && orbitals == [-7.0; 4] && iterations == -7, "{what}: outputs written");
    }
    // A WTBS symmetry in a group that does not exist; a pool parameter out of range.
    let mut out = [-7.0; 3];
    let bad_group = unsafe {
        atomgpu_scf_wtbs_exponents(
            1,
            [0.1, 2.0, 1.0, 0.0].as_ptr(),
            1,
            [3i64].as_ptr(),
            [1i64].as_ptr(),
            [2i64].as_ptr(),
            3,
            out.as_mut_ptr(),
        )
    };
    assert_eq!((bad_group, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 6), "{}", last_error());
    let bad_beta = unsafe {
        atomgpu_scf_wtbs_exponents(
            1,
            [0.1, 0.9, 1.0, 0.0].as_ptr(),
            1,
            [3i64].as_ptr(),
            [1i64].as_ptr(),
            [1i64].as_ptr(),
            3,
            out.as_mut_ptr(),
        )
    };
    assert_eq!((bad_beta, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 2), "{}", last_error());
    assert!(last_error().contains("wtbspara`[1]") && last_error().contains("β"), "{}", last_error());
    assert_eq!(out, [-7.0; 3]);
    // A Dirac κ of 0; a NULL handle; a destroyed handle.
    let dirac = params(ATOMGPU_SCF_DIRAC_FOCK, 2.0);
    let (mut s, mut t, mut v) = ([0.0; 4], [0.0; 4], [0.0; 4]);
    let status =
        unsafe { atomgpu_scf_one_electron(&dirac, 0, 1, &1.0, s.as_mut_ptr(), t.as_mut_ptr(), v.as_mut_ptr()) };
    assert_eq!((status, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 2));
    let mut g = [0.0];
    assert_eq!(
        unsafe { atomgpu_scf_integrals_two_electron(null(), 1, [1.0].as_ptr(), g.as_mut_ptr()) },
        ATOMGPU_ERR_INVALID_ARGUMENT
    );
    let h = integrals(&p, &[0], &[1], &[1.0]);
    assert_eq!(unsafe { atomgpu_scf_integrals_destroy(h) }, ATOMGPU_OK);
    assert_eq!(
        unsafe { atomgpu_scf_integrals_two_electron(h, 1, [1.0].as_ptr(), g.as_mut_ptr()) },
        ATOMGPU_ERR_INVALID_ARGUMENT
    );
    assert!(last_error().contains("destroyed"), "{}", last_error());
}

/// On a CUDA device the C entry points give the CPU's numbers: the Fock build (sizes 7, 5, 3 and
/// 1, 9) and a Dirac-Fock SCF of Ne.
#[test]
fn gpu_entry_points_equal_cpu() {
    if gpu::cuda_device().is_none() {
        return;
    }
    let sizes: [&[(u32, usize)]; 2] = [&[(0, 7), (1, 5), (2, 3)], &[(0, 1), (3, 9)]];
    for (seed, sizes) in sizes.iter().enumerate() {
        let (cpu_diff, cpu) = {
            let _lock = on_backend(ATOMGPU_BACKEND_CPU);
            fock_build_difference(&mut Rng::new(100 + seed as u64), sizes)
        };
        let (gpu_diff, gpu) = {
            let _lock = on_backend(ATOMGPU_BACKEND_CUDA);
            fock_build_difference(&mut Rng::new(100 + seed as u64), sizes)
        };
        let scale = cpu.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let diff = cpu.iter().zip(&gpu).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / scale;
        println!("{sizes:?}: GPU vs CPU {diff:.1e} (vs Slater: CPU {cpu_diff:.1e}, GPU {gpu_diff:.1e})");
        assert!(diff < 1e-12 && gpu_diff < 1e-12);
    }
    let exponents: Vec<f64> =
        (0..12).map(|k| 0.1 * 2.5f64.powi(k)).chain((0..8).map(|k| 0.05 * 2.5f64.powi(k))).collect();
    let exponents = [&exponents[..], &exponents[12..]].concat();
    let p = params(ATOMGPU_SCF_DIRAC_FOCK, 10.0);
    let args = (&[-1, 1, -2][..], &[12i64, 8, 8][..], &exponents[..], &[2i64, 1, 1][..], &[0.0, 0.0, 0.0][..]);
    let cpu = {
        let _lock = on_backend(ATOMGPU_BACKEND_CPU);
        run(&p, args.0, args.1, args.2, args.3, args.4)
    };
    let gpu = {
        let _lock = on_backend(ATOMGPU_BACKEND_CUDA);
        run(&p, args.0, args.1, args.2, args.3, args.4)
    };
    assert_eq!((cpu.0, gpu.0), (ATOMGPU_OK, ATOMGPU_OK));
    println!("Ne Dirac-Fock: CPU {:.12}, GPU {:.12}", cpu.1[0], gpu.1[0]);
    assert!((cpu.1[0] - gpu.1[0]).abs() < 1e-9);
    let _lock = on_backend(ATOMGPU_BACKEND_AUTO);
}

/// What a progress callback saw: calls, the last `done` and `total`, the task; it stops the call
/// at call `stop_at` (0: never).
#[derive(Default)]
struct Record {
    calls: u32,
    stop_at: u32,
    done: f64,
    total: f64,
    task: String,
}

unsafe extern "C" fn record(user_data: *mut c_void, task: *const c_char, done: f64, total: f64) -> i32 {
    let r = &mut *(user_data as *mut Record);
    r.calls += 1;
    (r.done, r.total) = (done, total);
    r.task = CStr::from_ptr(task).to_string_lossy().into_owned();
    (r.calls == r.stop_at) as i32
}

/// Ne (s 10, p 6 functions) with DFRATOM's damped iteration, thresholds no SCF meets (5e-324),
/// damping 0.999999 and a million cycles: hours of work unless stopped.
fn runaway(p: &atomgpu_scf_params) -> (i32, [f64; 4], Vec<f64>, i64) {
    let mut p = *p;
    (p.threshold_large, p.threshold_small, p.damping, p.max_iterations) = (5e-324, 5e-324, 0.999999, 1_000_000);
    p.diis_size = 0;
    let exponents: Vec<f64> =
        (0..10).map(|k| 0.1 * 2.5f64.powi(k)).chain((0..6).map(|k| 0.2 * 2.5f64.powi(k))).collect();
    let n_orbitals = 3;
    let (mut energies, mut orbitals, mut iterations) = ([-7.0; 4], vec![-7.0; n_orbitals], -7);
    let status = unsafe {
        atomgpu_scf_run(
            &p,
            2,
            [0, 1].as_ptr(),
            [10i64, 6].as_ptr(),
            exponents.as_ptr(),
            [2i64, 1].as_ptr(),
            [0.0, 0.0].as_ptr(),
            energies.as_mut_ptr(),
            n_orbitals as i64,
            orbitals.as_mut_ptr(),
            &mut iterations,
        )
    };
    (status, energies, orbitals, iterations)
}

/// The optimisation settings of the groups `wtbspara` (4 values per group) and the layout
/// `nbs`, `start`, `groups` (one entry per symmetry), which must outlive the settings.
fn wtbs_settings(
    wtbspara: &[f64],
    nbs: &[i64],
    start: &[i64],
    groups: &[i64],
    rho_begin: f64,
    rho_end: f64,
    max_evaluations: i64,
) -> atomgpu_scf_wtbs_settings {
    atomgpu_scf_wtbs_settings {
        n_groups: (wtbspara.len() / 4) as i64,
        wtbspara: wtbspara.as_ptr(),
        nbs: nbs.as_ptr(),
        start: start.as_ptr(),
        groups: groups.as_ptr(),
        rho_begin,
        rho_end,
        max_evaluations,
    }
}

/// A WTBS optimisation of helium in `n` s functions (one group from (0.4, 2, 1, 0.5), rho from 0.2
/// to `rho_end`) with `max_evaluations` SCFs: (status, outputs all untouched).
fn optimise_helium(p: &atomgpu_scf_params, n: usize, rho_end: f64, max_evaluations: i64) -> (i32, bool) {
    let (mut optimised, mut exponents, mut energies, mut evaluations, mut converged) =
        ([-7.0; 4], vec![-7.0; n], [-7.0; 4], -7, -7);
    let (wtbspara, nbs, one) = ([0.4, 2.0, 1.0, 0.5], [n as i64], [1i64]);
    let settings = wtbs_settings(&wtbspara, &nbs, &one, &one, 0.2, rho_end, max_evaluations);
    let status = unsafe {
        atomgpu_scf_optimise_wtbs(
            p,
            1,
            [0].as_ptr(),
            [1i64].as_ptr(),
            [0.0].as_ptr(),
            &settings,
            optimised.as_mut_ptr(),
            n as i64,
            exponents.as_mut_ptr(),
            energies.as_mut_ptr(),
            &mut evaluations,
            &mut converged,
        )
    };
    let untouched = optimised == [-7.0; 4] && exponents.iter().all(|&x| x == -7.0) && energies == [-7.0; 4];
    (status, untouched && evaluations == -7 && converged == -7)
}

#[test]
fn long_calls_honour_the_time_limit_and_the_progress_callback() {
    let _lock = on_backend(ATOMGPU_BACKEND_CPU);
    let (p, he) = (params(ATOMGPU_SCF_HARTREE_FOCK, 10.0), params(ATOMGPU_SCF_HARTREE_FOCK, 2.0));
    let untouched =
        |r: &(i32, [f64; 4], Vec<f64>, i64)| r.1 == [-7.0; 4] && r.2.iter().all(|&x| x == -7.0) && r.3 == -7;
    // A 1 ms time limit.
    assert_eq!(atomgpu_set_time_limit(1e-3), ATOMGPU_OK);
    let r = runaway(&p);
    assert_eq!(r.0, ATOMGPU_ERR_CANCELLED, "{}", last_error());
    assert!(last_error().contains("time limit") && last_error().contains("atomgpu_scf_run"), "{}", last_error());
    assert!(untouched(&r), "outputs written: {r:?}");
    let (status, clean) = optimise_helium(&he, 10, 1e-12, 1_000_000);
    assert_eq!(status, ATOMGPU_ERR_CANCELLED, "{}", last_error());
    assert!(clean, "optimise_wtbs wrote an output");
    assert_eq!(atomgpu_set_time_limit(0.0), ATOMGPU_OK);
    // A callback that stops at its third report: after the supermatrix (1 of the cycles' unit)
    // and cycles 1 and 2.
    let mut rec = Record { stop_at: 3, ..Record::default() };
    let user = &mut rec as *mut Record as *mut c_void;
    assert_eq!(unsafe { atomgpu_set_progress(Some(record), user, 0.0) }, ATOMGPU_OK);
    let r = runaway(&p);
    assert_eq!(r.0, ATOMGPU_ERR_CANCELLED, "{}", last_error());
    assert!(untouched(&r), "outputs written: {r:?}");
    assert_eq!((rec.task.as_str(), rec.done, rec.total), ("atomgpu_scf_run", 2.0, 1e6));
    // The optimisation: the third report comes from the start SCF's second cycle (0 SCFs
    // completed) of a total of max_evaluations + 2.
    rec = Record { stop_at: 3, ..Record::default() };
    let (status, clean) = optimise_helium(&he, 10, 1e-12, 1_000);
    assert_eq!(status, ATOMGPU_ERR_CANCELLED, "{}", last_error());
    assert!(clean, "optimise_wtbs wrote an output");
    assert_eq!((rec.task.as_str(), rec.done, rec.total), ("atomgpu_scf_optimise_wtbs", 0.0, 1002.0));
    // The supermatrix alone: its first report (all sets: 1 of 1) stops it; no handle.
    rec = Record { stop_at: 1, ..Record::default() };
    let mut h = null_mut();
    let status =
        unsafe { atomgpu_scf_integrals_create(&p, 1, [0].as_ptr(), [2i64].as_ptr(), [1.0, 2.0].as_ptr(), &mut h) };
    assert_eq!(status, ATOMGPU_ERR_CANCELLED, "{}", last_error());
    assert!(h.is_null());
    assert_eq!((rec.task.as_str(), rec.done, rec.total), ("atomgpu_scf_integrals_create", 1.0, 1.0));
    // An SCF that converges: the last report is total of total; the optimisation's likewise.
    rec = Record::default();
    let a = 0.5;
    let (status, _, _, iterations) = run(&params(ATOMGPU_SCF_HARTREE_FOCK, 2.0), &[0], &[1], &[a], &[1], &[0.0]);
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    assert!(iterations < 200 && rec.calls as i64 > iterations);
    assert_eq!((rec.task.as_str(), rec.done, rec.total), ("atomgpu_scf_run", 200.0, 200.0));
    rec = Record::default();
    let (status, _) = optimise_helium(&he, 1, 1e-7, 200);
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    assert_eq!((rec.task.as_str(), rec.done, rec.total), ("atomgpu_scf_optimise_wtbs", 202.0, 202.0));
    assert_eq!(unsafe { atomgpu_set_progress(None, null_mut(), 0.0) }, ATOMGPU_OK);
    // max_iterations beyond a million is refused at `params`.
    let mut huge = p;
    huge.max_iterations = 1 << 62;
    let (status, ..) = run(&huge, &[0], &[1], &[a], &[1], &[0.0]);
    assert_eq!((status, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 1), "{}", last_error());
    assert!(last_error().contains("max_iterations"), "{}", last_error());
}

#[test]
fn extreme_one_electron_inputs_are_computed_or_refused() {
    let hf = params(ATOMGPU_SCF_HARTREE_FOCK, 1.0);
    let one = |p: &atomgpu_scf_params, angular: i32, e: &[f64]| {
        let m = if p.method == ATOMGPU_SCF_DIRAC_FOCK { 2 * e.len() } else { e.len() };
        let (mut s, mut t, mut v) = (vec![-7.0; m * m], vec![-7.0; m * m], vec![-7.0; m * m]);
        let status = unsafe {
            atomgpu_scf_one_electron(
                p,
                angular,
                e.len() as i64,
                e.as_ptr(),
                s.as_mut_ptr(),
                t.as_mut_ptr(),
                v.as_mut_ptr(),
            )
        };
        let untouched = [&s, &t, &v].iter().all(|x| x.iter().all(|&y| y == -7.0));
        (status, s, untouched)
    };
    // S of ζ = 1e-200 and 2e-200 (the product ζ_a ζ_b underflows): 0.9154520639587190 (mpmath).
    let (status, s, _) = one(&hf, 0, &[1e-200, 2e-200]);
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    assert!((s[2] - 0.915_452_063_958_719).abs() < 1e-14, "S = {}", s[2]);
    // T_aa = 2.25e308 overflows.
    let (status, _, untouched) = one(&hf, 0, &[1.5e308, 1.7e308]);
    assert_eq!(status, ATOMGPU_ERR_NOT_FINITE);
    assert!(last_error().contains("`free_hamiltonian`[0]"), "{}", last_error());
    assert!(untouched);
    // c = 1e300 is outside [1, 1e5]; a point nucleus of Z = 140 > c; a Gaussian one of Z = 140.
    let mut df = params(ATOMGPU_SCF_DIRAC_FOCK, 1.0);
    df.speed_of_light = 1e300;
    let (status, _, untouched) = one(&df, -1, &[1.0, 2.0]);
    assert_eq!((status, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 1));
    assert!(last_error().contains("speed_of_light") && untouched, "{}", last_error());
    let mut heavy = params(ATOMGPU_SCF_DIRAC_FOCK, 140.0);
    let (status, _, untouched) = one(&heavy, -1, &[1.0, 2.0]);
    assert_eq!((status, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 1));
    assert!(last_error().contains("nuclear_charge") && untouched, "{}", last_error());
    heavy.nucleus_exponent = 9.7e7;
    heavy.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN;
    let (status, s, _) = one(&heavy, -1, &[1.0, 2.0]);
    assert_eq!(status, ATOMGPU_OK, "{}", last_error());
    assert_eq!(s[0], 1.0);
}
