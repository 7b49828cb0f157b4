//! The collisional-radiative driver against closed forms: conservation of particles and of
//! total energy (linear invariants, which RK4 keeps to rounding), relaxation to local
//! thermodynamic equilibrium (Boltzmann and Fermi-Dirac Saha ratios, closed forms) without
//! radiation, and agreement between the fixed-step RK4 and the adaptive stiff integrator.

use atomgpu::rates::cr::{self, Cr, CrExcitation, CrIonization, CrSettings, StiffTolerances};
use atomgpu::rates::{fermi, Quadrature, Statistics};

/// Three levels with consistent energies: level 0 (Z = 1, 0 eV), level 1 (Z = 1, 5 eV),
/// level 2 (Z = 2, 20 eV above level 0); weights 2, 6, 1.
fn three_level_model() -> (Cr, [f64; 3]) {
    let model = Cr::new(
        vec![1.0, 1.0, 2.0],
        vec![2.0, 6.0, 1.0],
        vec![CrExcitation { lower: 0, upper: 1, energy_ev: 5.0, omega: [0.5, 1.0, 0.3, -0.1, 0.0, 0.0] }],
        vec![
            CrIonization {
                lower: 0,
                upper: 2,
                energy_ev: 20.0,
                beli: [3.0, -0.2, 2.0, -0.5, 0.0],
                d0_cm2: 5e-18,
                d1_cm2: 4e-19,
            },
            CrIonization {
                lower: 1,
                upper: 2,
                energy_ev: 15.0,
                beli: [3.0, -0.2, 2.0, -0.5, 0.0],
                d0_cm2: 5e-18,
                d1_cm2: 4e-19,
            },
        ],
    )
    .unwrap();
    (model, [0.0, 5.0, 20.0])
}

/// p = 5 with 8 nodes per graded panel: within 4e-8 of p = 10 / 64 nodes on the aluminium
/// model's transitions (measured), and 16x cheaper for the double integral than 32 nodes.
fn settings(stats: Statistics, tr_ev: f64) -> CrSettings {
    CrSettings { stats, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev }
}

/// With T_r -> 0 (no photoionization, no inverse bremsstrahlung) the total energy
/// u + sum_l E_l N_l and the ion density sum_l N_l are invariants of the exact system; RK4
/// preserves linear invariants, so both must hold to rounding over the run.
#[test]
fn rk4_conserves_particles_and_energy() {
    let (model, level_energy) = three_level_model();
    for stats in [Statistics::FermiDirac, Statistics::MaxwellBoltzmann] {
        let s = settings(stats, 1e-3);
        let y0 = cr::initial_state(&model, stats, &[1e21, 0.0, 0.0], 3.0).unwrap();
        let samples = cr::run_rk4(&model, &s, &y0, 2e-15, 50, 10).unwrap();
        let energy = |pops: &[f64], u: f64| u + pops.iter().zip(level_energy).map(|(n, e)| n * e).sum::<f64>();
        let e0 = energy(&y0[..3], y0[3]);
        let n0: f64 = y0[..3].iter().sum();
        let last = samples.last().unwrap();
        assert!(last.populations[2] > 1e-6 * n0, "{stats:?}: nothing happened: {:?}", last.populations);
        let e1 = energy(&last.populations, last.energy_density);
        let n1: f64 = last.populations.iter().sum();
        assert!(((e1 - e0) / e0).abs() < 1e-12, "{stats:?}: energy {e0:e} -> {e1:e}");
        assert!(((n1 - n0) / n0).abs() < 1e-13, "{stats:?}: particles {n0:e} -> {n1:e}");
    }
}

/// Without radiation the system relaxes to LTE at the final (T, mu):
/// N_1/N_0 = (g_1/g_0) e^{-5/T} (Boltzmann) and N_2/N_0 = (g_2/g_0) e^{-(20 + mu)/T}
/// (Saha with the electrons' own chemical potential, which detailed balance eq. 10 encodes).
#[test]
fn relaxes_to_local_thermodynamic_equilibrium() {
    let (model, _) = three_level_model();
    for stats in [Statistics::FermiDirac, Statistics::MaxwellBoltzmann] {
        let s = settings(stats, 1e-3);
        let y0 = cr::initial_state(&model, stats, &[4e21, 0.0, 1e21], 4.0).unwrap();
        let tol = StiffTolerances { rtol: 1e-8, atol_fraction: 1e-13, ..StiffTolerances::default() };
        let out = cr::run_stiff(&model, &s, &y0, &[1e-9], &tol).unwrap();
        let last = out.last().unwrap();
        let (t, mu, n) = (last.te_ev, last.mu_ev, &last.populations);
        let boltzmann = 3.0 * (-5.0 / t).exp();
        let saha = 0.5 * (-(20.0 + mu) / t).exp();
        assert!((n[1] / n[0] / boltzmann - 1.0).abs() < 1e-6, "{stats:?}: N1/N0 = {} vs {boltzmann}", n[1] / n[0]);
        assert!((n[2] / n[0] / saha - 1.0).abs() < 1e-6, "{stats:?}: N2/N0 = {} vs {saha}", n[2] / n[0]);
        let (t_check, _) = fermi::temperature_from_energy_density(stats, last.energy_density, last.ne_cm3).unwrap();
        assert!((t_check - t).abs() < 1e-12 * t);
    }
}

/// The fixed-step RK4 and the adaptive ROS4 integrate the same system: they agree on a short
/// run with radiation on (to the stiff integrator's tolerance).
#[test]
fn rk4_and_stiff_agree() {
    let (model, _) = three_level_model();
    let s = settings(Statistics::FermiDirac, 100.0);
    let y0 = cr::initial_state(&model, Statistics::FermiDirac, &[1e21, 0.0, 0.0], 2.0).unwrap();
    let rk4 = cr::run_rk4(&model, &s, &y0, 1e-16, 200, 200).unwrap();
    let tol = StiffTolerances { rtol: 1e-8, atol_fraction: 1e-12, ..StiffTolerances::default() };
    let stiff = cr::run_stiff(&model, &s, &y0, &[2e-14], &tol).unwrap();
    let (a, b) = (rk4.last().unwrap(), stiff.last().unwrap());
    assert!((a.te_ev / b.te_ev - 1.0).abs() < 1e-6, "Te {} vs {}", a.te_ev, b.te_ev);
    for (x, y) in a.populations.iter().zip(&b.populations) {
        assert!((x - y).abs() < 1e-6 * 1e21, "{:?} vs {:?}", a.populations, b.populations);
    }
}

#[test]
fn bad_models_are_refused() {
    assert!(Cr::new(vec![1.0], vec![1.0, 1.0], vec![], vec![]).is_err());
    let bad_ion = CrIonization { lower: 0, upper: 1, energy_ev: 10.0, beli: [1.0; 5], d0_cm2: 0.0, d1_cm2: 0.0 };
    let e = Cr::new(vec![1.0, 3.0], vec![1.0, 1.0], vec![], vec![bad_ion]).unwrap_err();
    assert!(e.to_string().contains("charge"), "{e}");
}

/// Eqs. 27-28 as matrices: every column of M sums to zero (ions are only moved between levels),
/// and without radiation the energy the electrons gain equals the internal energy the ions lose:
/// sum_k E_k M[k, l] + M'_l = 0 for every level l.
#[test]
fn rate_matrices_conserve_particles_and_energy() {
    let (model, level_energy) = three_level_model();
    let s = settings(Statistics::FermiDirac, 1e-3);
    let r = cr::rate_matrices(&model, &s, 3.0, 5e21).unwrap();
    let n = model.n_levels();
    for l in 0..n {
        let column = &r.m[n * l..n * (l + 1)];
        let outflow = -column[l];
        assert!(outflow > 0.0);
        assert!(column.iter().sum::<f64>().abs() < 1e-13 * outflow, "column {l}: {column:?}");
        let internal: f64 = column.iter().zip(level_energy).map(|(m, e)| m * e).sum();
        assert!(
            (internal + r.m_energy[l]).abs() < 1e-12 * (outflow * 20.0),
            "level {l}: {internal:e} vs {:e}",
            r.m_energy[l]
        );
    }
}

/// The right-hand side without a matrix equals M N and M'.N of the rate matrices at the
/// conditions it reports (two assemblies of the same rates: flows per transition, and the matrix
/// of eqs. 27-28).
#[test]
fn derivatives_equal_the_rate_matrices_applied_to_the_state() {
    let (model, _) = three_level_model();
    let s = settings(Statistics::FermiDirac, 50.0);
    let y = cr::initial_state(&model, Statistics::FermiDirac, &[6e20, 3e20, 1e20], 4.0).unwrap();
    let (dy, [te, _, ne]) = cr::derivatives(&model, &s, &y).unwrap();
    let r = cr::rate_matrices(&model, &s, te, ne).unwrap();
    let n = model.n_levels();
    let scale = dy.iter().take(n).fold(0.0f64, |m, d| m.max(d.abs()));
    for (k, d) in dy.iter().take(n).enumerate() {
        let mn: f64 = (0..n).map(|l| r.m[k + n * l] * y[l]).sum();
        assert!((d - mn).abs() <= 1e-13 * scale, "level {k}: {d} vs {mn}");
    }
    let du: f64 = (0..n).map(|l| r.m_energy[l] * y[l]).sum();
    assert!((dy[n] - du).abs() <= 1e-13 * du.abs(), "{} vs {du}", dy[n]);
}

/// A state the rates cannot take is refused by the name of the argument that carries it, `y`.
#[test]
fn bad_states_name_y() {
    let (model, _) = three_level_model();
    let s = settings(Statistics::MaxwellBoltzmann, 1.0);
    for (y, element) in [
        (vec![1e21, f64::NAN, 0.0, 1e22], "`y`[1]"),
        (vec![1e21, 0.0, 0.0, -1.0], "`y`[3]"),
        (vec![1e300, 0.0, 0.0, 1e22], "`y`"),
        (vec![1e21, 0.0, 0.0, 1e-300], "`y`[3]"),
    ] {
        let e = cr::derivatives(&model, &s, &y).unwrap_err();
        assert!(e.to_string().contains(element), "{y:?}: {e}");
        assert!(cr::run_rk4(&model, &s, &y, 1e-16, 1, 1).unwrap_err().to_string().contains(element));
    }
    let y = cr::initial_state(&model, Statistics::MaxwellBoltzmann, &[1e21, 0.0, 0.0], 3.0).unwrap();
    let e = cr::run_rk4(&model, &s, &y, 1e-16, 1 << 60, 1).unwrap_err();
    assert!(e.to_string().contains("n_steps"), "{e}");
}

/// Several systems: a refused state names its cell and its element of the C array `y` (the
/// states side by side), whichever element is bad; one system keeps the plain element.
#[test]
fn a_bad_cell_is_named_among_several() {
    let (model, _) = three_level_model();
    let s = settings(Statistics::MaxwellBoltzmann, 1.0);
    let good = cr::initial_state(&model, Statistics::MaxwellBoltzmann, &[1e21, 0.0, 0.0], 3.0).unwrap();
    let tol = StiffTolerances::default();
    for (cell, element, value, expected) in [
        (1, 1, f64::NAN, "`y`[5]: cell 1 (y[1*4 + 1])"),
        (2, 3, -1.0, "`y`[11]: cell 2 (y[2*4 + 3])"),
        (0, 0, 1e300, "`y`: cell 0: "),
    ] {
        let mut ys = vec![good.clone(); 3];
        ys[cell][element] = value;
        let e = cr::run_stiff_systems(&model, &s, &ys, &[1e-15], &tol).unwrap_err();
        assert!(e.to_string().contains(expected), "{e}");
        let alone = cr::run_stiff(&model, &s, &ys[cell], &[1e-15], &tol).unwrap_err();
        assert!(!alone.to_string().contains("cell"), "{alone}");
    }
}

/// A stiff run continued in chunks (each chunk starting from the last sample of the one before,
/// as `atomgpu_cr_run_stiff` callers do) is accepted at every restart and follows the run made in
/// one call to its tolerance; every sample has non-negative populations, also at loose tolerances
/// where the integrator's error allowance exceeds an empty level's population (such steps are
/// clipped to zero within the allowance, or rejected).
#[test]
fn a_stiff_run_continues_in_chunks() {
    let (model, _) = three_level_model();
    let s = settings(Statistics::FermiDirac, 100.0);
    let y0 = cr::initial_state(&model, Statistics::FermiDirac, &[1e21, 0.0, 0.0], 2.0).unwrap();
    for (rtol, atol_fraction) in [(1e-8, 1e-12), (1e-3, 1e-4)] {
        let tol = StiffTolerances { rtol, atol_fraction, ..StiffTolerances::default() };
        let times = [5e-15, 1e-14, 2e-14, 4e-14];
        let whole = cr::run_stiff(&model, &s, &y0, &times, &tol).unwrap();
        let mut y = y0.clone();
        let mut start = 0.0;
        for (i, &t) in times.iter().enumerate() {
            let chunk = cr::run_stiff(&model, &s, &y, &[t - start], &tol).unwrap();
            let last = chunk.last().unwrap();
            assert!(last.populations.iter().all(|&p| p >= 0.0), "negative population {:?}", last.populations);
            let reference = &whole[i + 1];
            assert!(
                (last.te_ev / reference.te_ev - 1.0).abs() < 100.0 * rtol.max(1e-7),
                "rtol {rtol}: Te {} (chunks) vs {} (one call)",
                last.te_ev,
                reference.te_ev
            );
            y = last.populations.clone();
            y.push(last.energy_density);
            start = t;
        }
        assert!(whole.iter().all(|sample| sample.populations.iter().all(|&p| p >= 0.0)));
    }
}

/// Energy bookkeeping with radiation: every rate of the model moves energy between the free
/// electrons (u) and the levels (E_l N_l), except the black body's, which adds the absorbed
/// power P = sum_i N_lower(i) (E_i L_i + H_i) + H_IB (sum_l Z_l^2 N_l) (photoionization: the
/// photon's energy E_i + (eps - E_i); inverse bremsstrahlung). So
/// u(t) + sum_l E_l N_l(t) - [u(0) + sum_l E_l N_l(0)] = int_0^t P dt exactly; the stiff run must
/// keep it to its tolerance (rtol = 1e-9 here; seen: 8e-12). The integral of P is taken over 2049 samples (geometric in t from
/// 1e-19 s, where the run starts, to 1e-12 s) by the trapezoidal rule with one Richardson step
/// (every other sample), whose own error (seen: 2.5e-7 before the Richardson step) is checked to
/// stay far below the bound asserted.
#[test]
fn stiff_run_keeps_the_energy_balance_with_radiation() {
    let (model, level_energy) = three_level_model();
    for stats in [Statistics::FermiDirac, Statistics::MaxwellBoltzmann] {
        let s = settings(stats, 100.0);
        let y0 = cr::initial_state(&model, stats, &[1e21, 0.0, 0.0], 3.0).unwrap();
        let n_samples = 2048; // with t = 0: 2049 samples, an even number of intervals
        let times: Vec<f64> =
            (0..n_samples).map(|i| 1e-19 * (1e-12f64 / 1e-19).powf(i as f64 / (n_samples - 1) as f64)).collect();
        let tol = StiffTolerances { rtol: 1e-9, atol_fraction: 1e-14, ..StiffTolerances::default() };
        let samples = cr::run_stiff(&model, &s, &y0, &times, &tol).unwrap();
        let energy = |pops: &[f64], u: f64| u + pops.iter().zip(level_energy).map(|(n, e)| n * e).sum::<f64>();
        let states: Vec<cr::ElectronState> =
            samples.iter().map(|x| cr::ElectronState { energy_density: x.energy_density, ne_cm3: x.ne_cm3 }).collect();
        let rates = cr::rates_at(&model, &s, &states).unwrap();
        let power: Vec<f64> = samples
            .iter()
            .zip(&rates)
            .map(|(x, r)| {
                let r = r.as_ref().unwrap();
                let photo: f64 = model
                    .ionizations()
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        x.populations[t.lower] * (t.energy_ev * r.rates.photo_rate[i] + r.rates.photo_heating[i])
                    })
                    .sum();
                photo + r.rates.ib_per_z2n * model.z2_density(&x.populations)
            })
            .collect();
        let t: Vec<f64> = samples.iter().map(|x| x.time_s).collect();
        let trapezoid = |stride: usize| -> f64 {
            (stride..t.len())
                .step_by(stride)
                .map(|i| 0.5 * (t[i] - t[i - stride]) * (power[i] + power[i - stride]))
                .sum()
        };
        let (fine, coarse) = (trapezoid(1), trapezoid(2));
        let absorbed = fine + (fine - coarse) / 3.0;
        let last = samples.last().unwrap();
        let gained = energy(&last.populations, last.energy_density) - energy(&y0[..3], y0[3]);
        assert!(gained > 0.1 * energy(&y0[..3], y0[3]), "{stats:?}: the radiation did little: {gained:e}");
        let quadrature_error = ((fine - coarse) / 3.0).abs() / absorbed;
        assert!(quadrature_error < 1e-4, "{stats:?}: the power integral itself is uncertain by {quadrature_error:e}");
        let mismatch = ((gained - absorbed) / absorbed).abs();
        assert!(mismatch < 1e-6, "{stats:?}: energy gained {gained:e}, absorbed {absorbed:e}: {mismatch:e}");
    }
}

/// Several systems integrated together (each with its own steps, their rates evaluated in
/// shared calls) follow exactly the runs each makes alone.
#[test]
fn stiff_systems_run_together_as_alone() {
    let (model, _) = three_level_model();
    let s = settings(Statistics::FermiDirac, 20.0);
    let ys: Vec<Vec<f64>> = [(1e21, 3.0), (4e20, 8.0), (2e21, 1.5)]
        .iter()
        .map(|&(n, te)| cr::initial_state(&model, Statistics::FermiDirac, &[n, 0.1 * n, 0.0], te).unwrap())
        .collect();
    let times = [1e-15, 1e-14, 3e-14];
    let tol = StiffTolerances::default();
    let together = cr::run_stiff_systems(&model, &s, &ys, &times, &tol).unwrap();
    for (y, run) in ys.iter().zip(&together) {
        assert_eq!(&cr::run_stiff(&model, &s, y, &times, &tol).unwrap(), run);
    }
}
