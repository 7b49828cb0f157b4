//! C ABI of the SCF family: atomic Hartree-Fock and Dirac-Fock in spherical Gaussian basis sets
//! (paper: dfratom-cudaprophet-scf.txt, DFRATOM and its CUDA port), around [`crate::scf`], whose
//! module docs give the formulas. Three levels, as a DFRATOM-style code needs them:
//!
//! 1. integrals: well-tempered exponents (`atomgpu_scf_wtbs_exponents`), the one-electron
//!    matrices of a symmetry (`atomgpu_scf_one_electron`) and the two-electron supermatrix of a
//!    whole basis, computed once into a handle (`atomgpu_scf_integrals_create`, on the device on
//!    the CUDA backend) and downloadable (`atomgpu_scf_integrals_supermatrix`);
//! 2. the Fock build: G(D) of every symmetry from the caller's densities
//!    (`atomgpu_scf_integrals_two_electron`: F = h + G(D) against the resident supermatrix);
//! 3. whole calculations: an SCF (`atomgpu_scf_run`) and a WTBS optimisation
//!    (`atomgpu_scf_optimise_wtbs`).
//!
//! Conventions shared by every function here:
//! - a basis is `n_symmetries` symmetries; symmetry i has angular label `angular[i]` (l >= 0 for
//!   Hartree-Fock; κ for Dirac-Fock: s1/2 -1, p1/2 1, p3/2 -2, d3/2 2, d5/2 -3, ...) and
//!   `n_functions[i]` exponents (1 to 400, distinct, > 0, bohr⁻²), stored one symmetry after
//!   another in `exponents`;
//! - a symmetry's matrices are m x m, column-major, m = n_functions (Hartree-Fock) or
//!   2 n_functions (Dirac-Fock: the large functions, then their normalised restricted-kinetic-
//!   balance small functions); several symmetries' matrices follow one another;
//! - energies in hartree (Dirac: without the rest energy c²), lengths in bohr;
//! - occupations: `closed[i]` full orbitals (2(2l+1) electrons each, or 2|κ|) and one open orbital
//!   with `open_electrons[i]` electrons (0 for none; average of configuration, DFRATOM's
//!   `$econfig`);
//! - every argument is checked before any work; on failure the status is nonzero,
//!   `atomgpu_last_error_arg()` gives the offending argument's 1-based position and
//!   `atomgpu_last_error_message` names it; outputs are left unchanged, except where a function
//!   documents what it writes with `ATOMGPU_ERR_NOT_CONVERGED`;
//! - exponents may be any finite positive doubles: every integral is formed in a scaled
//!   (logarithmic) form, so each representable value is computed; one that overflows double
//!   precision is `ATOMGPU_ERR_NOT_FINITE` naming the output and element (an SCF whose energies
//!   would not be finite likewise names `energies` or `orbital_energies`);
//! - the long calls `atomgpu_scf_integrals_create`, `atomgpu_scf_run` and
//!   `atomgpu_scf_optimise_wtbs` honour the calling thread's progress callback and time limit
//!   (`atomgpu_set_progress`, `atomgpu_set_time_limit`): stopped, they return
//!   `ATOMGPU_ERR_CANCELLED` and write nothing. Their progress reports (`done` of `total`): the
//!   fraction of the supermatrix's integral sets computed, of 1 (`_integrals_create`); the SCF
//!   cycles completed, of `max_iterations`, with the fraction of the supermatrix done before the
//!   first cycle (`_run`); the SCFs completed (the start, the optimiser's evaluations, the final
//!   one), of `max_evaluations` + 2 (`_optimise_wtbs`). The last report of a call that finishes is
//!   `total` of `total`. On the CUDA backend a watched call computes the supermatrix in
//!   launches of 2^25 integral sets and waits for each, so that the reports follow the device.
//!
//! Integral handles are checked on every call and locked while a call runs, so one handle may be
//! shared between threads.

use super::common::{at_field, count, guard, input, length, output, write_output};
use super::handles::{self, Family};
use crate::backend::{self, DeviceSet};
use crate::error::{Error, Result};
use crate::scf::basis::{check_exponents, wtbs_basis, wtbs_pool, WtbsGroup, WtbsLayout, MAX_FUNCTIONS};
use crate::scf::one_electron::fermi::GRASP_SKIN_THICKNESS_FM;
use crate::scf::one_electron::{
    default_rms_radius, fermi_parameters, gaussian_nucleus_exponent, one_electron, Nucleus, DFRATOM_SPEED_OF_LIGHT,
};
use crate::scf::optimise::{optimise_wtbs, WtbsOptimisation};
use crate::scf::radial::{check_dirac_nucleus, check_kappa, check_speed_of_light, dirac_one_electron};
use crate::scf::solver::{converged, scf_attempt, Basis, Occupation, ScfResult, ScfSpec, MAX_DIIS, MAX_ITERATIONS};
use crate::scf::{ScfIntegrals, Spinor, Symmetry};
use faer::MatRef;
use std::sync::Mutex;

/// Non-relativistic Hartree-Fock: `angular` holds l.
pub const ATOMGPU_SCF_HARTREE_FOCK: i32 = 0;
/// Dirac-Fock (Dirac-Coulomb, no-pair): `angular` holds κ.
pub const ATOMGPU_SCF_DIRAC_FOCK: i32 = 1;

/// A point nucleus: V = -Z/r (`nucleus_model`; DFRATOM's `nucmdl` = 1).
pub const ATOMGPU_SCF_NUCLEUS_POINT: i32 = 0;
/// A Gaussian nuclear charge ρ ∝ exp(-ξ r²) of exponent `nucleus_exponent` (DFRATOM's `nucmdl`
/// = 3).
pub const ATOMGPU_SCF_NUCLEUS_GAUSSIAN: i32 = 1;
/// A Fermi nuclear charge ρ ∝ 1/(1 + exp((r - c)/a)) (GRASP's and DBSR's default), of
/// root-mean-square radius `nucleus_rms_radius` (or GRASP's from `nucleus_mass_number`) and skin
/// thickness `nucleus_skin_thickness`.
pub const ATOMGPU_SCF_NUCLEUS_FERMI: i32 = 2;

/// The Hamiltonian and the SCF settings (`atomgpu_scf_default_params` fills the defaults).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_scf_params {
    /// ATOMGPU_SCF_HARTREE_FOCK or ATOMGPU_SCF_DIRAC_FOCK.
    pub method: i32,
    /// ATOMGPU_SCF_NUCLEUS_POINT (default), _GAUSSIAN (`nucleus_exponent`) or _FERMI
    /// (`nucleus_rms_radius` or `nucleus_mass_number`, and `nucleus_skin_thickness`).
    pub nucleus_model: i32,
    /// Speed of light c in atomic units (Dirac-Fock only; in [1, 1e5]; default 137.03599976,
    /// DFRATOM's `c`). Beyond 1e5 the rounding of the -2c² small-small block (about 1e-16 x 2c²
    /// hartree) exceeds the relativistic effect: use Hartree-Fock for the non-relativistic limit.
    pub speed_of_light: f64,
    /// Nuclear charge Z (finite, > 0; DFRATOM's `znuc`). Dirac-Fock with a point nucleus needs
    /// Z < c (the Dirac-Coulomb ground state's γ = √(1 - (Z/c)²) is real only there); a Gaussian
    /// or Fermi nucleus allows Z up to the critical charge (about 170 for c = 137.036, where 1s1/2
    /// reaches the negative-energy continuum -2c²), beyond which `atomgpu_scf_run` refuses it.
    pub nuclear_charge: f64,
    /// The Gaussian nucleus's exponent ξ (bohr⁻², finite, > 0) of ρ(r) ∝ exp(-ξ r²),
    /// V = -Z erf(√ξ r)/r (DFRATOM's `alpha`; `atomgpu_scf_gaussian_nucleus_exponent` gives
    /// Visscher and Dyall's value); 0 for the other models.
    pub nucleus_exponent: f64,
    /// Without DIIS (`diis_size` = 0): Fock damping d in [0, 1), F <- (1 - d) F + d F_previous
    /// (`dfctr`, default 0.3).
    pub damping: f64,
    /// Without DIIS: convergence threshold on the largest change of a large-large density
    /// element (finite, > 0; `thdll`, default 1e-5).
    pub threshold_large: f64,
    /// Without DIIS: the same on the small-large and small-small elements (finite, > 0; `thdsl`,
    /// default 1e-7).
    pub threshold_small: f64,
    /// Most SCF cycles, in [1, 1000000] (`maxitr`, default 50).
    pub max_iterations: i64,
    /// Cycles in the Pulay DIIS subspace, in [0, 100] (default 8); 0: DFRATOM's damped iteration
    /// with its density thresholds.
    pub diis_size: i64,
    /// With DIIS: converged when the energy changes by at most threshold_energy x max(1, |E|)
    /// between two cycles (finite, > 0; default 1e-12)...
    pub threshold_energy: f64,
    /// ... and the largest orbital-gradient element over its orbitals' gap, max |R_ij| /
    /// max(1 hartree, |R_ii - R_jj|), is at most this (finite, > 0; default 1e-6).
    pub threshold_gradient: f64,
    /// Fermi nucleus: the mass number A (finite, >= 1), read only when `nucleus_rms_radius` is 0:
    /// then r_rms = 0.836 A^(1/3) + 0.570 fm, GRASP's and DBSR's formula (Johnson and Soff 1985;
    /// default 0).
    pub nucleus_mass_number: f64,
    /// Fermi nucleus: the root-mean-square radius r_rms (fm; finite, at most 1e4, above the
    /// smallest r_rms of the skin thickness, 3.597 a = 1.8827 fm for 2.30 fm), e.g. from Angeli and
    /// Marinova's table (GRASP's tabulated radius); 0 (default): from `nucleus_mass_number`.
    pub nucleus_rms_radius: f64,
    /// Fermi nucleus: the skin thickness t (fm, finite, in (0, 1e4]; default 2.30, GRASP's):
    /// a = t / (4 ln 3), and c from r_rms (`atomgpu_scf_fermi_nucleus`).
    pub nucleus_skin_thickness: f64,
}

/// The two-electron supermatrix of one basis (on the device on the CUDA backend), behind a lock.
#[allow(non_camel_case_types)]
pub struct atomgpu_scf_integrals {
    inner: Mutex<ScfIntegrals>,
    /// The device the supermatrix lives on.
    devices: DeviceSet,
}

impl Family for atomgpu_scf_integrals {
    const NAME: &'static str = "SCF integral handle (atomgpu_scf_integrals)";

    fn devices(&self) -> Option<&DeviceSet> {
        Some(&self.devices)
    }
}

/// DFRATOM's settings (Hartree-Fock, c = 137.03599976, Z = 1, point nucleus, damping 0.3,
/// thresholds 1e-5 and 1e-7, 50 cycles) and DIIS over 8 cycles to an energy change of 1e-12
/// relative and a gradient of 1e-6.
fn default_params() -> atomgpu_scf_params {
    let spec = ScfSpec::new(Basis::NonRelativistic(Vec::new()), 1.0, Nucleus::Point, Vec::new());
    atomgpu_scf_params {
        method: ATOMGPU_SCF_HARTREE_FOCK,
        nucleus_model: ATOMGPU_SCF_NUCLEUS_POINT,
        speed_of_light: DFRATOM_SPEED_OF_LIGHT,
        nuclear_charge: 1.0,
        nucleus_exponent: 0.0,
        damping: spec.damping,
        threshold_large: spec.threshold_large,
        threshold_small: spec.threshold_small,
        max_iterations: spec.max_iterations as i64,
        diis_size: spec.diis_size as i64,
        threshold_energy: spec.threshold_energy,
        threshold_gradient: spec.threshold_gradient,
        nucleus_mass_number: 0.0,
        nucleus_rms_radius: 0.0,
        nucleus_skin_thickness: GRASP_SKIN_THICKNESS_FM,
    }
}

/// A checked parameter struct (every field; errors name `params` and the field).
///
/// # Safety
/// `params` must be NULL or point to an `atomgpu_scf_params`.
unsafe fn read_params(params: *const atomgpu_scf_params) -> Result<atomgpu_scf_params> {
    let p = input("params", params, 1)?[0];
    let field = |rule: String| Error::invalid("params", rule);
    if p.method != ATOMGPU_SCF_HARTREE_FOCK && p.method != ATOMGPU_SCF_DIRAC_FOCK {
        return Err(field(format!(
            "method must be ATOMGPU_SCF_HARTREE_FOCK (0) or ATOMGPU_SCF_DIRAC_FOCK (1), got {}",
            p.method
        )));
    }
    let as_field = under_params;
    if p.method == ATOMGPU_SCF_DIRAC_FOCK {
        check_speed_of_light(p.speed_of_light).map_err(as_field)?;
    }
    if !(p.nuclear_charge.is_finite() && p.nuclear_charge > 0.0) {
        return Err(field(format!("nuclear_charge must be finite and > 0, got {}", p.nuclear_charge)));
    }
    let nucleus = params_nucleus(&p)?;
    if p.method == ATOMGPU_SCF_DIRAC_FOCK {
        check_dirac_nucleus(p.nuclear_charge, nucleus, p.speed_of_light).map_err(as_field)?;
    }
    if !(0.0..1.0).contains(&p.damping) {
        return Err(field(format!("damping must be in [0, 1), got {}", p.damping)));
    }
    for (name, value) in [
        ("threshold_large", p.threshold_large),
        ("threshold_small", p.threshold_small),
        ("threshold_energy", p.threshold_energy),
        ("threshold_gradient", p.threshold_gradient),
    ] {
        if !(value.is_finite() && value > 0.0) {
            return Err(field(format!("{name} must be finite and > 0, got {value}")));
        }
    }
    if !(1..=MAX_ITERATIONS as i64).contains(&p.max_iterations) {
        return Err(field(format!("max_iterations must be in [1, {MAX_ITERATIONS}], got {}", p.max_iterations)));
    }
    if !(0..=MAX_DIIS as i64).contains(&p.diis_size) {
        return Err(field(format!("diis_size must be in [0, {MAX_DIIS}], got {}", p.diis_size)));
    }
    Ok(p)
}

/// An argument error of a field of `params` (named in its `name`) as one of `params`, the field
/// named in the rule.
fn under_params(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, rule, .. } => Error::invalid("params", format!("{name} {rule}")),
        other => other,
    }
}

/// The nucleus of `params`, refused at `params` naming the field.
fn params_nucleus(p: &atomgpu_scf_params) -> Result<Nucleus> {
    nucleus_of(p).map_err(under_params)
}

/// The nucleus of checked-so-far parameters, its fields checked (errors name the field, e.g.
/// `nucleus_exponent`, for [`read_params`] to put under `params`).
fn nucleus_of(p: &atomgpu_scf_params) -> Result<Nucleus> {
    let exponent = p.nucleus_exponent;
    match p.nucleus_model {
        ATOMGPU_SCF_NUCLEUS_GAUSSIAN => {
            if !(exponent.is_finite() && exponent > 0.0) {
                return Err(Error::invalid(
                    "nucleus_exponent",
                    format!("must be finite and > 0 (bohr^-2) for ATOMGPU_SCF_NUCLEUS_GAUSSIAN, got {exponent}"),
                ));
            }
            Ok(Nucleus::Gaussian { exponent })
        }
        model @ (ATOMGPU_SCF_NUCLEUS_POINT | ATOMGPU_SCF_NUCLEUS_FERMI) => {
            if exponent != 0.0 {
                return Err(Error::invalid(
                    "nucleus_exponent",
                    format!("must be 0 unless nucleus_model is ATOMGPU_SCF_NUCLEUS_GAUSSIAN (1), got {exponent} with nucleus_model {model} (ABI 7's Gaussian nucleus, nucleus_exponent > 0 alone, now needs nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN)"),
                ));
            }
            if model == ATOMGPU_SCF_NUCLEUS_POINT {
                return Ok(Nucleus::Point);
            }
            let rms = p.nucleus_rms_radius;
            let rms = if rms == 0.0 {
                default_rms_radius(p.nucleus_mass_number)
                    .map_err(|e| e.renamed("mass_number", "nucleus_mass_number"))?
            } else {
                rms
            };
            Nucleus::fermi(rms, p.nucleus_skin_thickness).map_err(|e| {
                let e = e.renamed("skin_thickness", "nucleus_skin_thickness");
                if p.nucleus_rms_radius == 0.0 {
                    e.renamed("rms_radius", "nucleus_mass_number")
                } else {
                    e.renamed("rms_radius", "nucleus_rms_radius")
                }
            })
        }
        other => Err(Error::invalid(
            "nucleus_model",
            format!("must be ATOMGPU_SCF_NUCLEUS_POINT (0), _GAUSSIAN (1) or _FERMI (2), got {other}"),
        )),
    }
}

/// Checks one angular label of `method` (the argument `name`, element `index` when an array).
fn check_angular(method: i32, name: &'static str, index: Option<usize>, value: i32) -> Result<()> {
    let bad = |rule: String| match index {
        Some(i) => Error::invalid_at(name, i, rule),
        None => Error::invalid(name, rule),
    };
    if method == ATOMGPU_SCF_DIRAC_FOCK {
        check_kappa(value).map_err(|_| bad(format!("must be a κ: nonzero, in [-21, 20], got {value}")))
    } else if (0..=20).contains(&value) {
        Ok(())
    } else {
        Err(bad(format!("must be an l in [0, 20], got {value}")))
    }
}

/// The caller's basis (module docs), checked: labels, counts and exponents.
///
/// # Safety
/// The pointers must be NULL or hold `n_symmetries` labels and counts and Σ counts exponents.
unsafe fn read_basis(
    p: &atomgpu_scf_params,
    n_symmetries: i64,
    angular: *const i32,
    n_functions: *const i64,
    exponents: *const f64,
) -> Result<Basis> {
    let n_sym = count("n_symmetries", n_symmetries)?;
    let labels = read_angular(p, n_sym, angular)?;
    let counts = input("n_functions", n_functions, n_sym)?;
    let mut sizes = Vec::with_capacity(n_sym);
    for (i, &n) in counts.iter().enumerate() {
        match usize::try_from(n) {
            Ok(n) if (1..=MAX_FUNCTIONS).contains(&n) => sizes.push(n),
            _ => return Err(Error::invalid_at("n_functions", i, format!("must be in [1, {MAX_FUNCTIONS}], got {n}"))),
        }
    }
    let all = input("exponents", exponents, sizes.iter().sum())?;
    let mut offset = 0;
    let mut lists = Vec::with_capacity(n_sym);
    for &n in &sizes {
        let list = &all[offset..offset + n];
        check_exponents("exponents", list).map_err(|e| match e {
            Error::InvalidArgument { index, rule, .. } => {
                Error::invalid_at("exponents", offset + index.unwrap_or(0), rule)
            }
            other => other,
        })?;
        lists.push(list.to_vec());
        offset += n;
    }
    Ok(basis_of(p, labels, lists))
}

/// The `n_sym` angular labels, checked for the method of `p`.
///
/// # Safety
/// `angular` must be NULL or hold `n_sym` values.
unsafe fn read_angular<'a>(p: &atomgpu_scf_params, n_sym: usize, angular: *const i32) -> Result<&'a [i32]> {
    let labels = input("angular", angular, n_sym)?;
    for (i, &l) in labels.iter().enumerate() {
        check_angular(p.method, "angular", Some(i), l)?;
    }
    Ok(labels)
}

/// The basis of checked labels and exponent lists.
fn basis_of(p: &atomgpu_scf_params, labels: &[i32], lists: Vec<Vec<f64>>) -> Basis {
    if p.method == ATOMGPU_SCF_DIRAC_FOCK {
        Basis::Dirac {
            speed_of_light: p.speed_of_light,
            spinors: labels.iter().zip(lists).map(|(&kappa, exponents)| Spinor { kappa, exponents }).collect(),
        }
    } else {
        Basis::NonRelativistic(
            labels.iter().zip(lists).map(|(&l, exponents)| Symmetry { l: l as u32, exponents }).collect(),
        )
    }
}

/// The occupations of the symmetries of `basis`, checked against their capacities and sizes.
///
/// # Safety
/// The pointers must be NULL or hold one value per symmetry.
unsafe fn read_occupations(basis: &Basis, closed: *const i64, open_electrons: *const f64) -> Result<Vec<Occupation>> {
    let n_sym = basis.n_symmetries();
    let closed = input("closed", closed, n_sym)?;
    let open = input("open_electrons", open_electrons, n_sym)?;
    let mut out = Vec::with_capacity(n_sym);
    for i in 0..n_sym {
        let (q, capacity, functions) = (open[i], basis.capacity(i), basis.exponents(i).len());
        if !(q.is_finite() && (0.0..=capacity).contains(&q)) {
            return Err(Error::invalid_at(
                "open_electrons",
                i,
                format!("must be in [0, {capacity}] (a full shell counts as a closed one), got {q}"),
            ));
        }
        let fits = usize::try_from(closed[i]).ok().filter(|&c| c + (q > 0.0) as usize <= functions);
        let Some(c) = fits else {
            return Err(Error::invalid_at(
                "closed",
                i,
                format!(
                    "must be >= 0, and the occupied orbitals ({} closed{}) must fit in the symmetry's {} functions",
                    closed[i],
                    if q > 0.0 { " + 1 open" } else { "" },
                    functions
                ),
            ));
        };
        out.push(Occupation { closed: c, open_electrons: q });
    }
    if out.iter().all(|o| o.closed == 0 && o.open_electrons == 0.0) {
        return Err(Error::invalid("closed", "with open_electrons occupies no orbital"));
    }
    Ok(out)
}

/// The SCF calculation of the arguments.
fn spec_of(p: &atomgpu_scf_params, basis: Basis, occupations: Vec<Occupation>) -> Result<ScfSpec> {
    Ok(ScfSpec {
        damping: p.damping,
        threshold_large: p.threshold_large,
        threshold_small: p.threshold_small,
        max_iterations: p.max_iterations as usize,
        diis_size: p.diis_size as usize,
        threshold_energy: p.threshold_energy,
        threshold_gradient: p.threshold_gradient,
        ..ScfSpec::new(basis, p.nuclear_charge, params_nucleus(p)?, occupations)
    })
}

/// The Rust API's names of the SCF's inputs mapped to the C parameters that carry them: a basis
/// found linearly dependent is `exponents`, an occupation the solver refuses is `closed`, a
/// nuclear charge beyond the critical one of its nucleus is `params`.
fn c_names(e: Error) -> Error {
    e.renamed("symmetries", "exponents").renamed("occupations", "closed").renamed("nuclear_charge", "params")
}

/// Writes an SCF result: energies (total, kinetic, nuclear, two-electron), the occupied orbital
/// energies symmetry after another, the cycles.
///
/// # Safety
/// The pointers were checked by `output`; `orbital_energies` holds the count checked.
unsafe fn write_result(result: &ScfResult, energies: *mut f64, orbital_energies: *mut f64, iterations: *mut i64) {
    write_output(energies, &[result.energy, result.kinetic, result.nuclear, result.two_electron]);
    let flat: Vec<f64> = result.orbital_energies.iter().flatten().copied().collect();
    write_output(orbital_energies, &flat);
    *iterations = result.iterations as i64;
}

/// Fills `params` with DFRATOM's settings: Hartree-Fock, c = 137.03599976 au, Z = 1, point
/// nucleus, damping 0.3, thresholds 1e-5 (large-large) and 1e-7 (small), 50 cycles; and DIIS over
/// 8 cycles, converged at an energy change of 1e-12 relative and a gradient of 1e-6 (set
/// `diis_size` = 0 for DFRATOM's damped iteration and density thresholds).
///
/// # Safety
/// `params` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_default_params(params: *mut atomgpu_scf_params) -> i32 {
    guard(&["params"], || {
        *output("params", params)? = default_params();
        Ok(())
    })
}

/// The Gaussian nuclear model's exponent ξ (bohr⁻²) for mass number A (finite, >= 1), after
/// Visscher and Dyall, At. Data Nucl. Data Tables 67, 207 (1997): ξ = 3 / (2 r_rms²) with
/// r_rms = (0.836 A^(1/3) + 0.570) fm.
///
/// # Safety
/// `exponent` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_gaussian_nucleus_exponent(mass_number: f64, exponent: *mut f64) -> i32 {
    guard(&["mass_number", "exponent"], || {
        let out = output("exponent", exponent)?;
        *out = gaussian_nucleus_exponent(mass_number)?;
        Ok(())
    })
}

/// The Fermi nuclear model's half-density radius c and diffuseness a (fm, as GRASP's `isodata`
/// holds them) of ρ ∝ 1/(1 + exp((r - c)/a)), from the skin thickness t (fm, finite, in
/// (0, 1e4]; GRASP's default 2.30): a = t / (4 ln 3), and the root-mean-square radius
/// `rms_radius` (fm; 0: GRASP's and DBSR's 0.836 A^(1/3) + 0.570 fm of `mass_number`, finite and
/// at least 1, which is read only then): c solves <r²> = 12 a² F_5(c/a) / F_3(c/a) (complete
/// Fermi-Dirac integrals; = (3/5) c² + (7/5) π² a² up to terms of order exp(-c/a), which are
/// kept, as GRASP's `getcpr` keeps them). r_rms must exceed its c → 0 limit 3.597 a (1.8827 fm
/// for t = 2.30 fm, so A >= 4 by the formula) and be at most 1e4 fm.
///
/// # Safety
/// `half_density_radius` and `diffuseness` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_fermi_nucleus(
    mass_number: f64,
    rms_radius: f64,
    skin_thickness: f64,
    half_density_radius: *mut f64,
    diffuseness: *mut f64,
) -> i32 {
    guard(&["mass_number", "rms_radius", "skin_thickness", "half_density_radius", "diffuseness"], || {
        let (c_out, a_out) = (output("half_density_radius", half_density_radius)?, output("diffuseness", diffuseness)?);
        if !(rms_radius.is_finite() && rms_radius >= 0.0) {
            return Err(Error::invalid(
                "rms_radius",
                format!("must be 0 (from mass_number) or a finite radius in fm, got {rms_radius}"),
            ));
        }
        let (rms, rms_name) = if rms_radius == 0.0 {
            (default_rms_radius(mass_number)?, "mass_number")
        } else {
            (rms_radius, "rms_radius")
        };
        (*c_out, *a_out) = fermi_parameters(rms, skin_thickness).map_err(|e| e.renamed("rms_radius", rms_name))?;
        Ok(())
    })
}

/// Well-tempered exponents (bohr⁻²) of `n_symmetries` symmetries from `n_groups` groups, as
/// DFRATOM's `$wtbs`: `wtbspara` holds (α, β, δ, γ) per group in DFRATOM's input order
/// (α > 0, β > 1, δ > 0, γ >= 0), group g's pool of K exponents is ζ_1 = α,
/// ζ_k = ζ_(k-1) β [1 + γ (k/K)^δ] (k = 2 ... K), and symmetry i takes `nbs[i]` (1 to 400)
/// consecutive exponents of the pool of group `groups[i]` from position `start[i]` (both
/// 1-based, as in the namelist); K is the largest start + nbs - 1 of the group's symmetries.
/// `exponents` receives them symmetry after symmetry: `n_exponents` = Σ nbs values.
///
/// # Safety
/// Arrays must be NULL or hold the counts documented.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_wtbs_exponents(
    n_groups: i64,
    wtbspara: *const f64,
    n_symmetries: i64,
    nbs: *const i64,
    start: *const i64,
    groups: *const i64,
    n_exponents: i64,
    exponents: *mut f64,
) -> i32 {
    guard(&["n_groups", "wtbspara", "n_symmetries", "nbs", "start", "groups", "n_exponents", "exponents"], || {
        let (_, layout, lists) = read_wtbs(n_groups, wtbspara, n_symmetries, nbs, start, groups)?;
        check_exponent_count(n_exponents, &layout)?;
        let out = output("exponents", exponents)?;
        write_output(out, &lists.concat());
        Ok(())
    })
}

/// The basis module's names of the WTBS inputs mapped to `wtbspara`.
fn wtbs_names(e: Error) -> Error {
    ["alpha", "beta", "gamma", "delta"].iter().fold(e, |e, from| e.renamed(from, "wtbspara"))
}

/// `n_exponents` must be Σ nbs of `layout`.
fn check_exponent_count(n_exponents: i64, layout: &WtbsLayout) -> Result<()> {
    let n = count("n_exponents", n_exponents)?;
    let total: usize = layout.nbs.iter().sum();
    if n != total {
        return Err(Error::invalid("n_exponents", format!("must be Σ nbs = {total}, got {n}")));
    }
    Ok(())
}

/// Checked WTBS groups (from DFRATOM's order α, β, δ, γ), layout, and the exponents of every
/// symmetry they give.
///
/// # Safety
/// Arrays must be NULL or hold 4 n_groups values and n_symmetries values.
unsafe fn read_wtbs(
    n_groups: i64,
    wtbspara: *const f64,
    n_symmetries: i64,
    nbs: *const i64,
    start: *const i64,
    groups: *const i64,
) -> Result<(Vec<WtbsGroup>, WtbsLayout, Vec<Vec<f64>>)> {
    let n_g = count("n_groups", n_groups)?;
    let para =
        input("wtbspara", wtbspara, n_g.checked_mul(4).ok_or_else(|| Error::invalid("n_groups", "is too large"))?)?;
    let wtbs: Vec<WtbsGroup> =
        para.chunks(4).map(|v| WtbsGroup { alpha: v[0], beta: v[1], delta: v[2], gamma: v[3] }).collect();
    for (g, group) in wtbs.iter().enumerate() {
        wtbs_pool(group, 1).map_err(|e| match e {
            Error::InvalidArgument { name, rule, .. } => {
                let slot = ["alpha", "beta", "delta", "gamma"].iter().position(|&n| n == name).unwrap_or(0);
                let symbol = ["α", "β", "δ", "γ"][slot];
                Error::invalid_at("wtbspara", 4 * g + slot, format!("{symbol} of group {} {rule}", g + 1))
            }
            other => other,
        })?;
    }
    let n_sym = count("n_symmetries", n_symmetries)?;
    let as_counts = |name: &'static str, values: &[i64]| -> Result<Vec<usize>> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                usize::try_from(v)
                    .ok()
                    .filter(|&v| v >= 1)
                    .ok_or_else(|| Error::invalid_at(name, i, format!("must be >= 1, got {v}")))
            })
            .collect()
    };
    let layout = WtbsLayout {
        nbs: as_counts("nbs", input("nbs", nbs, n_sym)?)?,
        start: as_counts("start", input("start", start, n_sym)?)?,
        groups: as_counts("groups", input("groups", groups, n_sym)?)?,
    };
    // The layout's own rules (group numbers, pool sizes) through the generator.
    let exponents = wtbs_basis(&wtbs, &layout).map_err(wtbs_names)?;
    Ok((wtbs, layout, exponents))
}

/// The one-electron matrices of one symmetry, m x m column-major (m = n_functions for
/// Hartree-Fock, 2 n_functions for Dirac-Fock): `overlap` S, `free_hamiltonian` (the free-particle
/// Hamiltonian: Hartree-Fock, the kinetic matrix T; Dirac-Fock, the free Dirac operator less the
/// rest energy, c α·p + (β - 1) c², the blocks [[0, c σ·p], [c σ·p, -2c² S^SS]], which is not a
/// kinetic energy: ABI 7 called it `kinetic`) and `nuclear` V (point, Gaussian or Fermi nucleus
/// of `params`), hartree; h = free_hamiltonian + nuclear. `angular` is l or κ (module docs). Any
/// finite positive exponents: every element is formed in scaled form (S = g^(l+3/2),
/// T = (l + 3/2) √(ab) g^(l+5/2), g = 2√(ab)/(a+b), and so on: `src/scf/one_electron.rs`; the
/// Fermi nucleus through the point nucleus's closed form and a quadrature over the nucleus:
/// `src/scf/one_electron/fermi.rs`); an element that overflows double precision (T for
/// exponents near 1e308, V for a charge near 1e308) is `ATOMGPU_ERR_NOT_FINITE` naming the
/// matrix and the element.
///
/// # Safety
/// `params` must be NULL or valid; arrays must be NULL or hold the counts documented.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_one_electron(
    params: *const atomgpu_scf_params,
    angular: i32,
    n_functions: i64,
    exponents: *const f64,
    overlap: *mut f64,
    free_hamiltonian: *mut f64,
    nuclear: *mut f64,
) -> i32 {
    guard(&["params", "angular", "n_functions", "exponents", "overlap", "free_hamiltonian", "nuclear"], || {
        let p = read_params(params)?;
        check_angular(p.method, "angular", None, angular)?;
        let n = count("n_functions", n_functions)?;
        if n > MAX_FUNCTIONS {
            return Err(Error::invalid("n_functions", format!("must be in [1, {MAX_FUNCTIONS}], got {n}")));
        }
        let e = input("exponents", exponents, n)?;
        check_exponents("exponents", e)?;
        let (s_out, t_out, v_out) =
            (output("overlap", overlap)?, output("free_hamiltonian", free_hamiltonian)?, output("nuclear", nuclear)?);
        // The C argument of T (and of the Dirac free Hamiltonian) is `free_hamiltonian`.
        let as_argument = |e: Error| match e {
            Error::NotFinite { name: "kinetic", index, detail } => {
                Error::NotFinite { name: "free_hamiltonian", index, detail }
            }
            other => other,
        };
        let (s, t, v) = if p.method == ATOMGPU_SCF_DIRAC_FOCK {
            let o = dirac_one_electron(angular, e, p.nuclear_charge, params_nucleus(&p)?, p.speed_of_light)
                .map_err(as_argument)?;
            (o.overlap, o.free_hamiltonian, o.nuclear)
        } else {
            let o = one_electron(angular as u32, e, p.nuclear_charge, params_nucleus(&p)?).map_err(as_argument)?;
            (o.overlap, o.kinetic, o.nuclear)
        };
        write_output(s_out, &s);
        write_output(t_out, &t);
        write_output(v_out, &v);
        Ok(())
    })
}

/// Computes the two-electron supermatrix of a basis (module docs; `params` gives the method and
/// c, the rest of it is only checked) on the current backend and returns it in a new handle:
/// on the CUDA backend it stays in device memory (8 bytes per stored integral set: the sets that
/// vanish by component, about half of a Dirac-Fock supermatrix, are neither computed nor stored;
/// Xe with 40 functions in each of 7 Dirac symmetries, 2.6e8 sets, 1.3e8 stored, 1.03 GB). Destroy with
/// `atomgpu_scf_integrals_destroy`. A long call: the progress callback and the time limit can
/// stop it (`ATOMGPU_ERR_CANCELLED`, no handle made); its reports' `done` is the fraction of the
/// integral sets computed, of `total` = 1.
///
/// # Safety
/// `params` must be NULL or valid; arrays must be NULL or hold the counts documented; `handle`
/// must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_integrals_create(
    params: *const atomgpu_scf_params,
    n_symmetries: i64,
    angular: *const i32,
    n_functions: *const i64,
    exponents: *const f64,
    handle: *mut *mut atomgpu_scf_integrals,
) -> i32 {
    guard(&["params", "n_symmetries", "angular", "n_functions", "exponents", "handle"], || {
        let p = read_params(params)?;
        let basis = read_basis(&p, n_symmetries, angular, n_functions, exponents)?;
        let out = output("handle", handle)?;
        let backend = backend::current()?;
        let g = ScfIntegrals::new(&backend, &basis.blocks().map_err(c_names)?)?;
        let devices = DeviceSet::single(backend);
        *out = handles::register(atomgpu_scf_integrals { inner: Mutex::new(g), devices })?;
        Ok(())
    })
}

/// Destroys an integral handle (NULL: nothing); its device memory is freed.
///
/// # Safety
/// `handle` must be NULL or a handle from `atomgpu_scf_integrals_create`.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_integrals_destroy(handle: *mut atomgpu_scf_integrals) -> i32 {
    guard(&["handle"], || handles::remove("handle", handle))
}

fn with_integrals<T>(
    handle: *const atomgpu_scf_integrals,
    body: impl FnOnce(&mut ScfIntegrals) -> Result<T>,
) -> Result<T> {
    handles::with_locked("handle", handle, |h: &atomgpu_scf_integrals| &h.inner, body)
}

/// The sizes of the handle's supermatrix: `n_pairs` = T, the function pairs (a, p >= q) over all
/// symmetries, and `n_sets` = T (T + 1) / 2, the integral sets (L, P, Q, M, R, S) of the paper's
/// triangular map.
///
/// # Safety
/// `handle` must be a live handle or NULL; outputs must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_integrals_sizes(
    handle: *const atomgpu_scf_integrals,
    n_pairs: *mut i64,
    n_sets: *mut i64,
) -> i32 {
    guard(&["handle", "n_pairs", "n_sets"], || {
        let (pairs_out, sets_out) = (output("n_pairs", n_pairs)?, output("n_sets", n_sets)?);
        let (t, s) = with_integrals(handle, |g| Ok((g.map().n_pairs(), g.map().n_sets())))?;
        *pairs_out = t as i64;
        *sets_out = s as i64;
        Ok(())
    })
}

/// Copies the supermatrix (hartree) into `packed` (`n_sets` values, as `atomgpu_scf_integrals_sizes`
/// gives): the packed upper triangle, column by column, of the symmetric T x T matrix
/// G[(a,pq), (b,rs)] = R^0(pq, rs) - Σ_k c_k(a, b) [R^k(pr, qs) + R^k(ps, qr)] over the pairs
/// y = (a, p >= q) ordered by symmetry, then p, then q (the layout of BLAS `dspmv`; element
/// x <= y at x + y (y + 1) / 2); the sets that vanish by component (Dirac-Fock: one pair
/// large-large or small-small, the other large-small) are 0.
///
/// # Safety
/// `handle` must be a live handle or NULL; `packed` must be NULL or hold `n_sets` values.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_integrals_supermatrix(
    handle: *const atomgpu_scf_integrals,
    n_sets: i64,
    packed: *mut f64,
) -> i32 {
    guard(&["handle", "n_sets", "packed"], || {
        let n = count("n_sets", n_sets)?;
        let out = output("packed", packed)?;
        let values = with_integrals(handle, |g| {
            let want = g.map().n_sets();
            if n as u64 != want {
                return Err(Error::invalid("n_sets", format!("must be the handle's set count {want}, got {n}")));
            }
            g.packed()
        })?;
        write_output(out, &values);
        Ok(())
    })
}

/// The Fock build: G(D)^a_pq = Σ_b Σ_rs G[(a,pq), (b,rs)] D^b_rs (hartree) of every symmetry from
/// the densities D^a = Σ_occupied n_i c_i c_iᵀ (n_i the orbital's electrons; symmetric; its
/// symmetric part is used), one contraction against the resident supermatrix. The closed-shell
/// Fock matrix is F^a = h^a + G(D)^a and the two-electron energy ½ Σ_a tr(D^a G(D)^a).
/// `densities` and `g` hold the m x m matrices of the symmetries one after another:
/// `n_values` = Σ m², m = n_functions (Hartree-Fock) or 2 n_functions (Dirac-Fock).
///
/// # Safety
/// `handle` must be a live handle or NULL; arrays must be NULL or hold `n_values` values.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_integrals_two_electron(
    handle: *const atomgpu_scf_integrals,
    n_values: i64,
    densities: *const f64,
    g: *mut f64,
) -> i32 {
    guard(&["handle", "n_values", "densities", "g"], || {
        let n = count("n_values", n_values)?;
        let out = output("g", g)?;
        let values = with_integrals(handle, |sm| {
            let orders = sm.map().nbs().to_vec();
            let want: usize = orders.iter().map(|m| m * m).sum();
            if n != want {
                return Err(Error::invalid("n_values", format!("must be Σ m² = {want} over the symmetries, got {n}")));
            }
            let d = input("densities", densities, n)?;
            if let Some(i) = d.iter().position(|x| !x.is_finite()) {
                return Err(Error::invalid_at("densities", i, format!("must be finite, got {}", d[i])));
            }
            let mut offset = 0;
            let mut views = Vec::with_capacity(orders.len());
            for &m in &orders {
                views.push(Some(MatRef::from_column_major_slice(&d[offset..offset + m * m], m, m)));
                offset += m * m;
            }
            let blocks = sm.two_electron(&views)?;
            let mut flat = Vec::with_capacity(n);
            for b in &blocks {
                for j in 0..b.ncols() {
                    flat.extend((0..b.nrows()).map(|i| b[(i, j)]));
                }
            }
            Ok(flat)
        })?;
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            return Err(Error::NotFinite { name: "g", index: Some(i), detail: "from finite densities".into() });
        }
        write_output(out, &values);
        Ok(())
    })
}

/// One SCF (Hartree-Fock or Dirac-Fock of `params`) on the current backend: the supermatrix and
/// the Fock builds on the GPU on the CUDA backend, the per-symmetry eigenproblems on the CPU.
/// Writes `energies` (4 values: total, kinetic (the free-particle energy <h_free>: Hartree-Fock
/// <T>; Dirac-Fock <c α·p + (β - 1) c²>, the relativistic kinetic energy), nuclear attraction,
/// two-electron), the occupied orbital energies (`n_orbitals` = Σ closed + number of symmetries
/// with an open shell; per symmetry the closed ones ascending, then the open one) and the cycles
/// taken. `closed[s]` orbitals of symmetry s are full; `open_electrons[s]` in [0, capacity] occupy
/// one more (average of configuration), and a full one (open_electrons = capacity, as DFRATOM
/// inputs write some) is a closed shell. An SCF that does not converge in `params.max_iterations` cycles returns
/// `ATOMGPU_ERR_NOT_CONVERGED` and still writes its last energies, orbital energies and
/// iterations (= max_iterations), so that the caller sees how far it got. Energies that are not
/// finite are `ATOMGPU_ERR_NOT_FINITE` (nothing written); a Dirac-Fock nucleus whose lowest
/// electronic orbital lies below -2c² (a charge beyond the critical one) is refused at `params`.
/// A long call: the progress callback and the time limit can stop it (`ATOMGPU_ERR_CANCELLED`,
/// nothing written); its reports' `done` counts the cycles completed, of `total` =
/// `max_iterations` (before the first cycle, the fraction of the supermatrix computed; the last
/// report of a finished SCF is `total` of `total`).
///
/// # Safety
/// `params` must be NULL or valid; arrays must be NULL or hold the counts documented.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_run(
    params: *const atomgpu_scf_params,
    n_symmetries: i64,
    angular: *const i32,
    n_functions: *const i64,
    exponents: *const f64,
    closed: *const i64,
    open_electrons: *const f64,
    energies: *mut f64,
    n_orbitals: i64,
    orbital_energies: *mut f64,
    iterations: *mut i64,
) -> i32 {
    guard(
        &[
            "params",
            "n_symmetries",
            "angular",
            "n_functions",
            "exponents",
            "closed",
            "open_electrons",
            "energies",
            "n_orbitals",
            "orbital_energies",
            "iterations",
        ],
        || {
            let system = System { params, n_symmetries, angular, n_functions, exponents, closed, open_electrons };
            let outputs = Outputs { energies, n_orbitals, orbital_energies, iterations };
            run_scf(system, outputs, None)
        },
    )
}

/// The system arguments of the SCF entry points.
struct System {
    params: *const atomgpu_scf_params,
    n_symmetries: i64,
    angular: *const i32,
    n_functions: *const i64,
    exponents: *const f64,
    closed: *const i64,
    open_electrons: *const f64,
}

/// The outputs every SCF entry point writes.
struct Outputs {
    energies: *mut f64,
    n_orbitals: i64,
    orbital_energies: *mut f64,
    iterations: *mut i64,
}

/// The further outputs of `atomgpu_scf_run_orbitals`.
struct OrbitalOutputs {
    len_coefficients: i64,
    coefficients: *mut f64,
    len_densities: i64,
    densities: *mut f64,
    convergence: *mut f64,
}

/// Checks the arguments, runs the SCF and writes its outputs (module docs of the entry points).
///
/// # Safety
/// As the entry points'.
unsafe fn run_scf(system: System, outputs: Outputs, orbitals: Option<OrbitalOutputs>) -> Result<()> {
    let System { params, n_symmetries, angular, n_functions, exponents, closed, open_electrons } = system;
    let p = read_params(params)?;
    let basis = read_basis(&p, n_symmetries, angular, n_functions, exponents)?;
    let occupations = read_occupations(&basis, closed, open_electrons)?;
    let energies_out = output("energies", outputs.energies)?;
    check_orbital_count(&occupations, outputs.n_orbitals)?;
    let orbitals_out = output("orbital_energies", outputs.orbital_energies)?;
    let iterations_out = output("iterations", outputs.iterations)?;
    let further = match &orbitals {
        Some(o) => {
            // m_s: the symmetry's functions, large and small for Dirac-Fock.
            let dim = |i: usize| basis.exponents(i).len() * if matches!(basis, Basis::Dirac { .. }) { 2 } else { 1 };
            let occupied = |i: usize| occupations[i].closed + (occupations[i].open_electrons > 0.0) as usize;
            let n = basis.n_symmetries();
            let coefficients: usize = (0..n).map(|i| dim(i) * occupied(i)).sum();
            let densities: usize = (0..n).map(|i| dim(i) * dim(i)).sum();
            let coefficients_out = output("coefficients", o.coefficients)?;
            length("len_coefficients", o.len_coefficients, coefficients, "Σ m_s x occupied orbitals_s")?;
            let densities_out = output("densities", o.densities)?;
            length("len_densities", o.len_densities, densities, "Σ m_s x m_s")?;
            Some((coefficients_out, densities_out, output("convergence", o.convergence)?))
        }
        None => None,
    };
    let spec = spec_of(&p, basis, occupations)?;
    let result = scf_attempt(&backend::current()?, &spec).map_err(c_names)?;
    write_result(&result, energies_out, orbitals_out, iterations_out);
    if let Some((coefficients, densities, convergence)) = further {
        write_output(coefficients, &result.coefficients.concat());
        write_output(densities, &result.densities.concat());
        write_output(convergence, &[result.energy_change, result.gradient]);
    }
    converged(&spec, result).map(|_| ()).map_err(|e| match e {
        Error::NotConverged(message) => Error::NotConverged(format!("{message}; the outputs hold the last cycle")),
        other => other,
    })
}

/// `atomgpu_scf_run`, and the orbitals and densities properties need: per symmetry s (in the
/// order given, m_s = n_functions[s] for Hartree-Fock, 2 n_functions[s] for Dirac-Fock: large,
/// then small functions), its occupied orbitals into `coefficients` (m_s x occupied_s values,
/// column-major, in the order of `orbital_energies`; S-orthonormal; the blocks of the symmetries
/// one after another, `len_coefficients` >= Σ m_s occupied_s) and its total density D = Σ_i n_i
/// c_i c_iᵀ into `densities` (m_s x m_s column-major, one after another, `len_densities` >=
/// Σ m_s²; tr(D S) = the symmetry's electrons), and `convergence` (2 values: the last cycle's
/// energy change, hartree, and its gradient, max |R_ij| / max(1 hartree, |R_ii - R_jj|)). The orbitals are the eigenvectors
/// of the last cycle's R (their eigenvalues are `orbital_energies`); with DIIS the energy belongs
/// to the densities before that diagonalisation, which differ at the order of the gradient
/// threshold. Elements beyond the lengths needed are not written. A non-converged SCF writes
/// these too (its last cycle).
///
/// # Safety
/// As `atomgpu_scf_run`; `coefficients` and `densities` must be NULL or hold `len_coefficients`
/// and `len_densities` values, `convergence` NULL or 2.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn atomgpu_scf_run_orbitals(
    params: *const atomgpu_scf_params,
    n_symmetries: i64,
    angular: *const i32,
    n_functions: *const i64,
    exponents: *const f64,
    closed: *const i64,
    open_electrons: *const f64,
    energies: *mut f64,
    n_orbitals: i64,
    orbital_energies: *mut f64,
    iterations: *mut i64,
    coefficients: *mut f64,
    len_coefficients: i64,
    densities: *mut f64,
    len_densities: i64,
    convergence: *mut f64,
) -> i32 {
    guard(
        &[
            "params",
            "n_symmetries",
            "angular",
            "n_functions",
            "exponents",
            "closed",
            "open_electrons",
            "energies",
            "n_orbitals",
            "orbital_energies",
            "iterations",
            "coefficients",
            "len_coefficients",
            "densities",
            "len_densities",
            "convergence",
        ],
        || {
            let system = System { params, n_symmetries, angular, n_functions, exponents, closed, open_electrons };
            let outputs = Outputs { energies, n_orbitals, orbital_energies, iterations };
            let orbitals = OrbitalOutputs { len_coefficients, coefficients, len_densities, densities, convergence };
            run_scf(system, outputs, Some(orbitals))
        },
    )
}

/// `n_orbitals` must count the occupied orbitals of `occupations`.
fn check_orbital_count(occupations: &[Occupation], n_orbitals: i64) -> Result<()> {
    let want: usize = occupations.iter().map(|o| o.closed + (o.open_electrons > 0.0) as usize).sum();
    if usize::try_from(n_orbitals).ok() != Some(want) {
        return Err(Error::invalid(
            "n_orbitals",
            format!("must be the number of occupied orbitals (Σ closed + open shells) = {want}, got {n_orbitals}"),
        ));
    }
    Ok(())
}

/// The WTBS optimisation of `atomgpu_scf_optimise_wtbs`: the starting parameters and the layout
/// of the basis (as `atomgpu_scf_wtbs_exponents` takes them) and BOBYQA's trust region and budget
/// (DFRATOM's `$wtbs` and `$bsopt`). An error about a field is reported at the argument
/// `settings`, the message naming the field (and element).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_scf_wtbs_settings {
    /// Number of WTBS groups (>= 1).
    pub n_groups: i64,
    /// The starting (α, β, δ, γ) of each group in DFRATOM's order (4 `n_groups` values): α > 0
    /// (bohr⁻²), β > 1, δ > 0, γ >= 0.
    pub wtbspara: *const f64,
    /// Exponents each symmetry takes from its group's pool (1 to 400; `n_symmetries` entries, the
    /// argument of the call).
    pub nbs: *const i64,
    /// First pool position each symmetry takes (1-based; `n_symmetries` entries).
    pub start: *const i64,
    /// Group of each symmetry (1-based; `n_symmetries` entries).
    pub groups: *const i64,
    /// Initial trust-region radius (finite, > 0; DFRATOM's `rhobeg`).
    pub rho_begin: f64,
    /// Final trust-region radius (0 < rho_end < rho_begin; `rhoend`).
    pub rho_end: f64,
    /// Most SCF evaluations (more than 2 × 4 n_groups + 1, BOBYQA's interpolation set, and at most
    /// 1000000; `maxfun`).
    pub max_evaluations: i64,
}

/// The fields of `atomgpu_scf_wtbs_settings`, as the checks name them.
const WTBS_SETTINGS_FIELDS: &[&str] =
    &["n_groups", "wtbspara", "nbs", "start", "groups", "rho_begin", "rho_end", "max_evaluations"];

/// An error about a field of `atomgpu_scf_wtbs_settings`, reported at `settings`.
fn in_settings(e: Error) -> Error {
    at_field(e, "settings", WTBS_SETTINGS_FIELDS)
}

/// Optimises the WTBS parameters (DFRATOM's `jobtype = 'bsopt'`): minimises the SCF energy of
/// `params` and the occupations over (ln α, ln β, γ, δ) of every group by BOBYQA (a
/// derivative-free trust-region method with bounds: α within a factor 10 of the start, β in
/// [1.2, 4], γ in [0, max(2γ, 5)], δ in [0.5, max(2δ, 20)]) from the start `settings.wtbspara`
/// with trust radius `settings.rho_begin` down to `settings.rho_end` in at most
/// `settings.max_evaluations` SCFs (`atomgpu_scf_wtbs_settings`). The layout (`settings.nbs`,
/// `.start`, `.groups`) and angular labels are as in `atomgpu_scf_wtbs_exponents` and
/// `atomgpu_scf_run`. Writes the optimised parameters (`wtbs_optimised`, 4 n_groups values in the
/// order of `wtbspara`), their exponents (`n_exponents` = Σ nbs), the energies of their SCF (4
/// values as `atomgpu_scf_run`), the SCFs run and `converged` = 1 when the trust radius reached
/// `rho_end` (0: the evaluations ran out first; the parameters are then the best found). Every
/// SCF runs on the current backend. An evaluation whose SCF fails for its basis counts as +∞
/// (BOBYQA's barrier); a failure of the start or of the final SCF is this call's error. A long
/// call: the progress callback and the time limit can stop it (`ATOMGPU_ERR_CANCELLED`, nothing
/// written); its reports' `done` counts the SCFs completed (the start, BOBYQA's evaluations, the
/// final one), of `total` = `max_evaluations` + 2, and comes at every cycle of every SCF.
///
/// # Safety
/// `params` and `settings` must be NULL or valid (the arrays of `settings` holding the counts
/// its fields document); arrays must be NULL or hold the counts documented.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_scf_optimise_wtbs(
    params: *const atomgpu_scf_params,
    n_symmetries: i64,
    angular: *const i32,
    closed: *const i64,
    open_electrons: *const f64,
    settings: *const atomgpu_scf_wtbs_settings,
    wtbs_optimised: *mut f64,
    n_exponents: i64,
    exponents: *mut f64,
    energies: *mut f64,
    evaluations: *mut i64,
    converged: *mut i32,
) -> i32 {
    guard(
        &[
            "params",
            "n_symmetries",
            "angular",
            "closed",
            "open_electrons",
            "settings",
            "wtbs_optimised",
            "n_exponents",
            "exponents",
            "energies",
            "evaluations",
            "converged",
        ],
        || {
            let p = read_params(params)?;
            let n_sym = count("n_symmetries", n_symmetries)?;
            let labels = read_angular(&p, n_sym, angular)?;
            let s = input("settings", settings, 1)?[0];
            let (wtbs, layout, start_exponents) =
                read_wtbs(s.n_groups, s.wtbspara, n_symmetries, s.nbs, s.start, s.groups).map_err(in_settings)?;
            let basis = basis_of(&p, labels, start_exponents);
            let occupations = read_occupations(&basis, closed, open_electrons)?;
            let max_evals = count("max_evaluations", s.max_evaluations).map_err(in_settings)?;
            let para_out = output("wtbs_optimised", wtbs_optimised)?;
            check_exponent_count(n_exponents, &layout)?;
            let exponents_out = output("exponents", exponents)?;
            let energies_out = output("energies", energies)?;
            let evaluations_out = output("evaluations", evaluations)?;
            let converged_out = output("converged", converged)?;
            let optimisation = WtbsOptimisation {
                groups: wtbs,
                layout,
                rho_begin: s.rho_begin,
                rho_end: s.rho_end,
                max_evaluations: max_evals,
            };
            let best = optimise_wtbs(&backend::current()?, &spec_of(&p, basis, occupations)?, &optimisation)
                .map_err(c_names)
                .map_err(in_settings)?;
            let para: Vec<f64> = best.groups.iter().flat_map(|g| [g.alpha, g.beta, g.delta, g.gamma]).collect();
            write_output(para_out, &para);
            write_output(exponents_out, &best.exponents.concat());
            let r = &best.result;
            write_output(energies_out, &[r.energy, r.kinetic, r.nuclear, r.two_electron]);
            *evaluations_out = best.evaluations as i64;
            *converged_out = best.converged as i32;
            Ok(())
        },
    )
}
