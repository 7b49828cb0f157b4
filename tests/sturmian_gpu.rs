//! The CUDA path of the Sturmian module (`src/sturmian/cuda.rs`, `kernels/sturmian.cu`) computes
//! the same functions as the CPU reference (`src/sturmian/cpu.rs`): on bases of pseudo-random
//! values (never zeros; real, and complex with complex β), of sizes that are multiples of no tile
//! (N = 5, 7, 12, 13, 33, with N_a != N_b, Nq = 17 and 64), channels with and without a central
//! potential, it compares
//!
//! * `one_electron_block` and `repulsion` (both orders, host targets with ld > rows, every
//!   multipole the triangle rules allow and one they do not), and `hamiltonian` (host);
//! * the same into device memory (`Target::Device`), downloaded;
//! * a channel replaced after the first upload;
//! * exchange-symmetrised Hamiltonians (singlet and triplet, L = 1, 2) into host and device memory;
//! * `lowest_eigenpairs` and `lowest_eigenvalues` on the CPU (faer) and on the GPU (cuSOLVER) for
//!   a helium-like GSF basis, also scaled by 2^-500 (H) and 2^400 (S); and the GPU's eigenpairs of
//!   2 x 2 problems at the ends of double precision against their closed form.
//! * Hamiltonians of channels that carry their own central potential and energy (generated for
//!   Z = 0, at different energies per l), and hydrogen's closed form from them on the GPU.
//!
//! Tolerance: relative 1e-12 of the largest |element| of the CPU result (the two sides sum the
//! same terms in different orders, the GEMMs in different blockings). The eigensolvers are two
//! different algorithms, so their results differ by the problem's sensitivity to rounding: energies
//! are compared to 1e-11 relative to the largest |E|, eigenvectors (up to their sign) to 1e-9 of
//! their largest element (measured on the CPU: perturbing H and S by 1e-15 relative moves the
//! energies of that problem by 1.1e-13 and the vectors by 2.8e-12).
//!
//! Without a CUDA device the tests print `skipped: no CUDA device` and pass, unless
//! `ATOMGPU_REQUIRE_GPU=1` (set on the device machine), where they fail.

#[allow(dead_code)]
#[path = "support/rng.rs"]
mod rng;

#[path = "support/gpu.rs"]
mod gpu;

use atomgpu::backend::{Backend, CudaDevice, DeviceSet};
use atomgpu::error::Error;
use atomgpu::sturmian::gsf::{generate, GsfSpec};
use atomgpu::sturmian::solve::{lowest_eigenpairs, lowest_eigenvalues};
use atomgpu::sturmian::{
    Central, ChannelSpec, Electron, Exchange, Grid, HamiltonianSpec, Order, Pair, Scalar, Sturmian, Target,
};
use cudarc::driver::DevicePtrMut;
use num_complex::Complex64;
use rng::Rng;
use std::sync::Arc;

const TOLERANCE: f64 = 1e-12;

/// An element type of the tests: random draws (never zero) and its doubles (as device memory
/// holds them: 1 per real, 2 per complex value).
trait Draw: Scalar {
    fn draw(rng: &mut Rng) -> Self;
    fn from_doubles(d: &[f64]) -> Vec<Self>;
    const WIDTH: usize;
}

impl Draw for f64 {
    fn draw(rng: &mut Rng) -> f64 {
        rng.uniform(0.1, 1.0) * if rng.unit() < 0.5 { -1.0 } else { 1.0 }
    }
    fn from_doubles(d: &[f64]) -> Vec<f64> {
        d.to_vec()
    }
    const WIDTH: usize = 1;
}

impl Draw for Complex64 {
    fn draw(rng: &mut Rng) -> Complex64 {
        Complex64::new(f64::draw(rng), f64::draw(rng))
    }
    fn from_doubles(d: &[f64]) -> Vec<Complex64> {
        d.chunks(2).map(|c| Complex64::new(c[0], c[1])).collect()
    }
    const WIDTH: usize = 2;
}

/// A channel's inputs, kept so that the same channel goes to both backends.
#[derive(Clone)]
struct ChannelData<T> {
    electron: Electron,
    l: u32,
    n: usize,
    ld: usize,
    values: Vec<T>,
    beta: Vec<T>,
    generating: Vec<f64>,
    central: Option<Vec<f64>>,
}

impl<T: Draw> ChannelData<T> {
    fn random(grid: &Grid, rng: &mut Rng, electron: Electron, l: u32, n: usize, central: bool) -> Self {
        let ld = grid.n_points() + 3;
        ChannelData {
            electron,
            l,
            n,
            ld,
            values: (0..ld * n).map(|_| T::draw(rng)).collect(),
            beta: (0..n).map(|_| T::draw(rng)).collect(),
            generating: (0..grid.nq()).map(|_| -rng.uniform(0.1, 2.0)).collect(),
            central: central.then(|| (0..grid.nq()).map(|_| rng.uniform(-3.0, 1.0)).collect()),
        }
    }

    fn spec(&self) -> ChannelSpec<'_, T> {
        ChannelSpec {
            electron: self.electron,
            l: self.l,
            n: self.n,
            values: &self.values,
            ld: self.ld,
            beta: &self.beta,
            generating: &self.generating,
            central: self.central.as_deref().map_or(Central::Nuclear, Central::Values),
            energy: None,
        }
    }
}

fn build<T: Draw>(backend: Backend, grid: &Grid, channels: &[ChannelData<T>]) -> Sturmian<T> {
    build_on(backend, grid, channels, 1)
}

/// As `build`, with the Hamiltonians spread over `devices` GPUs.
fn build_on<T: Draw>(backend: Backend, grid: &Grid, channels: &[ChannelData<T>], devices: usize) -> Sturmian<T> {
    let mut basis = Sturmian::<T>::new_on_devices(grid.clone(), &DeviceSet::count(backend, devices).unwrap()).unwrap();
    for c in channels {
        basis.add_channel(&c.spec()).unwrap();
    }
    basis
}

/// max |a - b| / max |b|.
fn relative_difference<T: Scalar>(a: &[T], b: &[T]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.modulus())).max(f64::MIN_POSITIVE);
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((*x - *y).modulus())) / scale
}

fn check<T: Scalar>(what: &str, gpu: &[T], cpu: &[T]) -> f64 {
    let d = relative_difference(gpu, cpu);
    assert!(d <= TOLERANCE, "{what}: GPU differs from CPU by {d:.2e} (relative to the largest element)");
    d
}

/// A test case: grid (Rmax, Nq, Ns), channels (electron, l, N, with a central potential) and the
/// Hamiltonians assembled from them.
struct Case {
    grid: (f64, usize, usize),
    channels: Vec<(Electron, u32, usize, bool)>,
    specs: Vec<HamiltonianSpec>,
}

fn hamiltonian_spec(l_total: u32, m: i32, pairs: &[(u32, u32)]) -> HamiltonianSpec {
    HamiltonianSpec {
        l_total,
        m,
        pairs: pairs.iter().map(|&(la, lb)| Pair { la, lb }).collect(),
        energies: [-0.8, -0.35],
        nuclear_charge: 2.0,
        interaction_charge: 1.0,
        exchange: Exchange::None,
    }
}

fn cases() -> Vec<Case> {
    use Electron::{A, B};
    vec![
        Case {
            grid: (12.0, 17, 3),
            channels: vec![(A, 0, 5, false), (A, 1, 7, true), (B, 0, 13, false), (B, 1, 5, true)],
            specs: vec![hamiltonian_spec(0, 0, &[(0, 0), (1, 1)]), hamiltonian_spec(1, -1, &[(0, 1), (1, 0), (1, 1)])],
        },
        Case {
            grid: (20.0, 64, 5),
            channels: vec![(A, 0, 33, true), (A, 2, 13, false), (B, 0, 7, false), (B, 2, 12, true)],
            specs: vec![hamiltonian_spec(2, 1, &[(0, 2), (2, 0), (2, 2)]), hamiltonian_spec(0, 0, &[(0, 0), (2, 2)])],
        },
    ]
}

/// Every block, both orders, host targets: GPU against CPU.
fn host_targets<T: Draw>(gpu: &Backend, seed: u64) -> f64 {
    let mut worst = 0.0f64;
    let mut rng = Rng::new(seed);
    for case in cases() {
        let grid = Grid::gauss_legendre(case.grid.0, case.grid.1, case.grid.2).unwrap();
        let data: Vec<ChannelData<T>> =
            case.channels.iter().map(|&(e, l, n, u)| ChannelData::random(&grid, &mut rng, e, l, n, u)).collect();
        let mut on_gpu = build(gpu.clone(), &grid, &data);
        let mut on_cpu = build(Backend::Cpu, &grid, &data);
        assert_eq!(on_gpu.backend_name(), "cuda");
        let ls = |e: Electron| data.iter().filter(|c| c.electron == e).map(|c| c.l).collect::<Vec<_>>();
        let pairs: Vec<Pair> = ls(Electron::A)
            .into_iter()
            .flat_map(|la| ls(Electron::B).into_iter().map(move |lb| Pair { la, lb }))
            .collect();
        // Repulsion blocks: every pair of pairs, the allowed multipoles and one more.
        for &bra in &pairs {
            for &ket in &pairs {
                let (rows, cols) = (on_cpu.pair_size(bra).unwrap(), on_cpu.pair_size(ket).unwrap());
                let ld = rows + 3;
                let mut multipoles: Vec<u32> =
                    atomgpu::sturmian::angular::multipoles(bra.la, bra.lb, ket.la, ket.lb).collect();
                multipoles.push(bra.la + ket.la + 1);
                for l in multipoles {
                    for order in [Order::AFastest, Order::BFastest] {
                        let (mut g, mut c) = (vec![T::real(0.5); ld * cols], vec![T::real(0.5); ld * cols]);
                        on_gpu.repulsion(bra, ket, l, order, Target::Host { data: &mut g, ld }).unwrap();
                        on_cpu.repulsion(bra, ket, l, order, Target::Host { data: &mut c, ld }).unwrap();
                        worst = worst.max(check(&format!("repulsion {bra:?} {ket:?} l {l} {order:?}"), &g, &c));
                    }
                }
            }
        }
        for spec in &case.specs {
            let n: usize = spec.pairs.iter().map(|&p| on_cpu.pair_size(p).unwrap()).sum();
            for order in [Order::AFastest, Order::BFastest] {
                for &pair in &spec.pairs {
                    let size = on_cpu.pair_size(pair).unwrap();
                    let ld = size + 2;
                    let mut m: Vec<Vec<T>> = (0..4).map(|_| vec![T::real(0.5); ld * size]).collect();
                    let [hg, sg, hc, sc] = &mut m[..] else { unreachable!() };
                    on_gpu
                        .one_electron_block(
                            pair,
                            spec,
                            order,
                            Target::Host { data: hg, ld },
                            Target::Host { data: sg, ld },
                        )
                        .unwrap();
                    on_cpu
                        .one_electron_block(
                            pair,
                            spec,
                            order,
                            Target::Host { data: hc, ld },
                            Target::Host { data: sc, ld },
                        )
                        .unwrap();
                    worst = worst.max(check(&format!("one_electron_block h {pair:?} {order:?}"), hg, hc));
                    worst = worst.max(check(&format!("one_electron_block s {pair:?} {order:?}"), sg, sc));
                }
                let ld = n + 1;
                let mut m: Vec<Vec<T>> = (0..4).map(|_| vec![T::real(0.5); ld * n]).collect();
                let [hg, sg, hc, sc] = &mut m[..] else { unreachable!() };
                on_gpu.hamiltonian(spec, order, Target::Host { data: hg, ld }, Target::Host { data: sg, ld }).unwrap();
                on_cpu.hamiltonian(spec, order, Target::Host { data: hc, ld }, Target::Host { data: sc, ld }).unwrap();
                worst = worst.max(check(&format!("hamiltonian h L {} {order:?} n {n}", spec.l_total), hg, hc));
                worst = worst.max(check(&format!("hamiltonian s L {} {order:?} n {n}", spec.l_total), sg, sc));
            }
        }
        // A channel replaced after the first upload (another N): the device copy follows.
        let first = &data[0];
        let replacement = ChannelData::<T>::random(&grid, &mut rng, first.electron, first.l, first.n + 4, true);
        on_gpu.add_channel(&replacement.spec()).unwrap();
        on_cpu.add_channel(&replacement.spec()).unwrap();
        let pair = pairs[0];
        let size = on_cpu.pair_size(pair).unwrap();
        for order in [Order::AFastest, Order::BFastest] {
            let (mut g, mut c) = (vec![T::real(0.5); size * size], vec![T::real(0.5); size * size]);
            on_gpu.repulsion(pair, pair, 0, order, Target::Host { data: &mut g, ld: size }).unwrap();
            on_cpu.repulsion(pair, pair, 0, order, Target::Host { data: &mut c, ld: size }).unwrap();
            worst = worst.max(check("repulsion after replacing a channel", &g, &c));
        }
    }
    worst
}

#[test]
fn gpu_equals_cpu_real() {
    let Some(d) = gpu::cuda_device() else { return };
    let worst = host_targets::<f64>(&Backend::Cuda(d), 31);
    println!("real bases: max relative difference {worst:.2e}");
}

#[test]
fn gpu_equals_cpu_complex() {
    let Some(d) = gpu::cuda_device() else { return };
    let worst = host_targets::<Complex64>(&Backend::Cuda(d), 32);
    println!("complex bases: max relative difference {worst:.2e}");
}

/// `len` elements of T in device memory, zeroed, handed to `fill` as a target with leading
/// dimension `ld`, then downloaded as T.
fn device_matrix<T: Draw>(device: &Arc<CudaDevice>, len: usize, ld: usize, fill: impl FnOnce(Target<'_, T>)) -> Vec<T> {
    let mut buffer = device.zeros::<f64>(len * T::WIDTH).unwrap();
    {
        let (ptr, _guard) = buffer.device_ptr_mut(device.stream());
        fill(Target::Device { ptr, len, ld });
    }
    let mut doubles = vec![0.0; len * T::WIDTH];
    device.download_into(&buffer, &mut doubles).unwrap();
    T::from_doubles(&doubles)
}

/// The same blocks written into device memory (`Target::Device`), downloaded, against the CPU's
/// host results (the device buffer starts zeroed, and so does the host one).
fn device_targets<T: Draw>(device: &Arc<CudaDevice>, seed: u64) -> f64 {
    let mut worst = 0.0f64;
    let mut rng = Rng::new(seed);
    let case = &cases()[0];
    let grid = Grid::gauss_legendre(case.grid.0, case.grid.1, case.grid.2).unwrap();
    let data: Vec<ChannelData<T>> =
        case.channels.iter().map(|&(e, l, n, u)| ChannelData::random(&grid, &mut rng, e, l, n, u)).collect();
    let on_gpu = build(Backend::Cuda(device.clone()), &grid, &data);
    let on_cpu = build(Backend::Cpu, &grid, &data);
    let (bra, ket) = (Pair { la: 1, lb: 0 }, Pair { la: 0, lb: 1 });
    let (rows, cols) = (on_cpu.pair_size(bra).unwrap(), on_cpu.pair_size(ket).unwrap());
    let ld = rows + 5;
    for order in [Order::AFastest, Order::BFastest] {
        let g = device_matrix::<T>(device, ld * cols, ld, |t| on_gpu.repulsion(bra, ket, 1, order, t).unwrap());
        let mut c = vec![T::real(0.0); ld * cols];
        on_cpu.repulsion(bra, ket, 1, order, Target::Host { data: &mut c, ld }).unwrap();
        worst = worst.max(check(&format!("repulsion into device memory {order:?}"), &g, &c));
    }
    for spec in &case.specs {
        let n: usize = spec.pairs.iter().map(|&p| on_cpu.pair_size(p).unwrap()).sum();
        let ld = n + 2;
        for order in [Order::AFastest, Order::BFastest] {
            let mut s_gpu = Vec::new();
            let h_gpu = device_matrix::<T>(device, ld * n, ld, |h| {
                s_gpu = device_matrix::<T>(device, ld * n, ld, |s| on_gpu.hamiltonian(spec, order, h, s).unwrap());
            });
            let (mut h, mut s) = (vec![T::real(0.0); ld * n], vec![T::real(0.0); ld * n]);
            on_cpu
                .hamiltonian(spec, order, Target::Host { data: &mut h, ld }, Target::Host { data: &mut s, ld })
                .unwrap();
            worst =
                worst.max(check(&format!("hamiltonian h into device memory L {} {order:?}", spec.l_total), &h_gpu, &h));
            worst =
                worst.max(check(&format!("hamiltonian s into device memory L {} {order:?}", spec.l_total), &s_gpu, &s));
            let pair = spec.pairs[0];
            let size = on_cpu.pair_size(pair).unwrap();
            let bld = size + 1;
            let mut s_block = Vec::new();
            let h_block = device_matrix::<T>(device, bld * size, bld, |h| {
                s_block = device_matrix::<T>(device, bld * size, bld, |s| {
                    on_gpu.one_electron_block(pair, spec, order, h, s).unwrap()
                });
            });
            let (mut h, mut s) = (vec![T::real(0.0); bld * size], vec![T::real(0.0); bld * size]);
            on_cpu
                .one_electron_block(
                    pair,
                    spec,
                    order,
                    Target::Host { data: &mut h, ld: bld },
                    Target::Host { data: &mut s, ld: bld },
                )
                .unwrap();
            worst = worst.max(check("one_electron_block h into device memory", &h_block, &h));
            worst = worst.max(check("one_electron_block s into device memory", &s_block, &s));
        }
    }
    worst
}

#[test]
fn device_targets_equal_cpu() {
    let Some(d) = gpu::cuda_device() else { return };
    let real = device_targets::<f64>(&d, 41);
    let complex = device_targets::<Complex64>(&d, 42);
    println!("device targets: max relative difference {real:.2e} (real), {complex:.2e} (complex)");
}

/// Exchange-symmetrised Hamiltonians (`Exchange::Symmetric` and `Antisymmetric`): identical
/// random channels for both electrons (N = 7, 5, 6 for l = 0, 1, 2, one with a central
/// potential), L = 1 and 2, both orders, into host memory (ld > n) and device memory: GPU
/// against CPU.
fn exchange_targets<T: Draw>(device: &Arc<CudaDevice>, seed: u64) -> f64 {
    let mut rng = Rng::new(seed);
    let grid = Grid::gauss_legendre(15.0, 23, 3).unwrap();
    let mut data = Vec::new();
    for (l, n, central) in [(0, 7, false), (1, 5, true), (2, 6, false)] {
        let a = ChannelData::<T>::random(&grid, &mut rng, Electron::A, l, n, central);
        let b = ChannelData { electron: Electron::B, ..a.clone() };
        data.extend([a, b]);
    }
    let on_gpu = build(Backend::Cuda(device.clone()), &grid, &data);
    let on_cpu = build(Backend::Cpu, &grid, &data);
    let mut worst = 0.0f64;
    for (l_total, m, pairs) in [(1, 1, &[(0, 1), (1, 1), (1, 2)][..]), (2, 0, &[(0, 2), (1, 1), (1, 2), (2, 2)][..])] {
        for exchange in [Exchange::Symmetric, Exchange::Antisymmetric] {
            let spec = HamiltonianSpec { exchange, ..hamiltonian_spec(l_total, m, pairs) };
            let n = on_cpu.hamiltonian_size(&spec).unwrap();
            assert_eq!(on_gpu.hamiltonian_size(&spec).unwrap(), n);
            let ld = n + 3;
            for order in [Order::AFastest, Order::BFastest] {
                let what = format!("L {l_total} {exchange:?} {order:?}");
                let (mut h, mut s) = (vec![T::real(0.0); ld * n], vec![T::real(0.0); ld * n]);
                on_cpu
                    .hamiltonian(&spec, order, Target::Host { data: &mut h, ld }, Target::Host { data: &mut s, ld })
                    .unwrap();
                let (mut hg, mut sg) = (vec![T::real(0.0); ld * n], vec![T::real(0.0); ld * n]);
                on_gpu
                    .hamiltonian(&spec, order, Target::Host { data: &mut hg, ld }, Target::Host { data: &mut sg, ld })
                    .unwrap();
                worst = worst.max(check(&format!("exchange h host {what}"), &hg, &h));
                worst = worst.max(check(&format!("exchange s host {what}"), &sg, &s));
                let mut s_dev = Vec::new();
                let h_dev = device_matrix::<T>(device, ld * n, ld, |h| {
                    s_dev = device_matrix::<T>(device, ld * n, ld, |s| on_gpu.hamiltonian(&spec, order, h, s).unwrap());
                });
                worst = worst.max(check(&format!("exchange h device {what}"), &h_dev, &h));
                worst = worst.max(check(&format!("exchange s device {what}"), &s_dev, &s));
            }
        }
    }
    worst
}

#[test]
fn exchange_gpu_equals_cpu() {
    let Some(d) = gpu::cuda_device() else { return };
    let real = exchange_targets::<f64>(&d, 51);
    let complex = exchange_targets::<Complex64>(&d, 52);
    println!("exchange-symmetrised Hamiltonians: max relative difference {real:.2e} (real), {complex:.2e} (complex)");
}

/// Hamiltonians spread over every visible GPU (at most 4; `Sturmian::new_on_devices`), into host
/// targets with ld > n: the cases above (direct, blocks of unequal sizes), then identical
/// electrons with both exchange symmetries, a channel replaced after the first upload (every GPU's
/// copy must follow), against the CPU within 1e-12, the padding untouched. Skipped with one GPU.
fn spread_targets<T: Draw>(device: &Arc<CudaDevice>, devices: usize, seed: u64) -> f64 {
    let mut rng = Rng::new(seed);
    let mut worst = 0.0f64;
    let fill = T::real(0.5);
    let mut compare = |what: String, spread: &Sturmian<T>, cpu: &Sturmian<T>, spec: &HamiltonianSpec| {
        let n = cpu.hamiltonian_size(spec).unwrap();
        let ld = n + 2;
        for order in [Order::AFastest, Order::BFastest] {
            let mut m: Vec<Vec<T>> = (0..4).map(|_| vec![fill; ld * n]).collect();
            let [hg, sg, hc, sc] = &mut m[..] else { unreachable!() };
            spread.hamiltonian(spec, order, Target::Host { data: hg, ld }, Target::Host { data: sg, ld }).unwrap();
            cpu.hamiltonian(spec, order, Target::Host { data: hc, ld }, Target::Host { data: sc, ld }).unwrap();
            worst = worst.max(check(&format!("spread h {what} {order:?}"), hg, hc));
            worst = worst.max(check(&format!("spread s {what} {order:?}"), sg, sc));
            for j in 0..n {
                assert!(hg[j * ld + n..(j + 1) * ld].iter().chain(&sg[j * ld + n..(j + 1) * ld]).all(|x| *x == fill));
            }
        }
    };
    for case in cases() {
        let grid = Grid::gauss_legendre(case.grid.0, case.grid.1, case.grid.2).unwrap();
        let data: Vec<ChannelData<T>> =
            case.channels.iter().map(|&(e, l, n, u)| ChannelData::random(&grid, &mut rng, e, l, n, u)).collect();
        let mut spread = build_on(Backend::Cuda(device.clone()), &grid, &data, devices);
        let mut cpu = build(Backend::Cpu, &grid, &data);
        assert_eq!(spread.n_devices(), devices);
        for spec in &case.specs {
            compare(format!("L {}", spec.l_total), &spread, &cpu, spec);
        }
        let first = &data[0];
        let replacement = ChannelData::<T>::random(&grid, &mut rng, first.electron, first.l, first.n + 4, true);
        spread.add_channel(&replacement.spec()).unwrap();
        cpu.add_channel(&replacement.spec()).unwrap();
        compare("after replacing a channel".into(), &spread, &cpu, &case.specs[0]);
    }
    let grid = Grid::gauss_legendre(15.0, 23, 3).unwrap();
    let mut data = Vec::new();
    for (l, n, central) in [(0, 7, false), (1, 5, true), (2, 6, false)] {
        let a = ChannelData::<T>::random(&grid, &mut rng, Electron::A, l, n, central);
        data.extend([ChannelData { electron: Electron::B, ..a.clone() }, a]);
    }
    let (spread, cpu) =
        (build_on(Backend::Cuda(device.clone()), &grid, &data, devices), build(Backend::Cpu, &grid, &data));
    for exchange in [Exchange::Symmetric, Exchange::Antisymmetric] {
        let spec = HamiltonianSpec { exchange, ..hamiltonian_spec(2, 0, &[(0, 2), (1, 1), (1, 2), (2, 2)]) };
        compare(format!("{exchange:?}"), &spread, &cpu, &spec);
    }
    worst
}

#[test]
fn spread_over_gpus_equals_cpu() {
    let Some(d) = gpu::cuda_device() else { return };
    let devices = atomgpu::backend::cuda_device_count().min(4);
    if devices < 2 {
        println!("skipped: one GPU visible (the spread needs two)");
        return;
    }
    let real = spread_targets::<f64>(&d, devices, 61);
    let complex = spread_targets::<Complex64>(&d, devices, 62);
    println!("Hamiltonians over {devices} GPUs: max relative difference {real:.2e} (real), {complex:.2e} (complex)");
}

/// Helium-like GSF basis (L = 0, pairs (0,0) and (1,1), N = 5 per channel): H and S built on both
/// backends agree (1e-12), and the 3 lowest eigenpairs from faer (CPU) and cuSOLVER (GPU) agree,
/// energies to 1e-11 relative, S-normalised vectors up to their sign to 1e-9 of their largest
/// element (module docs; E0 = -2.880784548 hartree on the CPU).
#[test]
fn helium_eigenpairs_gpu_equal_cpu() {
    let Some(d) = gpu::cuda_device() else { return };
    let gpu = Backend::Cuda(d);
    let (n, energy) = (5, -2.2);
    let grid = Grid::gauss_legendre(40.0, 96, 9).unwrap();
    let mut on_gpu = Sturmian::<f64>::new_on(gpu.clone(), grid.clone()).unwrap();
    let mut on_cpu = Sturmian::<f64>::new_on(Backend::Cpu, grid.clone()).unwrap();
    for l in 0..=1 {
        let spec = GsfSpec {
            l,
            nuclear_charge: 2.0,
            energy,
            yukawa_strength: 2.0,
            yukawa_range: 1.0,
            n_parent: n + 10,
            lambda: 2.0,
            n,
        };
        let gsf = generate(&grid, &spec).unwrap();
        for electron in [Electron::A, Electron::B] {
            let channel = gsf.channel(electron);
            on_gpu.add_channel(&channel).unwrap();
            on_cpu.add_channel(&channel).unwrap();
        }
    }
    let spec = HamiltonianSpec { energies: [energy, energy], ..hamiltonian_spec(0, 0, &[(0, 0), (1, 1)]) };
    let size = 2 * n * n;
    let mut m: Vec<Vec<f64>> = (0..4).map(|_| vec![0.0; size * size]).collect();
    let [hg, sg, hc, sc] = &mut m[..] else { unreachable!() };
    on_gpu
        .hamiltonian(&spec, Order::AFastest, Target::Host { data: hg, ld: size }, Target::Host { data: sg, ld: size })
        .unwrap();
    on_cpu
        .hamiltonian(&spec, Order::AFastest, Target::Host { data: hc, ld: size }, Target::Host { data: sc, ld: size })
        .unwrap();
    let worst = check("helium h", hg, hc).max(check("helium s", sg, sc));
    let k = 3;
    let (e_gpu, v_gpu) = lowest_eigenpairs(&gpu, size, hc, size, sc, size, k).unwrap();
    let (e_cpu, v_cpu) = lowest_eigenpairs(&Backend::Cpu, size, hc, size, sc, size, k).unwrap();
    let d_energy = relative_difference(&e_gpu, &e_cpu);
    assert!(d_energy <= 1e-11, "energies: GPU {e_gpu:?} vs CPU {e_cpu:?} ({d_energy:.2e})");
    let mut worst_vector = 0.0f64;
    for j in 0..k {
        let (g, c) = (&v_gpu[j * size..(j + 1) * size], &v_cpu[j * size..(j + 1) * size]);
        let sign = if g.iter().zip(c).map(|(x, y)| x * y).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
        let g: Vec<f64> = g.iter().map(|x| sign * x).collect();
        let d = relative_difference(&g, c);
        assert!(d <= 1e-9, "eigenvector {j}: GPU differs from CPU by {d:.2e}");
        worst_vector = worst_vector.max(d);
    }
    // The energies alone (CUSOLVER_EIG_MODE_NOVECTOR), and the problem scaled by powers of two
    // (E scales by 2^-900 exactly): against the CPU's eigenpairs, 1e-11 relative.
    let e_only = lowest_eigenvalues(&gpu, size, hc, size, sc, size, k).unwrap();
    let d_only = relative_difference(&e_only, &e_cpu);
    assert!(d_only <= 1e-11, "energies alone: GPU {e_only:?} vs CPU {e_cpu:?} ({d_only:.2e})");
    let hs: Vec<f64> = hc.iter().map(|x| x * 2f64.powi(-500)).collect();
    let ss: Vec<f64> = sc.iter().map(|x| x * 2f64.powi(400)).collect();
    let (e_scaled, _) = lowest_eigenpairs(&gpu, size, &hs, size, &ss, size, k).unwrap();
    let e_back: Vec<f64> = e_scaled.iter().map(|x| x * 2f64.powi(900)).collect();
    let d_scaled = relative_difference(&e_back, &e_cpu);
    assert!(d_scaled <= 1e-11, "scaled: GPU {e_back:?} vs CPU {e_cpu:?} ({d_scaled:.2e})");
    println!(
        "helium: H and S max relative difference {worst:.2e}; energies {d_energy:.2e} (E0 = {:.9}), vectors {worst_vector:.2e}; energies alone {d_only:.2e}, scaled {d_scaled:.2e}",
        e_cpu[0]
    );
}

/// cuSOLVER's path of the solver's power-of-two scaling (device Dscal), on H = [[a, b], [b, a]],
/// S = [[p, q], [q, p]] (eigenpairs E± = (a ± b)/(p ± q), c± = (1, ±1)/sqrt(2(p ± q))), as the CPU
/// test `eigenpairs_at_the_ends_of_double_precision` of tests/sturmian.rs: H at DBL_MAX (E+ to
/// 1e-15, k = 2 NotFinite at energies[1]), S at 5e-324 (NotFinite at energies[0]), H of 2^-1000
/// with a subnormal S of 2^-1070 {4, 1, 1, 4} (E+ = 0.22 2^70, c+ = 2^535/sqrt(10), 1e-15 and
/// 1e-14), with and without vectors.
#[test]
fn extreme_scales_gpu_match_closed_forms() {
    let Some(d) = gpu::cuda_device() else { return };
    let gpu = Backend::Cuda(d);
    let close = |got: f64, want: f64, tol: f64| ((got - want) / want).abs() <= tol;
    let not_finite_at = |r: Result<Vec<f64>, Error>, i: usize| matches!(r, Err(Error::NotFinite { name: "energies", index: Some(j), .. }) if j == i);
    let (a, b) = (f64::MAX, f64::MAX * 0.1);
    let (h, s) = ([a, b, b, a], [1.0, 0.2, 0.2, 1.0]);
    let e_plus = ((a / 2.0 + b / 2.0) / 1.2) * 2.0;
    let (e, c) = lowest_eigenpairs(&gpu, 2, &h, 2, &s, 2, 1).unwrap();
    assert!(close(e[0], e_plus, 1e-15), "E+ = {e:?}, want {e_plus:e}");
    assert!(close(c[0].abs(), 1.0 / 2.4f64.sqrt(), 1e-14) && c[0] * c[1] > 0.0, "c+ = {c:?}");
    assert!(close(lowest_eigenvalues(&gpu, 2, &h, 2, &s, 2, 1).unwrap()[0], e_plus, 1e-15));
    assert!(not_finite_at(lowest_eigenpairs(&gpu, 2, &h, 2, &s, 2, 2).map(|p| p.0), 1));
    assert!(not_finite_at(lowest_eigenvalues(&gpu, 2, &h, 2, &s, 2, 2), 1));
    let (h, s) = ([1.0, 0.1, 0.1, 1.0], [5e-324, 0.0, 0.0, 5e-324]);
    assert!(not_finite_at(lowest_eigenpairs(&gpu, 2, &h, 2, &s, 2, 1).map(|p| p.0), 0));
    assert!(not_finite_at(lowest_eigenvalues(&gpu, 2, &h, 2, &s, 2, 1), 0));
    let (t, u) = (2f64.powi(-1000), 2f64.powi(-1070));
    let (h, s) = ([t, 0.1 * t, 0.1 * t, t], [4.0 * u, u, u, 4.0 * u]);
    let (e, c) = lowest_eigenpairs(&gpu, 2, &h, 2, &s, 2, 2).unwrap();
    let want = [(1.0 + 0.1) / 5.0 * 2f64.powi(70), (1.0 - 0.1) / 3.0 * 2f64.powi(70)];
    assert!(close(e[0], want[0], 1e-15) && close(e[1], want[1], 1e-15), "E = {e:?}, want {want:?}");
    assert!(close(c[0].abs(), 2f64.powi(535) / 10f64.sqrt(), 1e-14), "c+ = {c:?}");
    println!("extreme scales on the GPU: E+ = {:e} (H at DBL_MAX), {:e} (S subnormal)", e_plus, e[0]);
}

/// Channels that carry their own central potential and energy (issue 28): Coulomb Sturmians
/// generated for Z = 0 (a Yukawa range of 1e12 bohr, λ = k), s at E = -0.5 and p at E = -0.2
/// hartree, assembled for Z = 1 with the spec's energies set to nonsense (unused: each channel
/// uses its own E and adds W = (0 - Z) I[1/r]). H and S of L = 0 (pairs (0,0), (1,1)) and L = 1
/// (pairs (0,1), (1,0)), with q12 = 1, agree between the backends (1e-12); with q12 = 0 the GPU's
/// lowest L = 0 level is hydrogen's 2 × (-1/2) = -1 (closed form: the first s Sturmian at k = 1
/// is hydrogen's 1s), to 1e-9.
#[test]
fn channels_with_their_own_potential_and_energy_gpu_equal_cpu() {
    let Some(d) = gpu::cuda_device() else { return };
    let gpu = Backend::Cuda(d);
    let grid = Grid::gauss_legendre(40.0, 96, 3).unwrap();
    let mut on_gpu = Sturmian::<f64>::new_on(gpu.clone(), grid.clone()).unwrap();
    let mut on_cpu = Sturmian::<f64>::new_on(Backend::Cpu, grid.clone()).unwrap();
    for (l, energy, n) in [(0u32, -0.5f64, 6usize), (1, -0.2, 5)] {
        let spec = GsfSpec {
            l,
            nuclear_charge: 0.0,
            energy,
            yukawa_strength: 1.0,
            yukawa_range: 1e12,
            n_parent: n + 10,
            lambda: (-2.0 * energy).sqrt(),
            n,
        };
        let gsf = generate(&grid, &spec).unwrap();
        for electron in [Electron::A, Electron::B] {
            on_gpu.add_channel(&gsf.channel(electron)).unwrap();
            on_cpu.add_channel(&gsf.channel(electron)).unwrap();
        }
    }
    let mut worst = 0.0f64;
    for (l_total, pairs) in [(0, &[(0, 0), (1, 1)][..]), (1, &[(0, 1), (1, 0)][..])] {
        let spec =
            HamiltonianSpec { nuclear_charge: 1.0, energies: [7.0, -3.0], ..hamiltonian_spec(l_total, 0, pairs) };
        let size = on_cpu.hamiltonian_size(&spec).unwrap();
        let mut m: Vec<Vec<f64>> = (0..4).map(|_| vec![0.0; size * size]).collect();
        let [hg, sg, hc, sc] = &mut m[..] else { unreachable!() };
        for (basis, h, s) in [(&on_gpu, &mut *hg, &mut *sg), (&on_cpu, &mut *hc, &mut *sc)] {
            let (h, s) = (Target::Host { data: h, ld: size }, Target::Host { data: s, ld: size });
            basis.hamiltonian(&spec, Order::BFastest, h, s).unwrap();
        }
        worst = worst.max(check("own U and E: h", hg, hc)).max(check("own U and E: s", sg, sc));
    }
    let spec = HamiltonianSpec {
        nuclear_charge: 1.0,
        interaction_charge: 0.0,
        energies: [7.0, -3.0],
        ..hamiltonian_spec(0, 0, &[(0, 0)])
    };
    let size = on_gpu.hamiltonian_size(&spec).unwrap();
    let (mut h, mut s) = (vec![0.0; size * size], vec![0.0; size * size]);
    on_gpu
        .hamiltonian(
            &spec,
            Order::AFastest,
            Target::Host { data: &mut h, ld: size },
            Target::Host { data: &mut s, ld: size },
        )
        .unwrap();
    let lowest = lowest_eigenpairs(&gpu, size, &h, size, &s, size, 1).unwrap().0[0];
    assert!((lowest + 1.0).abs() <= 1e-9, "hydrogen from Z = 0 Sturmians on the GPU: {lowest}, want -1");
    println!("own U and E: H and S max relative difference {worst:.2e}; GPU hydrogen 1s² {lowest:.12}");
}
