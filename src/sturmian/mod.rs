//! Generalized Sturmian three-body Hamiltonian (paper: sturmian-hamiltonian-gpu.txt, Mitnik et
//! al., Comput. Phys. Commun. 2014): one-electron overlaps and potential integrals (eqs. 13-14,
//! 19), their Kronecker products (eq. 20), two-dimensional repulsion integrals (eqs. 15, 21-24),
//! angular coefficients (eqs. 16-18) and whole Hamiltonian blocks (eq. 12) for the generalised
//! eigenproblem H c = E S c.
//!
//! **Sturmian** ([`Sturmian`]): one radial set S_nl per (electron, l) ("channel"), N functions given by
//! their values on the [`Grid`] (Nq Gauss-Legendre abscissas of [0, Rmax], Rmax, and Ns Simpson
//! points per interval, in the order of [`grid`]), their eigenvalues β_nl of eq. 9,
//!
//! ```text
//! [-1/2 d²/dr² + l(l+1)/(2r²) + U(r) - E_i] S_nl = -β_nl 𝒱(r) S_nl,          eq. 8-9 (hartree, bohr)
//! ```
//!
//! the generating potential 𝒱 at the abscissas, the central potential U the functions were
//! generated with ([`Central`]: -Z/r with the Z given to the assembly, the paper's choice; a
//! Coulomb potential -Z_c/r of the channel's own charge, as generated GSFs carry; or the caller's
//! values) and the energy E_i they were generated at (absent: the assembly's energy of that
//! electron). Values are in bohr^-1/2 (S/r is the radial function), potentials in hartree.
//! Real (`f64`) or complex (`Complex64`, scattering GSFs with complex β); every integral is
//! bilinear (no conjugation). The basis is uploaded once (to the device on the CUDA backend) and
//! every later call reuses it.
//!
//! **Hamiltonian block** h^{l'a l'b la lb} for a bra pair (l'a, l'b) and ket pair (la, lb), rows
//! (n'a, n'b) and columns (na, nb), eq. 12 for the eigenproblem (E moved to the right-hand side):
//!
//! ```text
//! h = δ_{l'a la} δ_{l'b lb} [ (-β_na 𝒱a + Wa + (Ea+Eb) Oa) ⊗ Ob + Oa ⊗ (-β_nb 𝒱b + Wb) ]
//!     + q12 Σ_l 4π/(2l+1) A^{LM}_{l'a l'b la lb l} R^{l'a l'b la lb l},
//! s = δ_{l'a la} δ_{l'b lb} Oa ⊗ Ob,
//! ```
//!
//! with O = I[1], 𝒱 = I[𝒱], W = I[-Z/r - U] (zero when U = -Z/r; (Z_c - Z) I[1/r] for a
//! Coulomb U = -Z_c/r) the one-electron matrices of eq. 19, β_n multiplying column n, E_a, E_b
//! the energies of the pair's two channels (each channel's own; the assembly's per electron for
//! a channel that carries none), Z the nuclear charge and q12 the product of the two particles'
//! charges (+1 for two electrons), in hartree. The bracket is eq. 9 used on the ket: with
//! (T_l + U - E_i) S_n = -β_n 𝒱 S_n, the one-electron Hamiltonian T_l - Z/r of eq. 1 has
//! <S_m|T_l - Z/r|S_n> = E_i O_mn - β_n 𝒱_mn + W_mn. That identity holds only for the U and E_i
//! the functions were generated with, which is why every channel carries them: functions
//! generated for one charge or energy are used correctly for another Hamiltonian, and channels
//! generated at different energies (per l, per electron) mix in one assembly.
//!
//! **Index order** ([`Order`]): `AFastest` numbers the rows (n'a, n'b) as n'a + N'a n'b and the
//! columns (na, nb) as na + Na nb (electron a's index runs fastest); `BFastest` as n'b + N'b n'a
//! and nb + Nb na. All matrices are column-major with a leading dimension.
//!
//! **Repulsion** (eqs. 21-24): R = I_b[g_a] + I_a[g_b], with the inner integrals
//! g(r_j) = r_j^l ∫_{r_j}^{Rmax} u^{-l-1} S' S du by Simpson's rule between adjacent points of
//! T = {r_1 … r_Nq, Rmax} (cumulative from Rmax, [`Grid::inner_weights`]) and the outer Gauss sum
//! as one matrix product per block: with M = N'a Na and N = N'b Nb,
//!
//! ```text
//! C (M x N) = [Ĝa | Qa] [Qb | Ĝb]^T,    Ĝ[(n',n), j] = Σ_l c_l g^l_{n'n}(r_j),  Q[(n',n), j] = w_j S_n'(r_j) S_n(r_j),
//! ```
//!
//! (c_l = q12 4π/(2l+1) A_l: the sum over l is taken before the product, since the Gauss sum is
//! linear, so a whole block costs one GEMM of inner dimension 2 Nq whatever the number of l),
//! then C[(n'a,na),(n'b,nb)] is permuted into the block's (n'a n'b) x (na nb) order.

pub mod angular;
mod cpu;
mod cuda;
mod exchange;
pub mod grid;
pub mod gsf;
pub mod solve;
mod spread;

pub use crate::math::scalar::Scalar;
pub use grid::Grid;

use crate::backend::{self, Backend, DeviceSet};
use crate::error::{Error, Result};
use crate::memory;
use std::sync::Arc;

/// Largest angular momentum l of a channel (and L of a Hamiltonian).
pub const MAX_L: u32 = 200;

/// Which electron a channel describes (a: r1, b: r2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Electron {
    A,
    B,
}

/// Index order of the two-electron basis (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Row (n'a, n'b) = n'a + N'a n'b.
    AFastest,
    /// Row (n'a, n'b) = n'b + N'b n'a.
    BFastest,
}

/// One (la, lb) pair of one-electron angular momenta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub la: u32,
    pub lb: u32,
}

/// A channel as the caller gives it.
#[derive(Clone, Copy, Debug)]
pub struct ChannelSpec<'a, T> {
    pub electron: Electron,
    /// Angular momentum l, in [0, MAX_L].
    pub l: u32,
    /// Number of functions N (>= 1).
    pub n: usize,
    /// Values S_n(p) at the grid's points, column-major `n_points x n` with leading dimension `ld`
    /// (bohr^-1/2), finite.
    pub values: &'a [T],
    pub ld: usize,
    /// β_n of eq. 9 (dimensionless), finite.
    pub beta: &'a [T],
    /// 𝒱(r_j) at the Nq abscissas (hartree), finite.
    pub generating: &'a [f64],
    /// The central potential U of eq. 8 the functions were generated with.
    pub central: Central<'a>,
    /// The energy E_i of eq. 8 they were generated at (hartree, finite); `None`: the assembly's
    /// [`HamiltonianSpec::energies`] entry of the channel's electron.
    pub energy: Option<f64>,
}

/// The central potential U(r) of eq. 8 a channel's functions solve eq. 9 with; the assembly
/// adds W = I[-Z/r - U] for its own nuclear charge Z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Central<'a> {
    /// U = -Z/r with the Z of each assembly (the paper's choice: W = 0).
    Nuclear,
    /// U = -Z_c/r with its own charge Z_c (finite), as [`gsf::generate`] makes them:
    /// W = (Z_c - Z) I[1/r] (I[U] = -Z_c I[1/r]), exactly zero when Z = Z_c.
    Coulomb(f64),
    /// U(r_j) at the Nq abscissas (hartree, finite): W = -Z I[1/r] - I[U].
    Values(&'a [f64]),
}

/// The one-electron matrices of a channel (eq. 19), N x N column-major: element (n', n) =
/// Σ_j w_j S_n'(r_j) f(r_j) S_n(r_j).
#[derive(Clone, Debug)]
pub struct OneElectron<T> {
    /// f = 1 (O of eq. 13, dimensionless).
    pub overlap: Vec<T>,
    /// f = 𝒱 (eq. 14, hartree).
    pub generating: Vec<T>,
    /// f = 1/r (bohr^-1).
    pub inverse_r: Vec<T>,
    /// f = U when the channel has a central potential of its own ([`Central::Coulomb`] or
    /// [`Central::Values`]; hartree).
    pub central: Option<Vec<T>>,
}

/// A channel's central potential as stored ([`Central`]).
#[derive(Clone, Debug, PartialEq)]
enum Potential {
    Nuclear,
    Coulomb(f64),
    Values(Vec<f64>),
}

/// A channel as stored.
pub(crate) struct Channel<T> {
    pub electron: Electron,
    pub l: u32,
    pub n: usize,
    /// `n_points x n`, packed column-major.
    pub values: Vec<T>,
    pub beta: Vec<T>,
    pub one: OneElectron<T>,
    /// 𝒱 at the abscissas.
    generating: Vec<f64>,
    central: Potential,
    energy: Option<f64>,
}

/// A channel read back ([`Sturmian::channel`]): what it was added with.
#[derive(Clone, Debug)]
pub struct ChannelData<'a, T> {
    /// Number of functions N.
    pub n: usize,
    /// S_n at the grid's points, `n_points x n` packed column-major (bohr^-1/2).
    pub values: &'a [T],
    /// β_n of eq. 9.
    pub beta: &'a [T],
    /// 𝒱 at the Nq abscissas (hartree).
    pub generating: &'a [f64],
    /// U at the Nq abscissas (hartree) when the channel carries one of its own (a Coulomb U
    /// tabulated as -Z_c/r_j); `None`: U = -Z/r of each assembly.
    pub central: Option<Vec<f64>>,
    /// The energy it was generated at (hartree); `None`: the assembly's.
    pub energy: Option<f64>,
}

/// Exchange symmetry of the two-electron basis ([`exchange`] module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// Product functions Φ_{(la,lb),(na,nb)} as they are (distinguishable particles, or
    /// identical ones whose symmetry the caller imposes).
    None,
    /// (1 + P12) Φ / √2: spatially symmetric, the spin singlet of two electrons.
    Symmetric,
    /// (1 - P12) Φ / √2: spatially antisymmetric, the spin triplet of two electrons.
    Antisymmetric,
}

impl Exchange {
    /// The sign s of (1 + s P12), if symmetrised.
    fn sign(self) -> Option<f64> {
        match self {
            Exchange::None => None,
            Exchange::Symmetric => Some(1.0),
            Exchange::Antisymmetric => Some(-1.0),
        }
    }
}

/// What a Hamiltonian is assembled for.
#[derive(Clone, Debug)]
pub struct HamiltonianSpec {
    /// Total angular momentum L and its projection M (|M| <= L).
    pub l_total: u32,
    pub m: i32,
    /// The (la, lb) pairs, distinct, each able to couple to L (|la - lb| <= L <= la + lb).
    pub pairs: Vec<Pair>,
    /// Energies E_a, E_b of eq. 8 (hartree, finite) of the channels of electron a and b that
    /// carry no energy of their own ([`ChannelSpec::energy`] `None`); a channel with one uses it.
    pub energies: [f64; 2],
    /// Nuclear charge Z of the Hamiltonian's -Z/r (the W term of the module docs, for channels
    /// whose central potential is not [`Central::Nuclear`]).
    pub nuclear_charge: f64,
    /// Product of the two particles' charges q12 (+1 for two electrons).
    pub interaction_charge: f64,
    /// Exchange symmetry of the basis. Symmetrised bases need the same channel (functions,
    /// β, potentials) for both electrons at every l of the pairs, and pairs given as la <= lb.
    pub exchange: Exchange,
}

/// Where a matrix goes: a host slice or device memory (CUDA backend only), column-major with a
/// leading dimension.
pub enum Target<'a, T> {
    Host {
        data: &'a mut [T],
        ld: usize,
    },
    /// `ptr`: a `CUdeviceptr` to `len` elements of T on the basis's device.
    Device {
        ptr: u64,
        len: usize,
        ld: usize,
    },
}

enum Engine<T: Scalar> {
    Cpu,
    Cuda(Box<cuda::Engine<T>>),
}

/// A basis handle: grid, channels, and their device copies.
pub struct Sturmian<T: Scalar> {
    grid: Arc<Grid>,
    channels: Vec<Channel<T>>,
    engine: Engine<T>,
    /// The other engines of [`Sturmian::new_on_devices`] (each with a copy of the channels).
    peers: Vec<Engine<T>>,
    /// The devices of `engine` and `peers`, in that order.
    devices: DeviceSet,
}

impl<T: Scalar> Sturmian<T> {
    /// An empty basis on the current backend ([`backend::current`]).
    pub fn new(grid: Grid) -> Result<Self> {
        Self::new_on(backend::current()?, grid)
    }

    /// An empty basis on `backend`.
    pub fn new_on(backend: Backend, grid: Grid) -> Result<Self> {
        Self::new_on_devices(grid, &DeviceSet::single(backend))
    }

    /// An empty basis whose Hamiltonians are assembled on every engine of `devices` at once (its
    /// GPUs, each holding a copy of the channels, or its CPU engines, one thread each). Only
    /// [`Sturmian::hamiltonian`] into host targets uses them all ([`spread`]); every other call runs
    /// on the set's first engine.
    pub fn new_on_devices(grid: Grid, devices: &DeviceSet) -> Result<Self> {
        let mut engines = Vec::new();
        for member in devices.members() {
            engines.push(match member {
                Backend::Cpu => Engine::Cpu,
                Backend::Cuda(device) => Engine::Cuda(Box::new(cuda::Engine::new(device.clone(), &grid)?)),
            });
        }
        let engine = engines.remove(0);
        Ok(Sturmian { grid: Arc::new(grid), channels: Vec::new(), engine, peers: engines, devices: devices.clone() })
    }

    /// Number of engines [`Sturmian::hamiltonian`] spreads its blocks over ([`Sturmian::new_on_devices`]).
    pub fn n_devices(&self) -> usize {
        1 + self.peers.len()
    }

    /// The devices of the basis, its first engine's first.
    pub fn devices(&self) -> &DeviceSet {
        &self.devices
    }

    /// The first engine, which runs every call but a spread [`Sturmian::hamiltonian`].
    fn main(&self) -> Member<'_, T> {
        Member { basis: self, engine: &self.engine }
    }

    /// Every engine, the first one first.
    fn members(&self) -> impl Iterator<Item = Member<'_, T>> {
        std::iter::once(&self.engine).chain(&self.peers).map(move |engine| Member { basis: self, engine })
    }

    /// `"cpu"` or `"cuda"`.
    pub fn backend_name(&self) -> &'static str {
        match self.engine {
            Engine::Cpu => "cpu",
            Engine::Cuda(_) => "cuda",
        }
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Adds (or replaces) the channel (electron, l): checks it, computes its one-electron
    /// matrices (eq. 19) and uploads it.
    pub fn add_channel(&mut self, spec: &ChannelSpec<'_, T>) -> Result<()> {
        let n_points = self.grid.n_points();
        let nq = self.grid.nq();
        if spec.l > MAX_L {
            return Err(Error::invalid("l", format!("must be in [0, {MAX_L}], got {}", spec.l)));
        }
        if spec.n == 0 {
            return Err(Error::invalid("n", "must be >= 1"));
        }
        if spec.ld < n_points {
            return Err(Error::invalid(
                "ld",
                format!("must be >= the grid's point count Nq + 1 + Nq Ns = {n_points}, got {}", spec.ld),
            ));
        }
        let span = spec
            .ld
            .checked_mul(spec.n - 1)
            .and_then(|x| x.checked_add(n_points))
            .ok_or_else(|| Error::invalid("n", "is too large"))?;
        if spec.values.len() < span {
            return Err(Error::invalid("values", format!("holds {} elements, {span} needed", spec.values.len())));
        }
        if spec.beta.len() < spec.n {
            return Err(Error::invalid("beta", format!("must hold n = {} values", spec.n)));
        }
        if spec.generating.len() < nq {
            return Err(Error::invalid("generating", format!("must hold Nq = {nq} values")));
        }
        let mut values = memory::with_capacity(
            "the channel's values",
            memory::elements::<T>("the channel's values", n_points, spec.n)?,
        )?;
        for col in 0..spec.n {
            for (p, &v) in spec.values[col * spec.ld..col * spec.ld + n_points].iter().enumerate() {
                if !v.finite() {
                    return Err(Error::invalid_at("values", col * spec.ld + p, format!("must be finite, got {v:?}")));
                }
                values.push(v);
            }
        }
        let beta = checked("beta", &spec.beta[..spec.n])?;
        let generating = checked("generating", &spec.generating[..nq])?;
        let central = match spec.central {
            Central::Nuclear => Potential::Nuclear,
            Central::Coulomb(charge) => {
                crate::error::require_finite("central", None, charge)?;
                Potential::Coulomb(charge)
            }
            Central::Values(u) if u.len() < nq => {
                return Err(Error::invalid("central", format!("must hold Nq = {nq} values")));
            }
            Central::Values(u) => Potential::Values(checked("central", &u[..nq])?),
        };
        if let Some(e) = spec.energy {
            crate::error::require_finite("energy", None, e)?;
        }
        let tabulated = match &central {
            Potential::Values(u) => Some(u.as_slice()),
            _ => None,
        };
        let mut one = cpu::one_electron(&self.grid, &values, spec.n, &generating, tabulated)?;
        if let Potential::Coulomb(charge) = central {
            one.central = Some(one.inverse_r.iter().map(|&x| x * (-charge)).collect());
        }
        let matrices = [&one.overlap, &one.generating, &one.inverse_r].into_iter().chain(one.central.as_ref());
        for m in matrices {
            if let Some(i) = m.iter().position(|v| !v.finite()) {
                return Err(Error::NotFinite {
                    name: "values",
                    index: Some(i),
                    detail: "a one-electron integral of the channel overflows: values or potentials too large".into(),
                });
            }
        }
        let channel = Channel {
            electron: spec.electron,
            l: spec.l,
            n: spec.n,
            values,
            beta,
            one,
            generating,
            central,
            energy: spec.energy,
        };
        let slot = self.channels.iter().position(|c| c.electron == spec.electron && c.l == spec.l);
        // Every engine's copy first, then installed everywhere: a failed upload changes nothing.
        let engines = || std::iter::once(&self.engine).chain(&self.peers);
        let copies = engines()
            .filter_map(|e| match e {
                Engine::Cuda(engine) => Some(engine.upload_channel(&channel)),
                Engine::Cpu => None,
            })
            .collect::<Result<Vec<_>>>()?;
        let cuda_engines = std::iter::once(&mut self.engine).chain(&mut self.peers).filter_map(|e| match e {
            Engine::Cuda(engine) => Some(engine),
            Engine::Cpu => None,
        });
        for (engine, copy) in cuda_engines.zip(copies) {
            engine.install_channel(slot.unwrap_or(self.channels.len()), copy);
        }
        match slot {
            Some(i) => self.channels[i] = channel,
            None => self.channels.push(channel),
        }
        Ok(())
    }

    /// Number of functions of channel (electron, l), if it exists.
    pub fn size(&self, electron: Electron, l: u32) -> Option<usize> {
        self.find(electron, l).ok().map(|i| self.channels[i].n)
    }

    fn find(&self, electron: Electron, l: u32) -> Result<usize> {
        let name = match electron {
            Electron::A => "la",
            Electron::B => "lb",
        };
        self.channels.iter().position(|c| c.electron == electron && c.l == l).ok_or_else(|| {
            Error::invalid(name, format!("names no channel of electron {electron:?} (l = {l} was not added)"))
        })
    }

    /// The one-electron matrices of channel (electron, l) (eq. 19).
    pub fn one_electron(&self, electron: Electron, l: u32) -> Result<OneElectron<T>> {
        Ok(self.channels[self.find(electron, l)?].one.clone())
    }

    /// Channel (electron, l) as it was added: values, β, potentials and energy.
    pub fn channel(&self, electron: Electron, l: u32) -> Result<ChannelData<'_, T>> {
        let c = &self.channels[self.find(electron, l)?];
        let central = match &c.central {
            Potential::Nuclear => None,
            Potential::Coulomb(charge) => Some(self.grid.abscissas().iter().map(|&r| -charge / r).collect()),
            Potential::Values(u) => Some(u.clone()),
        };
        Ok(ChannelData {
            n: c.n,
            values: &c.values,
            beta: &c.beta,
            generating: &c.generating,
            central,
            energy: c.energy,
        })
    }

    /// Rows (and columns) of the block of `pair`: N_a(la) N_b(lb).
    pub fn pair_size(&self, pair: Pair) -> Result<usize> {
        let (a, b) = self.pair_channels(pair)?;
        memory::elements::<T>("a pair's block", self.channels[a].n, self.channels[b].n)
    }

    fn pair_channels(&self, pair: Pair) -> Result<(usize, usize)> {
        Ok((self.find(Electron::A, pair.la)?, self.find(Electron::B, pair.lb)?))
    }

    /// The one-electron part of the diagonal block of `pair` and its overlap (module docs):
    /// `h` gets the bracket of eq. 12, `s` = Oa ⊗ Ob, each `size x size` with its leading dimension.
    /// `spec`'s L and M are checked as for [`Sturmian::hamiltonian`] (L in [0, MAX_L], |M| <= L), and
    /// `pair` must couple to L.
    pub fn one_electron_block(
        &self,
        pair: Pair,
        spec: &HamiltonianSpec,
        order: Order,
        h: Target<'_, T>,
        s: Target<'_, T>,
    ) -> Result<()> {
        let size = self.pair_size(pair)?;
        check_total_angular_momentum(spec)?;
        if !couples(pair, spec.l_total) {
            return Err(Error::invalid("pair", coupling_rule(pair, spec.l_total)));
        }
        self.check_target("h", &h, size, size)?;
        self.check_target("s", &s, size, size)?;
        let terms = self.diagonal_terms(pair, spec)?;
        self.main().write_kronecker(&terms.h, order, h)?;
        self.main().write_kronecker(&terms.s, order, s)
    }

    /// The radial repulsion block R^{l'a l'b la lb l} (eq. 15) for bra pair `bra`, ket pair `ket`
    /// and multipole `l` (bohr^-1), `N'a N'b x Na Nb` into `out`.
    pub fn repulsion(&self, bra: Pair, ket: Pair, l: u32, order: Order, out: Target<'_, T>) -> Result<()> {
        if l > 2 * MAX_L {
            return Err(Error::invalid("l", format!("must be in [0, {}], got {l}", 2 * MAX_L)));
        }
        let job = self.block_job(bra, ket, vec![(l, 1.0)])?;
        self.check_target("out", &out, job.rows(), job.cols())?;
        self.main().run_block(&job, order, None, out)
    }

    /// Size n of the Hamiltonian of `spec`: Σ_p N_a(la_p) N_b(lb_p), or the symmetrised
    /// counts of [`exchange`] with an exchange symmetry.
    pub fn hamiltonian_size(&self, spec: &HamiltonianSpec) -> Result<usize> {
        Ok(*self.layout(spec)?.offsets.last().unwrap())
    }

    /// Assembles the Hamiltonian H and overlap S of `spec` (module docs; with an exchange
    /// symmetry, in the symmetrised basis of [`exchange`]), both `n x n` with n =
    /// [`Sturmian::hamiltonian_size`], pair blocks in the order of `spec.pairs`. With both targets in
    /// host memory, the pair blocks are computed on all the basis's engines at once
    /// ([`Sturmian::new_on_devices`]), each GPU landing one block while it computes the next
    /// ([`spread`], also on one GPU), when every GPU has room for its work blocks; else one block
    /// after another on the first engine, in tiles that fit its memory.
    pub fn hamiltonian(
        &self,
        spec: &HamiltonianSpec,
        order: Order,
        mut h: Target<'_, T>,
        mut s: Target<'_, T>,
    ) -> Result<()> {
        let plan = self.plan(spec, order)?;
        let n = plan.size();
        self.check_target("h", &h, n, n)?;
        self.check_target("s", &s, n, n)?;
        if let (Target::Host { data: h, ld: ld_h }, Target::Host { data: s, ld: ld_s }) = (&mut h, &mut s) {
            if spread::suits(self, &plan)? {
                return spread::hamiltonian(self, spec, order, &plan, [(h, *ld_h), (s, *ld_s)]);
            }
        }
        let member = self.main();
        let mut tracker = crate::progress::Tracker::start(c"atomgpu_sturmian_hamiltonian");
        let total = plan.n_blocks() as f64;
        for (k, (pp, p)) in plan.blocks().enumerate() {
            let (r0, c0) = (plan.offsets[pp], plan.offsets[p]);
            member.pair_block(spec, order, &plan, pp, p, sub_target(&mut h, r0, c0), sub_target(&mut s, r0, c0))?;
            tracker.update((k + 1) as f64, total)?;
        }
        tracker.finish(total)
    }

    /// The layout of `spec`'s Hamiltonian and, with an exchange symmetry, its pairs' index maps.
    fn plan(&self, spec: &HamiltonianSpec, order: Order) -> Result<Plan> {
        let Layout { offsets } = self.layout(spec)?;
        let maps = match spec.exchange.sign() {
            Some(sign) => Some(
                spec.pairs
                    .iter()
                    .map(|p| {
                        let (a, b) = self.pair_channels(*p)?;
                        let (na, nb) = (self.channels[a].n, self.channels[b].n);
                        Ok(exchange::IndexMap::new(p.la, p.lb, na, nb, spec.l_total, sign, order))
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            None => None,
        };
        Ok(Plan { offsets, maps })
    }

    /// Checks `spec` against the basis (its channels first, then the spec's own rules) and places
    /// its pair blocks.
    fn layout(&self, spec: &HamiltonianSpec) -> Result<Layout> {
        let sizes = spec.pairs.iter().map(|&p| self.pair_size(p)).collect::<Result<Vec<_>>>()?;
        check_spec(spec)?;
        let sign = spec.exchange.sign();
        if sign.is_some() {
            self.check_identical_electrons(spec)?;
        }
        let mut offsets = vec![0usize];
        for (&pair, &direct) in spec.pairs.iter().zip(&sizes) {
            let size = match sign {
                Some(sign) => {
                    let (a, b) = self.pair_channels(pair)?;
                    let (na, nb) = (self.channels[a].n, self.channels[b].n);
                    exchange::pair_count(pair.la, pair.lb, na, nb, spec.l_total, sign)
                }
                None => direct,
            };
            let next = offsets
                .last()
                .unwrap()
                .checked_add(size)
                .ok_or_else(|| Error::invalid("pairs", "give a Hamiltonian too large"))?;
            offsets.push(next);
        }
        let n = *offsets.last().unwrap();
        if n == 0 {
            return Err(Error::invalid(
                "pairs",
                "give no functions of this exchange symmetry (each is a pair (l, l) whose functions all vanish)",
            ));
        }
        memory::elements::<T>("the Hamiltonian", n, n)
            .map_err(|_| Error::invalid("pairs", format!("give a Hamiltonian too large ({n} x {n})")))?;
        Ok(Layout { offsets })
    }

    /// An exchange-symmetrised basis needs, at every l of the pairs, the same channel for both
    /// electrons (values, β and one-electron matrices equal), and pairs given as la <= lb.
    fn check_identical_electrons(&self, spec: &HamiltonianSpec) -> Result<()> {
        for (i, p) in spec.pairs.iter().enumerate() {
            if p.la > p.lb {
                return Err(Error::invalid_at(
                    "pairs",
                    i,
                    format!(
                        "(la, lb) = ({}, {}): with an exchange symmetry give each pair once, as la <= lb",
                        p.la, p.lb
                    ),
                ));
            }
            for l in [p.la, p.lb] {
                let (a, b) = (&self.channels[self.find(Electron::A, l)?], &self.channels[self.find(Electron::B, l)?]);
                let same = a.n == b.n
                    && a.values == b.values
                    && a.beta == b.beta
                    && a.generating == b.generating
                    && a.central == b.central
                    && a.energy == b.energy;
                if !same {
                    return Err(Error::invalid(
                        "exchange",
                        format!(
                            "needs the same functions for both electrons, but channels (a, l = {l}) and (b, l = {l}) differ \
                             (values, beta, potentials or energy)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks that `target` holds a `rows x cols` matrix, and is host memory unless the basis
    /// lives on a GPU (checked before any work, so that a refused call writes nothing).
    fn check_target(&self, name: &'static str, target: &Target<'_, T>, rows: usize, cols: usize) -> Result<()> {
        let (len, ld) = match target {
            Target::Host { data, ld } => (data.len(), *ld),
            Target::Device { .. } if matches!(self.engine, Engine::Cpu) => {
                return Err(Error::invalid(name, "is device memory, which the CPU backend cannot write"));
            }
            Target::Device { len, ld, .. } => (*len, *ld),
        };
        let need = ld.checked_mul(cols.saturating_sub(1)).and_then(|x| x.checked_add(rows));
        if ld < rows || need.is_none_or(|n| n > len) {
            return Err(Error::invalid(
                name,
                format!("must hold a {rows} x {cols} matrix with its leading dimension (>= {rows}), got {len} elements with ld {ld}"),
            ));
        }
        Ok(())
    }

    /// The work of one block: channel indices and the couplings c_l.
    fn block_job(&self, bra: Pair, ket: Pair, couplings: Vec<(u32, f64)>) -> Result<BlockJob> {
        let (bra_a, bra_b) = self.pair_channels(bra)?;
        let (ket_a, ket_b) = self.pair_channels(ket)?;
        let c = &self.channels;
        let job =
            BlockJob { bra_a, bra_b, ket_a, ket_b, n: [c[bra_a].n, c[ket_a].n, c[bra_b].n, c[ket_b].n], couplings };
        memory::elements::<T>("a Hamiltonian block", job.rows(), job.cols())?;
        Ok(job)
    }

    /// The two Kronecker terms of a diagonal block and its overlap (module docs).
    fn diagonal_terms(&self, pair: Pair, spec: &HamiltonianSpec) -> Result<DiagonalTerms<T>> {
        check_spec_scalars(spec)?;
        let (a, b) = self.pair_channels(pair)?;
        let (ca, cb) = (&self.channels[a], &self.channels[b]);
        let z = spec.nuclear_charge;
        // -β_n 𝒱 (column n scaled) + W, W = -Z I[1/r] - I[U] when the channel has a U of its own
        // (a Coulomb one's I[U] is -Z_c I[1/r], the same products: W = 0 exactly when Z = Z_c).
        let potential = |c: &Channel<T>| -> Vec<T> {
            let mut m: Vec<T> = (0..c.n * c.n).map(|i| -(c.beta[i / c.n] * c.one.generating[i])).collect();
            if let Some(u) = &c.one.central {
                for i in 0..m.len() {
                    m[i] += c.one.inverse_r[i] * (-z) - u[i];
                }
            }
            m
        };
        // Each channel's own energy, else the assembly's for its electron.
        let energy = |c: &Channel<T>, i: usize| c.energy.unwrap_or(spec.energies[i]);
        let mut xa = potential(ca);
        let e = energy(ca, 0) + energy(cb, 1);
        for (x, &o) in xa.iter_mut().zip(&ca.one.overlap) {
            *x += o * e;
        }
        let yb = potential(cb);
        Ok(DiagonalTerms {
            h: Kronecker {
                na: ca.n,
                nb: cb.n,
                terms: vec![(xa, cb.one.overlap.clone()), (ca.one.overlap.clone(), yb)],
            },
            s: Kronecker { na: ca.n, nb: cb.n, terms: vec![(ca.one.overlap.clone(), cb.one.overlap.clone())] },
        })
    }
}

/// One engine of a basis, with the basis's channels: what computes a block (the basis's own
/// engine, or one of its peers on another GPU).
struct Member<'a, T: Scalar> {
    basis: &'a Sturmian<T>,
    engine: &'a Engine<T>,
}

impl<T: Scalar> Member<'_, T> {
    /// H and S block (bra `pp`, ket `p`) of `plan` into `h` and `s`.
    #[allow(clippy::too_many_arguments)]
    fn pair_block(
        &self,
        spec: &HamiltonianSpec,
        order: Order,
        plan: &Plan,
        pp: usize,
        p: usize,
        h: Target<'_, T>,
        s: Target<'_, T>,
    ) -> Result<()> {
        let (bra, ket) = (spec.pairs[pp], spec.pairs[p]);
        match &plan.maps {
            None => {
                self.direct_h(bra, ket, spec, order, h)?;
                self.direct_s(bra, ket, spec, order, s)
            }
            Some(maps) => self.symmetrised_block(bra, ket, spec, order, [&maps[pp], &maps[p]], h, s),
        }
    }

    /// The direct Hamiltonian block (bra, ket) of eq. 12 into `out`.
    fn direct_h(&self, bra: Pair, ket: Pair, spec: &HamiltonianSpec, order: Order, out: Target<'_, T>) -> Result<()> {
        let couplings = angular::multipoles(bra.la, bra.lb, ket.la, ket.lb)
            .map(|l| {
                let a = angular::legendre_coupling(spec.l_total, spec.m, bra.la, bra.lb, ket.la, ket.lb, l);
                (l, spec.interaction_charge * a)
            })
            .filter(|&(_, c)| c != 0.0)
            .collect::<Vec<_>>();
        let job = self.basis.block_job(bra, ket, couplings)?;
        let extra = if bra == ket { Some(self.basis.diagonal_terms(ket, spec)?.h) } else { None };
        self.run_block(&job, order, extra.as_ref(), out)
    }

    /// The direct overlap block (bra, ket) into `out`: Oa ⊗ Ob on the diagonal, else zeros.
    fn direct_s(&self, bra: Pair, ket: Pair, spec: &HamiltonianSpec, order: Order, out: Target<'_, T>) -> Result<()> {
        if bra == ket {
            self.write_kronecker(&self.basis.diagonal_terms(ket, spec)?.s, order, out)
        } else {
            self.write_kronecker(&Kronecker::zero(self.basis.pair_size(bra)?, self.basis.pair_size(ket)?), order, out)
        }
    }

    /// The symmetrised H and S blocks (bra, ket) ([`exchange`]), gathered from the direct blocks
    /// of (bra, ket) and (bra, swapped ket); `maps` = [rows, columns].
    #[allow(clippy::too_many_arguments)]
    fn symmetrised_block(
        &self,
        bra: Pair,
        ket: Pair,
        spec: &HamiltonianSpec,
        order: Order,
        maps: [&exchange::IndexMap; 2],
        h: Target<'_, T>,
        s: Target<'_, T>,
    ) -> Result<()> {
        let [rows, cols] = maps;
        if rows.len() == 0 || cols.len() == 0 {
            return Ok(());
        }
        let (dr, dc) = (self.basis.pair_size(bra)?, self.basis.pair_size(ket)?);
        let swapped = Pair { la: ket.lb, lb: ket.la };
        let mut d1 = self.work(dr, dc)?;
        self.direct_h(bra, ket, spec, order, d1.target(dr))?;
        let d2 = if swapped == ket {
            None
        } else {
            let mut d2 = self.work(dr, dc)?;
            self.direct_h(bra, swapped, spec, order, d2.target(dr))?;
            Some(d2)
        };
        self.gather(&d1, Some(d2.as_ref().unwrap_or(&d1)), dr, rows, cols, h)?;
        if bra != ket {
            // S_d(bra, ket) = 0, and S_d(bra, swapped ket) = 0 too: bra = (lb, la) with la < lb
            // is not a pair of a symmetrised basis.
            return self.write_kronecker(&Kronecker::zero(rows.len(), cols.len()), order, s);
        }
        self.direct_s(bra, ket, spec, order, d1.target(dr))?;
        let partner = if swapped == ket { Some(&d1) } else { None };
        self.gather(&d1, partner, dr, rows, cols, s)
    }

    /// A `rows x cols` work matrix on the basis's backend.
    fn work(&self, rows: usize, cols: usize) -> Result<Work<T>> {
        let len = memory::elements::<T>("an exchange work block", rows, cols)?;
        match self.engine {
            Engine::Cpu => Ok(Work::Host(memory::filled("an exchange work block", len, T::default())?)),
            Engine::Cuda(engine) => {
                let (buffer, ptr) = engine.buffer(len)?;
                Ok(Work::Device { _buffer: buffer, ptr, len })
            }
        }
    }

    /// Symmetrised block `out` from the direct blocks `d1` and `d2` (leading dimension `ld`).
    fn gather(
        &self,
        d1: &Work<T>,
        d2: Option<&Work<T>>,
        ld: usize,
        rows: &exchange::IndexMap,
        cols: &exchange::IndexMap,
        out: Target<'_, T>,
    ) -> Result<()> {
        match (self.engine, d1, out) {
            (Engine::Cpu, Work::Host(d1), Target::Host { data, ld: ld_out }) => {
                let d2 = d2.map(|w| match w {
                    Work::Host(v) => v.as_slice(),
                    Work::Device { .. } => unreachable!("work blocks live on the basis's backend"),
                });
                exchange::gather_host(d1, d2, ld, rows, cols, data, ld_out);
                Ok(())
            }
            (Engine::Cuda(engine), Work::Device { ptr, .. }, out) => {
                let d2 = d2.map(|w| match w {
                    Work::Device { ptr, .. } => *ptr,
                    Work::Host(_) => unreachable!("work blocks live on the basis's backend"),
                });
                engine.gather(*ptr, d2, ld, rows, cols, out)
            }
            _ => Err(Error::Internal("an exchange work block on the wrong backend".into())),
        }
    }

    /// The repulsion block of `job`, plus the one-electron terms `extra` of a diagonal block.
    fn run_block(
        &self,
        job: &BlockJob,
        order: Order,
        extra: Option<&Kronecker<T>>,
        mut out: Target<'_, T>,
    ) -> Result<()> {
        match self.engine {
            Engine::Cpu => {
                cpu::block(&self.basis.grid, &self.basis.channels, job, order, sub_target(&mut out, 0, 0))?;
                match extra {
                    Some(k) => cpu::kronecker(k, order, out, true),
                    None => Ok(()),
                }
            }
            Engine::Cuda(engine) => engine.block(job, order, extra, out),
        }
    }

    fn write_kronecker(&self, k: &Kronecker<T>, order: Order, out: Target<'_, T>) -> Result<()> {
        match self.engine {
            Engine::Cpu => cpu::kronecker(k, order, out, false),
            Engine::Cuda(engine) => engine.kronecker(k, order, out),
        }
    }
}

/// Σ_t A_t ⊗ B_t for square A_t (na x na) and B_t (nb x nb), written in a block's order
/// (element ((n'a,n'b),(na,nb)) = Σ_t A_t[n'a,na] B_t[n'b,nb]); no terms: zeros.
pub(crate) struct Kronecker<T> {
    pub na: usize,
    pub nb: usize,
    pub terms: Vec<(Vec<T>, Vec<T>)>,
}

impl<T> Kronecker<T> {
    /// A zero `rows x cols` block (the overlap's off-diagonal blocks): with no terms, `na` and
    /// `nb` are the row and column counts.
    fn zero(rows: usize, cols: usize) -> Self {
        Kronecker { na: rows, nb: cols, terms: Vec::new() }
    }

    pub fn rows(&self) -> usize {
        if self.terms.is_empty() {
            self.na
        } else {
            self.na * self.nb
        }
    }

    pub fn cols(&self) -> usize {
        if self.terms.is_empty() {
            self.nb
        } else {
            self.na * self.nb
        }
    }
}

/// Row/column offsets of the pair blocks of a Hamiltonian (the last is its size).
struct Layout {
    offsets: Vec<usize>,
}

/// A Hamiltonian's assembly: its pair blocks' offsets (the last is its size) and, with an
/// exchange symmetry, each pair's index map.
struct Plan {
    offsets: Vec<usize>,
    maps: Option<Vec<exchange::IndexMap>>,
}

impl Plan {
    fn size(&self) -> usize {
        *self.offsets.last().unwrap()
    }

    fn n_blocks(&self) -> usize {
        (self.offsets.len() - 1).pow(2)
    }

    /// The pair blocks (bra, ket), bras fastest.
    fn blocks(&self) -> impl Iterator<Item = (usize, usize)> {
        let n = self.offsets.len() - 1;
        (0..n * n).map(move |k| (k % n, k / n))
    }

    /// Elements of the largest pair block.
    fn largest_block(&self) -> usize {
        self.blocks().map(|(pp, p)| self.extent(pp).1 * self.extent(p).1).max().unwrap_or(0)
    }

    /// First row (column) and row (column) count of pair `p`'s blocks.
    fn extent(&self, p: usize) -> (usize, usize) {
        (self.offsets[p], self.offsets[p + 1] - self.offsets[p])
    }
}

/// A work matrix of a symmetrised block: host memory, or a device buffer of `len` elements
/// of T at `ptr`.
enum Work<T> {
    Host(Vec<T>),
    Device { _buffer: cudarc::driver::CudaSlice<f64>, ptr: u64, len: usize },
}

impl<T: Scalar> Work<T> {
    /// The whole matrix as a target with leading dimension `rows`.
    fn target(&mut self, rows: usize) -> Target<'_, T> {
        match self {
            Work::Host(v) => Target::Host { data: v, ld: rows },
            Work::Device { ptr, len, .. } => Target::Device { ptr: *ptr, len: *len, ld: rows },
        }
    }
}

pub(crate) struct DiagonalTerms<T> {
    pub h: Kronecker<T>,
    pub s: Kronecker<T>,
}

/// One repulsion block: bra channels (bra_a, bra_b), ket channels (ket_a, ket_b), sizes
/// n = [N'a, Na, N'b, Nb], and the couplings (l, c_l).
pub(crate) struct BlockJob {
    pub bra_a: usize,
    pub bra_b: usize,
    pub ket_a: usize,
    pub ket_b: usize,
    pub n: [usize; 4],
    pub couplings: Vec<(u32, f64)>,
}

impl BlockJob {
    /// N'a N'b.
    pub fn rows(&self) -> usize {
        self.n[0] * self.n[2]
    }
    /// Na Nb.
    pub fn cols(&self) -> usize {
        self.n[1] * self.n[3]
    }
    /// M = N'a Na (rows of C).
    pub fn m(&self) -> usize {
        self.n[0] * self.n[1]
    }
    /// N = N'b Nb (columns of C).
    pub fn n(&self) -> usize {
        self.n[2] * self.n[3]
    }
    /// The ket index tiled over (the slower one of the column order) and its count:
    /// nb for `AFastest`, na for `BFastest`.
    pub fn slow_count(&self, order: Order) -> usize {
        match order {
            Order::AFastest => self.n[3],
            Order::BFastest => self.n[1],
        }
    }
}

/// Row of element (ia, ib) of a two-electron index with sizes (na, nb) in `order`.
pub(crate) fn pair_index(order: Order, ia: usize, ib: usize, na: usize, nb: usize) -> usize {
    match order {
        Order::AFastest => ia + na * ib,
        Order::BFastest => ib + nb * ia,
    }
}

fn checked<V: Scalar>(name: &'static str, values: &[V]) -> Result<Vec<V>> {
    if let Some(i) = values.iter().position(|v| !v.finite()) {
        return Err(Error::invalid_at(name, i, format!("must be finite, got {:?}", values[i])));
    }
    memory::copy_of(name, values)
}

fn check_spec_scalars(spec: &HamiltonianSpec) -> Result<()> {
    for (i, &e) in spec.energies.iter().enumerate() {
        crate::error::require_finite("energies", Some(i), e)?;
    }
    crate::error::require_finite("nuclear_charge", None, spec.nuclear_charge)?;
    crate::error::require_finite("interaction_charge", None, spec.interaction_charge)
}

/// L in [0, MAX_L] and |M| <= L (an M of i32::MIN, whose magnitude exceeds every L, included).
fn check_total_angular_momentum(spec: &HamiltonianSpec) -> Result<()> {
    if spec.l_total > MAX_L {
        return Err(Error::invalid("l_total", format!("must be in [0, {MAX_L}], got {}", spec.l_total)));
    }
    if spec.m.unsigned_abs() > spec.l_total {
        return Err(Error::invalid("m", format!("must satisfy |m| <= L = {}, got {}", spec.l_total, spec.m)));
    }
    Ok(())
}

/// Whether `pair` couples to `l_total`: |la - lb| <= L <= la + lb.
fn couples(pair: Pair, l_total: u32) -> bool {
    pair.la.abs_diff(pair.lb) <= l_total && l_total <= pair.la + pair.lb
}

fn coupling_rule(pair: Pair, l_total: u32) -> String {
    format!("(la, lb) = ({}, {}) cannot couple to L = {l_total} (|la - lb| <= L <= la + lb)", pair.la, pair.lb)
}

fn check_spec(spec: &HamiltonianSpec) -> Result<()> {
    check_spec_scalars(spec)?;
    check_total_angular_momentum(spec)?;
    if spec.pairs.is_empty() {
        return Err(Error::invalid("pairs", "must hold at least one (la, lb) pair"));
    }
    for (i, p) in spec.pairs.iter().enumerate() {
        if !couples(*p, spec.l_total) {
            return Err(Error::invalid_at("pairs", i, coupling_rule(*p, spec.l_total)));
        }
        if spec.pairs[..i].contains(p) {
            return Err(Error::invalid_at("pairs", i, format!("(la, lb) = ({}, {}) appears twice", p.la, p.lb)));
        }
    }
    Ok(())
}

/// The part of `target` from row `r0` and column `c0` on.
fn sub_target<'b, T>(target: &'b mut Target<'_, T>, r0: usize, c0: usize) -> Target<'b, T> {
    match target {
        Target::Host { data, ld } => Target::Host { data: &mut data[r0 + *ld * c0..], ld: *ld },
        Target::Device { ptr, len, ld } => {
            let skip = r0 + *ld * c0;
            Target::Device { ptr: *ptr + (skip * std::mem::size_of::<T>()) as u64, len: *len - skip, ld: *ld }
        }
    }
}
