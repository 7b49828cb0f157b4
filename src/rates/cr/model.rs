//! The atomic model of a CR run: levels (ion charge, statistical weight) and the transitions
//! between them, with their rate parameters.

use crate::error::{require_finite, require_positive, Error, Result};
use crate::memory;
use crate::rates::{
    check_excitations, check_ionizations, check_photoionizations, Excitation, Ionization, Photoionization,
    DENSITY_RANGE_CM3,
};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// A collisional excitation between two levels of one ion (indices 0-based).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrExcitation {
    pub lower: usize,
    pub upper: usize,
    /// Energy [eV] and collision strength (eq. 6); the weights are taken from the levels.
    pub energy_ev: f64,
    pub omega: [f64; 6],
}

/// An ionization from `lower` to `upper` (a level of the next ion): collisional (BELI, eq. 8),
/// its inverse (three-body recombination) and photoionization (eq. 12).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrIonization {
    pub lower: usize,
    pub upper: usize,
    /// Ionization energy [eV].
    pub energy_ev: f64,
    /// BELI coefficients C0..C4 [1e-13 cm^2 eV^2].
    pub beli: [f64; 5],
    /// Photoionization cross-section coefficients [cm^2].
    pub d0_cm2: f64,
    pub d1_cm2: f64,
}

/// Levels and transitions of a CR model, with the rate parameters of its transitions (checked and
/// built once, when the model is made).
#[derive(Clone, Debug, PartialEq)]
pub struct Cr {
    charges: Vec<f64>,
    weights: Vec<f64>,
    excitations: Vec<CrExcitation>,
    ionizations: Vec<CrIonization>,
    excitation_parameters: Vec<Excitation>,
    ionization_parameters: Vec<Ionization>,
    photoionization_parameters: Vec<Photoionization>,
    device_copy: DeviceCopy,
}

/// The model's transitions as last uploaded to a GPU, kept for later calls: what `cuda.rs` puts
/// there (its `Resident`) and alone reads back, so the model does not depend on the GPU path. Not
/// part of the model's value: a clone starts without one, and models compare equal whatever their
/// copies.
#[derive(Default)]
pub(super) struct DeviceCopy(Mutex<Option<Arc<dyn Any + Send + Sync>>>);

impl Clone for DeviceCopy {
    fn clone(&self) -> Self {
        DeviceCopy::default()
    }
}

impl PartialEq for DeviceCopy {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for DeviceCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeviceCopy")
    }
}

impl Cr {
    /// Builds a model: `charges[l]` is the ion charge Z of level l (>= 0), `weights[l]` its
    /// statistical weight (> 0; pass 1 for all when unknown). Transitions must name existing
    /// levels, differ in lower/upper, and an ionization must raise the charge by exactly one.
    pub fn new(
        charges: Vec<f64>,
        weights: Vec<f64>,
        excitations: Vec<CrExcitation>,
        ionizations: Vec<CrIonization>,
    ) -> Result<Self> {
        let n = charges.len();
        if n == 0 {
            return Err(Error::invalid("n_levels", "must be >= 1, got 0"));
        }
        if weights.len() != n {
            return Err(Error::invalid("weights", format!("needs {n} values (one per level), got {}", weights.len())));
        }
        for (l, (&z, &g)) in charges.iter().zip(&weights).enumerate() {
            require_finite("charges", Some(l), z)?;
            if z < 0.0 {
                return Err(Error::invalid_at("charges", l, format!("must be >= 0, got {z}")));
            }
            require_positive("weights", Some(l), g, "")?;
        }
        let check_pair = |names: [&'static str; 2], i: usize, lo: usize, up: usize| -> Result<()> {
            if lo >= n {
                return Err(Error::invalid_at(names[0], i, format!("level {lo} does not exist (n_levels = {n})")));
            }
            if up >= n || up == lo {
                return Err(Error::invalid_at(
                    names[1],
                    i,
                    format!("level {up} must exist (n_levels = {n}) and differ from the lower level {lo}"),
                ));
            }
            Ok(())
        };
        for (i, x) in excitations.iter().enumerate() {
            check_pair(["excitation_lower", "excitation_upper"], i, x.lower, x.upper)?;
            if charges[x.lower] != charges[x.upper] {
                return Err(Error::invalid_at(
                    "excitation_upper",
                    i,
                    "lower and upper levels must belong to the same ion",
                ));
            }
        }
        for (i, x) in ionizations.iter().enumerate() {
            check_pair(["ionization_lower", "ionization_upper"], i, x.lower, x.upper)?;
            if charges[x.upper] != charges[x.lower] + 1.0 {
                return Err(Error::invalid_at(
                    "ionization_upper",
                    i,
                    "the upper level's charge must be the lower's plus one",
                ));
            }
        }
        let g = &weights;
        let excitation_parameters = memory::collect(
            "the excitation parameters",
            excitations.iter().map(|x| Excitation {
                energy_ev: x.energy_ev,
                omega: x.omega,
                g_lower: g[x.lower],
                g_upper: g[x.upper],
            }),
        )?;
        let ionization_parameters = memory::collect(
            "the ionization parameters",
            ionizations.iter().map(|x| Ionization {
                energy_ev: x.energy_ev,
                beli: x.beli,
                g_lower: g[x.lower],
                g_upper: g[x.upper],
            }),
        )?;
        let photoionization_parameters = memory::collect(
            "the photoionization parameters",
            ionizations.iter().map(|x| Photoionization { energy_ev: x.energy_ev, d0_cm2: x.d0_cm2, d1_cm2: x.d1_cm2 }),
        )?;
        // The rate checks name the quantities (`energy_ev`, ...); here they are the model's arrays.
        if !excitations.is_empty() {
            check_excitations(&excitation_parameters)
                .map_err(|e| e.renamed("energy_ev", "excitation_energy_ev").renamed("omega", "excitation_omega"))?;
        }
        if !ionizations.is_empty() {
            let rename = |e: Error| {
                e.renamed("energy_ev", "ionization_energy_ev")
                    .renamed("beli", "ionization_beli")
                    .renamed("d0_cm2", "ionization_d0_cm2")
                    .renamed("d1_cm2", "ionization_d1_cm2")
            };
            check_ionizations(&ionization_parameters).map_err(rename)?;
            check_photoionizations(&photoionization_parameters).map_err(rename)?;
        }
        Ok(Cr {
            charges,
            weights,
            excitations,
            ionizations,
            excitation_parameters,
            ionization_parameters,
            photoionization_parameters,
            device_copy: DeviceCopy::default(),
        })
    }

    /// Number of levels.
    pub fn n_levels(&self) -> usize {
        self.charges.len()
    }

    /// Ion charge of each level.
    pub fn charges(&self) -> &[f64] {
        &self.charges
    }

    /// Statistical weight of each level.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    pub fn excitations(&self) -> &[CrExcitation] {
        &self.excitations
    }

    pub fn ionizations(&self) -> &[CrIonization] {
        &self.ionizations
    }

    /// n_e = sum_l Z_l N_l [cm^-3].
    pub fn electron_density(&self, populations: &[f64]) -> f64 {
        self.charges.iter().zip(populations).map(|(z, n)| z * n).sum()
    }

    /// n_e = sum_l Z_l N_l [cm^-3] of `populations` (the C argument `name`), checked to lie in the
    /// rates' domain [`DENSITY_RANGE_CM3`].
    pub fn checked_electron_density(&self, name: &'static str, populations: &[f64]) -> Result<f64> {
        let ne = self.electron_density(populations);
        let (low, high) = DENSITY_RANGE_CM3;
        if ne >= low && ne <= high {
            return Ok(ne);
        }
        Err(Error::invalid(
            name,
            format!("gives n_e = sum of charge x population = {ne:e} cm^-3, outside [{low:e}, {high:e}] cm^-3"),
        ))
    }

    /// sum_l Z_l^2 N_l [cm^-3] (inverse bremsstrahlung).
    pub fn z2_density(&self, populations: &[f64]) -> f64 {
        self.charges.iter().zip(populations).map(|(z, n)| z * z * n).sum()
    }

    /// Checks populations (the C argument `name`): one per level, finite, >= 0 cm^-3.
    pub fn check_populations(&self, name: &'static str, populations: &[f64]) -> Result<()> {
        if populations.len() != self.n_levels() {
            return Err(Error::invalid(
                name,
                format!("needs {} populations, got {}", self.n_levels(), populations.len()),
            ));
        }
        for (l, &p) in populations.iter().enumerate() {
            require_finite(name, Some(l), p)?;
            if p < 0.0 {
                return Err(Error::invalid_at(name, l, format!("population of level {l} must be >= 0 cm^-3, got {p}")));
            }
        }
        Ok(())
    }

    /// Checks a state vector `y` (the C argument `name`): n_levels populations (finite, >= 0
    /// cm^-3) then the energy density (finite, > 0 eV cm^-3).
    pub fn check_state(&self, name: &'static str, y: &[f64]) -> Result<()> {
        let n = self.n_levels();
        if y.len() != n + 1 {
            return Err(Error::invalid(
                name,
                format!("must hold {n} populations and the energy density, got {} values", y.len()),
            ));
        }
        self.check_populations(name, &y[..n])?;
        require_positive(name, Some(n), y[n], "eV cm^-3 (the electron energy density)")
    }

    /// The excitations as rate parameters (weights from the levels).
    pub fn excitation_parameters(&self) -> &[Excitation] {
        &self.excitation_parameters
    }

    /// The collisional ionizations as rate parameters.
    pub fn ionization_parameters(&self) -> &[Ionization] {
        &self.ionization_parameters
    }

    /// The photoionizations as rate parameters.
    pub fn photoionization_parameters(&self) -> &[Photoionization] {
        &self.photoionization_parameters
    }

    /// The slot of the model's device copy.
    pub(super) fn device_copy(&self) -> &Mutex<Option<Arc<dyn Any + Send + Sync>>> {
        &self.device_copy.0
    }
}

impl Cr {
    /// Reads a model from three CSV files with a header line each, in the layout of the paper's
    /// aluminium data (examples/data/aluminium-cr-*.csv): levels `level,charge`; excitations
    /// `lower,upper,Ej_eV,B0,B1,B2,B3` (B4 = B5 = 0); ionizations
    /// `lower,upper,Ei_eV,C0..C4,D0_cm2,D1_cm2`. Levels are 0-based; all weights are 1.
    pub fn from_csv(levels: &str, excitations: &str, ionizations: &str) -> Result<Self> {
        fn rows(text: &str, columns: usize, what: &'static str) -> Result<Vec<Vec<f64>>> {
            text.lines()
                .skip(1)
                .filter(|l| !l.trim().is_empty())
                .enumerate()
                .map(|(i, line)| {
                    let values: std::result::Result<Vec<f64>, _> =
                        line.split(',').map(|v| v.trim().parse::<f64>()).collect();
                    match values {
                        Ok(v) if v.len() == columns => Ok(v),
                        _ => Err(Error::invalid_at(what, i, format!("needs {columns} numbers per line, got `{line}`"))),
                    }
                })
                .collect()
        }
        let charges: Vec<f64> = rows(levels, 2, "levels")?.iter().map(|r| r[1]).collect();
        let excitations = rows(excitations, 7, "excitations")?
            .iter()
            .map(|r| CrExcitation {
                lower: r[0] as usize,
                upper: r[1] as usize,
                energy_ev: r[2],
                omega: [r[3], r[4], r[5], r[6], 0.0, 0.0],
            })
            .collect();
        let ionizations = rows(ionizations, 10, "ionizations")?
            .iter()
            .map(|r| CrIonization {
                lower: r[0] as usize,
                upper: r[1] as usize,
                energy_ev: r[2],
                beli: [r[3], r[4], r[5], r[6], r[7]],
                d0_cm2: r[8],
                d1_cm2: r[9],
            })
            .collect();
        let weights = vec![1.0; charges.len()];
        Cr::new(charges, weights, excitations, ionizations)
    }
}
