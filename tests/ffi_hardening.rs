//! The C ABI defends itself (issue 8), through the `extern "C"` functions:
//! - handles have a checked identity: a destroyed handle, a second destroy, a handle of the other
//!   family and a made-up pointer are each `ATOMGPU_ERR_INVALID_ARGUMENT` naming the handle, and
//!   destroying NULL is a no-op;
//! - a progress callback can stop a long call (`ATOMGPU_ERR_CANCELLED`, outputs untouched), may
//!   destroy the model of the running call (freed when the call returns), and a call on the
//!   locked line-strength handle of the running call is refused instead of waiting for ever;
//! - a panic inside the library is `ATOMGPU_ERR_INTERNAL` with its message, and prints nothing on
//!   the host's stderr (checked in a child process) unless `ATOMGPU_LOG` asks, while a panic
//!   elsewhere in the host still reaches the host's own hook.
//!
//! The checks are exact (status codes, argument positions): no numerical reference is involved.

use atomgpu::ffi::common::*;
use atomgpu::ffi::cr::*;
use atomgpu::ffi::linestrength::*;
use atomgpu::ffi::rates::ATOMGPU_STATS_MAXWELL_BOLTZMANN;
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

fn last_message() -> String {
    let n = unsafe { atomgpu_last_error_message(null_mut(), 0) };
    let mut buffer = vec![0 as c_char; n as usize + 1];
    unsafe { atomgpu_last_error_message(buffer.as_mut_ptr(), buffer.len()) };
    let bytes: Vec<u8> = buffer[..n as usize].iter().map(|&c| c as u8).collect();
    String::from_utf8(bytes).expect("message is UTF-8")
}

/// Asserts an invalid-argument status at `position` whose message holds `fragment`.
fn refused(what: &str, status: i32, position: i32, fragment: &str) {
    let message = last_message();
    assert_eq!(status, ATOMGPU_ERR_INVALID_ARGUMENT, "{what}: {message}");
    assert_eq!(atomgpu_last_error_arg(), position, "{what}: {message}");
    assert!(message.contains(fragment), "{what}: `{fragment}` not in \"{message}\"");
}

/// Three levels (Z = 1, 1, 2), one excitation and one ionization, Maxwell-Boltzmann, p = 5 with
/// 8 nodes, T_r = 1 eV.
fn cr_model() -> *mut atomgpu_cr {
    let charges = [1.0, 1.0, 2.0];
    let (xl, xu, xe, xo) = ([0i64], [1i64], [5.0], [0.5, 1.0, 0.3, -0.1, 0.0, 0.0]);
    let (il, iu, ie, ib, d0, d1) = ([1i64], [2i64], [15.0], [3.0, -0.2, 2.0, -0.5, 0.0], [5e-18], [4e-19]);
    let desc = atomgpu_cr_model_desc {
        n_levels: 3,
        charges: charges.as_ptr(),
        weights: null(),
        n_excitations: 1,
        excitation_lower: xl.as_ptr(),
        excitation_upper: xu.as_ptr(),
        excitation_energy_ev: xe.as_ptr(),
        excitation_omega: xo.as_ptr(),
        n_ionizations: 1,
        ionization_lower: il.as_ptr(),
        ionization_upper: iu.as_ptr(),
        ionization_energy_ev: ie.as_ptr(),
        ionization_beli: ib.as_ptr(),
        ionization_d0_cm2: d0.as_ptr(),
        ionization_d1_cm2: d1.as_ptr(),
        stats: ATOMGPU_STATS_MAXWELL_BOLTZMANN,
        nodes: 8,
        accuracy_p: 5.0,
        tr_ev: 1.0,
    };
    let mut model = null_mut();
    let status = unsafe { atomgpu_cr_create(&desc, &mut model) };
    assert_eq!(status, ATOMGPU_OK, "cr_create: {}", last_message());
    model
}

/// A line-strength handle of two vibrational functions with a J = 0 block (states 0, 100 cm^-1)
/// and a J = 1 block (K = 0, tau = 1; states 10, 110 cm^-1), dipole along z.
fn linestrength_handle() -> (*mut atomgpu_linestrength, i32, i32) {
    let mut dipole = [0.0; 12];
    dipole[8..].copy_from_slice(&[1.0, 0.3, 0.3, 0.8]);
    let mut h = null_mut();
    assert_eq!(unsafe { atomgpu_linestrength_create(2, dipole.as_ptr(), 2, 0, &mut h) }, ATOMGPU_OK);
    let mut blocks = [-1, -1];
    for (j, block) in blocks.iter_mut().enumerate() {
        let (v, k, tau) = ([0i64, 1], [0i32, 0], [j as i32, j as i32]);
        let status = unsafe {
            atomgpu_linestrength_add_block(
                h,
                j as i32,
                1.0,
                2,
                v.as_ptr(),
                k.as_ptr(),
                tau.as_ptr(),
                0,
                null(),
                null(),
                null(),
                block,
            )
        };
        assert_eq!(status, ATOMGPU_OK, "add_block: {}", last_message());
        let energies = [10.0 * j as f64, 100.0 + 10.0 * j as f64];
        let vectors = [1.0, 0.0, 0.0, 1.0];
        let status = unsafe { atomgpu_linestrength_set_states(h, *block, 2, energies.as_ptr(), vectors.as_ptr(), 2) };
        assert_eq!(status, ATOMGPU_OK, "set_states: {}", last_message());
    }
    (h, blocks[0], blocks[1])
}

fn line_list_params() -> atomgpu_intensity_params {
    atomgpu_intensity_params {
        temperature: 296.0,
        partition_function: 1.0,
        zpe: 0.0,
        freq_window: [0.0, 1e6],
        lower_energy: [-1e6, 1e6],
        upper_energy: [-1e6, 1e6],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 1,
        convention: 0,
        action: 0,
    }
}

/// The count query of a line list from `lower` into `upper`: (status, n_lines), n_lines -7 when
/// not written.
fn count_lines(h: *mut atomgpu_linestrength, lower: i32, upper: i32) -> (i32, i64) {
    let (p, mut n_lines) = (line_list_params(), -7i64);
    let status = unsafe { atomgpu_linestrength_line_list(h, lower, 1, &upper, &p, null(), &mut n_lines) };
    (status, n_lines)
}

#[test]
fn destroyed_foreign_and_made_up_handles_are_refused() {
    let model = cr_model();
    let (h, _, _) = linestrength_handle();
    let mut n = -7i64;
    // A handle of the other family, either way round.
    let foreign_model = h as *const atomgpu_cr;
    refused(
        "n_levels(line-strength handle)",
        unsafe { atomgpu_cr_n_levels(foreign_model, &mut n) },
        1,
        "line-strength",
    );
    refused(
        "destroy a CR handle as a line-strength one",
        unsafe { atomgpu_linestrength_destroy(model.cast()) },
        1,
        "CR model",
    );
    let (mut block, mut lower) = (0i32, 0i64);
    let status = unsafe { atomgpu_linestrength_loaded_batch(model.cast(), &mut block, &mut lower) };
    refused("loaded_batch(CR handle)", status, 1, "is a CR model");
    // Made-up values are looked up, never dereferenced.
    let local = 5u64;
    for fake in [0x1234usize, 0xA7FF_FFFF_FFFF_FFF0, &local as *const u64 as usize] {
        refused(
            "n_levels(made-up handle)",
            unsafe { atomgpu_cr_n_levels(fake as *const atomgpu_cr, &mut n) },
            1,
            "not a live",
        );
        refused("destroy(made-up handle)", unsafe { atomgpu_linestrength_destroy(fake as *mut _) }, 1, "not a live");
    }
    assert_eq!(n, -7, "no output written on error");
    // Still alive after the refused destroys; then destroyed once, and refused after.
    assert_eq!(unsafe { atomgpu_cr_n_levels(model, &mut n) }, ATOMGPU_OK);
    assert_eq!(n, 3);
    assert_eq!(unsafe { atomgpu_cr_destroy(model) }, ATOMGPU_OK);
    refused("second destroy", unsafe { atomgpu_cr_destroy(model) }, 1, "destroyed");
    refused("use after destroy", unsafe { atomgpu_cr_n_levels(model, &mut n) }, 1, "destroyed");
    assert_eq!(unsafe { atomgpu_linestrength_destroy(h) }, ATOMGPU_OK);
    let status = unsafe { atomgpu_linestrength_loaded_batch(h, &mut block, &mut lower) };
    refused("line-strength use after destroy", status, 1, "destroyed");
    assert_eq!(unsafe { atomgpu_cr_destroy(null_mut()) }, ATOMGPU_OK, "destroying NULL is a no-op");
    assert_eq!(unsafe { atomgpu_linestrength_destroy(null_mut()) }, ATOMGPU_OK);
}

/// What the callbacks below see and do.
struct Watch {
    calls: u32,
    stop_at_call: u32,
    last: (f64, f64),
    task: String,
    /// A handle to act on from inside the callback, and the status that call got.
    model: *mut atomgpu_cr,
    linestrength: *mut atomgpu_linestrength,
    inner_status: i32,
}

impl Watch {
    fn new(stop_at_call: u32) -> Watch {
        Watch {
            calls: 0,
            stop_at_call,
            last: (0.0, 0.0),
            task: String::new(),
            model: null_mut(),
            linestrength: null_mut(),
            inner_status: -1,
        }
    }
}

unsafe extern "C" fn watch(user_data: *mut c_void, task: *const c_char, done: f64, total: f64) -> i32 {
    let w = &mut *(user_data as *mut Watch);
    w.calls += 1;
    w.last = (done, total);
    w.task = CStr::from_ptr(task).to_string_lossy().into_owned();
    if !w.model.is_null() {
        w.inner_status = atomgpu_cr_destroy(w.model);
        w.model = null_mut();
    }
    if !w.linestrength.is_null() {
        let (mut a, mut b, mut c) = (0i64, 0i64, 0i64);
        w.inner_status = atomgpu_linestrength_block_size(w.linestrength, 0, &mut a, &mut b, &mut c);
    }
    (w.calls == w.stop_at_call) as i32
}

/// Runs RK4 on the 3-level model for `n_steps` steps of 1e-16 s from y; returns the status.
fn run_rk4(model: *const atomgpu_cr, y: &mut [f64; 4], n_steps: i64) -> i32 {
    let mut n_samples = -7i64;
    let (mut t, mut te, mut ne, mut pops) = ([0.0; 2], [0.0; 2], [0.0; 2], [0.0; 6]);
    unsafe {
        atomgpu_cr_run_rk4(
            model,
            y.as_mut_ptr(),
            1e-16,
            n_steps,
            n_steps,
            2,
            &mut n_samples,
            t.as_mut_ptr(),
            te.as_mut_ptr(),
            ne.as_mut_ptr(),
            pops.as_mut_ptr(),
        )
    }
}

fn initial_state(model: *const atomgpu_cr) -> [f64; 4] {
    let mut y = [0.0; 4];
    let pops = [6e20, 3e20, 1e20];
    assert_eq!(unsafe { atomgpu_cr_initial_state(model, pops.as_ptr(), 3.0, y.as_mut_ptr()) }, ATOMGPU_OK);
    y
}

#[test]
fn the_progress_callback_stops_a_run_and_sees_its_progress() {
    let model = cr_model();
    let y0 = initial_state(model);
    let mut w = Watch::new(3);
    assert_eq!(unsafe { atomgpu_set_progress(Some(watch), &mut w as *mut Watch as *mut c_void, 0.0) }, ATOMGPU_OK);
    let mut y = y0;
    // 200 steps: the CPU reports every step, a GPU every launch of at most 64 steps.
    let status = run_rk4(model, &mut y, 200);
    assert_eq!(status, ATOMGPU_ERR_CANCELLED, "{}", last_message());
    assert!(last_message().contains("progress callback"), "{}", last_message());
    assert_eq!(y, y0, "y untouched when the run is cancelled");
    assert_eq!((w.calls, w.task.as_str()), (3, "atomgpu_cr_run_rk4"));
    assert!(w.last.0 >= 3.0 && w.last.0 < 200.0 && w.last.1 == 200.0, "{:?}", w.last);
    // A callback that lets the run go on sees it to the end.
    let mut w = Watch::new(0);
    unsafe { atomgpu_set_progress(Some(watch), &mut w as *mut Watch as *mut c_void, 0.0) };
    assert_eq!(run_rk4(model, &mut y, 200), ATOMGPU_OK, "{}", last_message());
    assert_eq!(w.last, (200.0, 200.0));
    assert!(w.calls >= 4, "{} calls", w.calls);
    // Removed: no more calls.
    assert_eq!(unsafe { atomgpu_set_progress(None, null_mut(), 0.0) }, ATOMGPU_OK);
    refused("interval_s = -1", unsafe { atomgpu_set_progress(Some(watch), null_mut(), -1.0) }, 3, "interval_s");
    refused("interval_s = NaN", unsafe { atomgpu_set_progress(Some(watch), null_mut(), f64::NAN) }, 3, "interval_s");
    assert_eq!(unsafe { atomgpu_cr_destroy(model) }, ATOMGPU_OK);
}

#[test]
fn the_time_limit_stops_a_run_that_would_take_for_ever() {
    let model = cr_model();
    let y0 = initial_state(model);
    let mut y = y0;
    refused("n_steps = 2^62", run_rk4(model, &mut y, 1 << 62), 4, "n_steps");
    // One step first: on a GPU the first run compiles the kernels, which no limit interrupts.
    assert_eq!(run_rk4(model, &mut y, 1), ATOMGPU_OK, "{}", last_message());
    y = y0;
    assert_eq!(atomgpu_set_time_limit(0.3), ATOMGPU_OK);
    let start = std::time::Instant::now();
    let status = run_rk4(model, &mut y, 1 << 50);
    let message = last_message();
    assert_eq!(atomgpu_set_time_limit(0.0), ATOMGPU_OK);
    assert_eq!(status, ATOMGPU_ERR_CANCELLED, "{message}");
    assert!(message.contains("time limit"), "{message}");
    assert!(start.elapsed().as_secs_f64() < 10.0, "stopped after {:?}", start.elapsed());
    assert_eq!(y, y0);
    refused("time limit -1", atomgpu_set_time_limit(-1.0), 1, "seconds");
    assert_eq!(unsafe { atomgpu_cr_destroy(model) }, ATOMGPU_OK);
}

/// n_steps outside [1, 2^53] is refused with that range (a step count, not an array size, so no
/// "address space" message), and a bad state among several cells names its cell and its element
/// of `y` (cell 2 of 3, level 1: y[2*4 + 1] = y[9]).
#[test]
fn out_of_range_steps_and_bad_cells_are_named() {
    let model = cr_model();
    let y0 = initial_state(model);
    for n_steps in [(1i64 << 53) + 1, 1 << 60, 1 << 62, i64::MAX, 0, -1] {
        let mut y = y0;
        refused(&format!("n_steps = {n_steps}"), run_rk4(model, &mut y, n_steps), 4, "must be in [1, 2^53]");
        assert!(!last_message().contains("address space"), "{}", last_message());
        assert_eq!(y, y0);
    }
    let mut y: Vec<f64> = [y0, y0, y0].concat();
    y[2 * 4 + 1] = -1.0;
    let before = y.clone();
    let times = [1e-15];
    let (mut te, mut ne, mut pops) = ([0.0; 3], [0.0; 3], [0.0; 9]);
    let status = unsafe {
        atomgpu_cr_run_stiff_systems(
            model,
            3,
            y.as_mut_ptr(),
            1,
            times.as_ptr(),
            1e-6,
            1e-10,
            te.as_mut_ptr(),
            ne.as_mut_ptr(),
            pops.as_mut_ptr(),
        )
    };
    refused("cell 2 with a negative population", status, 3, "argument `y`[9]: cell 2 (y[2*4 + 1]): population");
    assert_eq!(y, before);
    assert_eq!(unsafe { atomgpu_cr_destroy(model) }, ATOMGPU_OK);
}

#[test]
fn a_callback_may_destroy_the_running_model_but_not_wait_on_its_own_handle() {
    let model = cr_model();
    let mut y = initial_state(model);
    let mut w = Watch::new(0);
    w.model = model;
    unsafe { atomgpu_set_progress(Some(watch), &mut w as *mut Watch as *mut c_void, 0.0) };
    assert_eq!(run_rk4(model, &mut y, 5), ATOMGPU_OK, "the run finishes on the model it holds");
    assert_eq!(w.inner_status, ATOMGPU_OK, "destroy from the callback");
    let mut n = 0i64;
    refused("the destroyed model", unsafe { atomgpu_cr_n_levels(model, &mut n) }, 1, "destroyed");

    let (h, lower, upper) = linestrength_handle();
    let mut w = Watch::new(0);
    w.linestrength = h;
    unsafe { atomgpu_set_progress(Some(watch), &mut w as *mut Watch as *mut c_void, 0.0) };
    let (status, n_lines) = count_lines(h, lower, upper);
    assert_eq!(status, ATOMGPU_OK, "{}", last_message());
    assert_eq!(n_lines, 3, "0 -> 10, 0 -> 110 and 100 -> 110 cm^-1 absorb (100 -> 10 emits)");
    assert_eq!(w.task, "atomgpu_linestrength_line_list");
    assert_eq!(w.last, (2.0, 2.0), "lower states done of the block's");
    assert_eq!(w.inner_status, ATOMGPU_ERR_INVALID_ARGUMENT, "a call on the locked handle is refused");
    // The callback can also stop the list.
    let mut w = Watch::new(1);
    unsafe { atomgpu_set_progress(Some(watch), &mut w as *mut Watch as *mut c_void, 0.0) };
    let (status, n_lines) = count_lines(h, lower, upper);
    assert_eq!((status, n_lines), (ATOMGPU_ERR_CANCELLED, -7));
    unsafe { atomgpu_set_progress(None, null_mut(), 0.0) };
    assert_eq!(unsafe { atomgpu_linestrength_destroy(h) }, ATOMGPU_OK);
}

/// In a child process (this test binary run again for this test alone): a panic inside the
/// guard is status 6 with its message and no output; the rayon worker threads too; a panic in a
/// host thread still goes to the host's hook. The parent checks the child's stderr.
#[test]
fn panics_inside_the_library_print_nothing() {
    const CHILD: &str = "ATOMGPU_TEST_PANIC_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let status = guard(&[], || panic!("boom from the calling thread"));
        assert_eq!(status, ATOMGPU_ERR_INTERNAL);
        assert!(last_message().contains("boom from the calling thread"), "{}", last_message());
        let status = guard(&[], || {
            use rayon::prelude::*;
            (0..64).into_par_iter().for_each(|i| assert!(i != 40, "boom from a worker"));
            Ok(())
        });
        assert_eq!(status, ATOMGPU_ERR_INTERNAL);
        let host = std::thread::spawn(|| panic!("host panic outside atomgpu"));
        assert!(host.join().is_err());
        return;
    }
    let me = std::env::current_exe().unwrap();
    let run = |log: bool| {
        let mut command = std::process::Command::new(&me);
        command.args(["--exact", "panics_inside_the_library_print_nothing", "--nocapture", "--test-threads=1"]);
        command.env(CHILD, "1").env_remove("ATOMGPU_LOG").env("RUST_BACKTRACE", "0");
        if log {
            command.env("ATOMGPU_LOG", "1");
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stdout));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let quiet = run(false);
    assert!(!quiet.contains("boom"), "panics inside atomgpu reached stderr:\n{quiet}");
    assert!(quiet.contains("host panic outside atomgpu"), "the host's own panic hook was replaced:\n{quiet}");
    let logged = run(true);
    assert!(logged.contains("boom from the calling thread"), "ATOMGPU_LOG=1 shows caught panics:\n{logged}");
}
