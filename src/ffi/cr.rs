//! C ABI of the collisional-radiative driver (rates family): an opaque handle holding the atomic
//! model and the physics settings, the right-hand side, and the two integrators.
//!
//! Level indices are 0-based here (the Fortran module takes 1-based ones). The state vector
//! `y` has `n_levels + 1` entries: the level populations [cm^-3] then the free-electron kinetic
//! energy density [eV cm^-3]; it must imply n_e = sum_l Z_l N_l in [1e-10, 1e30] cm^-3 and a
//! temperature T_e in [1e-4, 1e6] eV (the domain of the rates family).
//!
//! Handles are checked on every call: a model that was destroyed, or a handle of another family,
//! is an invalid argument naming `model`. A model is immutable once made: every call that takes it
//! may run concurrently from several threads, and destroying it while another thread's call uses
//! it is safe (the model is freed when that call returns).

use super::common::{at_field, count, guard, input, output, write_output};
use super::handles::{self, Family};
use crate::backend::DeviceSet;
use crate::error::{Error, Result};
use crate::memory;
use crate::rates::cr::{self, Cr, CrExcitation, CrIonization, CrSample, CrSettings, StiffTolerances};
use crate::rates::{Quadrature, Statistics};
use std::sync::Arc;

/// A CR model with its settings. Immutable after creation: calls that take a `const atomgpu_cr*`
/// may run concurrently from several threads.
#[allow(non_camel_case_types)]
pub struct atomgpu_cr {
    model: Cr,
    settings: CrSettings,
}

impl Family for atomgpu_cr {
    const NAME: &'static str = "CR model (atomgpu_cr)";

    /// A model is host data: each call runs on the backend in force when it is made.
    fn devices(&self) -> Option<&DeviceSet> {
        None
    }
}

/// A CR model and its settings, for `atomgpu_cr_create`. Level indices are 0-based; every array
/// holds the count of its group (`n_levels`, `n_excitations`, `n_ionizations` entries, or 6 and 5
/// coefficients per transition). An error about a field is reported at the argument `desc`, the
/// message naming the field (and element): "argument `desc`: field `charges`[2] must be >= 0".
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_cr_model_desc {
    /// Number of levels (>= 1).
    pub n_levels: i64,
    /// Ion charge Z_l of each level (`n_levels`, finite, >= 0).
    pub charges: *const f64,
    /// Statistical weight of each level (`n_levels`, finite, > 0), or NULL: all 1.
    pub weights: *const f64,
    /// Number of excitations (>= 0; 0: the five excitation arrays are not read).
    pub n_excitations: i64,
    /// Lower level of excitation i (`n_excitations`).
    pub excitation_lower: *const i64,
    /// Upper level of excitation i (`n_excitations`; the lower level's ion, another level).
    pub excitation_upper: *const i64,
    /// Excitation energy [eV, in [1e-6, 1e6]] (`n_excitations`).
    pub excitation_energy_ev: *const f64,
    /// Collision-strength fit B_0..B_5 of paper eq. 6 (dimensionless, finite): excitation i's at
    /// `excitation_omega[6 i + k]` (6 `n_excitations`).
    pub excitation_omega: *const f64,
    /// Number of ionizations (>= 0; 0: the six ionization arrays are not read).
    pub n_ionizations: i64,
    /// Lower level of ionization i (`n_ionizations`).
    pub ionization_lower: *const i64,
    /// Upper level of ionization i (`n_ionizations`; a level of the next ion, charge Z + 1).
    pub ionization_upper: *const i64,
    /// Ionization energy [eV, in [1e-6, 1e6]] (`n_ionizations`).
    pub ionization_energy_ev: *const f64,
    /// BELI coefficients C_0..C_4 [1e-13 cm^2 eV^2]: ionization i's at `ionization_beli[5 i + k]`
    /// (5 `n_ionizations`).
    pub ionization_beli: *const f64,
    /// Photoionization cross-section coefficient D0 [cm^2] of paper eq. 12 (`n_ionizations`).
    pub ionization_d0_cm2: *const f64,
    /// Photoionization cross-section coefficient D1 [cm^2] of paper eq. 12 (`n_ionizations`).
    pub ionization_d1_cm2: *const f64,
    /// `ATOMGPU_STATS_FERMI_DIRAC` or `ATOMGPU_STATS_MAXWELL_BOLTZMANN`.
    pub stats: i32,
    /// Gauss-Legendre nodes per panel of every rate integral (in [2, 256]).
    pub nodes: i32,
    /// Accuracy parameter p of every rate integral (in [1, 15]: upper limits at 10^-p).
    pub accuracy_p: f64,
    /// Black-body radiation temperature T_r [eV, in [1e-4, 1e6]].
    pub tr_ev: f64,
}

/// The fields of `atomgpu_cr_model_desc`, as the checks name them.
const DESC_FIELDS: &[&str] = &[
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
    "nodes",
    "accuracy_p",
    "tr_ev",
];

/// A transition count (`n_excitations`, `n_ionizations`): >= 0, and small enough that its
/// `per` coefficients per transition fit in an address space.
fn transition_count(name: &'static str, n: i64, per: usize) -> Result<usize> {
    let n = usize::try_from(n).map_err(|_| Error::invalid(name, format!("must be >= 0, got {n}")))?;
    if memory::bytes_of::<f64>(n) * per as u128 > isize::MAX as u128 {
        return Err(Error::invalid(name, format!("is too large ({n}: its arrays exceed an address space)")));
    }
    Ok(n)
}

fn level_index(name: &'static str, values: &[i64], i: usize) -> Result<usize> {
    usize::try_from(values[i])
        .map_err(|_| Error::invalid_at(name, i, format!("level index must be >= 0, got {}", values[i])))
}

/// The model and settings of a descriptor, checked (errors naming its fields): every pointer
/// first (nothing read yet), then the buffers (a size no memory holds fails here, before any
/// array is read), then the values.
///
/// # Safety
/// Every pointer of `d` must be NULL or valid for the number of elements its field documents.
unsafe fn read_desc(d: &atomgpu_cr_model_desc) -> Result<(Cr, CrSettings)> {
    let n = count("n_levels", d.n_levels)?;
    let charges = input("charges", d.charges, n)?;
    let weights = if d.weights.is_null() { None } else { Some(input("weights", d.weights, n)?) };
    let ne = transition_count("n_excitations", d.n_excitations, 6)?;
    let ni = transition_count("n_ionizations", d.n_ionizations, 5)?;
    let stats = Statistics::from_code("stats", d.stats)?;
    let quadrature = Quadrature::new(d.accuracy_p, usize::try_from(d.nodes).unwrap_or(0))?;
    crate::rates::check_temperature("tr_ev", None, d.tr_ev)?;
    let excitation_arrays = if ne > 0 {
        Some((
            input("excitation_lower", d.excitation_lower, ne)?,
            input("excitation_upper", d.excitation_upper, ne)?,
            input("excitation_energy_ev", d.excitation_energy_ev, ne)?,
            input("excitation_omega", d.excitation_omega, 6 * ne)?,
        ))
    } else {
        None
    };
    let ionization_arrays = if ni > 0 {
        Some((
            input("ionization_lower", d.ionization_lower, ni)?,
            input("ionization_upper", d.ionization_upper, ni)?,
            input("ionization_energy_ev", d.ionization_energy_ev, ni)?,
            input("ionization_beli", d.ionization_beli, 5 * ni)?,
            input("ionization_d0_cm2", d.ionization_d0_cm2, ni)?,
            input("ionization_d1_cm2", d.ionization_d1_cm2, ni)?,
        ))
    } else {
        None
    };
    let mut excitations = memory::with_capacity("the model's excitations", ne)?;
    let mut ionizations = memory::with_capacity("the model's ionizations", ni)?;
    let charges = memory::copy_of("the level charges", charges)?;
    let weights = match weights {
        Some(w) => memory::copy_of("the level weights", w)?,
        None => memory::filled("the level weights", n, 1.0)?,
    };
    if let Some((lower, upper, energy, omega)) = excitation_arrays {
        for i in 0..ne {
            excitations.push(CrExcitation {
                lower: level_index("excitation_lower", lower, i)?,
                upper: level_index("excitation_upper", upper, i)?,
                energy_ev: energy[i],
                omega: omega[6 * i..6 * i + 6].try_into().expect("six coefficients"),
            });
        }
    }
    if let Some((lower, upper, energy, beli, d0, d1)) = ionization_arrays {
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
    let model = Cr::new(charges, weights, excitations, ionizations)?;
    Ok((model, CrSettings { stats, quadrature, tr_ev: d.tr_ev }))
}

/// Creates a CR model from the descriptor `desc` (`atomgpu_cr_model_desc`: the levels, the
/// excitations (energy and collision strength B_k of paper eq. 6) and ionizations (energy, BELI
/// coefficients, photoionization D0, D1), the statistics, the quadrature of every rate and the
/// black-body temperature). On success `*model` receives the handle. Every array is checked
/// before anything is read into the model; an error about a field is reported at `desc` naming
/// the field; a model too large for the memory available fails with `ATOMGPU_ERR_OUT_OF_MEMORY`.
///
/// # Safety
/// `desc` must be NULL or point to a descriptor whose pointers are NULL or valid for the number
/// of elements its fields document; `model` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_create(desc: *const atomgpu_cr_model_desc, model: *mut *mut atomgpu_cr) -> i32 {
    guard(&["desc", "model"], || {
        let d = input("desc", desc, 1)?[0];
        let out = output("model", model)?;
        let (built, settings) = read_desc(&d).map_err(|e| at_field(e, "desc", DESC_FIELDS))?;
        *out = handles::register(atomgpu_cr { model: built, settings })?;
        Ok(())
    })
}

/// Destroys a model. NULL is a no-op; a model already destroyed, or a handle of another family,
/// is `ATOMGPU_ERR_INVALID_ARGUMENT` (and nothing is freed twice).
///
/// # Safety
/// `model` may be any value: it is looked up, never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_destroy(model: *mut atomgpu_cr) -> i32 {
    guard(&["model"], || handles::remove("model", model))
}

fn borrow(model: *const atomgpu_cr) -> Result<Arc<atomgpu_cr>> {
    handles::get("model", model)
}

/// Number of levels of a model, into `*n_levels`.
///
/// # Safety
/// `n_levels` must be NULL or writable; `model` may be any value (it is looked up).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_n_levels(model: *const atomgpu_cr, n_levels: *mut i64) -> i32 {
    guard(&["model", "n_levels"], || {
        let m = borrow(model)?;
        let out = output("n_levels", n_levels)?;
        *out = m.model.n_levels() as i64;
        Ok(())
    })
}

/// Initial state `y` (n_levels + 1 values) from `populations` [cm^-3, finite, >= 0, with
/// n_e = sum Z_l N_l in [1e-10, 1e30]] and the electron temperature `te_ev` [eV, in [1e-4, 1e6]]:
/// the energy density of those electrons at that temperature under the model's statistics.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
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
/// was evaluated at: `conditions` = (T_e [eV], mu [eV], n_e [cm^-3]). Needs memory proportional to
/// n_levels + transitions (no n x n matrix).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
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
        let (d, c) = cr::derivatives(&m.model, &m.settings, y_in)?;
        write_output(d_out, &d);
        write_output(c_out, &c);
        Ok(())
    })
}

/// The samples as the C arrays hold them, checked finite: times [s], T_e [eV], n_e [cm^-3] and
/// populations (`n_levels x samples`, column-major).
struct SampleColumns {
    times: Vec<f64>,
    te: Vec<f64>,
    ne: Vec<f64>,
    populations: Vec<f64>,
}

fn sample_columns(samples: &[CrSample], n_levels: usize) -> Result<SampleColumns> {
    let column = |name: &'static str, f: &dyn Fn(&CrSample) -> f64| -> Result<Vec<f64>> {
        let values = memory::collect(name, samples.iter().map(f))?;
        crate::error::require_finite_result(name, &values, |i| format!("sample {i}"))?;
        Ok(values)
    };
    let mut populations =
        memory::with_capacity("populations", memory::elements::<f64>("populations", n_levels, samples.len())?)?;
    for s in samples {
        populations.extend_from_slice(&s.populations);
    }
    Ok(SampleColumns {
        times: column("times", &|s| s.time_s)?,
        te: column("te_ev", &|s| s.te_ev)?,
        ne: column("ne_cm3", &|s| s.ne_cm3)?,
        populations,
    })
}

/// The state vector of a sample.
fn state_of(sample: &CrSample) -> Result<Vec<f64>> {
    let mut y = memory::with_capacity("y", sample.populations.len() + 1)?;
    y.extend_from_slice(&sample.populations);
    y.push(sample.energy_density);
    Ok(y)
}

/// Fixed-step RK4 from state `y` (overwritten with the final state) for `n_steps` steps (in
/// [1, 2^53]) of `dt_s` seconds, recording the initial state and every `sample_every`-th step (and
/// the last): 1 + ceil(n_steps / sample_every) samples, which must fit in `max_samples`. On a CUDA
/// backend the whole run stays on the device. `*n_samples` receives the count; `times` [s],
/// `te_ev`, `ne_cm3` (max_samples each) and `populations` (n_levels x max_samples, column-major)
/// the samples. Progress (steps done of n_steps, task "atomgpu_cr_run_rk4"; every step on the CPU,
/// every launch of at most 64 steps on a GPU) goes to the calling thread's callback
/// (`atomgpu_set_progress`), which, like the thread's time limit
/// (`atomgpu_set_time_limit`), can stop the run: `ATOMGPU_ERR_CANCELLED`, nothing written. A stage
/// that leaves the domain of the rates (dt_s too large) fails with `ATOMGPU_ERR_NOT_CONVERGED`.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
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
            let y0 = input("y", y_io as *const f64, n + 1)?;
            // A step count, not an array size: its rule is the range of cr::MAX_RK4_STEPS.
            let steps = u64::try_from(n_steps)
                .ok()
                .filter(|s| (1..=cr::MAX_RK4_STEPS).contains(s))
                .ok_or_else(|| Error::invalid("n_steps", format!("must be in [1, 2^53], got {n_steps}")))?;
            let every = u64::try_from(sample_every)
                .ok()
                .filter(|&e| e >= 1)
                .ok_or_else(|| Error::invalid("sample_every", format!("must be >= 1, got {sample_every}")))?;
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
            let samples = cr::run_rk4(&m.model, &m.settings, y0, dt_s, steps, every)?;
            let columns = sample_columns(&samples, n)?;
            let y_final = state_of(samples.last().expect("at least the initial sample"))?;
            write_output(y_io, &y_final);
            *n_out = samples.len() as i64;
            write_output(times_out, &columns.times);
            write_output(te_out, &columns.te);
            write_output(ne_out, &columns.ne);
            write_output(pop_out, &columns.populations);
            Ok(())
        },
    )
}

/// The body of `atomgpu_cr_run_stiff(_systems)`: checks the arguments, runs `n_systems` systems
/// whose states are the columns of `y` ((n_levels + 1) x n_systems) to the `n_times` times, then
/// writes each system's last state into `y` and its samples into [te_ev, ne_cm3, populations]
/// (times fastest, then systems); nothing is written on failure.
///
/// # Safety
/// Each pointer must be NULL or valid: `y` for (n_levels + 1) n_systems elements,
/// `sample_times_s` for n_times, `te_ev` and `ne_cm3` for n_times n_systems, `populations` for
/// n_levels n_times n_systems.
unsafe fn run_stiff_into(
    model: *const atomgpu_cr,
    n_systems: usize,
    y: *mut f64,
    n_times: i64,
    sample_times_s: *const f64,
    tolerances: StiffTolerances,
    [te_ev, ne_cm3, populations]: [*mut f64; 3],
) -> Result<()> {
    let m = borrow(model)?;
    let n = m.model.n_levels();
    let y_io = output("y", y)?;
    let y0 = input("y", y_io as *const f64, memory::elements::<f64>("y", n + 1, n_systems)?)?;
    let nt = count("n_times", n_times)?;
    let times = input("sample_times_s", sample_times_s, nt)?;
    let (te_out, ne_out, pop_out) =
        (output("te_ev", te_ev)?, output("ne_cm3", ne_cm3)?, output("populations", populations)?);
    let ys = memory::try_collect("the systems", y0.chunks_exact(n + 1).map(|c| memory::copy_of("y", c)))?;
    let runs = cr::run_stiff_systems(&m.model, &m.settings, &ys, times, &tolerances)?;
    let per_quantity = memory::elements::<f64>("te_ev", times.len(), n_systems)?;
    let mut finals = memory::with_capacity("y", (n + 1) * n_systems)?;
    let mut te = memory::with_capacity("te_ev", per_quantity)?;
    let mut ne = memory::with_capacity("ne_cm3", per_quantity)?;
    let mut pops = memory::with_capacity("populations", memory::elements::<f64>("populations", n, per_quantity)?)?;
    for run in &runs {
        let at_times = &run[1..];
        let columns = sample_columns(at_times, n)?;
        finals.extend(state_of(at_times.last().expect("n_times >= 1"))?);
        te.extend(columns.te);
        ne.extend(columns.ne);
        pops.extend(columns.populations);
    }
    write_output(y_io, &finals);
    write_output(te_out, &te);
    write_output(ne_out, &ne);
    write_output(pop_out, &pops);
    Ok(())
}

/// Adaptive stiff integration (ROS4, L-stable, with the CR system's structural Jacobian, its
/// electron columns from the rates' analytic derivatives: three rate evaluations per step) from state `y` (overwritten with the state at the last time) to
/// each of the `n_times` ascending times `sample_times_s` [s], measured from the start of this
/// call (`y` is the state at t = 0); `rtol` is the relative tolerance, `atol_fraction` the
/// absolute one as a fraction of the initial total population and energy density. `te_ev`,
/// `ne_cm3` (n_times each) and `populations` (n_levels x n_times, column-major) receive the state
/// at each time. The Jacobian is a dense (n_levels + 1)^2 matrix. Progress (simulated seconds of the last time, task
/// "atomgpu_cr_run_stiff") goes to the calling thread's callback, which, like its time limit, can
/// stop the run (`ATOMGPU_ERR_CANCELLED`, nothing written); more than 10^6 steps is
/// `ATOMGPU_ERR_NOT_CONVERGED`.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
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
            let tolerances = StiffTolerances { rtol, atol_fraction, ..StiffTolerances::default() };
            run_stiff_into(model, 1, y, n_times, sample_times_s, tolerances, [te_ev, ne_cm3, populations])
        },
    )
}

/// [`atomgpu_cr_run_stiff`] for `n_systems` independent systems of the model at once (the cells
/// of a hydrodynamic code), each from its own state and with its own steps: `y` is
/// (n_levels + 1) x n_systems, column-major (system s at y[s (n_levels + 1)], overwritten with
/// each system's state at the last time); `te_ev` and `ne_cm3` are n_times x n_systems and
/// `populations` n_levels x n_times x n_systems, column-major. Every stage's rates of all systems
/// are evaluated in one call (on a GPU, one launch for all of them), so many systems fill a GPU
/// that one system cannot. A system that fails fails the call (its index in the message) and
/// nothing is written; a refused state names its cell and element, e.g. "argument `y`[9]: cell 2
/// (y[2*4 + 1]): population of level 1 must be >= 0 cm^-3, got -1" for cell 2 of a 3-level model.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_cr_run_stiff_systems(
    model: *const atomgpu_cr,
    n_systems: i64,
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
        &[
            "model",
            "n_systems",
            "y",
            "n_times",
            "sample_times_s",
            "rtol",
            "atol_fraction",
            "te_ev",
            "ne_cm3",
            "populations",
        ],
        || {
            let ns = count("n_systems", n_systems)?;
            let tolerances = StiffTolerances { rtol, atol_fraction, ..StiffTolerances::default() };
            run_stiff_into(model, ns, y, n_times, sample_times_s, tolerances, [te_ev, ne_cm3, populations])
        },
    )
}

/// The rate matrices of paper eqs. 27-28 at electron temperature `te_ev` [eV, in [1e-4, 1e6]] and
/// density `ne_cm3` [cm^-3, in [1e-10, 1e30]]: `m` (n_levels x n_levels, column-major, [s^-1])
/// with m[k + n l] the rate from level l into level k and m[l + n l] minus the total rate out of
/// l, so dN/dt = M N; and `m_energy` (n_levels, [eV s^-1]) with du/dt = sum_l m_energy[l] N_l
/// (inverse-bremsstrahlung heating included, in proportion to Z_l^2).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
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
        crate::rates::check_temperature("te_ev", None, te_ev)?;
        crate::rates::check_density("ne_cm3", None, ne_cm3)?;
        let (m_out, e_out) = (output("m", m)?, output("m_energy", m_energy)?);
        let r = cr::rate_matrices(&handle.model, &handle.settings, te_ev, ne_cm3)?;
        write_output(m_out, &r.m);
        write_output(e_out, &r.m_energy);
        Ok(())
    })
}
