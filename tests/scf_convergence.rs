//! SCF convergence (issue 32): Pulay DIIS with convergence on the energy change and the orbital
//! gradient (the default), against DFRATOM's damped iteration with density thresholds
//! (`diis_size` = 0). References: PySCF 2.14.0's RHF energy of Ne in the same basis (conv_tol
//! 1e-13; the script is in `tests/scf.rs`), −128.488569346229 hartree; and, for the open shell,
//! the dense basis and the Dirac-Fock case, the damped iteration run to a density change of 1e-9,
//! which the DIIS result must equal (the two iterations share only the Fock build and the orbital
//! step).

use atomgpu::backend::Backend;
use atomgpu::error::Error;
use atomgpu::scf::one_electron::Nucleus;
use atomgpu::scf::solver::{scf, Basis, Occupation, ScfResult, ScfSpec};
use atomgpu::scf::{Spinor, Symmetry};

fn even(alpha: f64, beta: f64, n: i32) -> Vec<f64> {
    (0..n).map(|k| alpha * beta.powi(k)).collect()
}

fn hartree_fock(z: f64, shells: &[(u32, Vec<f64>, Occupation)]) -> ScfSpec {
    let basis =
        Basis::NonRelativistic(shells.iter().map(|(l, e, _)| Symmetry { l: *l, exponents: e.clone() }).collect());
    ScfSpec { max_iterations: 200, ..ScfSpec::new(basis, z, Nucleus::Point, shells.iter().map(|s| s.2).collect()) }
}

fn neon() -> ScfSpec {
    hartree_fock(
        10.0,
        &[(0, even(0.1, 2.5, 12), Occupation::closed(2)), (1, even(0.05, 2.5, 8), Occupation::closed(1))],
    )
}

/// Boron 1s² 2s² 2p¹ (average of configuration: the 2p shell open).
fn boron() -> ScfSpec {
    let open_p = Occupation { closed: 0, open_electrons: 1.0 };
    hartree_fock(5.0, &[(0, even(0.03, 2.5, 12), Occupation::closed(2)), (1, even(0.03, 2.5, 8), open_p)])
}

/// Magnesium in a dense even-tempered basis (ratio 1.55: 40 s and 28 p functions, nearly
/// linearly dependent).
fn magnesium() -> ScfSpec {
    hartree_fock(
        12.0,
        &[(0, even(0.01, 1.55, 40), Occupation::closed(3)), (1, even(0.02, 1.55, 28), Occupation::closed(1))],
    )
}

/// The damped iteration of DFRATOM, run to a density change of 1e-9.
fn damped(spec: &ScfSpec) -> ScfResult {
    let tight =
        ScfSpec { diis_size: 0, threshold_large: 1e-9, threshold_small: 1e-9, max_iterations: 2000, ..spec.clone() };
    scf(&Backend::Cpu, &tight).unwrap()
}

const PYSCF_NEON: f64 = -128.488569346229;

#[test]
fn diis_converges_to_the_energy_of_the_damped_iteration_in_fewer_cycles() {
    for (name, spec) in [("Ne", neon()), ("B", boron()), ("Mg", magnesium())] {
        let diis = scf(&Backend::Cpu, &spec).unwrap();
        let reference = damped(&spec);
        eprintln!(
            "{name}: DIIS E = {:.12} in {} cycles (energy change {:.1e}, gradient {:.1e}); damped {:.12} in {} cycles",
            diis.energy, diis.iterations, diis.energy_change, diis.gradient, reference.energy, reference.iterations
        );
        assert!(diis.converged && diis.energy_change.abs() <= 1e-12 * diis.energy.abs() && diis.gradient <= 1e-6);
        assert!((diis.energy - reference.energy).abs() < 1e-9, "{name}: {} vs {}", diis.energy, reference.energy);
        assert!(diis.iterations < reference.iterations, "{name}: {} DIIS cycles", diis.iterations);
        // Orbital energies are first order in the remaining gradient (the energy second order).
        for (a, b) in diis.orbital_energies.iter().flatten().zip(reference.orbital_energies.iter().flatten()) {
            assert!((a - b).abs() < 1e-6, "{name}: orbital energy {a} vs {b}");
        }
    }
    let ne = scf(&Backend::Cpu, &neon()).unwrap();
    assert!((ne.energy - PYSCF_NEON).abs() < 1e-10, "Ne: {} vs PySCF {PYSCF_NEON}", ne.energy);
}

#[test]
fn thresholds_far_below_the_density_floor_are_reached() {
    // Energy changes of 1e-15 relative and gradients of 1e-10, reached by DIIS in tens of cycles;
    // in the dense Mg basis DFRATOM's criterion cannot get below a density change of ~1e-9 (its
    // density elements are large, their rounding with them): 1e-10 is not met in 1000 damped
    // cycles (measured: 1e-9 in 43).
    for (name, spec) in [("Ne", neon()), ("B", boron()), ("Mg", magnesium())] {
        let tight = ScfSpec { threshold_energy: 1e-15, threshold_gradient: 1e-10, ..spec.clone() };
        let r = scf(&Backend::Cpu, &tight).unwrap();
        eprintln!("{name}: E = {:.13} in {} cycles, gradient {:.1e}", r.energy, r.iterations, r.gradient);
        assert!(r.gradient <= 1e-10 && r.energy_change.abs() <= 1e-15 * r.energy.abs());
    }
    let floor =
        ScfSpec { diis_size: 0, threshold_large: 1e-10, threshold_small: 1e-10, max_iterations: 1000, ..magnesium() };
    match scf(&Backend::Cpu, &floor) {
        Err(Error::NotConverged(message)) => assert!(message.contains("density thresholds"), "{message}"),
        other => panic!("Mg: the damped iteration met a density change of 1e-10: {other:?}"),
    }
    let ne = scf(&Backend::Cpu, &ScfSpec { threshold_energy: 1e-15, threshold_gradient: 1e-10, ..neon() }).unwrap();
    assert!((ne.energy - PYSCF_NEON).abs() < 1e-11, "Ne: {} vs PySCF {PYSCF_NEON}", ne.energy);
}

#[test]
fn dirac_fock_energies_are_those_of_the_damped_iteration() {
    // Ne Dirac-Fock (s1/2, p1/2, p3/2; point nucleus, c = 137.035999084): DIIS and the damped
    // iteration to 1e-10 agree to 1e-10 relative.
    let s = even(0.1, 2.5, 14);
    let p = even(0.05, 2.5, 9);
    let spinors = vec![
        Spinor { kappa: -1, exponents: s },
        Spinor { kappa: 1, exponents: p.clone() },
        Spinor { kappa: -2, exponents: p },
    ];
    let occupations = vec![Occupation::closed(2), Occupation::closed(1), Occupation::closed(1)];
    let basis = Basis::Dirac { speed_of_light: 137.035999084, spinors };
    let spec = ScfSpec { max_iterations: 200, ..ScfSpec::new(basis, 10.0, Nucleus::Point, occupations) };
    let diis = scf(&Backend::Cpu, &spec).unwrap();
    let reference = damped(&spec);
    eprintln!(
        "Ne DF: DIIS {:.12} ({} cycles), damped {:.12} ({} cycles)",
        diis.energy, diis.iterations, reference.energy, reference.iterations
    );
    assert!(((diis.energy - reference.energy) / reference.energy).abs() < 1e-10);
    assert!(diis.iterations < reference.iterations);
}

#[test]
fn a_bad_diis_setting_is_refused_naming_it() {
    let name = |spec: ScfSpec| match scf(&Backend::Cpu, &spec) {
        Err(Error::InvalidArgument { name, .. }) => name,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(name(ScfSpec { diis_size: 101, ..neon() }), "diis_size");
    assert_eq!(name(ScfSpec { threshold_energy: 0.0, ..neon() }), "threshold_energy");
    assert_eq!(name(ScfSpec { threshold_gradient: f64::NAN, ..neon() }), "threshold_gradient");
}

/// Σ_pq a_pq b_pq of two m × m column-major matrices.
fn trace_product(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_orbitals_returned_are_orthonormal_and_make_the_densities_and_energies() {
    // For every symmetry: Cᵀ S C = 1 (S from the one-electron integrals, computed apart), D equals
    // Σ_i n_i c_i c_iᵀ rebuilt from C, tr(D S) counts the symmetry's electrons, and the kinetic and
    // nuclear energies Σ tr(D T), Σ tr(D V) equal the SCF's to the gradient threshold's order.
    use atomgpu::scf::one_electron::one_electron;
    use atomgpu::scf::radial::dirac_one_electron;
    let dirac = || {
        let p = even(0.05, 2.5, 9);
        let spinors = vec![
            Spinor { kappa: -1, exponents: even(0.1, 2.5, 14) },
            Spinor { kappa: 1, exponents: p.clone() },
            Spinor { kappa: -2, exponents: p },
        ];
        let occupations = vec![Occupation::closed(2), Occupation::closed(1), Occupation::closed(1)];
        let basis = Basis::Dirac { speed_of_light: 137.035999084, spinors };
        ScfSpec { max_iterations: 200, ..ScfSpec::new(basis, 10.0, Nucleus::Point, occupations) }
    };
    for (name, spec) in [("Ne", neon()), ("B", boron()), ("Ne DF", dirac())] {
        let r = scf(&Backend::Cpu, &spec).unwrap();
        let (mut kinetic, mut nuclear) = (0.0, 0.0);
        for (s, occupation) in spec.occupations.iter().enumerate() {
            let (one, capacity) = match &spec.basis {
                Basis::NonRelativistic(symmetries) => {
                    let sym = &symmetries[s];
                    let o = one_electron(sym.l, &sym.exponents, spec.nuclear_charge, spec.nucleus).unwrap();
                    ((o.overlap, o.kinetic, o.nuclear), 2.0 * (2 * sym.l + 1) as f64)
                }
                Basis::Dirac { speed_of_light, spinors } => {
                    let sp = &spinors[s];
                    let o =
                        dirac_one_electron(sp.kappa, &sp.exponents, spec.nuclear_charge, spec.nucleus, *speed_of_light)
                            .unwrap();
                    ((o.overlap, o.free_hamiltonian, o.nuclear), 2.0 * sp.kappa.unsigned_abs() as f64)
                }
            };
            let (overlap, t, v) = one;
            let m = (overlap.len() as f64).sqrt() as usize;
            let c = &r.coefficients[s];
            let occupied = occupation.closed + (occupation.open_electrons > 0.0) as usize;
            assert_eq!(c.len(), m * occupied, "{name} symmetry {s}");
            for i in 0..occupied {
                for j in 0..occupied {
                    let sij: f64 = (0..m)
                        .flat_map(|p| (0..m).map(move |q| (p, q)))
                        .map(|(p, q)| c[p + m * i] * overlap[p + m * q] * c[q + m * j])
                        .sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((sij - want).abs() < 1e-10, "{name} symmetry {s}: (CᵀSC)_{i}{j} = {sij}");
                }
            }
            let d = &r.densities[s];
            for q in 0..m {
                for p in 0..m {
                    let rebuilt: f64 = (0..occupied)
                        .map(|i| {
                            let n = if i < occupation.closed { capacity } else { occupation.open_electrons };
                            n * c[p + m * i] * c[q + m * i]
                        })
                        .sum();
                    assert!((d[p + m * q] - rebuilt).abs() < 1e-12 * (1.0 + rebuilt.abs()), "{name}: D_{p}{q}");
                }
            }
            let electrons = capacity * occupation.closed as f64 + occupation.open_electrons;
            assert!((trace_product(d, &overlap) - electrons).abs() < 1e-10, "{name} symmetry {s}: tr(DS)");
            kinetic += trace_product(d, &t);
            nuclear += trace_product(d, &v);
        }
        eprintln!("{name}: T {kinetic:.10} vs {:.10}, V {nuclear:.10} vs {:.10}", r.kinetic, r.nuclear);
        assert!((kinetic - r.kinetic).abs() < 1e-6 * r.kinetic.abs(), "{name}: kinetic");
        assert!((nuclear - r.nuclear).abs() < 1e-6 * r.nuclear.abs(), "{name}: nuclear");
    }
}
