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

/// One value per rate process and transition of a model: the rates themselves, or their
/// derivatives with respect to one variable (then each unit is divided by that variable's).
#[derive(Clone, Debug, PartialEq)]
pub struct Rates {
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

/// Every rate of a model at one electron state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateRates {
    /// Electron temperature T_e [eV], chemical potential mu [eV] and density n_e [cm^-3].
    pub te_ev: f64,
    pub mu_ev: f64,
    pub ne_cm3: f64,
    /// The rates at (T_e, mu, n_e).
    pub rates: Rates,
    /// Their derivatives, when asked for ([`super::rates_with_slopes_at`]).
    pub slopes: Option<Box<RateSlopes>>,
}

/// The derivatives of every rate of a [`StateRates`], computed in the same quadrature pass as the
/// rates (`crate::rates::integrals::*_with_slopes`).
#[derive(Clone, Debug, PartialEq)]
pub struct RateSlopes {
    /// d/dT_e at fixed mu and n_e [per eV].
    pub by_te: Rates,
    /// d/dmu at fixed T_e and n_e [per eV].
    pub by_mu: Rates,
    /// d/dn_e of the inverse-bremsstrahlung heating at fixed T_e and mu [eV s^-1 cm^3]: the only
    /// rate with n_e beside (T_e, mu) among its arguments (its cut-off hbar omega_p).
    pub ib_by_ne: f64,
    /// The electron gas's [[dn_e/dT_e, dn_e/dmu], [du/dT_e, du/dmu]] at (T_e, mu) [cm^-3 eV^-1,
    /// cm^-3] ([`crate::rates::fermi::density_and_energy_slopes`]), from the Fermi integrals of the backend's
    /// own inversion of (u, n_e) where it has them (the GPU's), else computed.
    pub gas: [[f64; 2]; 2],
}

impl Rates {
    /// All zero, for `n_exc` excitations and `n_ion` ionizations.
    pub(super) fn zeroed(n_exc: usize, n_ion: usize) -> Result<Self> {
        let zeros = |n: usize| memory::filled("the rates of a state", n, 0.0);
        Ok(Rates {
            excitation_up: zeros(n_exc)?,
            excitation_down: zeros(n_exc)?,
            ionization_up: zeros(n_ion)?,
            ionization_down: zeros(n_ion)?,
            photo_rate: zeros(n_ion)?,
            photo_heating: zeros(n_ion)?,
            ib_per_z2n: 0.0,
        })
    }

    /// The lists of values, named as the C outputs name them, with the inverse bremsstrahlung.
    fn lists(&self) -> [(&'static str, &[f64]); 7] {
        [
            ("excitation_up", &self.excitation_up),
            ("excitation_down", &self.excitation_down),
            ("ionization_up", &self.ionization_up),
            ("ionization_down", &self.ionization_down),
            ("photoionization_rate", &self.photo_rate),
            ("photoionization_heating", &self.photo_heating),
            ("heating", std::slice::from_ref(&self.ib_per_z2n)),
        ]
    }

    fn lists_mut(&mut self) -> [&mut [f64]; 7] {
        [
            &mut self.excitation_up,
            &mut self.excitation_down,
            &mut self.ionization_up,
            &mut self.ionization_down,
            &mut self.photo_rate,
            &mut self.photo_heating,
            std::slice::from_mut(&mut self.ib_per_z2n),
        ]
    }

    /// a x + b y, value by value (x, y of one model).
    pub fn combination(a: f64, x: &Rates, b: f64, y: &Rates) -> Rates {
        let mut out = x.clone();
        for (o, (_, v)) in out.lists_mut().into_iter().zip(y.lists()) {
            for (o, v) in o.iter_mut().zip(v) {
                *o = a * *o + b * v;
            }
        }
        out
    }
}

impl StateRates {
    /// Rates of a model with `n_exc` excitations and `n_ion` ionizations at conditions `c`, all
    /// zero (filled by the backends), with zero slopes and the gas's slopes `gas` when given.
    pub(super) fn zeroed(c: &Conditions, n_exc: usize, n_ion: usize, gas: Option<[[f64; 2]; 2]>) -> Result<Self> {
        let slopes = match gas {
            Some(gas) => Some(Box::new(RateSlopes {
                by_te: Rates::zeroed(n_exc, n_ion)?,
                by_mu: Rates::zeroed(n_exc, n_ion)?,
                ib_by_ne: 0.0,
                gas,
            })),
            None => None,
        };
        Ok(StateRates { te_ev: c.te, mu_ev: c.mu, ne_cm3: c.ne, rates: Rates::zeroed(n_exc, n_ion)?, slopes })
    }

    /// Every rate (and slope) finite (a rate that overflows is reported, never integrated).
    pub(super) fn check_finite(self) -> Result<Self> {
        let at = |i: usize| format!("transition {i} at T_e = {} eV, n_e = {:e} cm^-3", self.te_ev, self.ne_cm3);
        let mut all: Vec<&Rates> = vec![&self.rates];
        if let Some(s) = &self.slopes {
            all.extend([&s.by_te, &s.by_mu]);
            require_finite_result("heating", &[s.ib_by_ne], |_| "the slope of inverse bremsstrahlung by n_e".into())?;
        }
        for rates in all {
            for (name, values) in rates.lists() {
                if name == "heating" {
                    require_finite_result(name, values, |_| "inverse bremsstrahlung per unit Z^2 N".into())?;
                } else {
                    require_finite_result(name, values, at)?;
                }
            }
        }
        Ok(self)
    }

    /// The slopes of every rate along the variables of a CR state: (d/dn_e at fixed u, d/du at
    /// fixed n_e) [per cm^-3, per eV cm^-3], by the chain rule through (T_e, mu)(n_e, u):
    /// d/dn_e = (dT/dn_e) d/dT + (dmu/dn_e) d/dmu + d/dn_e|_(T, mu), d/du = (dT/du) d/dT +
    /// (dmu/du) d/dmu, with the derivatives of (T, mu) by (n_e, u) the inverse of the 2 x 2
    /// matrix of those of (n_e, u) by (T, mu) ([`RateSlopes::gas`]). None when the rates were
    /// computed without slopes.
    pub fn by_density_and_energy(&self) -> Option<(Rates, Rates)> {
        let s = self.slopes.as_ref()?;
        let [[n_t, n_mu], [u_t, u_mu]] = s.gas;
        let det = n_t * u_mu - n_mu * u_t;
        let (t_n, t_u, mu_n, mu_u) = (u_mu / det, -n_mu / det, -u_t / det, n_t / det);
        let mut by_ne = Rates::combination(t_n, &s.by_te, mu_n, &s.by_mu);
        by_ne.ib_per_z2n += s.ib_by_ne;
        Some((by_ne, Rates::combination(t_u, &s.by_te, mu_u, &s.by_mu)))
    }
}
