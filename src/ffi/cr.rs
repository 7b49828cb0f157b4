//! C ABI of the collisional-radiative driver (rates family): an opaque handle holding the atomic
//! model and the physics settings, the right-hand side, and the two integrators.
//!
//! Level indices are 0-based here (the Fortran module takes 1-based ones). The state vector
//! `y` has `n_levels + 1` entries: the level populations [cm^-3] then the free-electron kinetic
//! energy density [eV cm^-3].

use super::common::{count, guard, input, output, write_output};
use crate::error::{Error, Result};
use crate::rates::cr::{self, CrExcitation, CrIonization, CrModel, CrSample, CrSettings, StiffTolerances};
use crate::rates::{Quadrature, Statistics};

/// A CR model with its settings. Immutable after creation: calls that take a `const atomgpu_cr*`
/// may run concurrently from several threads.
#[allow(non_camel_case_types)]
pub struct atomgpu_cr {
    model: CrModel,
    settings: CrSettings,
}

const CREATE_ARGS: &[&str] = &[
    "n_levels",
    "charges",
    "weights",
    "n_excitations",
    "excitation_lower",
    "excitation_upper",
    "excitation_energy_ev",
    "excitation_omega",
    "n_ionizations",
    "ionization_lower",
    "ionization_upper",
    "ionization_energy_ev",
    "ionization_beli",
    "ionization_d0_cm2",
    "ionization_d1_cm2",
    "stats",
    "accuracy_p",
    "nodes",
    "tr_ev",
    "model",
];

unsafe fn level_index(name: &'static str, values: &[i64], i: usize) -> Result<usize> {
    usize::try_from(values[i])
        .map_err(|_| Error::invalid_at(name, i, format!("level index must be >= 0, got {}", values[i])))
}

/// Creates a CR model. `charges[l]` is the ion charge of level l; `weights` its statistical weight
/// (NULL: all 1). Excitation i goes from level `excitation_lower[i]` to `excitation_upper[i]` with
/// energy [eV] and collision strength `excitation_omega[6*i + k]` = B_k (eq. 6, dimensionless);
/// ionization i from `ionization_lower[i]` to `ionization_upper[i]` (a level of the next ion) with
/// energy [eV], BELI coefficients `ionization_beli[5*i + k]` [1e-13 cm^2 eV^2] and
/// photoionization D0, D1 [cm^2]. `n_excitations` or `n_ionizations` may be 0 (arrays then
/// ignored). `stats`: `ATOMGPU_STATS_*`; `accuracy_p` and `nodes`: the quadrature of every rate;
/// `tr_ev`: black-body radiation temperature [eV]. On success `*model` receives the handle.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_create(
    n_levels: i64,
    charges: *const f64,
    weights: *const f64,
    n_excitations: i64,
    excitation_lower: *const i64,
    excitation_upper: *const i64,
    excitation_energy_ev: *const f64,
    excitation_omega: *const f64,
    n_ionizations: i64,
    ionization_lower: *const i64,
    ionization_upper: *const i64,
    ionization_energy_ev: *const f64,
    ionization_beli: *const f64,
    ionization_d0_cm2: *const f64,
    ionization_d1_cm2: *const f64,
    stats: i32,
    accuracy_p: f64,
    nodes: i32,
    tr_ev: f64,
    model: *mut *mut atomgpu_cr,
) -> i32 {
    guard(CREATE_ARGS, || {
        let out = output("model", model)?;
        let n = count("n_levels", n_levels)?;
        let charges = input("charges", charges, n)?.to_vec();
        let weights = if weights.is_null() { vec![1.0; n] } else { input("weights", weights, n)?.to_vec() };
        if n_excitations < 0 {
            return Err(Error::invalid("n_excitations", format!("must be >= 0, got {n_excitations}")));
        }
        if n_ionizations < 0 {
            return Err(Error::invalid("n_ionizations", format!("must be >= 0, got {n_ionizations}")));
        }
        let ne = n_excitations as usize;
        let mut excitations = Vec::with_capacity(ne);
        if ne > 0 {
            let lower = input("excitation_lower", excitation_lower, ne)?;
            let upper = input("excitation_upper", excitation_upper, ne)?;
            let energy = input("excitation_energy_ev", excitation_energy_ev, ne)?;
            let omega = input("excitation_omega", excitation_omega, 6 * ne)?;
            for i in 0..ne {
                excitations.push(CrExcitation {
                    lower: level_index("excitation_lower", lower, i)?,
                    upper: level_index("excitation_upper", upper, i)?,
                    energy_ev: energy[i],
                    omega: omega[6 * i..6 * i + 6].try_into().expect("six coefficients"),
                });
            }
        }
        let ni = n_ionizations as usize;
        let mut ionizations = Vec::with_capacity(ni);
        if ni > 0 {
            let lower = input("ionization_lower", ionization_lower, ni)?;
            let upper = input("ionization_upper", ionization_upper, ni)?;
            let energy = input("ionization_energy_ev", ionization_energy_ev, ni)?;
            let beli = input("ionization_beli", ionization_beli, 5 * ni)?;
            let d0 = input("ionization_d0_cm2", ionization_d0_cm2, ni)?;
            let d1 = input("ionization_d1_cm2", ionization_d1_cm2, ni)?;
            for i in 0..ni {
                ionizations.push(CrIonization {
                    lower: level_index("ionization_lower", lower, i)?,
                    upper: level_index("ionization_upper", upper, i)?,
                    energy_ev: energy[i],
                    beli: beli[5 * i..5 * i + 5].try_into().expect("five coefficients"),
                    d0_cm2: d0[i],
                    d1_cm2: d1[i],
                });
            }
        }
        let stats = Statistics::from_code("stats", stats)?;
        let quadrature = Quadrature::new(accuracy_p, usize::try_from(nodes).unwrap_or(0))?;
        crate::error::require_positive("tr_ev", None, tr_ev, "eV")?;
        let built = CrModel::new(charges, weights, excitations, ionizations).map_err(rename_model_error)?;
        *out = Box::into_raw(Box::new(atomgpu_cr { model: built, settings: CrSettings { stats, quadrature, tr_ev } }));
        Ok(())
    })
}

/// The model's own argument names for its checks, mapped to this function's parameters.
fn rename_model_error(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, index, rule } => {
            let name = match name {
                "energy_ev" => "excitation_energy_ev",
                "omega" => "excitation_omega",
                "beli" => "ionization_beli",
                "d0_cm2" => "ionization_d0_cm2",
                "d1_cm2" => "ionization_d1_cm2",
                other => other,
            };
            Error::InvalidArgument { name, index, rule }
        }
        other => other,
    }
}

/// Destroys a model (NULL is accepted).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_destroy(model: *mut atomgpu_cr) {
    super::common::guard_value((), || {
        if !model.is_null() {
            drop(Box::from_raw(model));
        }
    })
}

unsafe fn borrow<'a>(model: *const atomgpu_cr) -> Result<&'a atomgpu_cr> {
    model.as_ref().ok_or_else(|| Error::invalid("model", "must not be NULL"))
}

/// Number of levels of a model (0 for NULL).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_n_levels(model: *const atomgpu_cr) -> i64 {
    super::common::guard_value(0, || model.as_ref().map(|m| m.model.n_levels() as i64).unwrap_or(0))
}

/// Initial state `y` (n_levels + 1 values) from `populations` [cm^-3] and the electron
/// temperature `te_ev` [eV]: the energy density of n_e = sum Z_l N_l electrons at that temperature
/// under the model's statistics.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_initial_state(
    model: *const atomgpu_cr,
    populations: *const f64,
    te_ev: f64,
    y: *mut f64,
) -> i32 {
    guard(&["model", "populations", "te_ev", "y"], || {
        let m = borrow(model)?;
        let pops = input("populations", populations, m.model.n_levels())?;
        let y_out = output("y", y)?;
        let state = cr::initial_state(&m.model, m.settings.stats, pops, te_ev)?;
        write_output(y_out, &state);
        Ok(())
    })
}

/// Right-hand side dy/dt [cm^-3 s^-1, eV cm^-3 s^-1] at state `y`, and the electron conditions it
/// was evaluated at: `conditions` = (T_e [eV], mu [eV], n_e [cm^-3]).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_derivatives(
    model: *const atomgpu_cr,
    y: *const f64,
    dydt: *mut f64,
    conditions: *mut f64,
) -> i32 {
    guard(&["model", "y", "dydt", "conditions"], || {
        let m = borrow(model)?;
        let y_in = input("y", y, m.model.n_levels() + 1)?;
        let (d_out, c_out) = (output("dydt", dydt)?, output("conditions", conditions)?);
        m.model.check_populations(&y_in[..m.model.n_levels()])?;
        crate::error::require_positive(
            "y",
            Some(m.model.n_levels()),
            y_in[m.model.n_levels()],
            "eV cm^-3 (energy density)",
        )?;
        let (d, c) = cr::derivatives(&m.model, &m.settings, y_in)?;
        write_output(d_out, &d);
        write_output(c_out, &c);
        Ok(())
    })
}

/// Writes samples into caller arrays already checked to hold them: times [s] (when asked),
/// T_e [eV], n_e [cm^-3] and populations (`n_levels x samples`, column-major).
unsafe fn write_samples(samples: &[CrSample], times: Option<*mut f64>, te: *mut f64, ne: *mut f64, pops: *mut f64) {
    let col = |f: &dyn Fn(&CrSample) -> f64| samples.iter().map(f).collect::<Vec<f64>>();
    if let Some(times) = times {
        write_output(times, &col(&|s| s.time_s));
    }
    write_output(te, &col(&|s| s.te_ev));
    write_output(ne, &col(&|s| s.ne_cm3));
    let flat: Vec<f64> = samples.iter().flat_map(|s| s.populations.iter().copied()).collect();
    write_output(pops, &flat);
}

/// Fixed-step RK4 from state `y` (overwritten with the final state) for `n_steps` steps of
/// `dt_s` seconds, recording the initial state and every `sample_every`-th step (and the last):
/// 1 + ceil(n_steps / sample_every) samples, which must fit in `max_samples`. On a CUDA backend
/// the whole run stays on the device. `*n_samples` receives the count; `times` [s], `te_ev`,
/// `ne_cm3` (max_samples each) and `populations` (n_levels x max_samples, column-major) the
/// samples.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_run_rk4(
    model: *const atomgpu_cr,
    y: *mut f64,
    dt_s: f64,
    n_steps: i64,
    sample_every: i64,
    max_samples: i64,
    n_samples: *mut i64,
    times: *mut f64,
    te_ev: *mut f64,
    ne_cm3: *mut f64,
    populations: *mut f64,
) -> i32 {
    guard(
        &[
            "model",
            "y",
            "dt_s",
            "n_steps",
            "sample_every",
            "max_samples",
            "n_samples",
            "times",
            "te_ev",
            "ne_cm3",
            "populations",
        ],
        || {
            let m = borrow(model)?;
            let n = m.model.n_levels();
            let y_io = output("y", y)?;
            let y0 = input("y", y_io as *const f64, n + 1)?.to_vec();
            let steps = count("n_steps", n_steps)? as u64;
            let every = count("sample_every", sample_every)? as u64;
            let capacity = count("max_samples", max_samples)?;
            let needed = 1 + steps.div_ceil(every) as usize;
            if capacity < needed {
                return Err(Error::invalid(
                    "max_samples",
                    format!("must be >= 1 + ceil(n_steps/sample_every) = {needed}, got {capacity}"),
                ));
            }
            let (n_out, times_out) = (output("n_samples", n_samples)?, output("times", times)?);
            let (te_out, ne_out, pop_out) =
                (output("te_ev", te_ev)?, output("ne_cm3", ne_cm3)?, output("populations", populations)?);
            let samples = cr::run_rk4(&m.model, &m.settings, &y0, dt_s, steps, every)?;
            let last = samples.last().expect("at least the initial sample");
            let mut y_final = last.populations.clone();
            y_final.push(last.energy_density);
            write_output(y_io, &y_final);
            *n_out = samples.len() as i64;
            write_samples(&samples, Some(times_out), te_out, ne_out, pop_out);
            Ok(())
        },
    )
}

/// Adaptive stiff integration (ROS2) from state `y` (overwritten with the state at the last time)
/// to each of the `n_times` ascending times `sample_times_s` [s], measured from the start of this
/// call (`y` is the state at t = 0); `rtol` is the relative
/// tolerance, `atol_fraction` the absolute one as a fraction of the initial total population
/// and energy density. `te_ev`, `ne_cm3` (n_times each) and `populations` (n_levels x n_times,
/// column-major) receive the state at each time.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_run_stiff(
    model: *const atomgpu_cr,
    y: *mut f64,
    n_times: i64,
    sample_times_s: *const f64,
    rtol: f64,
    atol_fraction: f64,
    te_ev: *mut f64,
    ne_cm3: *mut f64,
    populations: *mut f64,
) -> i32 {
    guard(
        &["model", "y", "n_times", "sample_times_s", "rtol", "atol_fraction", "te_ev", "ne_cm3", "populations"],
        || {
            let m = borrow(model)?;
            let n = m.model.n_levels();
            let y_io = output("y", y)?;
            let y0 = input("y", y_io as *const f64, n + 1)?.to_vec();
            let nt = count("n_times", n_times)?;
            let times = input("sample_times_s", sample_times_s, nt)?;
            let (te_out, ne_out, pop_out) =
                (output("te_ev", te_ev)?, output("ne_cm3", ne_cm3)?, output("populations", populations)?);
            let tolerances = StiffTolerances { rtol, atol_fraction, ..StiffTolerances::default() };
            let samples = cr::run_stiff(&m.model, &m.settings, &y0, times, &tolerances)?;
            let at_times = &samples[1..];
            let last = at_times.last().expect("n_times >= 1");
            let mut y_final = last.populations.clone();
            y_final.push(last.energy_density);
            write_output(y_io, &y_final);
            write_samples(at_times, None, te_out, ne_out, pop_out);
            Ok(())
        },
    )
}

/// The rate matrices of paper eqs. 27-28 at electron temperature `te_ev` [eV] and density
/// `ne_cm3` [cm^-3]: `m` (n_levels x n_levels, column-major, [s^-1]) with m[k + n l] the rate from
/// level l into level k and m[l + n l] minus the total rate out of l, so dN/dt = M N; and
/// `m_energy` (n_levels, [eV s^-1]) with du/dt = sum_l m_energy[l] N_l (inverse-bremsstrahlung
/// heating included, in proportion to Z_l^2).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; a handle
/// must come from its `_create` function and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_rate_matrix(
    model: *const atomgpu_cr,
    te_ev: f64,
    ne_cm3: f64,
    m: *mut f64,
    m_energy: *mut f64,
) -> i32 {
    guard(&["model", "te_ev", "ne_cm3", "m", "m_energy"], || {
        let handle = borrow(model)?;
        crate::error::require_positive("te_ev", None, te_ev, "eV")?;
        crate::error::require_positive("ne_cm3", None, ne_cm3, "cm^-3")?;
        let (m_out, e_out) = (output("m", m)?, output("m_energy", m_energy)?);
        let r = cr::rate_matrices(&handle.model, &handle.settings, te_ev, ne_cm3)?;
        write_output(m_out, &r.m);
        write_output(e_out, &r.m_energy);
        Ok(())
    })
}
