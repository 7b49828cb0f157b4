//! The basis-set optimisation of the SCF family (`src/scf/optimise.rs`):
//!
//! * the bounded minimiser on standard problems: the 4-D Rosenbrock function (minimum 0 at
//!   (1, 1, 1, 1)) and a convex quadratic whose minimum lies outside the box (the solution is the
//!   projection onto the box, known in closed form);
//! * a WTBS optimisation of helium (one group, 10 s functions, non-relativistic): the energy
//!   falls from the start and the optimum is stationary: no single parameter moved by ±2% of
//!   its value gives a lower energy (by more than 1e-9 hartree), and it approaches the HF limit
//!   -2.861679996 (Koga et al.; within 1e-3 with 10 functions);
//! * bad settings name the argument.

use atomgpu::backend::Backend;
use atomgpu::error::Error;
use atomgpu::scf::basis::{wtbs_basis, WtbsGroup, WtbsLayout};
use atomgpu::scf::one_electron::Nucleus;
use atomgpu::scf::optimise::{minimise_in_box, optimise_wtbs, WtbsOptimisation};
use atomgpu::scf::solver::{scf, Basis, Occupation, ScfSpec};
use atomgpu::scf::Symmetry;

fn argument<T: std::fmt::Debug>(result: Result<T, Error>) -> &'static str {
    match result {
        Err(Error::InvalidArgument { name, .. }) => name,
        other => panic!("expected an invalid-argument error, got {other:?}"),
    }
}

#[test]
fn bounded_minimiser_solves_standard_problems() {
    let rosenbrock =
        |x: &[f64]| Ok((0..3).map(|i| 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2)).sum());
    let mut x = [-1.2, 1.0, -1.2, 1.0];
    let (f, evaluations, converged) =
        minimise_in_box(rosenbrock, &mut x, &[-2.0; 4], &[2.0; 4], (0.5, 1e-8), 5000).unwrap();
    println!("Rosenbrock: f = {f:.2e} at {x:?} after {evaluations} evaluations");
    assert!(converged && f < 1e-10, "f = {f}");
    assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-5), "{x:?}");
    // Minimum of Σ (x_i - c_i)² at c = (3, -3, 0.5), box [-1, 1]³: the projection (1, -1, 0.5).
    let c = [3.0, -3.0, 0.5];
    let quadratic = |x: &[f64]| Ok(x.iter().zip(&c).map(|(a, b)| (a - b).powi(2)).sum());
    let mut x = [0.0; 3];
    let (f, _, converged) = minimise_in_box(quadratic, &mut x, &[-1.0; 3], &[1.0; 3], (0.2, 1e-8), 500).unwrap();
    assert!(converged && (f - 8.0).abs() < 1e-10, "f = {f}");
    for (v, e) in x.iter().zip([1.0, -1.0, 0.5]) {
        assert!((v - e).abs() < 1e-6, "{x:?}");
    }
}

fn helium(exponents: Vec<f64>) -> ScfSpec {
    let basis = Basis::NonRelativistic(vec![Symmetry { l: 0, exponents }]);
    ScfSpec {
        threshold_large: 1e-10,
        max_iterations: 200,
        ..ScfSpec::new(basis, 2.0, Nucleus::Point, vec![Occupation::closed(1)])
    }
}

#[test]
fn wtbs_optimisation_of_helium_reaches_a_stationary_minimum() {
    let layout = WtbsLayout { nbs: vec![10], start: vec![1], groups: vec![1] };
    let start = WtbsGroup { alpha: 0.3, beta: 2.0, gamma: 0.5, delta: 2.0 };
    let settings = WtbsOptimisation {
        groups: vec![start],
        layout: layout.clone(),
        rho_begin: 0.1,
        rho_end: 1e-5,
        max_evaluations: 800,
    };
    let template = helium(vec![1.0]);
    let energy_of =
        |g: WtbsGroup| scf(&Backend::Cpu, &helium(wtbs_basis(&[g], &layout).unwrap()[0].clone())).unwrap().energy;
    let e_start = energy_of(start);
    let best = optimise_wtbs(&Backend::Cpu, &template, &settings).unwrap();
    let g = best.groups[0];
    println!(
        "He: start {e_start:.10}, optimum {:.10} after {} evaluations at {g:?}",
        best.result.energy, best.evaluations
    );
    assert!(best.converged);
    assert!(best.result.energy < e_start - 1e-5, "no improvement: {} vs {e_start}", best.result.energy);
    assert!((best.result.energy - energy_of(g)).abs() < 1e-12);
    assert!(best.result.energy > -2.861679996 && best.result.energy < -2.861679996 + 1e-3);
    let moved = [
        WtbsGroup { alpha: g.alpha * 1.02, ..g },
        WtbsGroup { alpha: g.alpha / 1.02, ..g },
        WtbsGroup { beta: g.beta * 1.02, ..g },
        WtbsGroup { beta: g.beta / 1.02, ..g },
        WtbsGroup { gamma: g.gamma * 1.02 + 1e-3, ..g },
        WtbsGroup { gamma: (g.gamma / 1.02 - 1e-3).max(0.0), ..g },
        WtbsGroup { delta: g.delta * 1.02, ..g },
        WtbsGroup { delta: g.delta / 1.02, ..g },
    ];
    for m in moved {
        let e = energy_of(m);
        assert!(e > best.result.energy - 1e-9, "{m:?} gives {e}, below the optimum {}", best.result.energy);
    }
}

#[test]
fn bad_settings_name_the_argument() {
    let layout = WtbsLayout { nbs: vec![6], start: vec![1], groups: vec![1] };
    let group = WtbsGroup { alpha: 0.1, beta: 2.5, gamma: 0.0, delta: 1.0 };
    let settings =
        WtbsOptimisation { groups: vec![group], layout, rho_begin: 0.1, rho_end: 1e-4, max_evaluations: 100 };
    let template = helium(vec![1.0]);
    let run = |s: WtbsOptimisation| optimise_wtbs(&Backend::Cpu, &template, &s);
    assert_eq!(argument(run(WtbsOptimisation { rho_end: 0.2, ..settings.clone() })), "rho_end");
    assert_eq!(argument(run(WtbsOptimisation { max_evaluations: 5, ..settings.clone() })), "max_evaluations");
    let two = WtbsLayout { nbs: vec![6, 4], start: vec![1, 1], groups: vec![1, 1] };
    assert_eq!(argument(run(WtbsOptimisation { layout: two, ..settings.clone() })), "nbs");
    assert_eq!(argument(run(WtbsOptimisation { groups: vec![WtbsGroup { beta: 0.9, ..group }], ..settings })), "beta");
}
