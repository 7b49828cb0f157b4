//! C ABI of the rates family: the free-electron gas (chemical potential, energy density and its
//! inversion) and the batched rate coefficients of paper §2.2 (Aslanyan, Aslanyan & Tallents,
//! CPC 2017), for Fermi-Dirac or Maxwell-Boltzmann electrons.
//!
//! Conventions shared by every function here:
//! - energies and temperatures in eV (k_B T), densities in cm^-3, cross-sections in cm^2,
//!   rates in s^-1 per ion;
//! - plasma states are given as structure-of-arrays (`te_ev[s]`, `ne_cm3[s]`, `tr_ev[s]`,
//!   s = 0 .. n_states-1) and transitions likewise (`energy_ev[t]`, ...), so that Fortran passes
//!   plain arrays;
//! - batched outputs hold every (transition, state) pair, transitions fastest:
//!   `up[t + n_transitions * s]` (a column-major `n_transitions x n_states` matrix);
//! - every argument is checked (NULL pointers, sizes >= 1, temperatures, densities and energies
//!   inside the family's domain, finite coefficients) before any work; on failure the status is
//!   `ATOMGPU_ERR_INVALID_ARGUMENT`, `atomgpu_last_error_arg()` gives the 1-based position of the
//!   first offending argument and `atomgpu_last_error_message` names it (with the 0-based element
//!   index for arrays);
//! - the domain, inside which every result is a finite double: temperatures T_e, T_r in
//!   [1e-4, 1e6] eV, densities n_e in [1e-10, 1e30] cm^-3, transition energies in [1e-6, 1e6] eV;
//!   a result that still overflows (absurd but finite coefficients or weights, say) fails the
//!   call with `ATOMGPU_ERR_NOT_FINITE`, naming the output and the (transition, state) element;
//! - outputs are written only on success;
//! - the GPU integrands run in double precision unless `atomgpu_rates_set_precision` (or
//!   `ATOMGPU_RATES_PRECISION=single`) asks for single (src/rates/precision.rs: FP32 integrands,
//!   FP64 sums and prefactors, only inside its range, within 1e-6 relative of double, largest
//!   difference measured 6.2e-7; the CPU path is always double).

use super::common::{count, guard, input, output, write_output};
use crate::error::{require_finite, require_finite_result, require_positive, Error, Result};
use crate::memory;
use crate::rates::{
    self, fermi, precision, Excitation, Ionization, Photoionization, PlasmaState, Precision, Quadrature, Statistics,
};

/// Statistics code: Fermi-Dirac electrons (Pauli blocking of every outgoing electron).
pub const ATOMGPU_STATS_FERMI_DIRAC: i32 = 0;
/// Statistics code: Maxwell-Boltzmann electrons (the classical counterpart, no blocking).
pub const ATOMGPU_STATS_MAXWELL_BOLTZMANN: i32 = 1;
/// Precision code: the GPU rate integrands in FP64 (the default; GPU = CPU to 1e-12).
pub const ATOMGPU_PRECISION_DOUBLE: i32 = 0;
/// Precision code: the GPU rate integrands in FP32 with FP64 sums (within 1e-6 relative of double;
/// largest difference measured 6.2e-7).
pub const ATOMGPU_PRECISION_SINGLE: i32 = 1;

// ---------------------------------------------------------------------------------------------
// Argument helpers (the entry points below are each one `guard` call).

/// The statistics code (argument `stats`).
fn statistics(stats: i32) -> Result<Statistics> {
    Statistics::from_code("stats", stats)
}

/// The quadrature settings (arguments `accuracy_p`, `nodes`).
fn quadrature(accuracy_p: f64, nodes: i32) -> Result<Quadrature> {
    if !(accuracy_p.is_finite() && (1.0..=15.0).contains(&accuracy_p)) {
        return Err(Error::invalid("accuracy_p", format!("must be in [1, 15], got {accuracy_p}")));
    }
    let n = usize::try_from(nodes).map_err(|_| Error::invalid("nodes", format!("must be in [2, 256], got {nodes}")))?;
    Ok(Quadrature::new(accuracy_p, n)?.with_precision(precision::process_precision()?))
}

/// A size argument (`n_states`, `n_transitions`): at least 1, and small enough that the arrays
/// it sizes (up to 6 doubles per element) fit in the address space.
fn size_arg(name: &'static str, n: i64) -> Result<usize> {
    let n = count(name, n)?;
    if n > isize::MAX as usize / (6 * std::mem::size_of::<f64>()) {
        return Err(Error::invalid(name, format!("is too large ({n})")));
    }
    Ok(n)
}

/// An input array of `len` values, each checked by `rule(name, index, value)` (a range of
/// [`crate::rates`], or [`positive`]).
unsafe fn checked_array<'a>(
    name: &'static str,
    ptr: *const f64,
    len: usize,
    rule: impl Fn(&'static str, Option<usize>, f64) -> Result<()>,
) -> Result<&'a [f64]> {
    let values = input(name, ptr, len)?;
    for (i, &v) in values.iter().enumerate() {
        rule(name, Some(i), v)?;
    }
    Ok(values)
}

/// The rule of [`checked_array`] for values that must be finite and > 0 (energy densities,
/// statistical weights).
fn positive(name: &'static str, index: Option<usize>, value: f64) -> Result<()> {
    require_positive(name, index, value, "")
}

/// An input array of `len` finite values (any sign).
unsafe fn finite_array<'a>(name: &'static str, ptr: *const f64, len: usize) -> Result<&'a [f64]> {
    let values = input(name, ptr, len)?;
    for (i, &v) in values.iter().enumerate() {
        require_finite(name, Some(i), v)?;
    }
    Ok(values)
}

/// A fit-coefficient array of `per` values per transition (`omega`, `beli`), all finite.
unsafe fn coefficients<'a>(
    name: &'static str,
    ptr: *const f64,
    per: usize,
    n_transitions: usize,
    symbol: &str,
) -> Result<&'a [f64]> {
    let len = per
        .checked_mul(n_transitions)
        .ok_or_else(|| Error::invalid("n_transitions", format!("is too large ({n_transitions})")))?;
    let values = input(name, ptr, len)?;
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() {
            let (t, k) = (i / per, i % per);
            return Err(Error::invalid_at(name, i, format!("{symbol}{k} of transition {t} must be finite, got {v}")));
        }
    }
    Ok(values)
}

/// Statistical weights: NULL means all 1; otherwise `len` finite values > 0.
unsafe fn weights(name: &'static str, ptr: *const f64, len: usize) -> Result<Vec<f64>> {
    if ptr.is_null() {
        memory::filled("the statistical weights", len, 1.0)
    } else {
        memory::copy_of("the statistical weights", checked_array(name, ptr, len, positive)?)
    }
}

/// Number of (transition, state) pairs, the length of a batched output.
fn pairs(n_transitions: usize, n_states: usize) -> Result<usize> {
    n_transitions.checked_mul(n_states).filter(|&n| n <= isize::MAX as usize / std::mem::size_of::<f64>()).ok_or_else(
        || {
            Error::invalid(
                "n_transitions",
                format!("n_transitions x n_states ({n_transitions} x {n_states}) is too large"),
            )
        },
    )
}

/// Plasma states from the state arrays; `tr_ev` None (collisional rates) means T_r = 1 eV
/// (unused by those rates).
fn states(te_ev: &[f64], ne_cm3: &[f64], tr_ev: Option<&[f64]>) -> Result<Vec<PlasmaState>> {
    memory::collect(
        "the plasma states",
        (0..te_ev.len()).map(|s| PlasmaState {
            te_ev: te_ev[s],
            ne_cm3: ne_cm3[s],
            tr_ev: tr_ev.map_or(1.0, |t| t[s]),
        }),
    )
}

/// Renames an error of the Rust API to the C parameter it concerns, where the names differ:
/// weights (`g`) are reported at `g_lower`, `z2n` at `z2n_cm3`.
fn to_c_names(e: Error) -> Error {
    e.renamed("g", "g_lower").renamed("z2n", "z2n_cm3")
}

/// Attaches state index `s` to an error of a per-state routine that names no element.
fn at_state(s: usize) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::InvalidArgument { name, index: None, rule } => Error::InvalidArgument { name, index: Some(s), rule },
        Error::NotFinite { name, index: None, detail } => Error::NotFinite { name, index: Some(s), detail },
        other => other,
    }
}

/// Evaluates `f(s)` for every state s into a new vector for the output `name`, attaching the
/// state to its errors; a value that is not finite is an error naming `name`.
fn per_state(name: &'static str, n_states: usize, mut f: impl FnMut(usize) -> Result<f64>) -> Result<Vec<f64>> {
    let values = memory::try_collect(name, (0..n_states).map(|s| f(s).map_err(at_state(s))))?;
    require_finite_result(name, &values, |s| format!("state {s}"))?;
    Ok(values)
}

// ---------------------------------------------------------------------------------------------
// The free-electron gas.

/// Chooses the arithmetic of the GPU rate integrands for the rest of the process:
/// `ATOMGPU_PRECISION_DOUBLE` (the default) or `ATOMGPU_PRECISION_SINGLE` (FP32 integrands with FP64
/// arguments, sums and prefactors, used by `atomgpu_rates_excitation`, `_ionization` and
/// `_photoionization` on a GPU for each (transition, state) with |mu|/T_e <= 30,
/// (E + |mu|)/T_e <= 60 and every fit coefficient 0 or of magnitude in [1e-30, 1e30]; other pairs,
/// and `atomgpu_rates_inverse_bremsstrahlung`, run in double). Single-precision rates agree with
/// double within 1e-6 relative (largest difference measured 6.2e-7).
/// Overrides `ATOMGPU_RATES_PRECISION`. The CPU path and the collisional-radiative runs are always
/// double.
#[no_mangle]
pub extern "C" fn atomgpu_rates_set_precision(precision: i32) -> i32 {
    guard(&["precision"], || {
        precision::set_process_precision(Precision::from_code("precision", precision)?);
        Ok(())
    })
}

/// Chemical potential of the free electrons of each plasma state, solving the normalisation
/// n_e = 2 lambda^-3 F_{1/2}(mu/T_e) (paper eq. 2) to full double precision (Fermi-Dirac), or
/// mu = T_e ln(n_e lambda^3 / 2) (Maxwell-Boltzmann).
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `n_states` (>= 1): number of plasma states.
/// - `te_ev[n_states]`: electron temperatures T_e [eV], in [1e-4, 1e6].
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `mu_ev[n_states]` (output): chemical potentials mu [eV] (negative when non-degenerate).
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_chemical_potential(
    stats: i32,
    n_states: i64,
    te_ev: *const f64,
    ne_cm3: *const f64,
    mu_ev: *mut f64,
) -> i32 {
    guard(&["stats", "n_states", "te_ev", "ne_cm3", "mu_ev"], || {
        let stats = statistics(stats)?;
        let ns = size_arg("n_states", n_states)?;
        let te = checked_array("te_ev", te_ev, ns, rates::check_temperature)?;
        let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
        let out = output("mu_ev", mu_ev)?;
        let mu = per_state("mu_ev", ns, |s| fermi::chemical_potential(stats, te[s], ne[s]))?;
        write_output(out, &mu);
        Ok(())
    })
}

/// Kinetic energy density of the free electrons of each plasma state, u = n_e C_V (paper eq. 4):
/// u = (3/2) (2/lambda^3) T_e F_{3/2}(mu/T_e) (Fermi-Dirac), u = (3/2) n_e T_e
/// (Maxwell-Boltzmann).
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `n_states` (>= 1): number of plasma states.
/// - `te_ev[n_states]`: electron temperatures T_e [eV], in [1e-4, 1e6].
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `u_ev_cm3[n_states]` (output): energy densities u [eV cm^-3].
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_energy_density(
    stats: i32,
    n_states: i64,
    te_ev: *const f64,
    ne_cm3: *const f64,
    u_ev_cm3: *mut f64,
) -> i32 {
    guard(&["stats", "n_states", "te_ev", "ne_cm3", "u_ev_cm3"], || {
        let stats = statistics(stats)?;
        let ns = size_arg("n_states", n_states)?;
        let te = checked_array("te_ev", te_ev, ns, rates::check_temperature)?;
        let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
        let out = output("u_ev_cm3", u_ev_cm3)?;
        let u = per_state("u_ev_cm3", ns, |s| fermi::energy_density(stats, te[s], ne[s]))?;
        write_output(out, &u);
        Ok(())
    })
}

/// Temperature and chemical potential of the free electrons from their energy density and
/// density: the inversion of `atomgpu_rates_energy_density` (used to recover T_e from the
/// electron energy equation). Under either statistics u must imply a temperature in
/// [1e-4, 1e6] eV (Maxwell-Boltzmann: T_e = u / (3/2 n_e)); Fermi-Dirac energy densities must
/// also lie above the ground state (3/5) n_e E_F.
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `n_states` (>= 1): number of plasma states.
/// - `u_ev_cm3[n_states]`: kinetic energy densities u [eV cm^-3], finite and > 0, implying T_e in
///   [1e-4, 1e6] eV (Fermi-Dirac: also > (3/5) n_e E_F).
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `te_ev[n_states]` (output): electron temperatures T_e [eV].
/// - `mu_ev[n_states]` (output): chemical potentials mu [eV].
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_temperature(
    stats: i32,
    n_states: i64,
    u_ev_cm3: *const f64,
    ne_cm3: *const f64,
    te_ev: *mut f64,
    mu_ev: *mut f64,
) -> i32 {
    guard(&["stats", "n_states", "u_ev_cm3", "ne_cm3", "te_ev", "mu_ev"], || {
        let stats = statistics(stats)?;
        let ns = size_arg("n_states", n_states)?;
        let u = checked_array("u_ev_cm3", u_ev_cm3, ns, positive)?;
        let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
        let te_out = output("te_ev", te_ev)?;
        let mu_out = output("mu_ev", mu_ev)?;
        let mut mu = memory::filled("mu_ev", ns, 0.0)?;
        let te = per_state("te_ev", ns, |s| {
            let (t, m) = fermi::temperature_from_energy_density(stats, u[s], ne[s])?;
            mu[s] = m;
            Ok(t)
        })?;
        require_finite_result("mu_ev", &mu, |s| format!("state {s}"))?;
        write_output(te_out, &te);
        write_output(mu_out, &mu);
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Rate coefficients.

/// Collisional excitation and de-excitation rates (paper eqs. 5, 6 and 9) of every transition in
/// every plasma state:
/// up = K int_E^inf Omega(eps/E) F(eps) (1 - F(eps - E)) d eps,
/// down = (g_lower/g_upper) K int_E^inf Omega(eps/E) F(eps - E) (1 - F(eps)) d eps,
/// K = G sqrt(2/m_e) pi a0^2 Ry, Omega(x) = B0 ln x + B1 + B2/x + B3/x^2 + B4/x^3 + B5/x^4
/// (the cross-section is sigma(eps) = pi a0^2 (Ry/eps) Omega(eps/E)).
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `accuracy_p` in [1, 15]: integration ranges are truncated at relative 10^-p (paper eq. 17;
///   the paper's default is 5).
/// - `nodes` in [2, 256]: Gauss-Legendre nodes per panel (the paper's default is 32).
/// - `n_states` (>= 1): number of plasma states.
/// - `te_ev[n_states]`: electron temperatures T_e [eV], in [1e-4, 1e6].
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `n_transitions` (>= 1): number of transitions.
/// - `energy_ev[n_transitions]`: excitation energies E [eV], in [1e-6, 1e6].
/// - `omega[6 * n_transitions]`: collision-strength fits (dimensionless), B0..B5 of transition t
///   at `omega[6*t + k]` (a column-major 6 x n_transitions matrix), finite.
/// - `g_lower[n_transitions]`, `g_upper[n_transitions]`: statistical weights of the lower and
///   upper levels, finite and > 0; either may be NULL, meaning all 1.
/// - `up[n_transitions * n_states]` (output): excitation rates [s^-1 per lower-level ion],
///   `up[t + n_transitions*s]`.
/// - `down[n_transitions * n_states]` (output): de-excitation rates [s^-1 per upper-level ion],
///   same layout.
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_excitation(
    stats: i32,
    accuracy_p: f64,
    nodes: i32,
    n_states: i64,
    te_ev: *const f64,
    ne_cm3: *const f64,
    n_transitions: i64,
    energy_ev: *const f64,
    omega: *const f64,
    g_lower: *const f64,
    g_upper: *const f64,
    up: *mut f64,
    down: *mut f64,
) -> i32 {
    guard(
        &[
            "stats",
            "accuracy_p",
            "nodes",
            "n_states",
            "te_ev",
            "ne_cm3",
            "n_transitions",
            "energy_ev",
            "omega",
            "g_lower",
            "g_upper",
            "up",
            "down",
        ],
        || {
            let stats = statistics(stats)?;
            let q = quadrature(accuracy_p, nodes)?;
            let ns = size_arg("n_states", n_states)?;
            let te = checked_array("te_ev", te_ev, ns, rates::check_temperature)?;
            let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
            let nt = size_arg("n_transitions", n_transitions)?;
            let energy = checked_array("energy_ev", energy_ev, nt, rates::check_energy)?;
            let b = coefficients("omega", omega, 6, nt, "B")?;
            let gl = weights("g_lower", g_lower, nt)?;
            let gu = weights("g_upper", g_upper, nt)?;
            let n_out = pairs(nt, ns)?;
            let up_out = output("up", up)?;
            let down_out = output("down", down)?;
            let transitions = memory::collect(
                "the transitions",
                (0..nt).map(|t| Excitation {
                    energy_ev: energy[t],
                    omega: b[6 * t..6 * t + 6].try_into().expect("6 coefficients"),
                    g_lower: gl[t],
                    g_upper: gu[t],
                }),
            )?;
            let r = rates::excitation_rates(stats, &q, &states(te, ne, None)?, &transitions).map_err(to_c_names)?;
            check_len(&r.up, n_out)?;
            check_len(&r.down, n_out)?;
            write_output(up_out, &r.up);
            write_output(down_out, &r.down);
            Ok(())
        },
    )
}

/// Collisional ionization and three-body recombination rates (paper eqs. 7, 8 and 10) of every
/// transition in every plasma state, with the Mott-BELI differential cross-section of eq. 8
/// (Bell et al. 1983: total sigma = 1e-13/(E eps) [A ln(eps/E) + sum_k B_k (1 - E/eps)^k] cm^2)
/// and Pauli blocking of both outgoing electrons.
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `accuracy_p` in [1, 15]: integration ranges are truncated at relative 10^-p.
/// - `nodes` in [2, 256]: Gauss-Legendre nodes per panel.
/// - `n_states` (>= 1): number of plasma states.
/// - `te_ev[n_states]`: electron temperatures T_e [eV], in [1e-4, 1e6].
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `n_transitions` (>= 1): number of transitions.
/// - `energy_ev[n_transitions]`: ionization energies E [eV], in [1e-6, 1e6].
/// - `beli[5 * n_transitions]`: BELI coefficients A, B1..B4 in units of 1e-13 cm^2 eV^2, of
///   transition t at `beli[5*t + k]` (a column-major 5 x n_transitions matrix), finite.
/// - `g_lower[n_transitions]`: statistical weights of the ionizing levels; `g_upper`: of the
///   levels of the next ion they ionize to; finite and > 0; either may be NULL, meaning all 1.
/// - `up[n_transitions * n_states]` (output): ionization rates [s^-1 per ion of the lower
///   stage], `up[t + n_transitions*s]`.
/// - `down[n_transitions * n_states]` (output): three-body recombination rates [s^-1 per ion of
///   the upper stage], same layout.
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_ionization(
    stats: i32,
    accuracy_p: f64,
    nodes: i32,
    n_states: i64,
    te_ev: *const f64,
    ne_cm3: *const f64,
    n_transitions: i64,
    energy_ev: *const f64,
    beli: *const f64,
    g_lower: *const f64,
    g_upper: *const f64,
    up: *mut f64,
    down: *mut f64,
) -> i32 {
    guard(
        &[
            "stats",
            "accuracy_p",
            "nodes",
            "n_states",
            "te_ev",
            "ne_cm3",
            "n_transitions",
            "energy_ev",
            "beli",
            "g_lower",
            "g_upper",
            "up",
            "down",
        ],
        || {
            let stats = statistics(stats)?;
            let q = quadrature(accuracy_p, nodes)?;
            let ns = size_arg("n_states", n_states)?;
            let te = checked_array("te_ev", te_ev, ns, rates::check_temperature)?;
            let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
            let nt = size_arg("n_transitions", n_transitions)?;
            let energy = checked_array("energy_ev", energy_ev, nt, rates::check_energy)?;
            let c = coefficients("beli", beli, 5, nt, "C")?;
            let gl = weights("g_lower", g_lower, nt)?;
            let gu = weights("g_upper", g_upper, nt)?;
            let n_out = pairs(nt, ns)?;
            let up_out = output("up", up)?;
            let down_out = output("down", down)?;
            let transitions = memory::collect(
                "the transitions",
                (0..nt).map(|t| Ionization {
                    energy_ev: energy[t],
                    beli: c[5 * t..5 * t + 5].try_into().expect("5 coefficients"),
                    g_lower: gl[t],
                    g_upper: gu[t],
                }),
            )?;
            let r = rates::ionization_rates(stats, &q, &states(te, ne, None)?, &transitions).map_err(to_c_names)?;
            check_len(&r.up, n_out)?;
            check_len(&r.down, n_out)?;
            write_output(up_out, &r.up);
            write_output(down_out, &r.down);
            Ok(())
        },
    )
}

/// Photoionization rates and photoelectron heating (paper eqs. 11-13) of every transition in
/// every plasma state, in a black-body radiation field at temperature T_r (eq. 16), with Pauli
/// blocking of the photoelectron: rate = int_E^inf sigma(eps) Phi(eps) (1 - F(eps - E)) d eps,
/// heating = int_E^inf (eps - E) sigma Phi (1 - F) d eps, sigma = D0 (E/eps)^2 + D1 (E/eps)^3.
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `accuracy_p` in [1, 15]: integration ranges are truncated at relative 10^-p.
/// - `nodes` in [2, 256]: Gauss-Legendre nodes per panel.
/// - `n_states` (>= 1): number of plasma states.
/// - `te_ev[n_states]`: electron temperatures T_e [eV], in [1e-4, 1e6].
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `tr_ev[n_states]`: radiation temperatures T_r [eV], in [1e-4, 1e6].
/// - `n_transitions` (>= 1): number of transitions.
/// - `energy_ev[n_transitions]`: ionization energies E [eV], in [1e-6, 1e6].
/// - `d0_cm2[n_transitions]`, `d1_cm2[n_transitions]`: cross-section fit D0, D1 [cm^2], finite.
/// - `rate[n_transitions * n_states]` (output): photoionization rates [s^-1 per ion],
///   `rate[t + n_transitions*s]`.
/// - `heating[n_transitions * n_states]` (output): photoelectron heating [eV s^-1 per ion],
///   same layout.
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_photoionization(
    stats: i32,
    accuracy_p: f64,
    nodes: i32,
    n_states: i64,
    te_ev: *const f64,
    ne_cm3: *const f64,
    tr_ev: *const f64,
    n_transitions: i64,
    energy_ev: *const f64,
    d0_cm2: *const f64,
    d1_cm2: *const f64,
    rate: *mut f64,
    heating: *mut f64,
) -> i32 {
    guard(
        &[
            "stats",
            "accuracy_p",
            "nodes",
            "n_states",
            "te_ev",
            "ne_cm3",
            "tr_ev",
            "n_transitions",
            "energy_ev",
            "d0_cm2",
            "d1_cm2",
            "rate",
            "heating",
        ],
        || {
            let stats = statistics(stats)?;
            let q = quadrature(accuracy_p, nodes)?;
            let ns = size_arg("n_states", n_states)?;
            let te = checked_array("te_ev", te_ev, ns, rates::check_temperature)?;
            let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
            let tr = checked_array("tr_ev", tr_ev, ns, rates::check_temperature)?;
            let nt = size_arg("n_transitions", n_transitions)?;
            let energy = checked_array("energy_ev", energy_ev, nt, rates::check_energy)?;
            let d0 = finite_array("d0_cm2", d0_cm2, nt)?;
            let d1 = finite_array("d1_cm2", d1_cm2, nt)?;
            let n_out = pairs(nt, ns)?;
            let rate_out = output("rate", rate)?;
            let heating_out = output("heating", heating)?;
            let transitions = memory::collect(
                "the transitions",
                (0..nt).map(|t| Photoionization { energy_ev: energy[t], d0_cm2: d0[t], d1_cm2: d1[t] }),
            )?;
            let r = rates::photoionization_rates(stats, &q, &states(te, ne, Some(tr))?, &transitions)
                .map_err(to_c_names)?;
            check_len(&r.up, n_out)?;
            check_len(&r.down, n_out)?;
            write_output(rate_out, &r.up);
            write_output(heating_out, &r.down);
            Ok(())
        },
    )
}

/// Inverse-bremsstrahlung heating of the free electrons (paper eqs. 14-15) in a black-body
/// radiation field at T_r, per unit volume, for each plasma state; the photon-energy integral
/// starts at the plasma frequency hbar omega_p, and the free-free absorption is Kramers'
/// (g_ff = 1) with Pauli blocking of the final electron state.
///
/// - `stats`: `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
/// - `accuracy_p` in [1, 15]: integration ranges are truncated at relative 10^-p.
/// - `nodes` in [2, 256]: Gauss-Legendre nodes per panel.
/// - `n_states` (>= 1): number of plasma states.
/// - `te_ev[n_states]`: electron temperatures T_e [eV], in [1e-4, 1e6].
/// - `ne_cm3[n_states]`: free-electron densities n_e [cm^-3], in [1e-10, 1e30].
/// - `tr_ev[n_states]`: radiation temperatures T_r [eV], in [1e-4, 1e6].
/// - `z2n_cm3[n_states]`: sum over ion charges Z of Z^2 N_Z [cm^-3] of each state, finite and
///   >= 0.
/// - `heating[n_states]` (output): heating per unit volume [eV cm^-3 s^-1].
///
/// # Safety
/// Every non-NULL pointer must point to an array of at least the length stated above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_rates_inverse_bremsstrahlung(
    stats: i32,
    accuracy_p: f64,
    nodes: i32,
    n_states: i64,
    te_ev: *const f64,
    ne_cm3: *const f64,
    tr_ev: *const f64,
    z2n_cm3: *const f64,
    heating: *mut f64,
) -> i32 {
    guard(&["stats", "accuracy_p", "nodes", "n_states", "te_ev", "ne_cm3", "tr_ev", "z2n_cm3", "heating"], || {
        let stats = statistics(stats)?;
        let q = quadrature(accuracy_p, nodes)?;
        let ns = size_arg("n_states", n_states)?;
        let te = checked_array("te_ev", te_ev, ns, rates::check_temperature)?;
        let ne = checked_array("ne_cm3", ne_cm3, ns, rates::check_density)?;
        let tr = checked_array("tr_ev", tr_ev, ns, rates::check_temperature)?;
        let z2n = finite_array("z2n_cm3", z2n_cm3, ns)?;
        if let Some(i) = z2n.iter().position(|&z| z < 0.0) {
            return Err(Error::invalid_at("z2n_cm3", i, format!("must be >= 0 cm^-3, got {}", z2n[i])));
        }
        let heating_out = output("heating", heating)?;
        let h =
            rates::inverse_bremsstrahlung_heating(stats, &q, &states(te, ne, Some(tr))?, z2n).map_err(to_c_names)?;
        check_len(&h, ns)?;
        write_output(heating_out, &h);
        Ok(())
    })
}

/// A result of the Rust API has the length the caller's output holds (an internal invariant:
/// never write past the caller's array).
fn check_len(values: &[f64], expected: usize) -> Result<()> {
    if values.len() == expected {
        Ok(())
    } else {
        Err(Error::Internal(format!("result has {} values, expected {expected}", values.len())))
    }
}
