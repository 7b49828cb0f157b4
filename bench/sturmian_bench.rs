//! Benchmark of the Generalized Sturmian family (paper sturmian-hamiltonian-gpu.txt, Tables 3-4, §3.3):
//! repulsion blocks, whole Hamiltonians and the generalised eigen-solve, CPU and CUDA.
//!
//!   cargo build --release --example sturmian_bench
//!   target/release/examples/sturmian_bench OUT_DIR [--quick] [--no-e3e] [--helium-only] [--e3e-spread]
//!
//! 1. Ceilings measured in the same run: cuBLAS ZGEMM and DGEMM (FP64, CUBLAS_DEFAULT_MATH as the
//!    library uses) on 8192^3 NN and on 16384 x 16384 x 512 NT (exactly the GEMM of a repulsion block
//!    at Na = Nb = 128, Nq = 256), and the device-to-host copy rate into pinned host memory (4.3 GB;
//!    cacheable, not write-combined, as every landing buffer here: the host reads them back).
//! 2. Repulsion block R^{00,00,l=0} (Tables 3-4), synthetic complex basis S_n = (r/c_n) e^{-r/c_n}
//!    e^{i k_n r} with complex β, Na = Nb = 16 … 256, Nq = 128 and 256, Ns = 9, (a) into device memory
//!    and (b) landed in pinned host memory; the real basis (DGEMM path) at Na = 64, 128, Nq = 256.
//!    Integrals: (NaNb)^2 per block. FLOPs: the outer GEMM only, 8 (NaNb)^2 (2Nq) complex, 2 (NaNb)^2
//!    (2Nq) real (the inner Simpson integrals, O(NaNb Nq Ns), and the permutation are not counted).
//!    CPU (all cores) for Na <= 64, and 128 when the Na = 64 time x 16 is under 60 s. A 68.7 GB block
//!    (Na = 256) that does not fit device or host memory is skipped with a note.
//! 3. Helium ¹S (§3.3): L = 0, pairs (l, l) l = 0..4, real GSFs (`gsf::generate`, Yukawa 2 e^{-r/5}/r,
//!    λ = 5/bohr, M = N + 10) of N = 64 per electron, Nq = 256: the whole `hamiltonian` (25 blocks,
//!    55 repulsion terms, H and S 20480^2) into device and into pinned host memory, then
//!    `lowest_eigenpairs` on cuSOLVER (energy in the note); the same in the exchange-symmetric
//!    (singlet) basis, 10400^2 (assembly into pinned host memory and eigen-solve); also at N = 32,
//!    and on the CPU at 16 and 32 (agreement at 32). FLOPs: 25 GEMMs of 2 N^4 (2Nq). The example's range 1, λ = 2 do not hold
//!    N = 64 on this grid (the parent basis reaches 4M/(2λ) = 74 bohr > Rmax: E = -8.6e3 hartree).
//!    3b. The same N = 64 Hamiltonian through the C entry point (`atomgpu_sturmian_hamiltonian`,
//!    what Fortran and C callers use) into `atomgpu_host_alloc` (pinned) buffers and into pageable
//!    ones. `--helium-only`: the ceilings and case 3 alone.
//! 4. (e,3e) Hamiltonian (§2.1): complex synthetic basis, l = 0..4 on both electrons, N = 84; L = 0..4
//!    with 5 pairs each; H and S (35280^2 complex, 19.9 GB each) per L into reused pinned host buffers
//!    (S in device memory when the host is short). FLOPs: 25 GEMMs of 8 N^4 (2Nq) per L. `--no-e3e`.
//! 5. `--e3e-spread` (instead of 1-4; issue 14): the ceilings, then case 4's five Hamiltonians with
//!    their pair blocks spread over 1, 2, 4, … visible GPUs (`Sturmian::new_on_devices`), H and S in
//!    portable pinned host memory, each count beside the one-GPU time of the same run and the
//!    device-to-host rate of that many GPUs copying at once.
//!
//! GPU times: median of 3 after a warm-up, each call synchronised (eigen-solve and (e,3e): one run);
//! CPU: one run after a warm-up. Agreement: max |GPU - CPU| / max |CPU| over the matrix. `--quick`:
//! Na 8-16, Nq 32 (helium Nq 64), a smoke test that runs without a GPU. One JSON line per case, also
//! in OUT_DIR/sturmian_bench.jsonl; "fraction_of_gemm": GEMM FLOP rate / measured block-shaped rate.

use atomgpu::backend::{self, Backend, CudaDevice, DeviceSet};
use atomgpu::error::{describe_bytes, Error, Result};
use atomgpu::math::scalar::{as_doubles_mut, width};
use atomgpu::memory;
use atomgpu::sturmian::angular::{legendre_coupling, multipoles};
use atomgpu::sturmian::gsf::{generate, GsfSpec};
use atomgpu::sturmian::solve::lowest_eigenpairs;
use atomgpu::sturmian::{
    Central, ChannelSpec, Electron, Exchange, Grid, HamiltonianSpec, Order, Pair, Scalar, Sturmian, Target,
};
use cudarc::cublas::sys::{self as blas, cuDoubleComplex as Z, cublasDgemm_v2 as dgemm, cublasZgemm_v2 as zgemm};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, DevicePtr, PinnedHostSlice};
use num_complex::Complex64;
use rayon::prelude::*;
use std::io::Write;
use std::mem::size_of;
use std::sync::Arc;
use std::time::Instant;

const NS: usize = 9;
/// Rmax of every grid (bohr).
const RMAX: f64 = 40.0;
/// Helium GSFs: energy (hartree), Yukawa range (bohr), Laguerre exponent λ (1/bohr); see the top.
const HE: (f64, f64, f64) = (-2.2, 5.0, 5.0);
/// Host memory left free when pinned buffers are allocated.
const HOST_MARGIN: u128 = 8 << 30;
const AF: Order = Order::AFastest;
/// The (la, lb) pairs of each L of the (e,3e) Hamiltonian.
const E3E_PAIRS: [[(u32, u32); 5]; 5] = [
    [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)],
    [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3)],
    [(0, 2), (2, 0), (1, 1), (1, 3), (3, 1)],
    [(0, 3), (3, 0), (1, 2), (2, 1), (1, 4)],
    [(0, 4), (4, 0), (1, 3), (3, 1), (2, 2)],
];

type Pinned = PinnedHostSlice<f64>;
type Outcome<T, E = String> = std::result::Result<T, E>;
/// Seconds and GPU/CPU agreement of a case, or why it has none.
type Timing = Outcome<(f64, Option<f64>)>;

fn msg(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Median of `repeats` timed calls of `f`, after one untimed call when `warm_up`.
fn time<E: std::fmt::Display>(warm_up: bool, repeats: usize, mut f: impl FnMut() -> Outcome<(), E>) -> Outcome<f64> {
    if warm_up {
        f().map_err(msg)?;
    }
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t0 = Instant::now();
        f().map_err(msg)?;
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[repeats / 2])
}

/// Largest |a - b| over the largest |b| (b: the CPU reference).
fn rel_diff<T: Scalar>(a: &[T], b: &[T]) -> f64 {
    let scale = b.par_iter().map(|x| x.modulus()).reduce(|| 0.0, f64::max);
    a.par_iter().zip(b).map(|(x, y)| (*x - *y).modulus()).reduce(|| 0.0, f64::max) / scale
}

/// A host matrix of `len` values whose pages are touched (a vec! of zeros is calloc'ed and would
/// fault its pages in during the timed call).
fn touched<T: Scalar>(len: usize) -> Outcome<Vec<T>> {
    memory::filled("a host matrix", len, T::real(1.0)).map_err(msg)
}

fn host<T>(data: &mut [T], ld: usize) -> Target<'_, T> {
    Target::Host { data, ld }
}

fn dev<'a, T>(ptr: u64, len: usize, ld: usize) -> Target<'a, T> {
    Target::Device { ptr, len, ld }
}

/// A basis value of modulus `m` and phase `p`: complex, or m cos p.
type Polar<T> = fn(f64, f64) -> T;
const COMPLEX: Polar<Complex64> = Complex64::from_polar;
const REAL: Polar<f64> = |m, p| m * p.cos();

/// Adds channel l (n functions, 𝒱 = `g`) to both electrons.
fn add_both<T: Scalar>(basis: &mut Sturmian<T>, l: u32, n: usize, values: &[T], beta: &[T], g: &[f64]) -> Result<()> {
    let ld = basis.grid().n_points();
    for electron in [Electron::A, Electron::B] {
        basis.add_channel(&ChannelSpec {
            electron,
            l,
            n,
            values,
            ld,
            beta,
            generating: g,
            central: Central::Nuclear,
            energy: None,
        })?;
    }
    Ok(())
}

/// The synthetic basis: channels l in `ls` on both electrons, `n` smooth functions each.
fn smooth_basis<T: Scalar>(
    backend: Backend,
    grid: &Grid,
    n: usize,
    ls: &[u32],
    polar: Polar<T>,
) -> Result<Sturmian<T>> {
    smooth_basis_on(backend, grid, n, ls, polar, 1)
}

/// As `smooth_basis`, its Hamiltonians spread over `devices` GPUs.
fn smooth_basis_on<T: Scalar>(
    backend: Backend,
    grid: &Grid,
    n: usize,
    ls: &[u32],
    polar: Polar<T>,
    devices: usize,
) -> Result<Sturmian<T>> {
    let mut basis = Sturmian::new_on_devices(grid.clone(), &DeviceSet::count(backend, devices)?)?;
    let generating: Vec<f64> = grid.abscissas().iter().map(|r| -2.0 * (-r).exp() / r).collect();
    let beta: Vec<T> = (0..n).map(|i| polar(1.0 + i as f64, 0.2)).collect();
    for &l in ls {
        let mut values = Vec::with_capacity(grid.n_points() * n);
        for i in 0..n {
            let (c, k) = (0.4 + 2.6 * i as f64 / n as f64, 0.5 + (i as f64 + l as f64) / n as f64);
            values.extend(grid.points().iter().map(|&r| polar((r / c).powi(l as i32 + 1) * (-r / c).exp(), k * r)));
        }
        add_both(&mut basis, l, n, &values, &beta, &generating)?;
    }
    Ok(basis)
}

/// The helium GSF basis of §3.3: l = 0..4, `n` functions per electron (M = n + 10).
fn helium_basis(backend: Backend, grid: &Grid, n: usize) -> Result<Sturmian<f64>> {
    let mut basis = Sturmian::new_on(backend, grid.clone())?;
    for l in 0..=4 {
        let (energy, yukawa_range, lambda) = HE;
        let spec =
            GsfSpec { l, nuclear_charge: 2.0, energy, yukawa_strength: 2.0, yukawa_range, n_parent: n + 10, lambda, n };
        let gsf = generate(grid, &spec)?;
        add_both(&mut basis, l, n, &gsf.values, &gsf.beta, &gsf.generating)?;
    }
    Ok(basis)
}

/// Cacheable page-locked host memory of `doubles` (not write-combined: the host reads it back;
/// portable: pinned for every GPU's context, as `atomgpu_host_alloc` makes it), when the host can
/// spare it with HOST_MARGIN left.
fn pinned(device: &CudaDevice, doubles: usize) -> Outcome<Pinned> {
    let (bytes, available) = (doubles as u128 * 8, memory::available_bytes().unwrap_or(u128::MAX));
    if bytes + HOST_MARGIN > available {
        let (need, have) = (describe_bytes(bytes), describe_bytes(available));
        return Err(format!("skipped: needs {need} of pinned host memory, {have} available"));
    }
    // SAFETY: the contents are unset; every user writes them before reading.
    unsafe {
        device.stream().context().alloc_pinned_with_flags::<f64>(doubles, cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE)
    }
    .map_err(|e| format!("{e:?}"))
}

/// `pool`, replaced by a larger buffer when it holds fewer than `doubles`.
fn grow<'a>(pool: &'a mut Option<Pinned>, gpu: &Gpu, doubles: usize) -> Outcome<&'a mut Pinned> {
    if !matches!(pool, Some(p) if p.len() >= doubles) {
        *pool = None;
        *pool = Some(pinned(&gpu.device, doubles)?);
    }
    Ok(pool.as_mut().unwrap())
}

/// The first `len` values of T of a pinned buffer of doubles.
fn view<T: Scalar>(buffer: &mut Pinned, len: usize) -> &mut [T] {
    let doubles = buffer.as_mut_slice().expect("pinned buffer");
    assert!(len * width::<T>() <= doubles.len());
    // SAFETY: T is f64 or Complex64 (repr(C) {re, im}), as aligned as f64; `len` values fit.
    unsafe { std::slice::from_raw_parts_mut(doubles.as_mut_ptr() as *mut T, len) }
}

fn device_ptr(buffer: &CudaSlice<f64>, device: &CudaDevice) -> u64 {
    buffer.device_ptr(device.stream()).0
}

/// A device buffer of `len` values of T, if they fit with `reserve` bytes (operands, tiles) left.
fn device_buffer<T: Scalar>(device: &CudaDevice, len: usize, reserve: usize) -> Outcome<CudaSlice<f64>> {
    let (bytes, free) = (len * size_of::<T>(), device.memory().map_err(msg)?.0);
    if bytes + reserve > free {
        let (need, have) = (describe_bytes(bytes as u128), describe_bytes(free as u128));
        return Err(format!("skipped: {need} (+ {reserve} bytes of work space) do not fit in {have} free"));
    }
    device.uninit::<f64>(len * width::<T>()).map_err(msg)
}

/// What a case computes: matrix elements (integrals), GEMM FLOPs and the GEMM rate compared with.
struct Case {
    routine: &'static str,
    sizes: String,
    integrals: f64,
    flops: f64,
    ceiling: Option<f64>,
}

impl Case {
    fn new(routine: &'static str, sizes: String) -> Case {
        Case { routine, sizes, integrals: 0.0, flops: 0.0, ceiling: None }
    }
}

/// The numeric fields of a line.
const KEYS: [&str; 5] = ["seconds", "integrals_per_s", "gflops", "fraction_of_gemm", "max_rel_diff_vs_cpu"];

fn json(x: Option<f64>) -> String {
    x.filter(|v| v.is_finite()).map_or("null".into(), |v| format!("{v:.4e}"))
}

struct Report {
    jsonl: std::fs::File,
    gpu_name: String,
}

impl Report {
    fn emit(&mut self, case: &Case, backend: &str, timing: Timing, note: &str) {
        let (seconds, diff, note) = match timing {
            Ok((t, d)) => (Some(t), d, note.to_string()),
            Err(why) if note.is_empty() => (None, None, why),
            Err(why) => (None, None, format!("{note}; {why}")),
        };
        let rate = |x: f64| seconds.filter(|_| x > 0.0).map(|t| x / t);
        let device = match backend {
            "cuda" => self.gpu_name.clone(),
            _ => format!("{} threads", rayon::current_num_threads()),
        };
        let mut line = format!(
            r#"{{"routine":"{}","sizes":"{}","backend":"{backend}","device":"{device}""#,
            case.routine, case.sizes
        );
        let fraction = rate(case.flops).zip(case.ceiling.filter(|_| backend == "cuda")).map(|(f, c)| f / c);
        let values = [seconds, rate(case.integrals), rate(case.flops).map(|f| f / 1e9), fraction, diff];
        for (key, value) in KEYS.iter().zip(values) {
            line += &format!(",\"{key}\":{}", json(value));
        }
        line += &format!(r#","note":"{}"}}"#, note.replace(['"', '\\', '\n'], "'"));
        println!("{line}");
        writeln!(self.jsonl, "{line}").expect("writing the JSON lines");
    }

    fn note(&mut self, note: &str) {
        self.emit(&Case::new("note", String::new()), "", Err(note.into()), "");
    }
}

/// The GPU and its measured ceilings.
struct Gpu {
    device: Arc<CudaDevice>,
    /// Block-shaped (16384 x 16384 x 512 NT) ZGEMM and DGEMM rates (FLOP/s).
    zgemm: f64,
    dgemm: f64,
    /// Device-to-host bandwidth into pinned memory (bytes/s).
    d2h: f64,
}

struct Bench {
    gpu: Option<Gpu>,
    /// Reused pinned landing buffer (doubles), grown on demand.
    pool: Option<Pinned>,
    report: Report,
}

/// Case 1; returns the GPU and the pinned buffer the copy was timed into.
fn ceilings(report: &mut Report, device: Arc<CudaDevice>, quick: bool) -> Outcome<(Gpu, Pinned)> {
    let (big, wide, k) = if quick { (2048, 4096, 512) } else { (8192, 16384, 512) };
    let fill: Vec<f64> = (0..2 * big * big).map(|i| (i % 1013) as f64 / 1013.0 - 0.5).collect();
    let x = device.upload(&fill).map_err(msg)?;
    let c = device.uninit::<f64>(2 * wide * wide).map_err(msg)?;
    let cublas = CudaBlas::new(device.stream().clone()).map_err(|e| format!("cuBLAS: {e:?}"))?;
    let h = *cublas.handle();
    // SAFETY: a valid handle; the library runs its GEMMs in this mode too.
    unsafe { blas::cublasSetMathMode(h, blas::cublasMath_t::CUBLAS_DEFAULT_MATH) };
    let (xp, cp) = (device_ptr(&x, &device), device_ptr(&c, &device));
    let (xd, cd, xz, cz) = (xp as *const f64, cp as *mut f64, xp as *const Z, cp as *mut Z);
    let mut rates = vec![];
    let shapes = [(true, big, big, big, false), (true, wide, wide, k, true)];
    for (complex, m, n, kk, nt) in shapes.into_iter().chain(shapes.map(|s| (false, s.1, s.2, s.3, s.4))) {
        use blas::cublasOperation_t::{CUBLAS_OP_N as N, CUBLAS_OP_T as T};
        let (tb, ldb, m, n, kk) =
            (if nt { T } else { N }, if nt { n } else { kk } as i32, m as i32, n as i32, kk as i32);
        let seconds = time(true, 5, || {
            let (one, zero) = (Z { x: 1.0, y: 0.0 }, Z { x: 0.0, y: 0.0 });
            // SAFETY: x holds m k and n k values, c m n values, of the type used (A m x k, B k x n or n x k).
            let status = unsafe {
                match complex {
                    true => zgemm(h, N, tb, m, n, kk, &one, xz, m, xz, ldb, &zero, cz, m),
                    false => dgemm(h, N, tb, m, n, kk, &1.0, xd, m, xd, ldb, &0.0, cd, m),
                }
            };
            match status {
                blas::cublasStatus_t::CUBLAS_STATUS_SUCCESS => device.synchronize().map_err(msg),
                _ => Err(format!("cuBLAS GEMM: {status:?}")),
            }
        })?;
        let flops = if complex { 8.0 } else { 2.0 } * m as f64 * n as f64 * kk as f64;
        rates.push(flops / seconds);
        let sizes = format!("{m}x{n}x{kk} N{}", if nt { "T" } else { "N" });
        let case = Case { flops, ..Case::new(if complex { "cublas_zgemm" } else { "cublas_dgemm" }, sizes) };
        report.emit(&case, "cuda", Ok((seconds, None)), "FP64, CUBLAS_DEFAULT_MATH");
    }
    let mut pinned_host = pinned(&device, c.len())?;
    let copy = |host: &mut Pinned| device.stream().memcpy_dtoh(&c, host).map_err(Error::from);
    let seconds = time(true, 3, || copy(&mut pinned_host).and_then(|_| device.synchronize()))?;
    let bytes = (c.len() * 8) as f64;
    let note = format!("{:.2} GB/s into cacheable pinned host memory", bytes / seconds / 1e9);
    report.emit(&Case::new("memcpy_dtoh", format!("{bytes:.0} bytes")), "cuda", Ok((seconds, None)), &note);
    Ok((Gpu { device, zgemm: rates[1], dgemm: rates[3], d2h: bytes / seconds }, pinned_host))
}

/// A two-electron Hamiltonian (Z = 2, q12 = 1) of total angular momentum L, M = 0.
fn spec(l_total: u32, pairs: Vec<Pair>, energies: [f64; 2]) -> HamiltonianSpec {
    HamiltonianSpec {
        l_total,
        m: 0,
        pairs,
        energies,
        nuclear_charge: 2.0,
        interaction_charge: 1.0,
        exchange: Exchange::None,
    }
}

/// The repulsion block (0,0)-(0,0), multipole 0.
fn block<T: Scalar>(basis: &Sturmian<T>, out: Target<'_, T>) -> Result<()> {
    let pair = Pair { la: 0, lb: 0 };
    basis.repulsion(pair, pair, 0, AF, out)
}

/// Case 2: the repulsion block for each Na = Nb in `sizes`.
fn repulsion<T: Scalar>(b: &mut Bench, nq: usize, sizes: &[usize], polar: Polar<T>) {
    let grid = Grid::gauss_legendre(RMAX, nq, NS).expect("grid");
    let (kind, per_flop) = if T::COMPLEX { ("complex", 8.0) } else { ("real", 2.0) };
    let ceiling = b.gpu.as_ref().map(|g| if T::COMPLEX { g.zgemm } else { g.dgemm });
    let mut cpu_time: Option<(usize, f64)> = None;
    for &n in sizes {
        let (side, len) = (n * n, n.pow(4));
        let sizes = format!("{kind} Na=Nb={n} Nq={nq} Ns={NS} l=0 block={side}x{side}");
        let flops = per_flop * len as f64 * (2 * nq) as f64;
        let case = Case { integrals: len as f64, flops, ceiling, ..Case::new("repulsion", sizes) };
        // CPU: Na <= 64 after a warm-up; Na = 128 once, when the (NaNb)^2 scaling says < 60 s.
        let estimate = cpu_time.map(|(n0, t)| t * (n as f64 / n0 as f64).powi(4));
        let mut reference: Option<Vec<T>> = None;
        if n <= 64 || (n == 128 && estimate.is_some_and(|e| e < 60.0)) {
            let timing = smooth_basis(Backend::Cpu, &grid, n, &[0], polar).map_err(msg).and_then(|basis| {
                let mut out = touched(len)?;
                let t = time(n <= 64, 1, || block(&basis, host(&mut out, side)))?;
                reference = Some(out);
                Ok((t, None))
            });
            cpu_time = timing.as_ref().ok().map(|&(t, _)| (n, t));
            b.report.emit(&case, "cpu", timing, if n <= 64 { "" } else { "one run, no warm-up" });
        } else {
            let why = estimate.filter(|_| n == 128).map_or("Na > 128".into(), |e| format!("estimated {e:.0} s"));
            b.report.emit(&case, "cpu", Err(format!("skipped: {why}")), "");
        }
        let Some(gpu) = &b.gpu else { continue };
        let basis = match smooth_basis(Backend::Cuda(gpu.device.clone()), &grid, n, &[0], polar) {
            Ok(basis) => basis,
            Err(e) => {
                b.report.emit(&case, "cuda", Err(msg(e)), "");
                continue;
            }
        };
        // (a) Into device memory; work space: the two operands (NaNb x 2Nq each) and the tiles.
        let reserve = 4 * side * nq * size_of::<T>() + (3 << 30);
        let timing = device_buffer::<T>(&gpu.device, len, reserve).and_then(|buffer| {
            let ptr = device_ptr(&buffer, &gpu.device);
            let t = time(true, 3, || block(&basis, dev(ptr, len, side)))?;
            let Some(r) = &reference else { return Ok((t, None)) };
            let mut g = vec![T::default(); len];
            gpu.device.download_into(&buffer, as_doubles_mut(&mut g)).map_err(msg)?;
            Ok((t, Some(rel_diff(&g, r))))
        });
        b.report.emit(&case, "cuda", timing, "target device");
        // (b) Landed in pinned host memory.
        let timing = grow(&mut b.pool, gpu, len * width::<T>()).and_then(|buffer| {
            let data = view::<T>(buffer, len);
            let t = time(true, 3, || block(&basis, host(&mut *data, side)))?;
            Ok((t, reference.as_ref().map(|r| rel_diff(data, r))))
        });
        let copy = (len * size_of::<T>()) as f64 / gpu.d2h;
        b.report.emit(&case, "cuda", timing, &format!("target pinned host; copy alone {copy:.3} s at the D2H rate"));
    }
}

/// Case 3: helium, L = 0, pairs (l, l) l = 0..4.
fn helium(b: &mut Bench, nq: usize, cpu_sizes: &[usize], gpu_sizes: &[usize]) {
    let grid = Grid::gauss_legendre(RMAX, nq, NS).expect("grid");
    let pairs: Vec<Pair> = (0..=4).map(|l| Pair { la: l, lb: l }).collect();
    let couples = |p: &Pair, q: &Pair| {
        multipoles(p.la, p.lb, q.la, q.lb)
            .filter(|&l| legendre_coupling(0, 0, p.la, p.lb, q.la, q.lb, l) != 0.0)
            .count()
    };
    let terms: usize = pairs.iter().map(|p| pairs.iter().map(|q| couples(p, q)).sum::<usize>()).sum();
    let spec = spec(0, pairs, [HE.0; 2]);
    let ceiling = b.gpu.as_ref().map(|g| g.dgemm);
    let case = |n: usize, routine| {
        let sizes =
            format!("helium L=0 (l,l) l=0..4, N={n}, n={}, Nq={nq} Ns={NS}, {terms} repulsion terms", 5 * n * n);
        let flops = if routine == "hamiltonian" { 25.0 * 2.0 * n.pow(4) as f64 * (2 * nq) as f64 } else { 0.0 };
        Case { integrals: (25 * n.pow(4)) as f64, flops, ceiling, ..Case::new(routine, sizes) }
    };
    let mut reference = None;
    for &n in cpu_sizes {
        let (size, mut energy) = (5 * n * n, String::new());
        let timing = (|| -> Timing {
            let basis = helium_basis(Backend::Cpu, &grid, n).map_err(msg)?;
            let (mut h, mut s) = (touched(size * size)?, touched(size * size)?);
            let t = time(true, 1, || basis.hamiltonian(&spec, AF, host(&mut h, size), host(&mut s, size)))?;
            if size <= 2000 {
                let e = lowest_eigenpairs(&Backend::Cpu, size, &h, size, &s, size, 1).map_err(msg)?.0[0];
                energy = format!("; ground state {e:.8} hartree (CPU eigensolver)");
            }
            reference = Some((n, h));
            Ok((t, None))
        })();
        b.report.emit(&case(n, "hamiltonian"), "cpu", timing, &format!("target host{energy}"));
    }
    let Some(gpu) = &b.gpu else { return };
    b.pool = None;
    for &n in gpu_sizes {
        let (size, c) = (5 * n * n, case(n, "hamiltonian"));
        let len = size * size;
        let basis = match helium_basis(Backend::Cuda(gpu.device.clone()), &grid, n) {
            Ok(basis) => basis,
            Err(e) => return b.report.emit(&c, "cuda", Err(msg(e)), ""),
        };
        let timing = device_buffer::<f64>(&gpu.device, 2 * len, 3 << 30).and_then(|buffer| {
            let h = device_ptr(&buffer, &gpu.device);
            let t =
                time(true, 3, || basis.hamiltonian(&spec, AF, dev(h, len, size), dev(h + 8 * len as u64, len, size)));
            Ok((t?, None))
        });
        b.report.emit(&c, "cuda", timing, "target device (H and S)");
        let (mut ph, mut ps) = match pinned(&gpu.device, len).and_then(|h| Ok((h, pinned(&gpu.device, len)?))) {
            Ok(buffers) => buffers,
            Err(e) => return b.report.emit(&c, "cuda", Err(e), "target pinned host"),
        };
        let (h, s) = (view::<f64>(&mut ph, len), view::<f64>(&mut ps, len));
        let t = time(true, 3, || basis.hamiltonian(&spec, AF, host(&mut *h, size), host(&mut *s, size)));
        let diff = reference.as_ref().filter(|r: &&(usize, Vec<f64>)| r.0 == n).map(|r| rel_diff(h, &r.1));
        let copy = (16 * len) as f64 / gpu.d2h;
        let note = format!("target pinned host (H and S); the copies alone: {copy:.3} s at the D2H rate");
        b.report.emit(&c, "cuda", t.map(|t| (t, diff)), &note);
        if n == gpu_sizes[gpu_sizes.len() - 1] {
            let (backend, mut e) = (Backend::Cuda(gpu.device.clone()), f64::NAN);
            let t = time(false, 1, || lowest_eigenpairs(&backend, size, h, size, s, size, 1).map(|(v, _)| e = v[0]));
            let note =
                format!("cuSOLVER Dsygvd with its copies; ground state {e:.8} hartree (l <= 4 limit ~ -2.90352)");
            b.report.emit(&case(n, "lowest_eigenpairs"), "cuda", t.map(|t| (t, None)), &note);
            // The same problem in the exchange-symmetric (singlet) basis: N(N+1)/2 per pair.
            let singlet = HamiltonianSpec { exchange: Exchange::Symmetric, ..spec.clone() };
            let m = basis.hamiltonian_size(&singlet).expect("singlet size");
            let sizes = format!("helium singlet L=0 (l,l) l=0..4, N={n}, n={m}, Nq={nq} Ns={NS}");
            let t = time(true, 3, || basis.hamiltonian(&singlet, AF, host(&mut *h, m), host(&mut *s, m)));
            let c = Case::new("hamiltonian", sizes.clone());
            b.report.emit(&c, "cuda", t.map(|t| (t, None)), "exchange-symmetric basis, target pinned host (H and S)");
            let mut es = f64::NAN;
            let t = time(false, 1, || lowest_eigenpairs(&backend, m, h, m, s, m, 1).map(|(v, _)| es = v[0]));
            let note = format!("cuSOLVER Dsygvd, singlet basis; ground state {es:.8} hartree (direct basis: {e:.8})");
            b.report.emit(&Case::new("lowest_eigenpairs", sizes), "cuda", t.map(|t| (t, None)), &note);
        }
    }
    if let Some(&n) = gpu_sizes.last() {
        c_abi_landing(b, nq, n);
    }
}

/// Case 3b: the helium Hamiltonian (N = `n`) through the C entry point a Fortran or C caller
/// uses, `atomgpu_sturmian_hamiltonian`, into buffers of `atomgpu_host_alloc` (pinned) and into
/// ordinary pageable memory (a Vec, touched before timing).
fn c_abi_landing(b: &mut Bench, nq: usize, n: usize) {
    use atomgpu::ffi::host::{atomgpu_host_alloc, atomgpu_host_free};
    use atomgpu::ffi::sturmian::*;
    let size = 5 * n * n;
    let sizes = format!("helium L=0 (l,l) l=0..4, N={n}, n={size}, Nq={nq} Ns={NS}, through the C ABI");
    let params = atomgpu_sturmian_params {
        l_total: 0,
        m: 0,
        energy_a: HE.0,
        energy_b: HE.0,
        nuclear_charge: 2.0,
        interaction_charge: 1.0,
        exchange: ATOMGPU_EXCHANGE_NONE,
    };
    let gsf = |n: usize| atomgpu_gsf_params {
        nuclear_charge: 2.0,
        energy: HE.0,
        yukawa_strength: 2.0,
        yukawa_range: HE.1,
        n_parent: n as i64 + 10,
        lambda: HE.2,
    };
    let pairs: Vec<i32> = (0..=4).collect();
    let status = |s: i32, what: &str| if s == 0 { Ok(()) } else { Err(format!("{what}: status {s}")) };
    let run = |h: *mut f64, s: *mut f64, handle: *mut atomgpu_sturmian| {
        // SAFETY: h and s hold size^2 doubles; the pair arrays 5 entries.
        status(
            unsafe {
                atomgpu_sturmian_hamiltonian(
                    handle,
                    &params,
                    5,
                    pairs.as_ptr(),
                    pairs.as_ptr(),
                    ATOMGPU_ORDER_A_FASTEST,
                    h,
                    size as i64,
                    size as i64,
                    s,
                    size as i64,
                    size as i64,
                )
            },
            "atomgpu_sturmian_hamiltonian",
        )
    };
    let mut handle = std::ptr::null_mut();
    let made = (|| -> Outcome<()> {
        // SAFETY: valid arguments; the handle is destroyed below.
        unsafe {
            let null = std::ptr::null();
            status(atomgpu_sturmian_create(RMAX, nq as i64, NS as i64, null, null, 0, &mut handle), "create")?;
            for l in 0..=4 {
                for e in [ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B] {
                    status(atomgpu_sturmian_add_gsf(handle, e, l, n as i64, &gsf(n), std::ptr::null_mut()), "add_gsf")?;
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = made {
        return b.report.emit(&Case::new("hamiltonian", sizes), "cuda", Err(e), "C ABI");
    }
    let bytes = (size * size * 8) as i64;
    let (mut hp, mut sp) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: output pointers to two pointers.
    let pinned = unsafe {
        status(atomgpu_host_alloc(bytes, &mut hp), "host_alloc h")
            .and(status(atomgpu_host_alloc(bytes, &mut sp), "host_alloc s"))
    };
    let t = pinned.and_then(|()| time(true, 3, || run(hp as *mut f64, sp as *mut f64, handle)));
    let note = "C ABI into atomgpu_host_alloc (pinned) buffers, H and S";
    b.report.emit(&Case::new("hamiltonian", sizes.clone()), "cuda", t.map(|t| (t, None)), note);
    // SAFETY: buffers from atomgpu_host_alloc (NULL when not made).
    unsafe {
        atomgpu_host_free(hp);
        atomgpu_host_free(sp);
    }
    let t = touched::<f64>(size * size).and_then(|mut h| {
        let mut s = touched::<f64>(size * size)?;
        time(true, 3, || run(h.as_mut_ptr(), s.as_mut_ptr(), handle))
    });
    b.report.emit(
        &Case::new("hamiltonian", sizes),
        "cuda",
        t.map(|t| (t, None)),
        "C ABI into pageable (Vec) buffers, H and S",
    );
    // SAFETY: made above.
    unsafe { atomgpu_sturmian_destroy(handle) };
}

/// Case 4: the (e,3e) Hamiltonian, L = 0..4, assembled per L into reused host buffers.
fn e3e(b: &mut Bench, nq: usize, n: usize) {
    let Some(gpu) = &b.gpu else { return b.report.note("(e,3e) skipped: no GPU") };
    b.pool = None;
    let (size, grid) = (5 * n * n, Grid::gauss_legendre(RMAX, nq, NS).expect("grid"));
    let len = size * size;
    let flops = 25.0 * 8.0 * n.pow(4) as f64 * (2 * nq) as f64;
    let case = |l: &str| {
        let sizes = format!("e3e L={l}, 5 pairs per L, N={n} per electron, n={size}, complex, Nq={nq} Ns={NS}");
        Case { integrals: len as f64, flops, ceiling: Some(gpu.zgemm), ..Case::new("e3e_hamiltonian", sizes) }
    };
    // H in pinned host memory; S too when the host has room for both, else in device memory.
    let basis = smooth_basis(Backend::Cuda(gpu.device.clone()), &grid, n, &[0, 1, 2, 3, 4], COMPLEX);
    let (basis, mut h) = match basis.map_err(msg).and_then(|basis| Ok((basis, pinned(&gpu.device, 2 * len)?))) {
        Ok(x) => x,
        Err(e) => return b.report.emit(&case("0..4"), "cuda", Err(e), ""),
    };
    let mut s_host = pinned(&gpu.device, 2 * len).ok();
    let s_dev = match s_host {
        None => device_buffer::<Complex64>(&gpu.device, len, 3 << 30),
        Some(_) => Err(String::new()),
    };
    let s_where = if s_host.is_some() { "pinned host memory" } else { "device memory" };
    let note = format!("one run; H ({:.1} GB) in pinned host memory, S in {s_where}", (16 * len) as f64 / 1e9);
    let mut total = 0.0;
    for (l_total, pairs) in E3E_PAIRS.iter().enumerate() {
        let pairs = pairs.iter().map(|&(la, lb)| Pair { la, lb }).collect();
        let spec = spec(l_total as u32, pairs, [-0.5, 0.5]);
        let t = time(false, 1, || {
            let s = match (&mut s_host, &s_dev) {
                (Some(p), _) => host(view::<Complex64>(p, len), size),
                (None, Ok(d)) => dev(device_ptr(d, &gpu.device), len, size),
                (None, Err(e)) => return Err(Error::Internal(e.clone())),
            };
            basis.hamiltonian(&spec, AF, host(view::<Complex64>(&mut h, len), size), s)
        });
        total += t.as_ref().unwrap_or(&f64::NAN);
        b.report.emit(&case(&l_total.to_string()), "cuda", t.map(|t| (t, None)), &note);
    }
    let c = Case { routine: "e3e_hamiltonian_total", integrals: 5.0 * len as f64, flops: 5.0 * flops, ..case("0..4") };
    b.report.emit(&c, "cuda", Ok((total, None)), "sum over L");
}

/// Case 5: the (e,3e) Hamiltonian of case 4 with its pair blocks spread over 1, 2, 4, … GPUs
/// (`Sturmian::new_on_devices`; 1: one GPU, the path of case 4), all five L into the same pinned host
/// buffers (H and S), one run per count, every count in this run. Ceiling: the device-to-host rate
/// of that many GPUs copying into pinned host memory at once, measured here.
fn e3e_spread(b: &mut Bench, nq: usize, n: usize) {
    let Some(gpu) = &b.gpu else { return b.report.note("(e,3e) spread skipped: no GPU") };
    let visible = backend::cuda_device_count();
    let mut counts: Vec<usize> =
        std::iter::successors(Some(1usize), |c| Some(2 * c)).take_while(|&c| c <= visible).collect();
    if *counts.last().unwrap() != visible {
        counts.push(visible);
    }
    b.pool = None;
    let (size, grid) = (5 * n * n, Grid::gauss_legendre(RMAX, nq, NS).expect("grid"));
    let len = size * size;
    let flops = 5.0 * 25.0 * 8.0 * n.pow(4) as f64 * (2 * nq) as f64;
    let landed = 5.0 * 2.0 * (len * size_of::<Complex64>()) as f64;
    let case = |count: usize| {
        let sizes =
            format!("e3e L=0..4 spread over {count} GPU(s), 5 pairs per L, N={n}, n={size}, complex, Nq={nq} Ns={NS}");
        Case {
            integrals: 5.0 * len as f64,
            flops,
            ceiling: Some(gpu.zgemm * count as f64),
            ..Case::new("e3e_spread", sizes)
        }
    };
    let buffers = pinned(&gpu.device, 2 * len).and_then(|h| Ok((h, pinned(&gpu.device, 2 * len)?)));
    let (mut h, mut s) = match buffers {
        Ok(x) => x,
        Err(e) => return b.report.emit(&case(1), "cuda", Err(e), ""),
    };
    let mut one_gpu = None;
    for count in counts {
        let rate = landing_rate(count, view::<f64>(&mut h, 2 * len));
        let basis = smooth_basis_on(Backend::Cuda(gpu.device.clone()), &grid, n, &[0, 1, 2, 3, 4], COMPLEX, count);
        let t = basis.map_err(msg).and_then(|basis| {
            let t0 = Instant::now();
            for (l_total, pairs) in E3E_PAIRS.iter().enumerate() {
                let pairs = pairs.iter().map(|&(la, lb)| Pair { la, lb }).collect();
                let spec = spec(l_total as u32, pairs, [-0.5, 0.5]);
                let (ht, st) = (host(view::<Complex64>(&mut h, len), size), host(view::<Complex64>(&mut s, len), size));
                basis.hamiltonian(&spec, AF, ht, st).map_err(msg)?;
            }
            Ok(t0.elapsed().as_secs_f64())
        });
        let t_one = *one_gpu.get_or_insert(t.clone().unwrap_or(f64::NAN));
        let note = match (&t, rate) {
            (Ok(t), Ok(rate)) => format!(
                "one run; H and S ({:.1} GB each per L) into portable pinned host memory; speedup over 1 GPU {:.2}; landed {:.1} GB/s = {:.2} of the {count}-GPU device-to-host ceiling {:.1} GB/s measured just before",
                (16 * len) as f64 / 1e9,
                t_one / t,
                landed / t / 1e9,
                landed / t / rate,
                rate / 1e9
            ),
            (_, Err(e)) => format!("one run; ceiling not measured: {e}"),
            (Err(_), _) => String::new(),
        };
        b.report.emit(&case(count), "cuda", t.map(|t| (t, None)), &note);
    }
}

/// Bytes per second landed when GPUs 0..count each copy 2 GiB from device memory into their own
/// part of `host` (portable pinned memory) at once.
fn landing_rate(count: usize, host: &mut [f64]) -> Outcome<f64> {
    let part = (1usize << 28).min(host.len() / count);
    let devices = (0..count).map(backend::cuda_device_at).collect::<Result<Vec<_>>>().map_err(msg)?;
    let sources = devices.iter().map(|d| d.zeros::<f64>(part)).collect::<Result<Vec<_>>>().map_err(msg)?;
    let copy_all = |host: &mut [f64]| -> Outcome<f64> {
        let t0 = Instant::now();
        std::thread::scope(|scope| {
            let jobs: Vec<_> = host
                .chunks_mut(part)
                .zip(devices.iter().zip(&sources))
                .map(|(chunk, (d, src))| {
                    scope.spawn(move || -> Outcome<()> {
                        d.stream().context().bind_to_thread().map_err(|e| format!("{e:?}"))?;
                        // SAFETY: `src` holds `part` doubles on device `d`; `chunk` is this thread's.
                        unsafe {
                            cudarc::driver::result::memcpy_dtoh_async(chunk, device_ptr(src, d), d.stream().cu_stream())
                        }
                        .map_err(|e| format!("{e:?}"))?;
                        d.synchronize().map_err(msg)
                    })
                })
                .collect();
            jobs.into_iter().try_for_each(|j| j.join().map_err(|_| "a copy thread panicked".to_string())?)
        })?;
        Ok((count * part * 8) as f64 / t0.elapsed().as_secs_f64())
    };
    copy_all(host)?;
    let mut rates = (0..3).map(|_| copy_all(host)).collect::<Outcome<Vec<f64>>>()?;
    rates.sort_by(f64::total_cmp);
    Ok(rates[1])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out_dir = args.get(1).filter(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| "out".into());
    let flag = |f: &str| args.iter().any(|a| a == f);
    let (quick, helium_only) = (flag("--quick"), flag("--helium-only"));
    let no_e3e = flag("--no-e3e") || helium_only;
    let spread_only = flag("--e3e-spread");
    std::fs::create_dir_all(&out_dir).expect("creating OUT_DIR");
    let jsonl = std::fs::File::create(format!("{out_dir}/sturmian_bench.jsonl")).expect("creating the JSON lines");
    let mut b = Bench { gpu: None, pool: None, report: Report { jsonl, gpu_name: String::new() } };
    match backend::cuda_device() {
        Ok(device) => {
            b.report.gpu_name = device.name().to_string();
            match ceilings(&mut b.report, device, quick) {
                Ok((gpu, pinned_host)) => (b.gpu, b.pool) = (Some(gpu), Some(pinned_host)),
                Err(e) => b.report.note(&format!("GPU ceilings failed ({e}): GPU cases skipped")),
            }
        }
        Err(e) => b.report.note(&format!("no CUDA device ({e}): GPU cases skipped")),
    }
    if spread_only {
        return e3e_spread(&mut b, 256, if quick { 6 } else { 84 });
    }
    let (nqs, sizes, real_sizes): (&[usize], &[usize], &[usize]) =
        if quick { (&[32], &[8, 16], &[16]) } else { (&[128, 256], &[16, 32, 64, 128, 256], &[64, 128]) };
    let nq = nqs[nqs.len() - 1];
    if !helium_only {
        for &nq in nqs {
            repulsion(&mut b, nq, sizes, COMPLEX);
        }
        repulsion(&mut b, nq, real_sizes, REAL);
    }
    // Quick: Nq = 64 for helium, as 32 Gauss points cannot integrate the GSFs over 40 bohr.
    let (cpu_sizes, gpu_sizes): (&[usize], &[usize]) = if quick { (&[4, 8], &[8]) } else { (&[16, 32], &[32, 64]) };
    helium(&mut b, if quick { 64 } else { nq }, cpu_sizes, gpu_sizes);
    if !no_e3e {
        e3e(&mut b, nq, if quick { 6 } else { 84 });
    }
}
