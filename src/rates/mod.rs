//! Degenerate (Fermi-Dirac) atomic rate coefficients by quadrature, and the
//! collisional-radiative model they serve (paper: degenerate-rates-quadrature-gpu.txt,
//! Aslanyan, Aslanyan & Tallents, CPC 2017).
//!
//! Units everywhere: energies and temperatures in eV (k_B T), densities in cm^-3, cross-sections
//! in cm^2, rates in s^-1 per ion (heating in eV s^-1 per ion, or eV cm^-3 s^-1 where the
//! paper's definition is per unit volume).
//!
//! Calls are batched: each routine takes a slice of plasma states (T_e, n_e, T_r) and a slice of
//! transitions and returns every (transition, state) pair, transitions fastest:
//! `out[t + n_transitions * s]` (a column-major `n_transitions x n_states` matrix, as a Fortran
//! caller holds it). The chemical potential of each state is solved once per call
//! ([`fermi::chemical_potential`]).
//!
//! [`cpu`] is the reference; [`cuda`] computes the same function on a GPU; the functions at this
//! level choose between them with [`crate::backend::current`].

pub mod constants;
pub mod cpu;
pub mod cr;
pub mod cuda;
pub mod fermi;
pub mod integrals;
pub mod precision;

use crate::backend::{self, Backend};
use crate::error::{require_finite, require_finite_result, require_in_range, require_positive, Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use crate::memory;
pub use precision::Precision;

/// The domain of the family's inputs: inside it every rate, chemical potential and energy
/// density is a finite double (outside it an input is rejected as an invalid argument, naming
/// the argument and this range; a result that still overflows is `ATOMGPU_ERR_NOT_FINITE`).
/// Electron and radiation temperatures T_e, T_r [eV] (1.2 K to 1.2e10 K).
pub const TEMPERATURE_RANGE_EV: (f64, f64) = (1e-4, 1e6);
/// Free-electron density n_e [cm^-3] (interstellar to white-dwarf matter).
pub const DENSITY_RANGE_CM3: (f64, f64) = (1e-10, 1e30);
/// Transition energies E [eV] (hyperfine splittings to the K shell of the heaviest ions).
pub const ENERGY_RANGE_EV: (f64, f64) = (1e-6, 1e6);

/// Checks a temperature T_e or T_r against [`TEMPERATURE_RANGE_EV`].
pub fn check_temperature(name: &'static str, index: Option<usize>, value: f64) -> Result<()> {
    require_in_range(name, index, value, TEMPERATURE_RANGE_EV.0, TEMPERATURE_RANGE_EV.1, "eV")
}

/// Checks an electron density against [`DENSITY_RANGE_CM3`].
pub fn check_density(name: &'static str, index: Option<usize>, value: f64) -> Result<()> {
    require_in_range(name, index, value, DENSITY_RANGE_CM3.0, DENSITY_RANGE_CM3.1, "cm^-3")
}

/// Checks a transition energy against [`ENERGY_RANGE_EV`].
pub fn check_energy(name: &'static str, index: Option<usize>, value: f64) -> Result<()> {
    require_in_range(name, index, value, ENERGY_RANGE_EV.0, ENERGY_RANGE_EV.1, "eV")
}

/// Electron statistics of a calculation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistics {
    /// Fermi-Dirac occupation with Pauli blocking of every outgoing electron.
    FermiDirac,
    /// Maxwell-Boltzmann occupation, no blocking (the classical counterpart).
    MaxwellBoltzmann,
}

impl Statistics {
    /// 0 = Fermi-Dirac, 1 = Maxwell-Boltzmann (the C constants `ATOMGPU_STATS_*`).
    pub fn from_code(name: &'static str, code: i32) -> Result<Self> {
        match code {
            0 => Ok(Statistics::FermiDirac),
            1 => Ok(Statistics::MaxwellBoltzmann),
            _ => Err(Error::invalid(name, format!("must be 0 (Fermi-Dirac) or 1 (Maxwell-Boltzmann), got {code}"))),
        }
    }
}

/// Quadrature settings: the accuracy parameter p of paper eq. 17 (upper limits truncate at
/// relative 10^-p), the number of Gauss-Legendre nodes per panel, and the arithmetic precision of
/// the GPU integrands ([`Precision`], double unless [`Quadrature::with_precision`] says otherwise).
#[derive(Clone, Debug)]
pub struct Quadrature {
    accuracy_p: f64,
    rule: GaussLegendre,
    thermal_tail: f64,
    radiation_tail: f64,
    precision: Precision,
}

impl Quadrature {
    /// Default of the paper: p = 5, 32 nodes.
    pub fn paper_default() -> Self {
        Self::new(5.0, 32).expect("p = 5, 32 nodes is valid")
    }

    /// `accuracy_p` in [1, 15] (names `accuracy_p`), `nodes` in [2, 256] (name `nodes`).
    pub fn new(accuracy_p: f64, nodes: usize) -> Result<Self> {
        if !(accuracy_p.is_finite() && (1.0..=15.0).contains(&accuracy_p)) {
            return Err(Error::invalid("accuracy_p", format!("must be in [1, 15], got {accuracy_p}")));
        }
        if !(2..=256).contains(&nodes) {
            return Err(Error::invalid("nodes", format!("must be in [2, 256], got {nodes}")));
        }
        let rule = GaussLegendre::new(nodes).map_err(|e| Error::invalid("nodes", e.to_string()))?;
        Ok(Quadrature {
            accuracy_p,
            rule,
            thermal_tail: integrals::thermal_tail(accuracy_p),
            radiation_tail: integrals::radiation_tail(accuracy_p),
            precision: Precision::Double,
        })
    }

    /// The same settings with the GPU integrands in `precision` (see [`precision`] for what
    /// single precision changes and where it applies; the CPU path is always double).
    pub fn with_precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// The arithmetic precision asked for the GPU integrands.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The accuracy parameter p.
    pub fn accuracy_p(&self) -> f64 {
        self.accuracy_p
    }

    /// The per-panel Gauss-Legendre rule.
    pub fn rule(&self) -> &GaussLegendre {
        &self.rule
    }

    /// Tail length, in units of T_e, that truncates a thermal integral at 10^-p
    /// ([`integrals::thermal_tail`]).
    pub fn thermal_tail(&self) -> f64 {
        self.thermal_tail
    }

    /// Tail length, in units of T_r, that truncates a black-body integral at 10^-p
    /// ([`integrals::radiation_tail`]).
    pub fn radiation_tail(&self) -> f64 {
        self.radiation_tail
    }
}

/// One plasma state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlasmaState {
    /// Electron temperature T_e [eV].
    pub te_ev: f64,
    /// Free-electron density n_e [cm^-3].
    pub ne_cm3: f64,
    /// Black-body radiation temperature T_r [eV] (used by photoionization and inverse
    /// bremsstrahlung only).
    pub tr_ev: f64,
}

/// A collisional excitation lower -> upper (paper eqs. 5-6, 9).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Excitation {
    /// Excitation energy E_j [eV].
    pub energy_ev: f64,
    /// Collision-strength fit B0..B5 of eq. 6 (dimensionless), with the cross-section
    /// sigma(eps) = pi a0^2 (Ry/eps) Omega(eps/E_j). (For a symmetric collision strength from
    /// tables, divide by the lower level's statistical weight first.)
    pub omega: [f64; 6],
    /// Statistical weights of the lower and upper level (1 when unknown), used by eq. 9.
    pub g_lower: f64,
    pub g_upper: f64,
}

/// A collisional ionization lower -> upper (ground of the next ion) (paper eqs. 7-8, 10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ionization {
    /// Ionization energy E_i [eV].
    pub energy_ev: f64,
    /// BELI coefficients C0 = A, C1..C4 = B1..B4 of eq. 8, in units of 1e-13 cm^2 eV^2
    /// (Bell et al. 1983: sigma = 1e-13/(E_i eps) [A ln(eps/E_i) + sum B_k (1 - E_i/eps)^k] cm^2).
    pub beli: [f64; 5],
    /// Statistical weights of the lower level and of the upper (next-ion) level, used by eq. 10.
    pub g_lower: f64,
    pub g_upper: f64,
}

/// Photoionization out of a level (paper eqs. 11-13).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Photoionization {
    /// Ionization energy E_i [eV].
    pub energy_ev: f64,
    /// sigma(eps) = D0 (E_i/eps)^2 + D1 (E_i/eps)^3 [cm^2] (eq. 12).
    pub d0_cm2: f64,
    pub d1_cm2: f64,
}

/// Upward and downward rates of a batch, `up[t + n_transitions * s]`, same for `down`.
#[derive(Clone, Debug, PartialEq)]
pub struct RatePairs {
    /// Excitation / ionization / photoionization rates [s^-1 per ion].
    pub up: Vec<f64>,
    /// De-excitation / three-body recombination rates [s^-1 per upper ion], or the
    /// photoionization heating [eV s^-1 per ion] for [`photoionization_rates`].
    pub down: Vec<f64>,
}

/// Electron conditions of every state (chemical potentials solved once), checking the states.
pub fn conditions(stats: Statistics, states: &[PlasmaState]) -> Result<Vec<integrals::Conditions>> {
    if states.is_empty() {
        return Err(Error::invalid("n_states", "must be >= 1, got 0"));
    }
    memory::try_collect(
        "the electron conditions of the states",
        states.iter().enumerate().map(|(i, s)| {
            check_temperature("te_ev", Some(i), s.te_ev)?;
            check_density("ne_cm3", Some(i), s.ne_cm3)?;
            check_temperature("tr_ev", Some(i), s.tr_ev)?;
            let mu = fermi::chemical_potential(stats, s.te_ev, s.ne_cm3)?;
            Ok(integrals::Conditions { stats, te: s.te_ev, mu, ne: s.ne_cm3, tr: s.tr_ev })
        }),
    )
}

fn check_weights(name: &'static str, i: usize, g_lower: f64, g_upper: f64) -> Result<()> {
    require_positive(name, Some(i), g_lower, "(statistical weight of the lower level)")?;
    require_positive(name, Some(i), g_upper, "(statistical weight of the upper level)")
}

/// Checks a batch of excitations (energies > 0, finite coefficients, weights > 0).
pub fn check_excitations(t: &[Excitation]) -> Result<()> {
    if t.is_empty() {
        return Err(Error::invalid("n_transitions", "must be >= 1, got 0"));
    }
    for (i, x) in t.iter().enumerate() {
        check_energy("energy_ev", Some(i), x.energy_ev)?;
        for b in x.omega {
            require_finite("omega", Some(i), b)?;
        }
        check_weights("g", i, x.g_lower, x.g_upper)?;
    }
    Ok(())
}

/// Checks a batch of ionizations.
pub fn check_ionizations(t: &[Ionization]) -> Result<()> {
    if t.is_empty() {
        return Err(Error::invalid("n_transitions", "must be >= 1, got 0"));
    }
    for (i, x) in t.iter().enumerate() {
        check_energy("energy_ev", Some(i), x.energy_ev)?;
        for c in x.beli {
            require_finite("beli", Some(i), c)?;
        }
        check_weights("g", i, x.g_lower, x.g_upper)?;
    }
    Ok(())
}

/// Checks a batch of photoionizations.
pub fn check_photoionizations(t: &[Photoionization]) -> Result<()> {
    if t.is_empty() {
        return Err(Error::invalid("n_transitions", "must be >= 1, got 0"));
    }
    for (i, x) in t.iter().enumerate() {
        check_energy("energy_ev", Some(i), x.energy_ev)?;
        require_finite("d0_cm2", Some(i), x.d0_cm2)?;
        require_finite("d1_cm2", Some(i), x.d1_cm2)?;
    }
    Ok(())
}

/// Checks that every rate of a batch is finite: `names` are the two outputs as the C interface
/// calls them; an element is reported with its transition and state.
fn finite_pairs(pairs: RatePairs, names: [&'static str; 2], n_transitions: usize) -> Result<RatePairs> {
    let at = |i: usize| format!("transition {}, state {}", i % n_transitions, i / n_transitions);
    require_finite_result(names[0], &pairs.up, at)?;
    require_finite_result(names[1], &pairs.down, at)?;
    Ok(pairs)
}

/// Collisional excitation (up) and de-excitation (down) rates for every (transition, state),
/// on the backend in force.
pub fn excitation_rates(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Excitation],
) -> Result<RatePairs> {
    let pairs = match backend::current()? {
        Backend::Cpu => cpu::excitation_rates(stats, q, states, t),
        Backend::Cuda(d) => cuda::excitation_rates(&d, stats, q, states, t),
    }?;
    finite_pairs(pairs, ["up", "down"], t.len())
}

/// Collisional ionization (up) and three-body recombination (down) rates for every
/// (transition, state), on the backend in force.
pub fn ionization_rates(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Ionization],
) -> Result<RatePairs> {
    let pairs = match backend::current()? {
        Backend::Cpu => cpu::ionization_rates(stats, q, states, t),
        Backend::Cuda(d) => cuda::ionization_rates(&d, stats, q, states, t),
    }?;
    finite_pairs(pairs, ["up", "down"], t.len())
}

/// Photoionization rates (`up`, s^-1 per ion) and photoelectron heating (`down`, eV s^-1 per ion)
/// for every (transition, state), on the backend in force.
pub fn photoionization_rates(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Photoionization],
) -> Result<RatePairs> {
    let pairs = match backend::current()? {
        Backend::Cpu => cpu::photoionization_rates(stats, q, states, t),
        Backend::Cuda(d) => cuda::photoionization_rates(&d, stats, q, states, t),
    }?;
    finite_pairs(pairs, ["rate", "heating"], t.len())
}

/// Inverse-bremsstrahlung heating [eV cm^-3 s^-1] of every state, `z2n[s]` = sum_Z Z^2 N_Z
/// [cm^-3] of that state, on the backend in force.
pub fn inverse_bremsstrahlung_heating(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    z2n: &[f64],
) -> Result<Vec<f64>> {
    let heating = match backend::current()? {
        Backend::Cpu => cpu::inverse_bremsstrahlung_heating(stats, q, states, z2n),
        Backend::Cuda(d) => cuda::inverse_bremsstrahlung_heating(&d, stats, q, states, z2n),
    }?;
    require_finite_result("heating", &heating, |s| format!("state {s}"))?;
    Ok(heating)
}

/// Checks the per-state Z^2-weighted ion densities.
pub fn check_z2n(states: &[PlasmaState], z2n: &[f64]) -> Result<()> {
    if z2n.len() != states.len() {
        return Err(Error::invalid("z2n", format!("needs one value per state ({}), got {}", states.len(), z2n.len())));
    }
    for (i, &z) in z2n.iter().enumerate() {
        require_finite("z2n", Some(i), z)?;
        if z < 0.0 {
            return Err(Error::invalid_at("z2n", i, format!("must be >= 0 cm^-3, got {z}")));
        }
    }
    Ok(())
}
