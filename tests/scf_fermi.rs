//! The Fermi nuclear model of the SCF family (`src/scf/one_electron/fermi.rs`) against
//! independent references:
//!
//! * GRASP's parameters for Xe (A = 132: r_rms = 0.836 A^{1/3} + 0.570 fm, t = 2.30 fm,
//!   a = t/(4 ln 3)): c against the root of <r²> = ∫ρ r⁴/∫ρ r² by mpmath quadrature of the
//!   distribution (`tests/reference/fermi_nucleus_mpmath.py`, 40 digits);
//! * the potential V(r) from r = 0 to 10 c against mpmath quadrature of the charge distribution
//!   itself (same script; there the polylogarithm closed form agrees with it to 1e-34);
//! * the attraction elements of normalised Gaussians (l = 0, 1, 2, 20; exponents from 0.5 to
//!   1e12 bohr⁻², and 1e300) and the small-small elements of kinetically balanced small
//!   functions (κ = 1, 2, 3) for Z = 54, against mpmath quadrature of the functions' own
//!   definitions times V (same script, table `ELEMENTS`);
//! * the nuclear-charge rule of Dirac-Fock: a Fermi nucleus, like a Gaussian one, holds Z beyond c;
//! * bad parameters named.

use atomgpu::error::Error;
use atomgpu::scf::one_electron::fermi::FermiPotential;
use atomgpu::scf::one_electron::{default_rms_radius, one_electron, Nucleus};
use atomgpu::scf::radial::{check_dirac_nucleus, dirac_one_electron};

const BOHR_FM: f64 = 52_917.721_090_3;

/// Xe (A = 132) with GRASP's defaults, from `tests/reference/fermi_nucleus_mpmath.py`:
/// r_rms 4.8266138570353326748 fm, a 0.52338755531043150133 fm, c 5.7025034344302989854 fm.
#[allow(clippy::excessive_precision)]
const XE_C_FM: f64 = 5.7025034344302989854;
#[allow(clippy::excessive_precision)]
const XE_A_FM: f64 = 0.52338755531043150133;

fn xe() -> Nucleus {
    Nucleus::fermi(default_rms_radius(132.0).unwrap(), 2.30).unwrap()
}

#[test]
fn grasp_parameters_of_xenon_match_mpmath() {
    let Nucleus::Fermi { half_density_radius: c, diffuseness: a } = xe() else { panic!("not a Fermi nucleus") };
    let (c_err, a_err) = ((c * BOHR_FM - XE_C_FM).abs() / XE_C_FM, (a * BOHR_FM - XE_A_FM).abs() / XE_A_FM);
    println!("Xe: c {} fm ({c_err:.1e}), a {} fm ({a_err:.1e})", c * BOHR_FM, a * BOHR_FM);
    assert!(c_err < 1e-14 && a_err < 1e-15, "c {c}, a {a}");
}

/// V(r)/Z (bohr⁻¹) at r / c for Xe, mpmath quadrature of the charge distribution.
#[allow(clippy::excessive_precision)]
const POTENTIAL: [(f64, f64); 10] = [
    (0.0, -13207.29254590001422548487),
    (1e-6, -13207.29254589573059022228),
    (0.01, -13206.86418282093334333102),
    (0.3, -12821.8056300451578425523),
    (0.9, -9790.681746416168720479555),
    (1.0, -9065.827614392922777256269),
    (1.05, -8706.324522839683627048754),
    (1.5, -6185.444641303527850542058),
    (3.0, -3093.24502226187748754198),
    (10.0, -927.9735067022660107024067),
];

#[test]
fn potential_matches_quadrature_of_the_charge() {
    let (c, a) = (XE_C_FM / BOHR_FM, XE_A_FM / BOHR_FM);
    let fermi = FermiPotential::new(c, a);
    let mut worst = 0.0f64;
    for (x, want) in POTENTIAL {
        let got = -fermi.potential(x * c);
        let err = ((got - want) / want).abs();
        worst = worst.max(err);
        assert!(err < 1e-14, "r = {x} c: V/Z = {got}, quadrature {want} ({err:.1e})");
    }
    println!("Fermi potential vs mpmath: max relative error {worst:.1e}");
}

/// Attraction elements of normalised Gaussians for Z = 54 and Xe's Fermi nucleus (hartree),
/// mpmath quadrature of the functions' definitions times V (`tests/reference/fermi_nucleus_mpmath.py`;
/// the 1e300 row is the script's limit form g^{3/2} V(0), exact to 1e-90): (l, a, b, V_ab).
#[allow(clippy::excessive_precision)]
const LARGE: [(u32, f64, f64, f64); 11] = [
    (0, 1.0, 2.0, -96.6151096392568166743),
    (0, 1.0e6, 3.0e6, -97138.97016262892862093),
    (0, 2.0e6, 2.0e6, -120530.663522021801445),
    (0, 1.0e9, 2.0e9, -643777.9097150988953708),
    (0, 0.5, 1.0e9, -0.2043653485043974103928),
    (0, 1.0e12, 3.0e12, -574776.437641909982846),
    (0, 1.0e300, 2.0e300, -652894.7339043417177532),
    (1, 5.0e6, 1.0e7, -135535.4905598929444674),
    (2, 1.0e9, 4.0e9, -320219.9294089592740257),
    (20, 1.0e8, 2.0e8, -57881.5072120845386471),
    (20, 1.0e11, 1.0e11, -711052.4863950682418466),
];

/// Small-small elements of κ > 0 (κ, a, b, V^SS_ab), same script.
#[allow(clippy::excessive_precision)]
const SMALL: [(i32, f64, f64, f64); 5] = [
    (1, 1.0e6, 4.0e6, -108113.0522882092491737),
    (1, 1.0e9, 2.0e9, -576029.1184096693742343),
    (2, 1.0e8, 1.0e10, -580.2192055234010390225),
    (1, 0.3, 0.7, -66.72258547710505606245),
    (3, 1.0e12, 1.0e12, -713170.0048274730129325),
];

/// Element (0, 1) of a matrix over [a, b], or (0, 0) over [a] when a = b (exponents must differ).
fn pair_exponents(a: f64, b: f64) -> (Vec<f64>, usize) {
    if a == b {
        (vec![a], 0)
    } else {
        (vec![a, b], 1)
    }
}

#[test]
fn attraction_elements_match_mpmath_quadrature() {
    let nucleus = xe();
    let mut worst = 0.0f64;
    for (l, a, b, want) in LARGE {
        let (exponents, j) = pair_exponents(a, b);
        let n = exponents.len();
        let got = one_electron(l, &exponents, 54.0, nucleus).unwrap().nuclear[n * j];
        let err = ((got - want) / want).abs();
        worst = worst.max(err);
        println!("l {l}, {a:e}, {b:e}: {got:.16e} vs {want:.16e} ({err:.1e})");
        assert!(err < 1e-12, "l {l}, a {a}, b {b}: V = {got}, quadrature {want} ({err:.1e})");
    }
    for (kappa, a, b, want) in SMALL {
        let (exponents, j) = pair_exponents(a, b);
        let m = 2 * exponents.len();
        let d = dirac_one_electron(kappa, &exponents, 54.0, nucleus, 137.03599976).unwrap();
        let got = d.nuclear[m / 2 + m * (m / 2 + j)];
        let err = ((got - want) / want).abs();
        worst = worst.max(err);
        println!("κ {kappa}, {a:e}, {b:e}: {got:.16e} vs {want:.16e} ({err:.1e})");
        assert!(err < 1e-12, "κ {kappa}, a {a}, b {b}: V^SS = {got}, quadrature {want} ({err:.1e})");
    }
    println!("Fermi attraction elements vs mpmath: max relative error {worst:.1e}");
}

#[test]
fn a_fermi_nucleus_holds_a_charge_beyond_c_in_dirac_fock() {
    let c = 137.03599976;
    assert!(check_dirac_nucleus(150.0, xe(), c).is_ok());
    assert!(check_dirac_nucleus(150.0, Nucleus::Point, c).is_err());
    // Z = 150 with Xe's nucleus: the Dirac one-electron matrices exist (finite, symmetric V^SS).
    let d = dirac_one_electron(-1, &[1e3, 1e6, 1e9], 150.0, xe(), c).unwrap();
    assert!(d.nuclear.iter().all(|v| v.is_finite()));
    assert_eq!(d.nuclear[3 + 6 * 5], d.nuclear[5 + 6 * 3]);
}

#[test]
fn bad_fermi_parameters_are_named() {
    let name = |r: Result<Nucleus, Error>| match r {
        Err(Error::InvalidArgument { name, .. }) => name,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(name(Nucleus::fermi(4.8, 0.0)), "skin_thickness");
    assert_eq!(name(Nucleus::fermi(4.8, f64::NAN)), "skin_thickness");
    assert_eq!(name(Nucleus::fermi(f64::INFINITY, 2.3)), "rms_radius");
    // The c → 0 limit of t = 2.30 fm: a √(12 η(5)/η(3)) = 1.882698 fm (mpmath).
    assert_eq!(name(Nucleus::fermi(1.88, 2.3)), "rms_radius");
    assert!(Nucleus::fermi(1.89, 2.3).is_ok());
    assert_eq!(name(default_rms_radius(0.5).map(|_| Nucleus::Point)), "mass_number");
}
