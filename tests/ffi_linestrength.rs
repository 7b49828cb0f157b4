//! The C ABI of the line-strength family (src/ffi/linestrength.rs), called from Rust through its
//! `extern "C"` functions, against closed forms:
//! - a diatomic J = 1 <- 0 line: A = A_coef mu^2 nu^3 / 3 s^-1 (paper eq. 1 in TROVE's
//!   units with the R(0) Hoenl-London factor), S = mu^2, a^2 = mu^2 / 3;
//! - the Hoenl-London factors of a parallel band of a symmetric top (Herzberg II, eqs. IV,81;
//!   Bunker & Jensen table 14-5): for J'' = 4, K = 2, P (J^2-K^2)/J = 3.0, Q K^2(2J+1)/(J(J+1)) =
//!   1.8, R ((J+1)^2-K^2)/(J+1) = 4.2, as sum_f (2J'+1)(2J''+1) a^2 over full upper Wang sets
//!   (amplitudes; half-linestrengths; an upper block given through a sparse orthogonal unfolding);
//! - a vibrational J = 1 <- 0 band of two vibrational functions: each absorbing line has
//!   A = A_coef mu_(v v')^2 nu^3 / 3, with the count query and the capacity rule of
//!   atomgpu_linestrength_line_list;
//! - degenerate species (issue 13) on a rigid symmetric top in C3v(M): an E level's line strength
//!   is the Hoenl-London factor of its K through TROVE's sum over the component pairs / ndeg''
//!   (also with REDUCED), NULL filters are the rule-free defaults, the species rule and the counts,
//!   write_exomol's .trans holds the kept lines;
//! - bad input: status, 1-based position (fields of `params` at `params`, of the filters at
//!   `filters`), the name in the message and untouched outputs (the same rules as
//!   tests/c/test_linestrength_bad_input.c), a file that cannot be written ATOMGPU_ERR_IO.
//!
//! The handles run on the backend `auto` picks (the CPU without a GPU).

use atomgpu::ffi::common::*;
use atomgpu::ffi::linestrength::*;
use std::ffi::c_char;
use std::ptr::{null, null_mut};

const SENTINEL: f64 = -12345.0;
const ISENTINEL: i64 = -7;
/// Paper eq. 1 prefactor in TROVE's units (s^-1 D^-2 cm^3).
/// 64 pi^4 1e-36 / (3h), CODATA 2018 h = 6.62607015e-27 erg s: mpmath (300 bits),
/// 3.13618866338954369161142535951e-7.
const EINSTEIN: f64 = 3.1361886633895437e-7;

fn last_message() -> String {
    let n = unsafe { atomgpu_last_error_message(null_mut(), 0) };
    let mut buffer = vec![0 as c_char; n as usize + 1];
    unsafe { atomgpu_last_error_message(buffer.as_mut_ptr(), buffer.len()) };
    let bytes: Vec<u8> = buffer[..n as usize].iter().map(|&c| c as u8).collect();
    String::from_utf8(bytes).expect("message is UTF-8")
}

fn ok(what: &str, status: i32) {
    assert_eq!(status, ATOMGPU_OK, "{what}: {}", last_message());
}

fn params() -> atomgpu_intensity_params {
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
        batch: 3,
        convention: 0,
        action: 0,
    }
}

/// An owned handle, destroyed on drop.
struct Handle(*mut atomgpu_linestrength);

impl Handle {
    /// `n_vib` vibrational functions, dipole only along z: `mu_z[v + n_vib v']`.
    fn parallel(n_vib: usize, mu_z: &[f64]) -> Handle {
        let mut dipole = vec![0.0; 3 * n_vib * n_vib];
        dipole[2 * n_vib * n_vib..].copy_from_slice(mu_z);
        let mut h = null_mut();
        ok("create", unsafe { atomgpu_linestrength_create(n_vib as i64, dipole.as_ptr(), n_vib as i64, 0, &mut h) });
        assert!(!h.is_null());
        Handle(h)
    }

    fn add_block(&self, j: i32, v: &[i64], k: &[i32], tau: &[i32]) -> i32 {
        let mut b = -1;
        let n = v.len() as i64;
        ok("add_block", unsafe {
            atomgpu_linestrength_add_block(
                self.0,
                j,
                1.0,
                n,
                v.as_ptr(),
                k.as_ptr(),
                tau.as_ptr(),
                0,
                null(),
                null(),
                null(),
                &mut b,
            )
        });
        b
    }

    fn set_states(&self, block: i32, energies: &[f64], vectors: &[f64], ld: usize) {
        ok("set_states", unsafe {
            atomgpu_linestrength_set_states(
                self.0,
                block,
                energies.len() as i64,
                energies.as_ptr(),
                vectors.as_ptr(),
                ld as i64,
            )
        });
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { atomgpu_linestrength_destroy(self.0) };
    }
}

/// Wang functions of a full J block: K = 0 with tau = J mod 2 (TROVE), K = 1..J with tau 0 and 1.
fn wang_set(j: i32) -> (Vec<i64>, Vec<i32>, Vec<i32>) {
    let mut labels = vec![(0, j % 2)];
    for k in 1..=j {
        labels.push((k, 0));
        labels.push((k, 1));
    }
    (vec![0; labels.len()], labels.iter().map(|l| l.0).collect(), labels.iter().map(|l| l.1).collect())
}

fn identity(n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i + n * i] = 1.0;
    }
    m
}

/// All lines of `lower` into `uppers` (count query, then a call with exactly that capacity).
struct Lines {
    upper_id: Vec<i64>,
    lower_id: Vec<i64>,
    einstein_a: Vec<f64>,
    wavenumber: Vec<f64>,
    linestrength: Vec<f64>,
}

/// The output arrays of a line list of `capacity` lines in `upper_id`, `lower_id` and
/// [A, nu, S, I], which must outlive the struct.
fn line_arrays(
    capacity: i64,
    upper_id: &mut [i64],
    lower_id: &mut [i64],
    [a, nu, s, i]: [&mut [f64]; 4],
) -> atomgpu_line_arrays {
    atomgpu_line_arrays {
        capacity,
        upper_id: upper_id.as_mut_ptr(),
        lower_id: lower_id.as_mut_ptr(),
        einstein_a: a.as_mut_ptr(),
        wavenumber: nu.as_mut_ptr(),
        linestrength: s.as_mut_ptr(),
        intensity: i.as_mut_ptr(),
    }
}

fn line_list(h: &Handle, lower: i32, uppers: &[i32], p: &atomgpu_intensity_params) -> Lines {
    let mut n = -1;
    ok("count query", unsafe {
        atomgpu_linestrength_line_list(h.0, lower, uppers.len() as i32, uppers.as_ptr(), p, null(), &mut n)
    });
    assert!(n >= 0);
    let m = n as usize;
    let (mut up, mut lo) = (vec![ISENTINEL; m + 1], vec![ISENTINEL; m + 1]);
    let (mut a, mut nu, mut s, mut i) =
        (vec![SENTINEL; m + 1], vec![SENTINEL; m + 1], vec![SENTINEL; m + 1], vec![SENTINEL; m + 1]);
    let mut written = -1;
    let arrays = line_arrays(n + 1, &mut up, &mut lo, [&mut a, &mut nu, &mut s, &mut i]);
    ok("line_list", unsafe {
        atomgpu_linestrength_line_list(h.0, lower, uppers.len() as i32, uppers.as_ptr(), p, &arrays, &mut written)
    });
    assert_eq!(written, n, "the count query and the list agree");
    assert!(up[m] == ISENTINEL && a[m] == SENTINEL && i[m] == SENTINEL, "entry past n_lines untouched");
    up.truncate(m);
    lo.truncate(m);
    a.truncate(m);
    nu.truncate(m);
    s.truncate(m);
    Lines { upper_id: up, lower_id: lo, einstein_a: a, wavenumber: nu, linestrength: s }
}

fn rel(got: f64, want: f64) -> f64 {
    ((got - want) / want).abs()
}

#[test]
fn diatomic_j1_from_j0_has_the_closed_form_einstein_a() {
    let (mu, b) = (1.7, 10.3);
    let nu = 2.0 * b;
    let h = Handle::parallel(1, &[mu]);
    let lower = h.add_block(0, &[0], &[0], &[0]);
    // A diatomic (Lambda = 0) has only K = 0: the J = 1 state is |1, 0, tau = 1>.
    let upper = h.add_block(1, &[0], &[0], &[1]);
    h.set_states(lower, &[0.0], &[1.0], 1);
    h.set_states(upper, &[nu], &[1.0], 1);
    let lines = line_list(&h, lower, &[upper], &params());
    assert_eq!(lines.einstein_a.len(), 1);
    let want = EINSTEIN * mu * mu * nu.powi(3) / 3.0;
    assert!(rel(lines.einstein_a[0], want) < 1e-12, "A = {} vs {want}", lines.einstein_a[0]);
    assert!(rel(lines.linestrength[0], mu * mu) < 1e-12, "S = {} vs mu^2", lines.linestrength[0]);
    assert!(rel(lines.wavenumber[0], nu) < 1e-14);
    assert_eq!((lines.upper_id[0], lines.lower_id[0]), (2, 1));

    let mut a = SENTINEL;
    ok("load_lower", unsafe { atomgpu_linestrength_load_lower(h.0, lower, 1, [1.0].as_ptr(), 1, 0.0) });
    ok("amplitudes", unsafe { atomgpu_linestrength_amplitudes(h.0, upper, 0.0, &mut a, 1, 1) });
    assert!(rel(a * a, mu * mu / 3.0) < 1e-13, "a^2 = {} vs mu^2/3", a * a);
}

/// The loaded batch as `atomgpu_linestrength_loaded_batch` reports it.
fn loaded(h: &Handle) -> (i32, i64) {
    let (mut block, mut n) = (7, 7);
    ok("loaded_batch", unsafe { atomgpu_linestrength_loaded_batch(h.0, &mut block, &mut n) });
    (block, n)
}

#[test]
fn loaded_batch_follows_load_lower_and_line_list() {
    let h = Handle::parallel(1, &[1.0]);
    let lower = h.add_block(0, &[0], &[0], &[0]);
    let upper = h.add_block(1, &[0], &[0], &[1]);
    h.set_states(lower, &[0.0], &[1.0], 1);
    h.set_states(upper, &[2.0], &[1.0], 1);
    assert_eq!(loaded(&h), (-1, 0), "nothing loaded after create");
    ok("load_lower", unsafe { atomgpu_linestrength_load_lower(h.0, lower, 2, [1.0, 0.5].as_ptr(), 1, 0.0) });
    assert_eq!(loaded(&h), (lower, 2));
    // A refused load leaves the batch as it was.
    let status = unsafe { atomgpu_linestrength_load_lower(h.0, lower, 1, [f64::NAN].as_ptr(), 1, 0.0) };
    assert_eq!(status, ATOMGPU_ERR_INVALID_ARGUMENT);
    assert_eq!(loaded(&h), (lower, 2));
    line_list(&h, lower, &[upper], &params());
    assert_eq!(loaded(&h), (-1, 0), "line_list replaces the batch");
    let status = unsafe { atomgpu_linestrength_loaded_batch(h.0, null_mut(), null_mut()) };
    assert_eq!((status, atomgpu_last_error_arg()), (ATOMGPU_ERR_INVALID_ARGUMENT, 2));
}

/// The parallel-band Hoenl-London factor sum_f (2J'+1)(2J''+1) x_f^2 of values `x`.
fn hoenl_london(jp: i32, x: &[f64]) -> f64 {
    x.iter().map(|a| ((2 * jp + 1) * 9) as f64 * a * a).sum()
}

#[test]
fn parallel_band_gives_the_hoenl_london_factors() {
    let h = Handle::parallel(1, &[1.0]);
    let lower = h.add_block(4, &[0], &[2], &[0]);
    ok("load_lower", unsafe { atomgpu_linestrength_load_lower(h.0, lower, 1, [1.0].as_ptr(), 1, 0.0) });
    let mut total = 0.0;
    for (jp, want) in [(3, 3.0), (4, 1.8), (5, 4.2)] {
        let (v, k, tau) = wang_set(jp);
        let n = v.len();
        let upper = h.add_block(jp, &v, &k, &tau);
        h.set_states(upper, &vec![1.0; n], &identity(n), n);
        // Leading dimension n + 2 and two columns where one is needed: the two padding rows and
        // the second column stay untouched.
        let ld = n + 2;
        let mut a = vec![SENTINEL; 2 * ld];
        ok("amplitudes", unsafe { atomgpu_linestrength_amplitudes(h.0, upper, 0.0, a.as_mut_ptr(), ld as i64, 2) });
        let factor = hoenl_london(jp, &a[..n]);
        assert!((factor - want).abs() < 1e-13, "J' = {jp}: amplitudes give {factor}, Hoenl-London {want}");
        assert!(a[n..].iter().all(|&x| x == SENTINEL));
        let mut half = vec![SENTINEL; 2 * ld];
        ok("half", unsafe { atomgpu_linestrength_half(h.0, upper, 0.0, half.as_mut_ptr(), ld as i64, 2) });
        assert!(half[n..].iter().all(|&x| x == SENTINEL));
        let factor_half = hoenl_london(jp, &half[..n]);
        assert!(
            (factor_half - want).abs() < 1e-13,
            "J' = {jp}: half-linestrengths give {factor_half}, Hoenl-London {want}"
        );
        total += factor;
    }
    assert!((total - 9.0).abs() < 1e-13, "P + Q + R = {total}, want 2J''+1 = 9");
}

#[test]
fn a_symmetrised_upper_block_gives_the_same_hoenl_london_factor() {
    // J' = 4 Wang set (9 functions) given through an orthogonal unfolding T: functions 1 and 2
    // mixed by a rotation, function 5 with a sign flip, the others as they are. The upper states
    // are the symmetrised basis vectors (identity), a complete orthonormal set of the block, so
    // the Q-branch factor 1.8 (J'' = 4, K = 2) is unchanged.
    let h = Handle::parallel(1, &[1.0]);
    let lower = h.add_block(4, &[0], &[2], &[0]);
    ok("load_lower", unsafe { atomgpu_linestrength_load_lower(h.0, lower, 1, [1.0].as_ptr(), 1, 0.0) });
    let (v, k, tau) = wang_set(4);
    let n = v.len();
    let (c, s) = (0.6, 0.8);
    let mut row_start = vec![0i64];
    let (mut col, mut value) = (vec![], vec![]);
    for p in 0..n {
        match p {
            1 => {
                col.extend([1, 2]);
                value.extend([c, -s]);
            }
            2 => {
                col.extend([1, 2]);
                value.extend([s, c]);
            }
            5 => {
                col.push(5);
                value.push(-1.0);
            }
            _ => {
                col.push(p as i64);
                value.push(1.0);
            }
        }
        row_start.push(col.len() as i64);
    }
    let mut upper = -1;
    ok("add_block with an unfolding", unsafe {
        atomgpu_linestrength_add_block(
            h.0,
            4,
            1.0,
            n as i64,
            v.as_ptr(),
            k.as_ptr(),
            tau.as_ptr(),
            n as i64,
            row_start.as_ptr(),
            col.as_ptr(),
            value.as_ptr(),
            &mut upper,
        )
    });
    let (mut np, mut nc, mut ns) = (-1, -1, -1);
    ok("block_size", unsafe { atomgpu_linestrength_block_size(h.0, upper, &mut np, &mut nc, &mut ns) });
    assert_eq!((np, nc, ns), (9, 9, 0));
    h.set_states(upper, &vec![1.0; n], &identity(n), n);
    let mut a = vec![SENTINEL; n];
    ok("amplitudes", unsafe { atomgpu_linestrength_amplitudes(h.0, upper, 0.0, a.as_mut_ptr(), n as i64, 1) });
    let factor = hoenl_london(4, &a);
    assert!((factor - 1.8).abs() < 1e-13, "Q branch through the unfolding: {factor}, want 1.8");
}

/// Two vibrational functions, dipole mu_z(v, v') (symmetric), J = 0 (E = 0, 1000) -> J = 1
/// (E = 20, 1020 cm^-1), identity vectors.
fn vibrational_band() -> (Handle, [f64; 4]) {
    let mu = [1.0, 0.1, 0.1, 1.2];
    let h = Handle::parallel(2, &mu);
    let lower = h.add_block(0, &[0, 1], &[0, 0], &[0, 0]);
    let upper = h.add_block(1, &[0, 1], &[0, 0], &[1, 1]);
    h.set_states(lower, &[0.0, 1000.0], &identity(2), 2);
    h.set_states(upper, &[20.0, 1020.0], &identity(2), 2);
    (h, mu)
}

#[test]
fn vibrational_band_lines_count_query_and_capacity() {
    let (h, mu) = vibrational_band();
    let p = params();
    // Three lines absorb: 0 -> 0 (20 cm^-1), 0 -> 1 (1020), 1 -> 1 (20); 1 -> 0 is emission.
    let lines = line_list(&h, 0, &[1], &p);
    let expected = [(3, 1, 20.0, mu[0]), (4, 1, 1020.0, mu[2]), (4, 2, 20.0, mu[3])];
    assert_eq!(lines.einstein_a.len(), 3);
    for (l, &(up, lo, nu, m)) in expected.iter().enumerate() {
        assert_eq!((lines.upper_id[l], lines.lower_id[l]), (up, lo), "line {l}");
        assert!(rel(lines.wavenumber[l], nu) < 1e-14);
        let want = EINSTEIN * m * m * nu * nu * nu / 3.0;
        assert!(rel(lines.einstein_a[l], want) < 1e-12, "line {l}: A = {} vs {want}", lines.einstein_a[l]);
        assert!(rel(lines.linestrength[l], m * m) < 1e-12, "line {l}: S = {} vs mu^2", lines.linestrength[l]);
    }
    // Capacity 2 < 3: refused at `lines` (6), naming its field `capacity`, with the count in the
    // message, nothing written.
    let mut n = ISENTINEL;
    let (mut up, mut lo) = ([ISENTINEL; 2], [ISENTINEL; 2]);
    let (mut a, mut nu, mut s, mut i) = ([SENTINEL; 2], [SENTINEL; 2], [SENTINEL; 2], [SENTINEL; 2]);
    let arrays = line_arrays(2, &mut up, &mut lo, [&mut a, &mut nu, &mut s, &mut i]);
    let status = unsafe { atomgpu_linestrength_line_list(h.0, 0, 1, [1].as_ptr(), &p, &arrays, &mut n) };
    assert_eq!(status, ATOMGPU_ERR_INVALID_ARGUMENT);
    assert_eq!(atomgpu_last_error_arg(), 6);
    let message = last_message();
    assert!(message.contains("`lines`: field `capacity`") && message.contains("number of lines, 3"), "{message}");
    assert_eq!(n, ISENTINEL);
    assert!(up.iter().chain(&lo).all(|&x| x == ISENTINEL));
    assert!(a.iter().chain(&nu).chain(&s).chain(&i).all(|&x| x == SENTINEL));
    // State IDs: blocks in registration order.
    for (block, state, want) in [(0, 0, 1), (0, 1, 2), (1, 0, 3), (1, 1, 4)] {
        let mut id = ISENTINEL;
        ok("state_id", unsafe { atomgpu_linestrength_state_id(h.0, block, state, &mut id) });
        assert_eq!(id, want);
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input.

/// Checks a refused call: `status`, the position and name of the argument, a fragment of the
/// message, and that every output still holds its sentinel (`untouched`).
/// `message` and `arg` are what `atomgpu_last_error_message` and `atomgpu_last_error_arg` gave
/// right after the call.
#[allow(clippy::too_many_arguments)]
fn expect_bad(
    failures: &mut Vec<String>,
    what: &str,
    status: i32,
    (message, arg): (String, i32),
    position: i32,
    name: &str,
    fragment: Option<&str>,
    untouched: bool,
) {
    if status != ATOMGPU_ERR_INVALID_ARGUMENT {
        failures.push(format!("{what}: status {status}, want ATOMGPU_ERR_INVALID_ARGUMENT ({message})"));
    }
    if arg != position {
        failures.push(format!("{what}: atomgpu_last_error_arg() = {arg}, want {position} ({name}): {message}"));
    }
    if !message.contains(&format!("`{name}`")) || fragment.is_some_and(|f| !message.contains(f)) {
        failures.push(format!("{what}: message `{message}` does not name `{name}` {}", fragment.unwrap_or("")));
    }
    if !untouched {
        failures.push(format!("{what}: an output was written on error"));
    }
}

/// Makes one call and checks it at once (the last error belongs to the last call, so it is read
/// before `untouched`, which may call the library, is evaluated):
/// `bad!(failures, what, call, position, name, fragment, untouched)`.
macro_rules! bad {
    ($f:expr, $what:expr, $call:expr, $pos:expr, $name:expr, $frag:expr, $untouched:expr) => {{
        let status = $call;
        let last = (last_message(), atomgpu_last_error_arg());
        let untouched = $untouched;
        expect_bad(&mut $f, &$what, status, last, $pos, $name, $frag, untouched);
    }};
}

fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

// The two tables below are kept one call per line (rustfmt would spread each over ten).
#[test]
#[rustfmt::skip]
fn create_and_add_block_reject_bad_input() {
    let mut f = Vec::new();
    let dipole = [0.0, 0.0, 1.0, 0.0, 0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0];
    let mut nan = dipole;
    nan[10] = f64::NAN;
    let marker = 0u8;
    let sentinel = &marker as *const u8 as *mut atomgpu_linestrength;
    let mut h = sentinel;
    let out: *mut *mut atomgpu_linestrength = &mut h;
    let d = dipole.as_ptr();
    let create = |n: i64, dp: *const f64, ld: i64, bytes: i64, o: *mut *mut atomgpu_linestrength| unsafe {
        atomgpu_linestrength_create(n, dp, ld, bytes, o)
    };
    let same = || unsafe { *out == sentinel };
    bad!(f, "create: negative n_vib", create(-2, d, 2, 0, out), 1, "n_vib", None, same());
    bad!(f, "create: zero n_vib", create(0, d, 2, 0, out), 1, "n_vib", None, same());
    bad!(f, "create: absurd n_vib", create(i64::MAX, d, i64::MAX, 0, out), 1, "n_vib", None, same());
    bad!(f, "create: NULL dipole", create(2, null(), 2, 0, out), 2, "dipole", None, same());
    bad!(f, "create: NaN dipole", create(2, nan.as_ptr(), 2, 0, out), 2, "dipole", Some("[10]"), same());
    bad!(f, "create: ld_dipole < n_vib", create(2, d, 1, 0, out), 3, "ld_dipole", None, same());
    bad!(f, "create: negative max_device_bytes", create(2, d, 2, -1, out), 4, "max_device_bytes", None, same());
    bad!(f, "create: NULL handle", create(2, d, 2, 0, null_mut()), 5, "handle", None, same());
    unsafe { atomgpu_linestrength_destroy(null_mut()) }; // accepted

    let h = Handle::parallel(2, &[1.0, 0.1, 0.1, 1.2]);
    let (v, k, tau) = ([0i64, 1], [0i32, 0], [0i32, 0]);
    let (v_bad, v_repeated, k_bad, tau_bad) = ([0i64, 2], [1i64, 1], [0i32, 1], [2i32, 0]);
    let (rs, col, val) = ([0i64, 1, 2], [0i64, 1], [1.0, 1.0]);
    let (rs_bad, col_bad, val_nan) = ([0i64, 2, 1], [0i64, 2], [1.0, f64::NAN]);
    let mut block = -7;
    let b_out: *mut i32 = &mut block;
    let (vp, kp, tp, rp, cp, xp) = (v.as_ptr(), k.as_ptr(), tau.as_ptr(), rs.as_ptr(), col.as_ptr(), val.as_ptr());
    #[allow(clippy::type_complexity)]
    let add = |hh: *mut atomgpu_linestrength, j: i32, gns: f64, n: i64, v: *const i64, k: *const i32, tau: *const i32, n_sym: i64,
               rs: *const i64, col: *const i64, val: *const f64, o: *mut i32| unsafe {
        atomgpu_linestrength_add_block(hh, j, gns, n, v, k, tau, n_sym, rs, col, val, o)
    };
    let same = || unsafe { *b_out == -7 };
    let hp = h.0;
    bad!(f, "add_block: NULL handle", add(null_mut(), 0, 1.0, 2, vp, kp, tp, 2, rp, cp, xp, b_out), 1, "handle", None, same());
    bad!(f, "add_block: negative j", add(hp, -1, 1.0, 2, vp, kp, tp, 2, rp, cp, xp, b_out), 2, "j", None, same());
    bad!(f, "add_block: NaN gns", add(hp, 0, f64::NAN, 2, vp, kp, tp, 2, rp, cp, xp, b_out), 3, "gns", None, same());
    bad!(f, "add_block: negative gns", add(hp, 0, -2.0, 2, vp, kp, tp, 2, rp, cp, xp, b_out), 3, "gns", None, same());
    bad!(f, "add_block: negative n_primitive", add(hp, 0, 1.0, -1, vp, kp, tp, 2, rp, cp, xp, b_out), 4, "n_primitive", None, same());
    bad!(f, "add_block: zero n_primitive", add(hp, 0, 1.0, 0, vp, kp, tp, 2, rp, cp, xp, b_out), 4, "n_primitive", None, same());
    bad!(f, "add_block: NULL v", add(hp, 0, 1.0, 2, null(), kp, tp, 2, rp, cp, xp, b_out), 5, "v", None, same());
    bad!(f, "add_block: v >= n_vib", add(hp, 0, 1.0, 2, v_bad.as_ptr(), kp, tp, 2, rp, cp, xp, b_out), 5, "v", Some("[1]"), same());
    bad!(f, "add_block: repeated (v, K, tau)", add(hp, 0, 1.0, 2, v_repeated.as_ptr(), kp, tp, 2, rp, cp, xp, b_out), 5, "v", Some("[1]"), same());
    bad!(f, "add_block: NULL k", add(hp, 0, 1.0, 2, vp, null(), tp, 2, rp, cp, xp, b_out), 6, "k", None, same());
    bad!(f, "add_block: K > J", add(hp, 0, 1.0, 2, vp, k_bad.as_ptr(), tp, 2, rp, cp, xp, b_out), 6, "k", Some("[1]"), same());
    bad!(f, "add_block: NULL tau", add(hp, 0, 1.0, 2, vp, kp, null(), 2, rp, cp, xp, b_out), 7, "tau", None, same());
    bad!(f, "add_block: tau = 2", add(hp, 0, 1.0, 2, vp, kp, tau_bad.as_ptr(), 2, rp, cp, xp, b_out), 7, "tau", Some("[0]"), same());
    bad!(f, "add_block: negative n_sym", add(hp, 0, 1.0, 2, vp, kp, tp, -3, rp, cp, xp, b_out), 8, "n_sym", None, same());
    bad!(f, "add_block: NULL row_start", add(hp, 0, 1.0, 2, vp, kp, tp, 2, null(), cp, xp, b_out), 9, "row_start", None, same());
    bad!(f, "add_block: decreasing row_start", add(hp, 0, 1.0, 2, vp, kp, tp, 2, rs_bad.as_ptr(), cp, xp, b_out), 9, "row_start", Some("[2]"), same());
    bad!(f, "add_block: NULL col", add(hp, 0, 1.0, 2, vp, kp, tp, 2, rp, null(), xp, b_out), 10, "col", None, same());
    bad!(f, "add_block: col >= n_sym", add(hp, 0, 1.0, 2, vp, kp, tp, 2, rp, col_bad.as_ptr(), xp, b_out), 10, "col", Some("[1]"), same());
    bad!(f, "add_block: NULL value", add(hp, 0, 1.0, 2, vp, kp, tp, 2, rp, cp, null(), b_out), 11, "value", None, same());
    bad!(f, "add_block: NaN value", add(hp, 0, 1.0, 2, vp, kp, tp, 2, rp, cp, val_nan.as_ptr(), b_out), 11, "value", Some("[1]"), same());
    bad!(f, "add_block: NULL block", add(hp, 0, 1.0, 2, vp, kp, tp, 2, rp, cp, xp, null_mut()), 12, "block", None, same());
    // Nothing was registered by the refused calls: the first valid block is number 0.
    ok("valid add_block", add(hp, 0, 1.0, 2, vp, kp, tp, 0, null(), null(), null(), b_out));
    assert_eq!(unsafe { *b_out }, 0);
    report(f);
}

#[test]
#[rustfmt::skip]
fn states_batches_products_and_queries_reject_bad_input() {
    let mut f = Vec::new();
    let (h, _) = vibrational_band();
    let far = h.add_block(2, &[0], &[0], &[0]); // J = 2: not reachable from J = 0
    h.set_states(far, &[50.0], &[1.0], 1);
    let empty = h.add_block(1, &[0], &[0], &[1]); // no states
    let hp = h.0;
    let id2 = identity(2);
    let x = id2.as_ptr();
    let nan_vectors = [1.0, 0.0, f64::NAN, 1.0];
    let nan_energies = [0.0, f64::NAN];
    let energies = [0.0, 1.0];
    let e = energies.as_ptr();

    // set_states: the handle's states are its outputs.
    let st = |hh: *mut atomgpu_linestrength, b: i32, n: i64, e: *const f64, x: *const f64, ld: i64| unsafe {
        atomgpu_linestrength_set_states(hh, b, n, e, x, ld)
    };
    let n_states = |b: i32| {
        let (mut np, mut nc, mut ns) = (-1, -1, -1);
        ok("block_size", unsafe { atomgpu_linestrength_block_size(hp, b, &mut np, &mut nc, &mut ns) });
        ns
    };
    let kept = || n_states(0) == 2 && n_states(empty) == 0;
    bad!(f, "set_states: NULL handle", st(null_mut(), 0, 2, e, x, 2), 1, "handle", None, kept());
    bad!(f, "set_states: negative block", st(hp, -1, 2, e, x, 2), 2, "block", None, kept());
    bad!(f, "set_states: block out of range", st(hp, 9, 2, e, x, 2), 2, "block", None, kept());
    bad!(f, "set_states: negative n_states", st(hp, empty, -2, e, x, 2), 3, "n_states", None, kept());
    bad!(f, "set_states: zero n_states", st(hp, empty, 0, e, x, 2), 3, "n_states", None, kept());
    bad!(f, "set_states: NULL energies", st(hp, empty, 1, null(), x, 1), 4, "energies", None, kept());
    bad!(f, "set_states: NaN energy", st(hp, 0, 2, nan_energies.as_ptr(), x, 2), 4, "energies", Some("[1]"), kept());
    bad!(f, "set_states: NULL vectors", st(hp, empty, 1, e, null(), 1), 5, "vectors", None, kept());
    bad!(f, "set_states: NaN vector", st(hp, 0, 2, e, nan_vectors.as_ptr(), 2), 5, "vectors", Some("[2]"), kept());
    bad!(f, "set_states: ld_vectors < n_coefficients", st(hp, 0, 2, e, x, 1), 6, "ld_vectors", Some("row count 2"), kept());
    bad!(f, "set_states: negative ld_vectors", st(hp, 0, 2, e, x, -2), 6, "ld_vectors", None, kept());

    // load_lower, then the products of the loaded batch.
    let ll = |hh: *mut atomgpu_linestrength, b: i32, n: i64, x: *const f64, ld: i64, t: f64| unsafe {
        atomgpu_linestrength_load_lower(hh, b, n, x, ld, t)
    };
    ok("load_lower", ll(hp, 0, 2, x, 2, 0.0));
    bad!(f, "load_lower: NULL handle", ll(null_mut(), 0, 2, x, 2, 0.0), 1, "handle", None, true);
    bad!(f, "load_lower: negative block", ll(hp, -2, 2, x, 2, 0.0), 2, "block", None, true);
    bad!(f, "load_lower: block out of range", ll(hp, 4, 2, x, 2, 0.0), 2, "block", None, true);
    bad!(f, "load_lower: negative n_lower", ll(hp, 0, -1, x, 2, 0.0), 3, "n_lower", None, true);
    bad!(f, "load_lower: zero n_lower", ll(hp, 0, 0, x, 2, 0.0), 3, "n_lower", None, true);
    bad!(f, "load_lower: NULL vectors", ll(hp, 0, 2, null(), 2, 0.0), 4, "vectors", None, true);
    bad!(f, "load_lower: NaN vector", ll(hp, 0, 2, nan_vectors.as_ptr(), 2, 0.0), 4, "vectors", Some("[2]"), true);
    bad!(f, "load_lower: ld_vectors < n_coefficients", ll(hp, 0, 2, x, 1, 0.0), 5, "ld_vectors", None, true);
    bad!(f, "load_lower: NaN thresh_coeff", ll(hp, 0, 2, x, 2, f64::NAN), 6, "thresh_coeff", None, true);
    bad!(f, "load_lower: negative thresh_coeff", ll(hp, 0, 2, x, 2, -1.0), 6, "thresh_coeff", None, true);
    // Both products of the loaded batch (2 states of block 0) into block 1 (2 primitive functions,
    // 2 states) are 2 x 2: the rows and the columns needed are 2.
    type Product = unsafe extern "C" fn(*mut atomgpu_linestrength, i32, f64, *mut f64, i64, i64) -> i32;
    let products: [(&str, Product, &str, &str, &str); 2] = [
        ("half", atomgpu_linestrength_half, "half", "ld_half", "cols_half"),
        ("amplitudes", atomgpu_linestrength_amplitudes, "amplitudes", "ld_amplitudes", "cols_amplitudes"),
    ];
    for (function, p, out_name, ld_name, cols_name) in products {
        let mut out = [SENTINEL; 4];
        let o = out.as_mut_ptr();
        let same = || unsafe { (0..4).all(|i| *o.add(i) == SENTINEL) };
        let w = |what: &str| format!("{function}: {what}");
        unsafe {
            bad!(f, w("NULL handle"), p(null_mut(), 1, 0.0, o, 2, 2), 1, "handle", None, same());
            bad!(f, w("negative upper_block"), p(hp, -1, 0.0, o, 2, 2), 2, "upper_block", None, same());
            bad!(f, w("upper_block out of range"), p(hp, 4, 0.0, o, 2, 2), 2, "upper_block", None, same());
            bad!(f, w("J' = 2 from J'' = 0"), p(hp, far, 0.0, o, 2, 2), 2, "upper_block", Some("reachable"), same());
            bad!(f, w("NaN thresh_coeff"), p(hp, 1, f64::NAN, o, 2, 2), 3, "thresh_coeff", None, same());
            bad!(f, w("negative thresh_coeff"), p(hp, 1, -0.5, o, 2, 2), 3, "thresh_coeff", None, same());
            bad!(f, w("NULL output"), p(hp, 1, 0.0, null_mut(), 2, 2), 4, out_name, None, same());
            bad!(f, w("leading dimension too small"), p(hp, 1, 0.0, o, 1, 2), 5, ld_name, Some("row count 2"), same());
            bad!(f, w("negative leading dimension"), p(hp, 1, 0.0, o, -1, 2), 5, ld_name, None, same());
            bad!(f, w("one column of two"), p(hp, 1, 0.0, o, 2, 1), 6, cols_name, Some("column count 2"), same());
            bad!(f, w("negative column count"), p(hp, 1, 0.0, o, 2, -1), 6, cols_name, Some("got -1"), same());
            bad!(f, w("absurd column count"), p(hp, 1, 0.0, o, 2, i64::MAX), 6, cols_name, Some("too large"), same());
        }
        // No batch loaded on a fresh handle.
        let fresh = Handle::parallel(1, &[1.0]);
        let u = fresh.add_block(1, &[0], &[0], &[1]);
        fresh.set_states(u, &[1.0], &[1.0], 1);
        bad!(f, w("no lower batch loaded"), unsafe { p(fresh.0, u, 0.0, o, 1, 1) }, 1, "handle", Some("load_lower"), same());
    }
    let mut out = [SENTINEL; 2];
    let o = out.as_mut_ptr();
    bad!(f, "amplitudes: upper block without states", unsafe { atomgpu_linestrength_amplitudes(hp, empty, 0.0, o, 1, 2) }, 2,
        "upper_block", Some("no states"), unsafe { *o == SENTINEL });
    // The refused calls kept the loaded batch: |a(f, i)| sqrt(3) = mu_z(i, f) (J = 1 <- 0: a^2 = mu^2/3).
    let loaded_batch_is_kept = || {
        let mut a = [SENTINEL; 4];
        ok("amplitudes", unsafe { atomgpu_linestrength_amplitudes(hp, 1, 0.0, a.as_mut_ptr(), 2, 2) });
        a.iter().zip([1.0, 0.1, 0.1, 1.2]).all(|(x, m)| (x.abs() * 3f64.sqrt() - m).abs() < 1e-14)
    };
    assert!(loaded_batch_is_kept(), "refused calls changed the loaded batch");

    // line_list
    let p = params();
    let mut ids = [[ISENTINEL; 4]; 2];
    let mut n = ISENTINEL;
    let mut vals = [[SENTINEL; 4]; 4];
    let n_ptr: *mut i64 = &mut n;
    let [up, lo] = ids.each_mut().map(|v| v.as_mut_ptr());
    let [a, nu, s, i] = vals.each_mut().map(|v| v.as_mut_ptr());
    let same = || unsafe {
        *n_ptr == ISENTINEL
            && [up, lo].iter().all(|o| (0..4).all(|j| *o.add(j) == ISENTINEL))
            && [a, nu, s, i].iter().all(|o| (0..4).all(|j| *o.add(j) == SENTINEL))
    };
    let (one, two_bad, far_list, empty_list, zero) = ([1i32], [1i32, -1], [far], [empty], [0i32]);
    let ub = one.as_ptr();
    let full = atomgpu_line_arrays { capacity: 4, upper_id: up, lower_id: lo, einstein_a: a, wavenumber: nu, linestrength: s, intensity: i };
    let call = |hh: *mut atomgpu_linestrength, lower: i32, nb: i32, ub: *const i32, pp: *const atomgpu_intensity_params,
                ll: &atomgpu_line_arrays, nn: *mut i64| unsafe {
        atomgpu_linestrength_line_list(hh, lower, nb, ub, pp, ll, nn)
    };
    let w = |what: &str| format!("line_list: {what}");
    bad!(f, w("NULL handle"), call(null_mut(), 0, 1, ub, &p, &full, n_ptr), 1, "handle", None, same());
    bad!(f, w("negative lower_block"), call(hp, -1, 1, ub, &p, &full, n_ptr), 2, "lower_block", None, same());
    bad!(f, w("lower_block out of range"), call(hp, 4, 1, ub, &p, &full, n_ptr), 2, "lower_block", None, same());
    bad!(f, w("lower block without states"), call(hp, empty, 1, zero.as_ptr(), &p, &full, n_ptr), 2, "lower_block",
        Some("no states"), same());
    bad!(f, w("zero n_upper_blocks"), call(hp, 0, 0, ub, &p, &full, n_ptr), 3, "n_upper_blocks", None, same());
    bad!(f, w("negative n_upper_blocks"), call(hp, 0, -1, ub, &p, &full, n_ptr), 3, "n_upper_blocks", None, same());
    bad!(f, w("NULL upper_blocks"), call(hp, 0, 1, null(), &p, &full, n_ptr), 4, "upper_blocks", None, same());
    bad!(f, w("upper block out of range"), call(hp, 0, 2, two_bad.as_ptr(), &p, &full, n_ptr), 4, "upper_blocks",
        Some("[1]"), same());
    bad!(f, w("upper J not reachable"), call(hp, 0, 1, far_list.as_ptr(), &p, &full, n_ptr), 4, "upper_blocks",
        Some("[0]"), same());
    bad!(f, w("upper block without states"), call(hp, 0, 1, empty_list.as_ptr(), &p, &full, n_ptr), 4,
        "upper_blocks", Some("[0]"), same());
    bad!(f, w("NULL params"), call(hp, 0, 1, ub, null(), &full, n_ptr), 5, "params", None, same());
    let with = |change: &dyn Fn(&mut atomgpu_intensity_params)| {
        let mut q = params();
        change(&mut q);
        q
    };
    let bad_params = [
        ("NaN temperature", with(&|q| q.temperature = f64::NAN), "temperature"),
        ("negative temperature", with(&|q| q.temperature = -1.0), "temperature"),
        ("zero partition_function", with(&|q| q.partition_function = 0.0), "partition_function"),
        ("infinite zpe", with(&|q| q.zpe = f64::INFINITY), "zpe"),
        ("reversed freq_window", with(&|q| q.freq_window = [10.0, 1.0]), "freq_window"),
        ("NaN lower_energy", with(&|q| q.lower_energy[0] = f64::NAN), "lower_energy"),
        ("NaN upper_energy", with(&|q| q.upper_energy[1] = f64::NAN), "upper_energy"),
        ("negative thresh_coeff", with(&|q| q.thresh_coeff = -1.0), "thresh_coeff"),
        ("NaN thresh_line", with(&|q| q.thresh_line = f64::NAN), "thresh_line"),
        ("negative thresh_intens", with(&|q| q.thresh_intens = -1e-30), "thresh_intens"),
        ("zero batch", with(&|q| q.batch = 0), "batch"),
        ("negative batch", with(&|q| q.batch = -5), "batch"),
    ];
    for (what, q, field) in &bad_params {
        let fragment = format!("`{field}`");
        bad!(f, w(&format!("params->{what}")), call(hp, 0, 1, ub, q, &full, n_ptr), 5, "params",
            Some(fragment.as_str()), same());
    }
    bad!(f, w("negative capacity"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { capacity: -1, ..full }, n_ptr), 6, "capacity", None, same());
    bad!(f, w("NULL n_lines"), call(hp, 0, 1, ub, &p, &full, null_mut()), 7, "n_lines", None, same());
    bad!(f, w("NULL upper_id"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { upper_id: null_mut(), ..full }, n_ptr), 6, "upper_id", None, same());
    bad!(f, w("NULL lower_id"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { lower_id: null_mut(), ..full }, n_ptr), 6, "lower_id", None, same());
    bad!(f, w("NULL einstein_a"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { einstein_a: null_mut(), ..full }, n_ptr), 6, "einstein_a", None, same());
    bad!(f, w("NULL wavenumber"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { wavenumber: null_mut(), ..full }, n_ptr), 6, "wavenumber", None, same());
    bad!(f, w("NULL linestrength"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { linestrength: null_mut(), ..full }, n_ptr), 6, "linestrength", None, same());
    bad!(f, w("NULL intensity"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { intensity: null_mut(), ..full }, n_ptr), 6, "intensity", None, same());
    // The line_list calls refused by their checks kept the loaded batch.
    assert!(loaded_batch_is_kept(), "refused line_list calls changed the loaded batch");
    // Refused for its capacity (after the list was computed): nothing written, and, as every
    // line_list that computes, the loaded batch is replaced.
    bad!(f, w("capacity 2 < 3 lines"), call(hp, 0, 1, ub, &p, &atomgpu_line_arrays { capacity: 2, ..full }, n_ptr), 6, "capacity",
        Some("number of lines, 3"), same());
    let mut out = [SENTINEL; 2];
    let o = out.as_mut_ptr();
    bad!(f, "half after line_list", unsafe { atomgpu_linestrength_half(hp, 1, 0.0, o, 2, 1) }, 1, "handle", Some("load_lower"),
        unsafe { *o == SENTINEL && *o.add(1) == SENTINEL });
    ok("line_list", call(hp, 0, 1, ub, &p, &full, n_ptr));
    assert_eq!(unsafe { *n_ptr }, 3);

    // state_id and block_size
    let mut id = ISENTINEL;
    let id_ptr: *mut i64 = &mut id;
    let same = || unsafe { *id_ptr == ISENTINEL };
    let sid = |hh: *const atomgpu_linestrength, b: i32, s: i64, o: *mut i64| unsafe { atomgpu_linestrength_state_id(hh, b, s, o) };
    let w = |what: &str| format!("state_id: {what}");
    bad!(f, w("NULL handle"), sid(null(), 0, 0, id_ptr), 1, "handle", None, same());
    bad!(f, w("negative block"), sid(hp, -1, 0, id_ptr), 2, "block", None, same());
    bad!(f, w("block out of range"), sid(hp, 4, 0, id_ptr), 2, "block", None, same());
    bad!(f, w("negative state"), sid(hp, 0, -1, id_ptr), 3, "state", None, same());
    bad!(f, w("state >= n_states"), sid(hp, 0, 2, id_ptr), 3, "state", None, same());
    bad!(f, w("block without states"), sid(hp, empty, 0, id_ptr), 3, "state", None, same());
    bad!(f, w("NULL id"), sid(hp, 0, 0, null_mut()), 4, "id", None, same());
    let mut sizes = [ISENTINEL; 3];
    let [p0, p1, p2] = sizes.each_mut().map(|x| x as *mut i64);
    let same = || unsafe { *p0 == ISENTINEL && *p1 == ISENTINEL && *p2 == ISENTINEL };
    let bs = |hh: *const atomgpu_linestrength, b: i32, x: *mut i64, y: *mut i64, z: *mut i64| unsafe {
        atomgpu_linestrength_block_size(hh, b, x, y, z)
    };
    let w = |what: &str| format!("block_size: {what}");
    bad!(f, w("NULL handle"), bs(null(), 0, p0, p1, p2), 1, "handle", None, same());
    bad!(f, w("negative block"), bs(hp, -1, p0, p1, p2), 2, "block", None, same());
    bad!(f, w("block out of range"), bs(hp, 4, p0, p1, p2), 2, "block", None, same());
    bad!(f, w("NULL n_primitive"), bs(hp, 0, null_mut(), p1, p2), 3, "n_primitive", None, same());
    bad!(f, w("NULL n_coefficients"), bs(hp, 0, p0, null_mut(), p2), 4, "n_coefficients", None, same());
    bad!(f, w("NULL n_states"), bs(hp, 0, p0, p1, null_mut()), 5, "n_states", None, same());
    report(f);
}

// Degenerate species (issue 13).

impl Handle {
    /// A block of species `gamma` (0-based) on v = 0 with the given Wang functions and one state:
    /// two functions are the two components of one E level (T_0 = e_0, T_1 = e_1), one function
    /// a non-degenerate level.
    fn species_block(&self, j: i32, gamma: i32, k: &[i32], tau: &[i32], energy: f64) -> i32 {
        let ndeg = k.len() as i32;
        let (row_start, col, value): (&[i64], &[i64], &[f64]) =
            if ndeg == 2 { (&[0, 1, 1, 1, 2], &[0, 0], &[1.0, 1.0]) } else { (&[0, 1], &[0], &[1.0]) };
        let v = vec![0i64; k.len()];
        let mut b = -1;
        ok("add_block_species", unsafe {
            atomgpu_linestrength_add_block_species(
                self.0,
                j,
                gamma,
                1.0,
                k.len() as i64,
                v.as_ptr(),
                k.as_ptr(),
                tau.as_ptr(),
                ndeg,
                1,
                row_start.as_ptr(),
                col.as_ptr(),
                value.as_ptr(),
                &mut b,
            )
        });
        self.set_states(b, &[energy], &[1.0], 1);
        b
    }

    /// `line_list_filtered` with room for `capacity` lines: (n_lines, S of each, counts).
    fn filtered(
        &self,
        lower: i32,
        uppers: &[i32],
        filters: *const atomgpu_line_filters,
        capacity: usize,
    ) -> (i64, Vec<f64>, [i64; 5]) {
        let (mut up, mut lo) = (vec![ISENTINEL; capacity], vec![ISENTINEL; capacity]);
        let (mut a, mut nu, mut s, mut i) =
            (vec![SENTINEL; capacity], vec![SENTINEL; capacity], vec![SENTINEL; capacity], vec![SENTINEL; capacity]);
        let (mut n, mut counts) = (-1, [ISENTINEL; 5]);
        let p = params();
        let arrays = line_arrays(capacity as i64, &mut up, &mut lo, [&mut a, &mut nu, &mut s, &mut i]);
        ok("line_list_filtered", unsafe {
            atomgpu_linestrength_line_list_filtered(
                self.0,
                lower,
                uppers.len() as i32,
                uppers.as_ptr(),
                &p,
                filters,
                &arrays,
                &mut n,
                counts.as_mut_ptr(),
            )
        });
        s.truncate(n.max(0) as usize);
        (n, s, counts)
    }
}

fn set_group(h: &Handle, group: &std::ffi::CStr) -> i32 {
    unsafe { atomgpu_linestrength_set_group(h.0, group.as_ptr()) }
}

/// No rule: every J, every species pair, no REDUCED, no degeneracy filter.
fn no_filters() -> atomgpu_line_filters {
    atomgpu_line_filters {
        j_min: 0,
        j_max: 32767,
        reduced: 0,
        degeneracy_filter: 0,
        n_gamma_pair: 0,
        gamma_pair: [0; 16],
    }
}

/// A rigid symmetric top in C3v(M), mu along z: the K = 1 Wang pair of J'' = 1 and of J' = 2 as
/// E levels, K = 0 as A2 (J'' = 1) and A1 (J' = 2). The E level's line strength is the
/// Hoenl-London factor of its K (Herzberg II, eqs. IV,81), S = mu^2 ((J''+1)^2 - K^2)/(J''+1) =
/// 1.5 mu^2, through TROVE's sum over the component pairs / ndeg'' (also with REDUCED); A2 -> A1
/// (K = 0) is 2 mu^2. NULL filters are the rule-free defaults; the species rule (A2 -> A1 only,
/// E -> E) drops E -> A1 and the counts add up; write_exomol writes the kept lines.
#[test]
fn degenerate_species_give_the_hoenl_london_factors_through_the_c_abi() {
    let mu = 1.7;
    let h = Handle::parallel(1, &[mu]);
    ok("set_group", set_group(&h, c"C3v(M)"));
    let e1 = h.species_block(1, 2, &[1, 1], &[0, 1], 20.0);
    let a2 = h.species_block(1, 1, &[0], &[1], 10.0);
    let e2 = h.species_block(2, 2, &[1, 1], &[0, 1], 40.0);
    let a1 = h.species_block(2, 0, &[0], &[0], 30.0);
    let mut ndeg = -1;
    ok("block_ndeg", unsafe { atomgpu_linestrength_block_ndeg(h.0, e1, &mut ndeg) });
    assert_eq!(ndeg, 2);
    ok("block_ndeg", unsafe { atomgpu_linestrength_block_ndeg(h.0, a2, &mut ndeg) });
    assert_eq!(ndeg, 1);

    let hl = 1.5 * mu * mu;
    let defaults = no_filters();
    let (n, s, counts) = h.filtered(e1, &[e2, a1], null(), 4);
    assert_eq!((n, counts), (2, [2, 0, 0, 0, 2]), "NULL filters: every pair kept");
    assert!(rel(s[0], hl) < 1e-12, "S(E -> E) = {} want {hl}", s[0]);
    assert!(s[1].abs() < 1e-12 * hl, "E -> A1: mu_z gives no K = 1 -> K = 0 line, S = {}", s[1]);
    assert_eq!(h.filtered(e1, &[e2, a1], &defaults, 4), (n, s.clone(), counts), "NULL = the default filters");

    let mut rule = atomgpu_line_filters { n_gamma_pair: 3, ..no_filters() };
    rule.gamma_pair[..3].copy_from_slice(&[1, 0, 2]);
    for reduced in [0, 1] {
        rule.reduced = reduced;
        let (n, s, counts) = h.filtered(e1, &[e2, a1], &rule, 4);
        assert_eq!((n, counts), (1, [2, 1, 0, 0, 1]), "the species rule drops E -> A1 (reduced {reduced})");
        assert!(rel(s[0], hl) < 1e-12, "S(E -> E), reduced {reduced}: {} want {hl}", s[0]);
    }
    let (n, s, _) = h.filtered(a2, &[a1], &rule, 1);
    assert!(n == 1 && rel(s[0], 2.0 * mu * mu) < 1e-12, "S(A2 -> A1) = mu^2 (J''+1): {s:?}");

    let dir = std::env::temp_dir().join(format!("atomgpu-ffi-degenerate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stem = std::ffi::CString::new(dir.join("c3v").to_str().unwrap()).unwrap();
    let (p, mut counts) = (params(), [ISENTINEL; 5]);
    ok("write_exomol", unsafe {
        atomgpu_linestrength_write_exomol(h.0, stem.as_ptr(), &p, &rule, counts.as_mut_ptr())
    });
    assert_eq!(counts[0], counts[1..].iter().sum::<i64>(), "counts add up: {counts:?}");
    let trans = std::fs::read_to_string(dir.join("c3v.trans")).unwrap();
    assert_eq!(trans.lines().count() as i64, counts[4], ".trans holds the kept lines");
    assert_eq!(counts[4], 2, "E -> E and A2 -> A1 absorb");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[rustfmt::skip]
fn species_filters_and_write_exomol_reject_bad_input() {
    let mut f = Vec::new();
    let h = Handle::parallel(1, &[1.0]);
    let hp = h.0;
    let (v, k, tau) = ([0i64, 0], [1i32, 1], [0i32, 1]);
    let (rs, col, val) = ([0i64, 1, 1, 1, 2], [0i64, 0], [1.0, 1.0]);
    let mut block = ISENTINEL as i32;
    let b_ptr: *mut i32 = &mut block;
    let same = || unsafe { *b_ptr == ISENTINEL as i32 };
    let add = |gamma: i32, ndeg: i32, n_sym: i64, rs: &[i64], col: &[i64]| unsafe {
        atomgpu_linestrength_add_block_species(hp, 1, gamma, 1.0, 2, v.as_ptr(), k.as_ptr(), tau.as_ptr(), ndeg, n_sym,
                                               rs.as_ptr(), col.as_ptr(), val.as_ptr(), b_ptr)
    };
    let w = |what: &str| format!("set_group / add_block_species: {what}");
    bad!(f, w("NULL group"), unsafe { atomgpu_linestrength_set_group(hp, null()) }, 2, "group", None, true);
    bad!(f, w("unknown group"), set_group(&h, c"D6h(M)"), 2, "group", Some("C3v(M)"), true);
    ok("set_group", set_group(&h, c"C3v(M)"));
    bad!(f, w("negative gamma"), add(-1, 2, 1, &rs, &col), 3, "gamma", None, same());
    bad!(f, w("species 3 of three"), add(3, 2, 1, &rs, &col), 3, "gamma", None, same());
    bad!(f, w("ndeg 0"), add(2, 0, 1, &rs, &col), 9, "ndeg", None, same());
    bad!(f, w("E with one component"), add(2, 1, 1, &rs[..3], &col), 9, "ndeg", None, same());
    bad!(f, w("A1 with two components"), add(0, 2, 1, &rs, &col), 9, "ndeg", None, same());
    bad!(f, w("E without its unfolding"), add(2, 2, 0, &rs, &col), 10, "n_sym", None, same());
    bad!(f, w("E without its second component"), add(2, 2, 1, &[0, 1, 1, 1, 1], &col), 11, "row_start",
         Some("component 1"), same());
    bad!(f, w("column beyond n_sym"), add(2, 2, 1, &rs, &[0, 1]), 12, "col", None, same());
    let e1 = h.species_block(1, 2, &[1, 1], &[0, 1], 20.0);
    let e2 = h.species_block(2, 2, &[1, 1], &[0, 1], 40.0);
    bad!(f, w("group after the blocks"), set_group(&h, c"C3v(M)"), 2, "group", Some("before"), true);
    let mut ndeg = ISENTINEL as i32;
    let n_ptr: *mut i32 = &mut ndeg;
    let same_ndeg = || unsafe { *n_ptr == ISENTINEL as i32 };
    let nd = |hh: *const atomgpu_linestrength, b: i32, o: *mut i32| unsafe { atomgpu_linestrength_block_ndeg(hh, b, o) };
    bad!(f, "block_ndeg: NULL handle", nd(null(), 0, n_ptr), 1, "handle", None, same_ndeg());
    bad!(f, "block_ndeg: block out of range", nd(hp, 2, n_ptr), 2, "block", None, same_ndeg());
    bad!(f, "block_ndeg: NULL ndeg", nd(hp, 0, null_mut()), 3, "ndeg", None, same_ndeg());

    // The filters, each broken field named at `filters` (argument 6; 4 of write_exomol).
    let mut counts = [ISENTINEL; 5];
    let c_ptr: *mut i64 = counts.as_mut_ptr();
    let (mut n, mut s) = (ISENTINEL, SENTINEL);
    let (n_ptr, s_ptr): (*mut i64, *mut f64) = (&mut n, &mut s);
    let same = || unsafe { (0..5).all(|i| *c_ptr.add(i) == ISENTINEL) && *n_ptr == ISENTINEL && *s_ptr == SENTINEL };
    let (mut ids, mut values) = ([0i64; 2], [0.0; 3]);
    let [up, lo] = ids.each_mut().map(|x| x as *mut i64);
    let [a, nu, i] = values.each_mut().map(|x| x as *mut f64);
    let p = params();
    let uppers = [e2];
    let arrays = atomgpu_line_arrays { capacity: 1, upper_id: up, lower_id: lo, einstein_a: a, wavenumber: nu, linestrength: s_ptr, intensity: i };
    let list = |filters: &atomgpu_line_filters| unsafe {
        atomgpu_linestrength_line_list_filtered(hp, e1, 1, uppers.as_ptr(), &p, filters, &arrays, n_ptr, c_ptr)
    };
    let broken = [
        ("j_min > j_max", atomgpu_line_filters { j_min: 3, j_max: 1, ..no_filters() }, "j_range"),
        ("negative j_min", atomgpu_line_filters { j_min: -1, ..no_filters() }, "j_min"),
        ("reduced 2", atomgpu_line_filters { reduced: 2, ..no_filters() }, "reduced"),
        ("degeneracy_filter -1", atomgpu_line_filters { degeneracy_filter: -1, ..no_filters() }, "degeneracy_filter"),
        ("17 species pairs", atomgpu_line_filters { n_gamma_pair: 17, ..no_filters() }, "n_gamma_pair"),
        ("species pair -1", atomgpu_line_filters { n_gamma_pair: 3, gamma_pair: [2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], ..no_filters() }, "gamma_pair[1]"),
        ("E without a pair", atomgpu_line_filters { n_gamma_pair: 2, gamma_pair: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], ..no_filters() }, "gamma_pair"),
    ];
    let stem = std::env::temp_dir().join(format!("atomgpu-ffi-refused-{}", std::process::id()));
    let c_stem = std::ffi::CString::new(stem.to_str().unwrap()).unwrap();
    for (what, filters, field) in &broken {
        bad!(f, format!("line_list_filtered: {what}"), list(filters), 6, "filters", Some(*field), same());
        bad!(f, format!("write_exomol: {what}"),
             unsafe { atomgpu_linestrength_write_exomol(hp, c_stem.as_ptr(), &p, filters, c_ptr) }, 4, "filters",
             Some(*field), same());
    }
    assert!(!stem.with_extension("states").exists(), "a refused write_exomol writes no file");
    bad!(f, "write_exomol: NULL stem", unsafe { atomgpu_linestrength_write_exomol(hp, null(), &p, null(), c_ptr) }, 2,
         "stem", None, same());
    bad!(f, "write_exomol: empty stem", unsafe { atomgpu_linestrength_write_exomol(hp, c"".as_ptr(), &p, null(), c_ptr) },
         2, "stem", None, same());
    bad!(f, "write_exomol: NULL params", unsafe { atomgpu_linestrength_write_exomol(hp, c_stem.as_ptr(), null(), null(),
         c_ptr) }, 3, "params", None, same());
    let missing = c"no-such-folder-atomgpu/lines";
    let status = unsafe { atomgpu_linestrength_write_exomol(hp, missing.as_ptr(), &p, null(), c_ptr) };
    if status != ATOMGPU_ERR_IO || !same() {
        f.push(format!("write_exomol into a missing folder: status {status}, want ATOMGPU_ERR_IO, counts untouched"));
    }
    report(f);
}
