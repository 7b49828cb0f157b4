//! How the Sturmian C entry points write host outputs (`src/ffi/sturmian.rs`, `HostOutput`):
//! small outputs (<= 64 MiB) go through a scratch copy and stay untouched when a call fails; large
//! ones are written in place (no second copy of a multi-GB Hamiltonian) and, when a call fails
//! after it began writing, hold NaN over the whole matrix so that no partial result looks valid.
//! Either way the padding rows of a leading dimension larger than the matrix, and the columns
//! beyond a column count larger than the matrix's, are the caller's and are never written. The failures: a cancellation by the progress callback after the last
//! block (the most that can have been written), and an overflow of H alone (channel energies of
//! DBL_MAX: H = (Ea + Eb) Oa ⊗ Ob + ... is Inf while S is finite), where S must not be landed
//! either (small) or must be NaN too (large): `atomgpu_sturmian_hamiltonian` and
//! `_one_electron_block` alike. Reference for the values: the Rust API's `Sturmian::hamiltonian` and
//! `Sturmian::one_electron_block` on the same channels (the numbers themselves are tested in
//! tests/sturmian.rs; here only where they land).

#[allow(dead_code)]
#[path = "support/rng.rs"]
mod rng;

use atomgpu::backend::Backend;
use atomgpu::ffi::common::*;
use atomgpu::ffi::sturmian::*;
use atomgpu::sturmian::{
    Central, ChannelSpec, Electron, Exchange, Grid, HamiltonianSpec, Order, Pair, Sturmian, Target,
};
use rng::Rng;
use std::ffi::{c_char, c_void};
use std::ptr::null;

const PAD: usize = 3;
const SENTINEL: f64 = -12345.0;

unsafe extern "C" fn stop(_: *mut c_void, _: *const c_char, _: f64, _: f64) -> i32 {
    1
}

/// Channels (a, 0) and (b, 0) of `n` random functions on a 24-point grid, through the C ABI and
/// the Rust API alike.
fn channels(n: usize) -> (*mut atomgpu_sturmian, Sturmian<f64>) {
    let (rmax, nq, ns) = (15.0, 24, 1);
    let grid = Grid::gauss_legendre(rmax, nq, ns).unwrap();
    let np = grid.n_points();
    let mut rng = Rng::new(23);
    let values: Vec<f64> = (0..np * n).map(|_| rng.uniform(0.1, 1.0)).collect();
    let beta: Vec<f64> = (0..n).map(|_| rng.uniform(0.5, 2.0)).collect();
    let generating: Vec<f64> = (0..nq).map(|_| -rng.uniform(0.1, 1.0)).collect();
    let mut handle = std::ptr::null_mut();
    let mut basis = Sturmian::<f64>::new_on(Backend::Cpu, grid).unwrap();
    unsafe {
        assert_eq!(atomgpu_set_backend(ATOMGPU_BACKEND_CPU), ATOMGPU_OK);
        assert_eq!(atomgpu_sturmian_create(rmax, nq as i64, ns as i64, null(), null(), 0, &mut handle), ATOMGPU_OK);
        for (code, electron) in [(ATOMGPU_ELECTRON_A, Electron::A), (ATOMGPU_ELECTRON_B, Electron::B)] {
            let status = atomgpu_sturmian_add_channel(
                handle,
                code,
                0,
                n as i64,
                values.as_ptr(),
                np as i64,
                beta.as_ptr(),
                generating.as_ptr(),
                null(),
            );
            assert_eq!(status, ATOMGPU_OK);
            let spec = ChannelSpec {
                electron,
                l: 0,
                n,
                values: &values,
                ld: np,
                beta: &beta,
                generating: &generating,
                central: Central::Nuclear,
                energy: None,
            };
            basis.add_channel(&spec).unwrap();
        }
    }
    (handle, basis)
}

/// How a call is made to fail (or not).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Failure {
    None,
    /// The progress callback stops the call (it reports after each pair block).
    Cancelled,
    /// Channel energies of DBL_MAX: H overflows, S stays finite.
    Overflow,
}

/// Which entry point fills H and S (both for the one (0, 0) pair, so of the same size).
#[derive(Clone, Copy, Debug)]
enum Call {
    Hamiltonian,
    OneElectronBlock,
}

/// H and S of one (0, 0) pair through the C ABI into matrices with ld = n + PAD and one column
/// more than n (sentinels everywhere), failing as `failure` says; returns the status.
fn assemble(handle: *mut atomgpu_sturmian, n: usize, call: Call, failure: Failure) -> (i32, Vec<f64>, Vec<f64>) {
    let energy = if failure == Failure::Overflow { f64::MAX } else { -1.0 };
    let params = atomgpu_sturmian_params {
        l_total: 0,
        m: 0,
        energy_a: energy,
        energy_b: energy,
        nuclear_charge: 2.0,
        interaction_charge: 1.0,
        exchange: ATOMGPU_EXCHANGE_NONE,
    };
    let ld = n + PAD;
    let (mut h, mut s) = (vec![SENTINEL; ld * (n + 1)], vec![SENTINEL; ld * (n + 1)]);
    let zero = [0i32];
    unsafe {
        let cancel = failure == Failure::Cancelled;
        let callback = if cancel { Some(stop as unsafe extern "C" fn(_, _, _, _) -> i32) } else { None };
        assert_eq!(atomgpu_set_progress(callback, std::ptr::null_mut(), 0.0), ATOMGPU_OK);
        let (hp, sp, ld, cols) = (h.as_mut_ptr(), s.as_mut_ptr(), ld as i64, n as i64 + 1);
        let status = match call {
            Call::Hamiltonian => atomgpu_sturmian_hamiltonian(
                handle,
                &params,
                1,
                zero.as_ptr(),
                zero.as_ptr(),
                ATOMGPU_ORDER_A_FASTEST,
                hp,
                ld,
                cols,
                sp,
                ld,
                cols,
            ),
            Call::OneElectronBlock => atomgpu_sturmian_one_electron_block(
                handle,
                &params,
                0,
                0,
                ATOMGPU_ORDER_A_FASTEST,
                hp,
                ld,
                cols,
                sp,
                ld,
                cols,
            ),
        };
        assert_eq!(atomgpu_set_progress(None, std::ptr::null_mut(), 0.0), ATOMGPU_OK);
        (status, h, s)
    }
}

/// Every padding row and the extra column hold the sentinel, and every matrix element satisfies
/// `matrix`.
fn check(what: &str, m: &[f64], n: usize, matrix: impl Fn(usize, f64) -> bool) {
    let ld = n + PAD;
    for j in 0..=n {
        for i in 0..ld {
            let (k, v) = (i + ld * j, m[i + ld * j]);
            if i >= n || j == n {
                assert_eq!(v, SENTINEL, "{what}: padding ({i}, {j}) written");
            } else {
                assert!(matrix(k, v), "{what}: element ({i}, {j}) = {v}");
            }
        }
    }
}

fn run(n: usize) {
    let (handle, basis) = channels(n);
    let size = n * n;
    let spec = HamiltonianSpec {
        l_total: 0,
        m: 0,
        pairs: vec![Pair { la: 0, lb: 0 }],
        energies: [-1.0, -1.0],
        nuclear_charge: 2.0,
        interaction_charge: 1.0,
        exchange: Exchange::None,
    };
    let in_place = size * size * 8 > 64 << 20;
    for call in [Call::Hamiltonian, Call::OneElectronBlock] {
        let ld = size + PAD;
        let (mut h_ref, mut s_ref) = (vec![SENTINEL; ld * size], vec![SENTINEL; ld * size]);
        let (h_target, s_target) = (Target::Host { data: &mut h_ref, ld }, Target::Host { data: &mut s_ref, ld });
        match call {
            Call::Hamiltonian => basis.hamiltonian(&spec, Order::AFastest, h_target, s_target),
            Call::OneElectronBlock => {
                basis.one_electron_block(spec.pairs[0], &spec, Order::AFastest, h_target, s_target)
            }
        }
        .unwrap();
        let (status, h, s) = assemble(handle, size, call, Failure::None);
        assert_eq!(status, ATOMGPU_OK, "{call:?}");
        check("h", &h, size, |k, v| v == h_ref[k]);
        check("s", &s, size, |k, v| v == s_ref[k]);
        let failures = match call {
            Call::Hamiltonian => {
                vec![(Failure::Cancelled, ATOMGPU_ERR_CANCELLED), (Failure::Overflow, ATOMGPU_ERR_NOT_FINITE)]
            }
            Call::OneElectronBlock => vec![(Failure::Overflow, ATOMGPU_ERR_NOT_FINITE)],
        };
        for (failure, want) in failures {
            let (status, h, s) = assemble(handle, size, call, failure);
            assert_eq!(status, want, "{call:?} {failure:?}");
            let what = format!("{call:?} after {failure:?}");
            if in_place {
                check(&format!("h of {what}, in place"), &h, size, |_, v| v.is_nan());
                check(&format!("s of {what}, in place"), &s, size, |_, v| v.is_nan());
            } else {
                check(&format!("h of {what}, scratch"), &h, size, |_, v| v == SENTINEL);
                check(&format!("s of {what}, scratch"), &s, size, |_, v| v == SENTINEL);
            }
        }
    }
    assert_eq!(unsafe { atomgpu_sturmian_destroy(handle) }, ATOMGPU_OK);
}

/// n = 30^2 = 900: 6.5 MB per matrix, through the scratch copy.
#[test]
fn small_outputs_are_untouched_when_a_call_fails() {
    run(30);
}

/// n = 55^2 = 3025: 73 MB per matrix (> 64 MiB), written in place.
#[test]
fn large_outputs_are_written_in_place_and_set_to_nan_when_a_call_fails() {
    run(55);
}
