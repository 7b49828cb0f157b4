//! The electron state at which the rates of a CR model are wanted, and every rate of the model at
//! one state: what both backends give (`cpu.rs`, `cuda.rs`) and the integrators take (`host.rs`,
//! `stiff.rs`).

use crate::error::{require_finite_result, Result};
use crate::memory;
use crate::rates::integrals::Conditions;

/// The electron state at which rates are wanted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElectronState {
    /// Free-electron kinetic energy density u [eV cm^-3].
    pub energy_density: f64,
    /// Free-electron density n_e [cm^-3].
    pub ne_cm3: f64,
}

/// Every rate of a model at one electron state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateRates {
    /// Electron temperature T_e [eV], chemical potential mu [eV] and density n_e [cm^-3].
    pub te_ev: f64,
    pub mu_ev: f64,
    pub ne_cm3: f64,
    /// Per excitation: J_up [s^-1 per lower ion], J_down [s^-1 per upper ion] (eqs. 5-6, 9).
    pub excitation_up: Vec<f64>,
    pub excitation_down: Vec<f64>,
    /// Per ionization: K_up [s^-1 per lower ion], K_down (three-body recombination) [s^-1 per
    /// upper ion] (eqs. 7-8, 10).
    pub ionization_up: Vec<f64>,
    pub ionization_down: Vec<f64>,
    /// Per ionization: photoionization rate L [s^-1 per lower ion] and photoelectron heating H
    /// [eV s^-1 per lower ion] (eqs. 11-13).
    pub photo_rate: Vec<f64>,
    pub photo_heating: Vec<f64>,
    /// Inverse-bremsstrahlung heating per unit sum_Z Z^2 N_Z [eV s^-1] (eqs. 14-15).
    pub ib_per_z2n: f64,
}

impl StateRates {
    /// Rates of a model with `n_exc` excitations and `n_ion` ionizations at conditions `c`, all
    /// zero (filled by the backends).
    pub(super) fn zeroed(c: &Conditions, n_exc: usize, n_ion: usize) -> Result<Self> {
        let zeros = |n: usize| memory::filled("the rates of a state", n, 0.0);
        Ok(StateRates {
            te_ev: c.te,
            mu_ev: c.mu,
            ne_cm3: c.ne,
            excitation_up: zeros(n_exc)?,
            excitation_down: zeros(n_exc)?,
            ionization_up: zeros(n_ion)?,
            ionization_down: zeros(n_ion)?,
            photo_rate: zeros(n_ion)?,
            photo_heating: zeros(n_ion)?,
            ib_per_z2n: 0.0,
        })
    }

    /// Every rate finite (a rate that overflows is reported, never integrated).
    pub(super) fn check_finite(self) -> Result<Self> {
        let all = [
            ("excitation_up", &self.excitation_up),
            ("excitation_down", &self.excitation_down),
            ("ionization_up", &self.ionization_up),
            ("ionization_down", &self.ionization_down),
            ("photoionization_rate", &self.photo_rate),
            ("photoionization_heating", &self.photo_heating),
        ];
        for (name, values) in all {
            require_finite_result(name, values, |i| {
                format!("transition {i} at T_e = {} eV, n_e = {:e} cm^-3", self.te_ev, self.ne_cm3)
            })?;
        }
        require_finite_result("heating", &[self.ib_per_z2n], |_| "inverse bremsstrahlung per unit Z^2 N".into())?;
        Ok(self)
    }
}
