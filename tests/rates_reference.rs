//! Every rate against independent high-precision quadrature: `tests/data/rates_reference.txt`,
//! written by `tests/reference/rates_mpmath.py` (mpmath, 30 digits, adaptive quadrature with
//! breakpoints at the Fermi edges, tolerance 1e-12; Maxwell-Boltzmann excitation and ionization
//! by their closed forms in exponential integrals). The definitions both sides implement are in
//! `tests/reference/FORMULAS.md`.
//!
//! Acceptance (issue 2): relative 1e-8 at p = 10 with 64 nodes, and the accuracy Table 1 of the
//! paper promises (10^-p) at p = 5 with 32 nodes, over T_e in [0.1, 30] eV and
//! n_e in [1e18, 1e24] cm^-3.

use atomgpu::rates::{cpu, fermi, Excitation, Ionization, Photoionization, PlasmaState, Quadrature, Statistics};

struct Row {
    kind: String,
    stats: Statistics,
    te: f64,
    ne: f64,
    tr: f64,
    index: i64,
    value: f64,
}

fn rows() -> Vec<Row> {
    include_str!("data/rates_reference.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap_or_else(|_| panic!("bad number in `{l}`"));
            Row {
                kind: f[0].to_string(),
                stats: if f[1] == "FD" { Statistics::FermiDirac } else { Statistics::MaxwellBoltzmann },
                te: num(2),
                ne: num(3),
                tr: num(4),
                index: f[5].parse().unwrap(),
                value: num(6),
            }
        })
        .collect()
}

/// The transitions the reference script used (its header lists the same parameters):
/// aluminium excitation rows 0, 1, 6 and one synthetic row with all six coefficients.
fn excitations() -> Vec<Excitation> {
    let e = |energy_ev, omega| Excitation { energy_ev, omega, g_lower: 1.0, g_upper: 1.0 };
    vec![
        e(77.4, [1.393e-01, -7.979e-02, 1.057e-01, 2.63e-03, 0.0, 0.0]),
        e(8.08, [7.078345e+01, 3.952529e+01, 9.925136e+01, -2.871901e+01, 0.0, 0.0]),
        e(44.3, [1.012, 9.015e-01, 1.081, -2.239e-01, 0.0, 0.0]),
        e(5.0, [0.3, 1.2, -0.4, 0.2, 0.05, -0.01]),
    ]
}

/// Aluminium ionization rows 4, 0, 5 (collisional BELI and photoionization parameters).
fn ionizations() -> Vec<(Ionization, Photoionization)> {
    let i = |energy_ev: f64, beli, d0_cm2, d1_cm2| {
        (Ionization { energy_ev, beli, g_lower: 1.0, g_upper: 1.0 }, Photoionization { energy_ev, d0_cm2, d1_cm2 })
    };
    vec![
        i(20.926, [3.71, -0.236, 2.35, -0.66, 0.0], 5.682286e-18, 3.941713e-19),
        i(120.0, [3.71, -0.236, 2.35, -0.66, 0.0], 5.682286e-18, 3.941713e-19),
        i(154.0, [2.794, 0.469, -12.94, 26.26, -13.43], 1.977137e-18, 1.844077e-18),
    ]
}

const Z2N: f64 = 1e22;

fn compute(row: &Row, q: &Quadrature) -> f64 {
    // tr_ev = 0 marks the collisional rows, which do not use the radiation temperature.
    let tr_ev = if row.tr > 0.0 { row.tr } else { 1.0 };
    let states = [PlasmaState { te_ev: row.te, ne_cm3: row.ne, tr_ev }];
    let i = row.index.max(0) as usize;
    match row.kind.as_str() {
        "mu" => fermi::chemical_potential(row.stats, row.te, row.ne).unwrap(),
        "energy_density" => fermi::energy_density(row.stats, row.te, row.ne).unwrap(),
        "exc_up" | "exc_down" => {
            let r = cpu::excitation_rates(row.stats, q, &states, &excitations()[i..=i]).unwrap();
            if row.kind == "exc_up" {
                r.up[0]
            } else {
                r.down[0]
            }
        }
        "ion_up" | "ion_down" => {
            let r = cpu::ionization_rates(row.stats, q, &states, &[ionizations()[i].0]).unwrap();
            if row.kind == "ion_up" {
                r.up[0]
            } else {
                r.down[0]
            }
        }
        "pi_rate" | "pi_heat" => {
            let r = cpu::photoionization_rates(row.stats, q, &states, &[ionizations()[i].1]).unwrap();
            if row.kind == "pi_rate" {
                r.up[0]
            } else {
                r.down[0]
            }
        }
        "ib_heat" => cpu::inverse_bremsstrahlung_heating(row.stats, q, &states, &[Z2N]).unwrap()[0],
        other => panic!("unknown kind {other}"),
    }
}

fn check_all(q: &Quadrature, tolerance: f64, kinds: &[&str]) {
    let rows = rows();
    let mut worst = (0.0f64, String::new());
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in rows.iter().filter(|r| kinds.contains(&r.kind.as_str())) {
        let got = compute(row, q);
        let rel = ((got - row.value) / row.value).abs();
        checked += 1;
        let what = format!(
            "{} {:?} Te={} ne={:e} Tr={} #{}: got {got:e}, reference {:e}, rel {rel:.2e}",
            row.kind, row.stats, row.te, row.ne, row.tr, row.index, row.value
        );
        if rel > worst.0 || rel.is_nan() {
            worst = (rel, what.clone());
        }
        if rel.is_nan() || rel > tolerance {
            failures.push(what);
        }
    }
    assert!(checked > 0, "no reference rows of kinds {kinds:?}");
    eprintln!("{checked} values checked; worst: {}", worst.1);
    assert!(
        failures.is_empty(),
        "{} of {checked} values off by more than {tolerance:e}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn thermodynamics_match_reference() {
    check_all(&Quadrature::paper_default(), 1e-12, &["mu", "energy_density"]);
}

#[test]
fn one_dimensional_rates_at_p10_64_nodes_within_1e_8() {
    check_all(&Quadrature::new(10.0, 64).unwrap(), 1e-8, &["exc_up", "exc_down", "pi_rate", "pi_heat", "ib_heat"]);
}

#[test]
fn one_dimensional_rates_at_p5_32_nodes_within_1e_5() {
    check_all(&Quadrature::paper_default(), 1e-5, &["exc_up", "exc_down", "pi_rate", "pi_heat", "ib_heat"]);
}

#[test]
fn ionization_at_p10_64_nodes_within_1e_8() {
    check_all(&Quadrature::new(10.0, 64).unwrap(), 1e-8, &["ion_up", "ion_down"]);
}

#[test]
fn ionization_at_p5_32_nodes_within_1e_5() {
    check_all(&Quadrature::paper_default(), 1e-5, &["ion_up", "ion_down"]);
}
