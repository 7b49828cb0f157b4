//! Einstein A coefficients, absorption intensities and emissivities (paper eqs. 1-2) in CGS units,
//! under one of two conventions for the physical constants ([`Convention`]).
//!
//! For a line of wavenumber nu (cm^-1) from a lower state of energy E'' (cm^-1) and rotational
//! quantum number J'' (absorption):
//!
//! ```text
//!   A = A_coef (2J''+1) L nu^3                                                        s^-1
//!   S = g_ns (2J'+1)(2J''+1) L                                                        Debye^2
//!   I = I_coef S nu e^(-beta (E''-ZPE)) (1 - e^(-beta nu)) / Q                        cm/molecule
//!   A_coef = 64 pi^4 1e-36 / (3h)        (s^-1 D^-2 cm^3; 1 D = 1e-18 esu cm, hence the 1e-36)
//!   I_coef = 8 pi^3 1e-36 / (3hc)        (cm/molecule per D^2 cm^-1)
//!   beta   = hc/(kT)                     (cm; hc/k = c2 = the second radiation constant)
//! ```
//! with L = a^2 the squared amplitude (Debye^2), as TROVE's `dm_intensity_symmvec` computes them.
//!
//! **Constants** ([`Convention::constants`]):
//! - [`Convention::Documented`] (the default): CODATA 2018, whose h, k and c are exact by the
//!   definition of the SI (h = 6.62607015e-27 erg s, k = 1.380649e-16 erg/K, c = 2.99792458e10
//!   cm/s); A_coef and I_coef are computed from them.
//! - [`Convention::Trove`]: TROVE's accuracy.f90 constants `planck = 6.62606896e-27`,
//!   `boltz = 1.380658e-16`, `vellgt = 2.99792458E+10`. These literals carry no kind suffix, so
//!   Fortran reads them as default (single-precision) reals before storing them in double
//!   precision: TROVE's h, k and c are the binary32 roundings of those decimals
//!   (h = 6.626068758654977e-27, k = 1.3806580130218952e-16, c = 29979246592), and so are
//!   atomgpu's in this convention. TROVE evaluates `64.0d-36 * pi**4 / (3.0_rk * planck)` and
//!   `8.0d-36 * pi**3 / (3.0_rk * planck * vellgt)` with pi in quadruple precision ("ark") and
//!   rounds the result to double; here the same expressions (the double `64.0d-36`, `8.0d-36`,
//!   the exact pi) are evaluated in double-double arithmetic and rounded once, which gives the
//!   correctly rounded double (A_coef = 3.136189321927909e-7, I_coef = 4.162379727631667e-19).
//!
//! Both conventions compute beta = (h c) / (k T) in double precision in that order, as TROVE does.
//!
//! **Emission** ([`Action::Emission`]): the emissivity of a line from the emitting state I
//! (energy E_I, J_I, nuclear-spin weight g_ns of its block) into the final state F, in
//! erg s^-1 sr^-1 per molecule, is ExoCross's emission intensity (Yurchenko, Al-Refaie &
//! Tennyson, A&A 614, A131 (2018), section 2, the emissivity formula):
//!
//! ```text
//!   epsilon = A(I -> F) h c nu g_ns (2J_I+1) e^(-beta (E_I - ZPE)) / (4 pi Q)
//!   A(I -> F) = 64 pi^4 nu^3 S / (3 h g_ns (2J_I+1)) = A_coef (2J_F+1) L nu^3,   S = g_ns (2J_I+1)(2J_F+1) L
//! ```

use super::{IntensityParams, MAX_ENERGY_CM, TEMPERATURE_RANGE_K};
use crate::error::{require_in_range, require_positive, Error, Result};

/// Which constants and rules a line list follows (module documentation; the rules in
/// [`super::filters`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Convention {
    /// CODATA 2018 constants and atomgpu's documented rules (the default).
    #[default]
    Documented,
    /// TROVE's constants and TROVE's rules, for files identical to TROVE's.
    Trove,
}

/// What a list computes (TROVE's INTENSITY `action`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// Absorption lines (the default): the list's lower state absorbs, nu = E' - E''.
    #[default]
    Absorption,
    /// Emission lines: the list's lower block holds the emitting states I, the upper block the
    /// final states F, nu = E_I - E_F; the intensity is the emissivity (module documentation).
    Emission,
    /// Transition moments between J = 0 states ([`super::LineStrength::transition_moments`]).
    Tm,
}

/// The physical constants of one [`Convention`] (CGS).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constants {
    /// Planck constant h, erg s.
    pub planck: f64,
    /// Speed of light c, cm s^-1.
    pub light_speed: f64,
    /// Boltzmann constant k, erg K^-1.
    pub boltzmann: f64,
    /// A_coef = 64 pi^4 1e-36 / (3h), s^-1 D^-2 cm^3 (TROVE's `A_coef_s_1`).
    pub einstein_a_coefficient: f64,
    /// I_coef = 8 pi^3 1e-36 / (3hc), cm/molecule per D^2 cm^-1 (TROVE's `intens_cm_molecule`).
    pub intensity_coefficient: f64,
}

/// CODATA 2018 Planck constant (exact), erg s.
pub const PLANCK: f64 = 6.62607015e-27;
/// CODATA 2018 speed of light (exact), cm s^-1.
pub const LIGHT_SPEED: f64 = 2.99792458e10;
/// CODATA 2018 Boltzmann constant (exact), erg K^-1.
pub const BOLTZMANN: f64 = 1.380649e-16;

/// TROVE's `planck` (accuracy.f90), a single-precision literal: the binary32 value of 6.62606896e-27.
// The decimal literals are TROVE's, rounded to binary32 on purpose (as Fortran reads them).
#[allow(clippy::excessive_precision)]
pub const TROVE_PLANCK: f64 = 6.62606896e-27_f32 as f64;
/// TROVE's `vellgt`: the binary32 value of 2.99792458e10 (29979246592).
#[allow(clippy::excessive_precision)]
pub const TROVE_LIGHT_SPEED: f64 = 2.99792458e10_f32 as f64;
/// TROVE's `boltz`: the binary32 value of 1.380658e-16.
#[allow(clippy::excessive_precision)]
pub const TROVE_BOLTZMANN: f64 = 1.380658e-16_f32 as f64;

impl Convention {
    /// The constants of the convention, A_coef and I_coef computed from h and c (module
    /// documentation).
    pub fn constants(self) -> Constants {
        let (planck, light_speed, boltzmann) = match self {
            Convention::Documented => (PLANCK, LIGHT_SPEED, BOLTZMANN),
            Convention::Trove => (TROVE_PLANCK, TROVE_LIGHT_SPEED, TROVE_BOLTZMANN),
        };
        let three_h = Dd::product(3.0, planck);
        Constants {
            planck,
            light_speed,
            boltzmann,
            einstein_a_coefficient: Dd::PI.powi(4).scale(64.0e-36).quotient(three_h),
            intensity_coefficient: Dd::PI.powi(3).scale(8.0e-36).quotient(three_h.scale(light_speed)),
        }
    }
}

/// A double-double number hi + lo (|lo| <= ulp(hi)/2), for the constants' prefactors: about 106
/// bits, enough that the one final rounding gives the correctly rounded double.
#[derive(Clone, Copy, Debug)]
struct Dd(f64, f64);

impl Dd {
    /// pi: the double nearest pi and the double nearest the rest.
    const PI: Dd = Dd(std::f64::consts::PI, 1.2246467991473532e-16);

    /// a + b exactly (Knuth's two-sum).
    fn sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }

    /// a b exactly (with a fused multiply-add).
    fn product(a: f64, b: f64) -> Dd {
        let p = a * b;
        Dd(p, a.mul_add(b, -p))
    }

    fn times(self, o: Dd) -> Dd {
        let p = Dd::product(self.0, o.0);
        let lo = p.1 + (self.0 * o.1 + self.1 * o.0);
        Dd::sum(p.0, lo)
    }

    fn scale(self, x: f64) -> Dd {
        self.times(Dd(x, 0.0))
    }

    fn powi(self, n: u32) -> Dd {
        (1..n).fold(self, |acc, _| acc.times(self))
    }

    /// self / d rounded to a double: the first quotient corrected by the remainder's.
    fn quotient(self, d: Dd) -> f64 {
        let q = self.0 / d.0;
        let qd = d.scale(q);
        let remainder = Dd::sum(self.0, -qd.0);
        let r = remainder.0 + (remainder.1 - qd.1 + self.1);
        q + r / d.0
    }
}

/// Einstein A (s^-1) of an absorption line in the documented convention: L (Debye^2) the squared
/// amplitude, nu in cm^-1, J'' of the lower state.
pub fn einstein_a(j_lower: u32, squared_amplitude: f64, wavenumber: f64) -> f64 {
    let c = Convention::Documented.constants();
    c.einstein_a_coefficient * (2 * j_lower + 1) as f64 * squared_amplitude * wavenumber.abs().powi(3)
}

/// Absorption intensity (cm/molecule) of a line of strength S (Debye^2) and wavenumber nu (cm^-1)
/// from a lower state at `lower_energy` = E'' - ZPE (cm^-1), at temperature T (K) with partition
/// function Q, in the documented convention.
pub fn absorption_intensity(
    linestrength: f64,
    wavenumber: f64,
    lower_energy: f64,
    temperature: f64,
    partition_function: f64,
) -> f64 {
    let c = Convention::Documented.constants();
    linestrength
        * c.intensity_coefficient
        * boltzmann_factor(wavenumber, lower_energy, beta(&c, temperature), partition_function)
}

/// beta = (h c) / (k T) in cm, T in K (TROVE's `beta`, evaluated in this order).
pub fn beta(constants: &Constants, temperature: f64) -> f64 {
    constants.planck * constants.light_speed / (constants.boltzmann * temperature)
}

/// TROVE's `boltz_fc`: |nu| e^(-beta E) (1 - e^(-beta |nu|)) / Q, with E = E'' - ZPE (cm^-1) and
/// beta = hc/(kT) (cm); the absorption intensity is S I_coef times it.
pub(crate) fn boltzmann_factor(wavenumber: f64, lower_energy: f64, beta: f64, partition_function: f64) -> f64 {
    let nu = wavenumber.abs();
    nu * (-lower_energy * beta).exp() * (1.0 - (-nu * beta).exp()) / partition_function
}

fn check_window(name: &'static str, w: [f64; 2]) -> Result<()> {
    if w[0].is_nan() || w[1].is_nan() || w[0] > w[1] {
        return Err(Error::invalid(name, format!("must be an interval [min, max] with min <= max, got {w:?}")));
    }
    Ok(())
}

/// Checks the parameters of a line list.
pub fn check_params(p: &IntensityParams) -> Result<()> {
    require_in_range("temperature", None, p.temperature, TEMPERATURE_RANGE_K.0, TEMPERATURE_RANGE_K.1, "K")?;
    require_positive("partition_function", None, p.partition_function, "")?;
    require_in_range("zpe", None, p.zpe, -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
    check_window("freq_window", p.freq_window)?;
    check_window("lower_energy", p.lower_energy)?;
    check_window("upper_energy", p.upper_energy)?;
    for (name, value) in
        [("thresh_coeff", p.thresh_coeff), ("thresh_line", p.thresh_line), ("thresh_intens", p.thresh_intens)]
    {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::invalid(name, format!("must be finite and >= 0, got {value}")));
        }
    }
    if p.batch == 0 {
        return Err(Error::invalid("batch", "must be >= 1"));
    }
    Ok(())
}

/// Checks the parameters of a line list (absorption or emission: [`Action::Tm`] gives transition
/// moments, not lines).
pub fn check_line_params(p: &IntensityParams) -> Result<()> {
    check_params(p)?;
    if p.action == Action::Tm {
        return Err(Error::invalid(
            "action",
            "is TM, whose results are transition moments, not lines: call transition_moments \
             (atomgpu_linestrength_transition_moments) for it, or use absorption or emission here",
        ));
    }
    Ok(())
}
