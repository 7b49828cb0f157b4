//! The C ABI of the rates family, called from Rust through its `extern "C"` functions: every
//! entry point given a NULL pointer, a negative or zero size, a NaN temperature, a negative
//! density and its other bad inputs must return `ATOMGPU_ERR_INVALID_ARGUMENT`, report the
//! offending argument's 1-based position (`atomgpu_last_error_arg`), name it in
//! `atomgpu_last_error_message`, and leave every output untouched. (The same checks as
//! tests/c/test_bad_input.c, so that `cargo test` covers them.) A few valid calls check the
//! output layout and the success path.

use atomgpu::ffi::common::*;
use atomgpu::ffi::rates::*;
use std::ffi::c_char;
use std::ptr::{null, null_mut};

const SENTINEL: f64 = -12345.0;
const FD: i32 = ATOMGPU_STATS_FERMI_DIRAC;
const MB: i32 = ATOMGPU_STATS_MAXWELL_BOLTZMANN;

static TE: [f64; 2] = [1.0, 10.0];
static TE_NAN: [f64; 2] = [1.0, f64::NAN];
static TE_INF: [f64; 2] = [1.0, f64::INFINITY];
static NE: [f64; 2] = [1e21, 1e22];
static NE_NEG: [f64; 2] = [1e21, -1e21];
static NE_ZERO: [f64; 2] = [1e21, 0.0];
static TR: [f64; 2] = [5.0, 50.0];
static TR_NAN: [f64; 2] = [5.0, f64::NAN];
static ENERGY: [f64; 2] = [5.0, 10.0];
static ENERGY_ZERO: [f64; 2] = [5.0, 0.0];
static OMEGA: [f64; 12] = [0.1, 1.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.5, 0.1, 0.0, 0.0, 0.0];
static OMEGA_NAN: [f64; 12] = [0.1, 1.0, 0.0, 0.0, 0.0, 0.0, 0.2, f64::NAN, 0.1, 0.0, 0.0, 0.0];
static BELI: [f64; 10] = [1.0, 0.5, 0.0, 0.0, 0.0, 2.0, -0.5, 0.1, 0.0, 0.0];
static BELI_INF: [f64; 10] = [1.0, 0.5, 0.0, 0.0, 0.0, 2.0, f64::INFINITY, 0.1, 0.0, 0.0];
static G: [f64; 2] = [2.0, 6.0];
static G_ZERO: [f64; 2] = [2.0, 0.0];
static G_NEG: [f64; 2] = [2.0, -1.0];
static D0: [f64; 2] = [1e-18, 2e-18];
static D1: [f64; 2] = [0.0, 1e-18];
static D1_INF: [f64; 2] = [0.0, f64::NEG_INFINITY];
static Z2N: [f64; 2] = [1e21, 1e22];
static Z2N_NEG: [f64; 2] = [1e21, -1.0];

fn last_message() -> String {
    let n = unsafe { atomgpu_last_error_message(null_mut(), 0) };
    let mut buffer = vec![0 as c_char; n as usize + 1];
    let m = unsafe { atomgpu_last_error_message(buffer.as_mut_ptr(), buffer.len()) };
    assert_eq!(m, n, "atomgpu_last_error_message returned different lengths");
    let bytes: Vec<u8> = buffer[..n as usize].iter().map(|&c| c as u8).collect();
    String::from_utf8(bytes).expect("message is UTF-8")
}

/// Records a failure unless `status` is an invalid argument at `position` named `name` (and
/// `fragment` appears in the message) with every output still `SENTINEL`.
fn expect_bad(
    failures: &mut Vec<String>,
    what: &str,
    status: i32,
    position: i32,
    name: &str,
    fragment: Option<&str>,
    outputs: &[&[f64]],
) {
    let message = last_message();
    let arg = atomgpu_last_error_arg();
    if status != ATOMGPU_ERR_INVALID_ARGUMENT {
        failures.push(format!("{what}: status {status}, want ATOMGPU_ERR_INVALID_ARGUMENT ({message})"));
    }
    if arg != position {
        failures.push(format!("{what}: atomgpu_last_error_arg() = {arg}, want {position} ({name}): {message}"));
    }
    if !message.contains(&format!("`{name}`")) || fragment.is_some_and(|f| !message.contains(f)) {
        failures.push(format!("{what}: message `{message}` does not name `{name}`{}", fragment.unwrap_or("")));
    }
    if outputs.iter().any(|o| o.iter().any(|&v| v != SENTINEL)) {
        failures.push(format!("{what}: an output was written on error"));
    }
}

fn expect_ok(failures: &mut Vec<String>, what: &str, status: i32) {
    if status != ATOMGPU_OK || atomgpu_last_error_arg() != 0 || !last_message().is_empty() {
        failures.push(format!("{what}: status {status}, want ATOMGPU_OK and no last error ({})", last_message()));
    }
}

fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------

type GasFn = unsafe extern "C" fn(i32, i64, *const f64, *const f64, *mut f64) -> i32;

#[derive(Clone, Copy)]
struct Gas {
    stats: i32,
    n: i64,
    te: *const f64,
    ne: *const f64,
    out_null: bool,
}

fn check_gas(f: GasFn, function: &str, output_name: &str) {
    let v = Gas { stats: FD, n: 2, te: TE.as_ptr(), ne: NE.as_ptr(), out_null: false };
    let cases: Vec<(&str, Gas, i32, &str, Option<&str>)> = vec![
        ("stats out of range", Gas { stats: 2, ..v }, 1, "stats", None),
        ("stats negative", Gas { stats: -1, ..v }, 1, "stats", None),
        ("negative size", Gas { n: -2, ..v }, 2, "n_states", None),
        ("zero size", Gas { n: 0, ..v }, 2, "n_states", None),
        ("absurd size", Gas { n: i64::MAX, ..v }, 2, "n_states", None),
        ("NULL te_ev", Gas { te: null(), ..v }, 3, "te_ev", None),
        ("NaN temperature", Gas { te: TE_NAN.as_ptr(), ..v }, 3, "te_ev", Some("[1]")),
        ("infinite temperature", Gas { stats: MB, te: TE_INF.as_ptr(), ..v }, 3, "te_ev", Some("[1]")),
        ("NULL ne_cm3", Gas { ne: null(), ..v }, 4, "ne_cm3", None),
        ("negative density", Gas { ne: NE_NEG.as_ptr(), ..v }, 4, "ne_cm3", Some("[1]")),
        ("zero density", Gas { stats: MB, ne: NE_ZERO.as_ptr(), ..v }, 4, "ne_cm3", Some("[1]")),
        ("NULL output", Gas { out_null: true, ..v }, 5, output_name, None),
        ("first bad argument wins", Gas { te: TE_NAN.as_ptr(), ne: NE_NEG.as_ptr(), ..v }, 3, "te_ev", None),
    ];
    let mut failures = Vec::new();
    for (what, a, position, name, fragment) in cases {
        let mut out = vec![SENTINEL; 2];
        let out_ptr = if a.out_null { null_mut() } else { out.as_mut_ptr() };
        let status = unsafe { f(a.stats, a.n, a.te, a.ne, out_ptr) };
        expect_bad(&mut failures, &format!("{function}: {what}"), status, position, name, fragment, &[&out]);
    }
    let mut out = vec![SENTINEL; 2];
    expect_ok(&mut failures, &format!("{function}: valid call"), unsafe {
        f(FD, 2, TE.as_ptr(), NE.as_ptr(), out.as_mut_ptr())
    });
    if out.iter().any(|v| !v.is_finite() || *v == SENTINEL) {
        failures.push(format!("{function}: valid call did not write its output: {out:?}"));
    }
    report(failures);
}

#[test]
fn chemical_potential_rejects_bad_input() {
    check_gas(atomgpu_rates_chemical_potential, "chemical_potential", "mu_ev");
}

#[test]
fn energy_density_rejects_bad_input() {
    check_gas(atomgpu_rates_energy_density, "energy_density", "u_ev_cm3");
}

#[test]
fn temperature_rejects_bad_input() {
    static U: [f64; 2] = [1.5e21, 1.5e23];
    static U_NAN: [f64; 2] = [1.5e21, f64::NAN];
    // Fermi-Dirac: u must exceed the ground state (3/5) n_e E_F (~2.2e25 eV cm^-3 at 1e24 cm^-3).
    static U_LOW: [f64; 1] = [1e24];
    static NE_DEGENERATE: [f64; 1] = [1e24];
    #[derive(Clone, Copy)]
    struct A {
        stats: i32,
        n: i64,
        u: *const f64,
        ne: *const f64,
        te_null: bool,
        mu_null: bool,
    }
    let v = A { stats: FD, n: 2, u: U.as_ptr(), ne: NE.as_ptr(), te_null: false, mu_null: false };
    let cases: Vec<(&str, A, i32, &str, Option<&str>)> = vec![
        ("stats", A { stats: 3, ..v }, 1, "stats", None),
        ("negative size", A { n: -1, ..v }, 2, "n_states", None),
        ("NULL u", A { u: null(), ..v }, 3, "u_ev_cm3", None),
        ("NaN u", A { u: U_NAN.as_ptr(), ..v }, 3, "u_ev_cm3", Some("[1]")),
        (
            "below the Fermi ground state",
            A { n: 1, u: U_LOW.as_ptr(), ne: NE_DEGENERATE.as_ptr(), ..v },
            3,
            "u_ev_cm3",
            Some("[0]"),
        ),
        ("negative density", A { stats: MB, ne: NE_NEG.as_ptr(), ..v }, 4, "ne_cm3", Some("[1]")),
        ("NULL te_ev", A { te_null: true, ..v }, 5, "te_ev", None),
        ("NULL mu_ev", A { mu_null: true, ..v }, 6, "mu_ev", None),
    ];
    let mut failures = Vec::new();
    for (what, a, position, name, fragment) in cases {
        let (mut te, mut mu) = (vec![SENTINEL; 2], vec![SENTINEL; 2]);
        let te_ptr = if a.te_null { null_mut() } else { te.as_mut_ptr() };
        let mu_ptr = if a.mu_null { null_mut() } else { mu.as_mut_ptr() };
        let status = unsafe { atomgpu_rates_temperature(a.stats, a.n, a.u, a.ne, te_ptr, mu_ptr) };
        expect_bad(&mut failures, &format!("temperature: {what}"), status, position, name, fragment, &[&te, &mu]);
    }
    let (mut te, mut mu) = (vec![SENTINEL; 2], vec![SENTINEL; 2]);
    expect_ok(&mut failures, "temperature: valid call", unsafe {
        atomgpu_rates_temperature(MB, 2, U.as_ptr(), NE.as_ptr(), te.as_mut_ptr(), mu.as_mut_ptr())
    });
    // Maxwell-Boltzmann: T = u / (3/2 n_e).
    for s in 0..2 {
        let want = U[s] / (1.5 * NE[s]);
        if ((te[s] - want) / want).abs() > 1e-14 {
            failures.push(format!("temperature MB: te[{s}] = {}, want {want}", te[s]));
        }
    }
    report(failures);
}

// ---------------------------------------------------------------------------------------------

type CollisionalFn = unsafe extern "C" fn(
    i32,
    f64,
    i32,
    i64,
    *const f64,
    *const f64,
    i64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
    *mut f64,
    *mut f64,
) -> i32;

#[derive(Clone, Copy)]
struct Collisional {
    stats: i32,
    p: f64,
    nodes: i32,
    n_states: i64,
    te: *const f64,
    ne: *const f64,
    n_transitions: i64,
    energy: *const f64,
    coefficients: *const f64,
    g_lower: *const f64,
    g_upper: *const f64,
    up_null: bool,
    down_null: bool,
}

fn check_collisional(
    f: CollisionalFn,
    function: &str,
    coef_name: &str,
    coef: &'static [f64],
    coef_bad: &'static [f64],
    fragment: &str,
) {
    let v = Collisional {
        stats: FD,
        p: 5.0,
        nodes: 32,
        n_states: 2,
        te: TE.as_ptr(),
        ne: NE.as_ptr(),
        n_transitions: 2,
        energy: ENERGY.as_ptr(),
        coefficients: coef.as_ptr(),
        g_lower: G.as_ptr(),
        g_upper: G.as_ptr(),
        up_null: false,
        down_null: false,
    };
    let cases: Vec<(&str, Collisional, i32, &str, Option<&str>)> = vec![
        ("stats out of range", Collisional { stats: 2, ..v }, 1, "stats", None),
        ("accuracy_p zero", Collisional { p: 0.0, ..v }, 2, "accuracy_p", None),
        ("accuracy_p NaN", Collisional { p: f64::NAN, ..v }, 2, "accuracy_p", None),
        ("accuracy_p too large", Collisional { p: 16.0, ..v }, 2, "accuracy_p", None),
        ("nodes 1", Collisional { nodes: 1, ..v }, 3, "nodes", None),
        ("nodes 257", Collisional { nodes: 257, ..v }, 3, "nodes", None),
        ("nodes negative", Collisional { nodes: -32, ..v }, 3, "nodes", None),
        ("negative n_states", Collisional { n_states: -2, ..v }, 4, "n_states", None),
        ("NULL te_ev", Collisional { te: null(), ..v }, 5, "te_ev", None),
        ("NaN temperature", Collisional { te: TE_NAN.as_ptr(), ..v }, 5, "te_ev", Some("[1]")),
        ("NULL ne_cm3", Collisional { stats: MB, ne: null(), ..v }, 6, "ne_cm3", None),
        ("negative density", Collisional { stats: MB, ne: NE_NEG.as_ptr(), ..v }, 6, "ne_cm3", Some("[1]")),
        ("negative n_transitions", Collisional { n_transitions: -1, ..v }, 7, "n_transitions", None),
        ("zero n_transitions", Collisional { n_transitions: 0, ..v }, 7, "n_transitions", None),
        ("NULL energy_ev", Collisional { energy: null(), ..v }, 8, "energy_ev", None),
        ("zero energy", Collisional { energy: ENERGY_ZERO.as_ptr(), ..v }, 8, "energy_ev", Some("[1]")),
        ("NULL coefficients", Collisional { coefficients: null(), ..v }, 9, coef_name, None),
        ("non-finite coefficient", Collisional { coefficients: coef_bad.as_ptr(), ..v }, 9, coef_name, Some(fragment)),
        ("zero g_lower", Collisional { g_lower: G_ZERO.as_ptr(), ..v }, 10, "g_lower", Some("[1]")),
        ("negative g_upper", Collisional { g_lower: null(), g_upper: G_NEG.as_ptr(), ..v }, 11, "g_upper", Some("[1]")),
        ("NULL up", Collisional { up_null: true, ..v }, 12, "up", None),
        ("NULL down", Collisional { down_null: true, ..v }, 13, "down", None),
    ];
    let mut failures = Vec::new();
    for (what, a, position, name, fragment) in cases {
        let (mut up, mut down) = (vec![SENTINEL; 4], vec![SENTINEL; 4]);
        let up_ptr = if a.up_null { null_mut() } else { up.as_mut_ptr() };
        let down_ptr = if a.down_null { null_mut() } else { down.as_mut_ptr() };
        let status = unsafe {
            f(
                a.stats,
                a.p,
                a.nodes,
                a.n_states,
                a.te,
                a.ne,
                a.n_transitions,
                a.energy,
                a.coefficients,
                a.g_lower,
                a.g_upper,
                up_ptr,
                down_ptr,
            )
        };
        expect_bad(&mut failures, &format!("{function}: {what}"), status, position, name, fragment, &[&up, &down]);
    }
    // Valid: without weights, and with them (down scales by g_lower/g_upper; up does not).
    let (mut up1, mut down1) = (vec![SENTINEL; 4], vec![SENTINEL; 4]);
    expect_ok(&mut failures, &format!("{function}: valid call, no weights"), unsafe {
        f(
            FD,
            5.0,
            32,
            2,
            TE.as_ptr(),
            NE.as_ptr(),
            2,
            ENERGY.as_ptr(),
            coef.as_ptr(),
            null(),
            null(),
            up1.as_mut_ptr(),
            down1.as_mut_ptr(),
        )
    });
    static GL: [f64; 2] = [2.0, 3.0];
    static GU: [f64; 2] = [8.0, 5.0];
    let (mut up2, mut down2) = (vec![SENTINEL; 4], vec![SENTINEL; 4]);
    expect_ok(&mut failures, &format!("{function}: valid call with weights"), unsafe {
        f(
            FD,
            5.0,
            32,
            2,
            TE.as_ptr(),
            NE.as_ptr(),
            2,
            ENERGY.as_ptr(),
            coef.as_ptr(),
            GL.as_ptr(),
            GU.as_ptr(),
            up2.as_mut_ptr(),
            down2.as_mut_ptr(),
        )
    });
    for i in 0..4 {
        let t = i % 2;
        if up1[i].is_nan() || up1[i] <= 0.0 || (up2[i] - up1[i]).abs() > 1e-15 * up1[i] {
            failures.push(format!("{function}: up[{i}] = {} without weights, {} with", up1[i], up2[i]));
        }
        let want = down1[i] * GL[t] / GU[t];
        if down1[i].is_nan() || down1[i] <= 0.0 || ((down2[i] - want) / want).abs() > 1e-14 {
            failures.push(format!("{function}: down[{i}] = {} with weights, want {want}", down2[i]));
        }
    }
    report(failures);
}

#[test]
fn excitation_rejects_bad_input() {
    check_collisional(atomgpu_rates_excitation, "excitation", "omega", &OMEGA, &OMEGA_NAN, "[7]");
}

#[test]
fn ionization_rejects_bad_input() {
    check_collisional(atomgpu_rates_ionization, "ionization", "beli", &BELI, &BELI_INF, "[6]");
}

// ---------------------------------------------------------------------------------------------

#[test]
fn photoionization_rejects_bad_input() {
    #[derive(Clone, Copy)]
    struct A {
        stats: i32,
        p: f64,
        nodes: i32,
        n_states: i64,
        te: *const f64,
        ne: *const f64,
        tr: *const f64,
        n_transitions: i64,
        energy: *const f64,
        d0: *const f64,
        d1: *const f64,
        rate_null: bool,
        heating_null: bool,
    }
    let v = A {
        stats: FD,
        p: 5.0,
        nodes: 32,
        n_states: 2,
        te: TE.as_ptr(),
        ne: NE.as_ptr(),
        tr: TR.as_ptr(),
        n_transitions: 2,
        energy: ENERGY.as_ptr(),
        d0: D0.as_ptr(),
        d1: D1.as_ptr(),
        rate_null: false,
        heating_null: false,
    };
    let cases: Vec<(&str, A, i32, &str, Option<&str>)> = vec![
        ("stats", A { stats: 7, ..v }, 1, "stats", None),
        ("accuracy_p", A { p: -1.0, ..v }, 2, "accuracy_p", None),
        ("nodes", A { nodes: 0, ..v }, 3, "nodes", None),
        ("negative n_states", A { n_states: -5, ..v }, 4, "n_states", None),
        ("NULL te_ev", A { te: null(), ..v }, 5, "te_ev", None),
        ("NaN temperature", A { te: TE_NAN.as_ptr(), ..v }, 5, "te_ev", Some("[1]")),
        ("negative density", A { ne: NE_NEG.as_ptr(), ..v }, 6, "ne_cm3", Some("[1]")),
        ("NULL tr_ev", A { tr: null(), ..v }, 7, "tr_ev", None),
        ("NaN radiation temperature", A { tr: TR_NAN.as_ptr(), ..v }, 7, "tr_ev", Some("[1]")),
        ("negative n_transitions", A { n_transitions: -1, ..v }, 8, "n_transitions", None),
        ("zero energy", A { energy: ENERGY_ZERO.as_ptr(), ..v }, 9, "energy_ev", Some("[1]")),
        ("NULL d0_cm2", A { d0: null(), ..v }, 10, "d0_cm2", None),
        ("infinite d1_cm2", A { d1: D1_INF.as_ptr(), ..v }, 11, "d1_cm2", Some("[1]")),
        ("NULL rate", A { rate_null: true, ..v }, 12, "rate", None),
        ("NULL heating", A { heating_null: true, ..v }, 13, "heating", None),
    ];
    let mut failures = Vec::new();
    for (what, a, position, name, fragment) in cases {
        let (mut rate, mut heating) = (vec![SENTINEL; 4], vec![SENTINEL; 4]);
        let rate_ptr = if a.rate_null { null_mut() } else { rate.as_mut_ptr() };
        let heating_ptr = if a.heating_null { null_mut() } else { heating.as_mut_ptr() };
        let status = unsafe {
            atomgpu_rates_photoionization(
                a.stats,
                a.p,
                a.nodes,
                a.n_states,
                a.te,
                a.ne,
                a.tr,
                a.n_transitions,
                a.energy,
                a.d0,
                a.d1,
                rate_ptr,
                heating_ptr,
            )
        };
        expect_bad(
            &mut failures,
            &format!("photoionization: {what}"),
            status,
            position,
            name,
            fragment,
            &[&rate, &heating],
        );
    }
    let (mut rate, mut heating) = (vec![SENTINEL; 4], vec![SENTINEL; 4]);
    expect_ok(&mut failures, "photoionization: valid call", unsafe {
        atomgpu_rates_photoionization(
            FD,
            5.0,
            32,
            2,
            TE.as_ptr(),
            NE.as_ptr(),
            TR.as_ptr(),
            2,
            ENERGY.as_ptr(),
            D0.as_ptr(),
            D1.as_ptr(),
            rate.as_mut_ptr(),
            heating.as_mut_ptr(),
        )
    });
    if rate.iter().chain(&heating).any(|&v| !v.is_finite() || v <= 0.0) {
        failures.push(format!("photoionization: valid call gave rate {rate:?}, heating {heating:?}"));
    }
    report(failures);
}

#[test]
fn inverse_bremsstrahlung_rejects_bad_input() {
    #[derive(Clone, Copy)]
    struct A {
        stats: i32,
        p: f64,
        nodes: i32,
        n_states: i64,
        te: *const f64,
        ne: *const f64,
        tr: *const f64,
        z2n: *const f64,
        heating_null: bool,
    }
    let v = A {
        stats: FD,
        p: 5.0,
        nodes: 32,
        n_states: 2,
        te: TE.as_ptr(),
        ne: NE.as_ptr(),
        tr: TR.as_ptr(),
        z2n: Z2N.as_ptr(),
        heating_null: false,
    };
    let cases: Vec<(&str, A, i32, &str, Option<&str>)> = vec![
        ("stats", A { stats: -1, ..v }, 1, "stats", None),
        ("accuracy_p", A { p: f64::INFINITY, ..v }, 2, "accuracy_p", None),
        ("nodes", A { nodes: 100_000, ..v }, 3, "nodes", None),
        ("negative n_states", A { n_states: -1, ..v }, 4, "n_states", None),
        ("NaN temperature", A { te: TE_NAN.as_ptr(), ..v }, 5, "te_ev", Some("[1]")),
        ("NULL ne_cm3", A { ne: null(), ..v }, 6, "ne_cm3", None),
        ("negative density", A { ne: NE_NEG.as_ptr(), ..v }, 6, "ne_cm3", Some("[1]")),
        ("NaN radiation temperature", A { tr: TR_NAN.as_ptr(), ..v }, 7, "tr_ev", Some("[1]")),
        ("NULL z2n_cm3", A { z2n: null(), ..v }, 8, "z2n_cm3", None),
        ("negative z2n_cm3", A { z2n: Z2N_NEG.as_ptr(), ..v }, 8, "z2n_cm3", Some("[1]")),
        ("NULL heating", A { heating_null: true, ..v }, 9, "heating", None),
    ];
    let mut failures = Vec::new();
    for (what, a, position, name, fragment) in cases {
        let mut heating = vec![SENTINEL; 2];
        let heating_ptr = if a.heating_null { null_mut() } else { heating.as_mut_ptr() };
        let status = unsafe {
            atomgpu_rates_inverse_bremsstrahlung(
                a.stats,
                a.p,
                a.nodes,
                a.n_states,
                a.te,
                a.ne,
                a.tr,
                a.z2n,
                heating_ptr,
            )
        };
        expect_bad(
            &mut failures,
            &format!("inverse_bremsstrahlung: {what}"),
            status,
            position,
            name,
            fragment,
            &[&heating],
        );
    }
    let mut heating = vec![SENTINEL; 2];
    expect_ok(&mut failures, "inverse_bremsstrahlung: valid call", unsafe {
        atomgpu_rates_inverse_bremsstrahlung(
            FD,
            5.0,
            32,
            2,
            TE.as_ptr(),
            NE.as_ptr(),
            TR.as_ptr(),
            Z2N.as_ptr(),
            heating.as_mut_ptr(),
        )
    });
    if heating.iter().any(|&v| !v.is_finite() || v <= 0.0) {
        failures.push(format!("inverse_bremsstrahlung: valid call gave {heating:?}"));
    }
    report(failures);
}

/// The output layout is up[t + n_transitions * s]: a batch of 3 states x 2 transitions equals the
/// six single-pair calls.
#[test]
fn batched_output_is_transitions_fastest() {
    let te = [0.7, 4.0, 25.0];
    let ne = [1e19, 3e21, 5e22];
    let energy = [2.0, 9.0];
    let omega = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.4, 0.3, 0.0, 0.0, 0.0];
    let (mut up, mut down) = ([SENTINEL; 6], [SENTINEL; 6]);
    let status = unsafe {
        atomgpu_rates_excitation(
            FD,
            8.0,
            48,
            3,
            te.as_ptr(),
            ne.as_ptr(),
            2,
            energy.as_ptr(),
            omega.as_ptr(),
            null(),
            null(),
            up.as_mut_ptr(),
            down.as_mut_ptr(),
        )
    };
    assert_eq!(status, ATOMGPU_OK, "{}", last_message());
    for s in 0..3 {
        for t in 0..2 {
            let (mut u, mut d) = (SENTINEL, SENTINEL);
            let status = unsafe {
                atomgpu_rates_excitation(
                    FD,
                    8.0,
                    48,
                    1,
                    &te[s],
                    &ne[s],
                    1,
                    &energy[t],
                    omega[6 * t..].as_ptr(),
                    null(),
                    null(),
                    &mut u,
                    &mut d,
                )
            };
            assert_eq!(status, ATOMGPU_OK, "{}", last_message());
            assert!(
                (up[t + 2 * s] - u).abs() <= 1e-15 * u.abs(),
                "up[{t} + 2*{s}] = {}, single call {u}",
                up[t + 2 * s]
            );
            assert!(
                (down[t + 2 * s] - d).abs() <= 1e-15 * d.abs(),
                "down[{t} + 2*{s}] = {}, single call {d}",
                down[t + 2 * s]
            );
        }
    }
}

/// The Maxwell-Boltzmann chemical potential through the C ABI equals its closed form
/// T ln(n_e lambda^3 / 2), lambda = h / sqrt(2 pi m_e T) (CODATA 2018 constants).
#[test]
fn maxwell_boltzmann_chemical_potential_closed_form() {
    const HC: f64 = 1.239_841_984_332_002_6e-4;
    const MEC2: f64 = 510_998.95;
    let te = [0.5, 10.0, 30.0];
    let ne = [1e18, 1e21, 1e22];
    let mut mu = [SENTINEL; 3];
    let status = unsafe { atomgpu_rates_chemical_potential(MB, 3, te.as_ptr(), ne.as_ptr(), mu.as_mut_ptr()) };
    assert_eq!(status, ATOMGPU_OK, "{}", last_message());
    for s in 0..3 {
        let lambda = HC / (2.0 * std::f64::consts::PI * MEC2 * te[s]).sqrt();
        let want = te[s] * (ne[s] * lambda.powi(3) / 2.0).ln();
        assert!(((mu[s] - want) / want).abs() < 1e-13, "mu[{s}] = {}, want {want}", mu[s]);
    }
}
